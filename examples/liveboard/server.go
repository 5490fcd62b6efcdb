package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/kuisboard/kuis"
)

// server holds the quiz's handles; each request gets its own context from
// net/http, canceled when the client goes away or the server shuts down.
type server struct {
	meta  *kuis.Meta
	board *kuis.Board
	every time.Duration
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	files := static()
	mux.Handle("GET /", files) // index.html, me.html, app.js, style.css
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/me.html"
		files.ServeHTTP(w, r2)
	})
	mux.HandleFunc("GET /board/stream", s.boardStream)
	mux.HandleFunc("GET /me/stream", s.meStream)
	mux.HandleFunc("GET /events", s.events)
	return mux
}

// row is one line of the projected board.
type row struct {
	kuis.Standing
	Move string `json:"move"` // "up", "down", "new" or "" since the last refresh
}

// boardView is one refresh of the projector page.
type boardView struct {
	Title    string `json:"title"`
	Status   string `json:"status"`
	Finished bool   `json:"finished"`
	Top      []row  `json:"top"`
}

// boardStream sends the top 10 as Board.Live yields it, each with its
// movement since the previous refresh, until the quiz is finished.
func (s *server) boardStream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	info, err := s.meta.Get(ctx)
	if err != nil {
		httpError(w, err)
		return
	}
	sse, ok := startSSE(w)
	if !ok {
		return
	}
	prev := map[string]int{}
	var rows []row
	for top, err := range s.board.Live(ctx, 10, s.every) {
		if err != nil {
			sse.fail(ctx, err)
			return
		}
		rows = make([]row, len(top))
		for i, st := range top {
			rows[i] = row{Standing: st, Move: move(prev, st)}
		}
		prev = make(map[string]int, len(top))
		for _, st := range top {
			prev[st.Participant] = st.Rank
		}
		if err := sse.send("", "board", boardView{Title: info.Title, Status: "running", Top: rows}); err != nil {
			return
		}
	}
	// Live ended by itself: the quiz is finished and rows is the final board.
	_ = sse.send("", "board", boardView{Title: info.Title, Status: "finished", Finished: true, Top: rows})
}

// move compares a standing with the rank its participant had before.
func move(prev map[string]int, st kuis.Standing) string {
	was, ok := prev[st.Participant]
	switch {
	case len(prev) == 0:
		return ""
	case !ok:
		return "new"
	case st.Rank < was:
		return "up"
	case st.Rank > was:
		return "down"
	}
	return ""
}

// meView is one refresh of a student's page.
type meView struct {
	Name     string          `json:"name"`
	OnBoard  bool            `json:"on_board"`
	Me       kuis.Standing   `json:"me"`
	Around   []kuis.Standing `json:"around"`
	Finished bool            `json:"finished"`
}

// meStream sends a student's standing and neighbours whenever the board
// changes: Board.Live (top 1) is the change signal, at most once per every.
func (s *server) meStream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.URL.Query().Get("name")
	if _, err := s.standing(ctx, name); err != nil {
		httpError(w, err) // a bad name is refused before the stream starts
		return
	}
	sse, ok := startSSE(w)
	if !ok {
		return
	}
	for _, err := range s.board.Live(ctx, 1, s.every) {
		if err != nil {
			sse.fail(ctx, err)
			return
		}
		v, err := s.standing(ctx, name)
		if err != nil {
			sse.fail(ctx, err)
			return
		}
		if err := sse.send("", "me", v); err != nil {
			return
		}
	}
	v, err := s.standing(ctx, name)
	if err != nil {
		sse.fail(ctx, err)
		return
	}
	v.Finished = true
	_ = sse.send("", "me", v)
}

// standing reads a student's view; not being on the board yet is a view, not
// an error.
func (s *server) standing(ctx context.Context, name string) (meView, error) {
	v := meView{Name: name}
	me, err := s.board.Standing(ctx, name)
	if errors.Is(err, kuis.ErrNotOnBoard) {
		return v, nil
	}
	if err != nil {
		return v, err
	}
	around, err := s.board.Around(ctx, name, 2)
	if err != nil && !errors.Is(err, kuis.ErrNotOnBoard) {
		return v, err
	}
	v.OnBoard, v.Me, v.Around = true, me, around
	return v, nil
}

// events relays the quiz's feed. A browser's EventSource resumes with the
// Last-Event-ID header; ?after=<id> does the same by hand.
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	after := r.Header.Get("Last-Event-ID")
	if after == "" {
		after = r.URL.Query().Get("after")
	}
	sse, ok := startSSE(w)
	if !ok {
		return
	}
	for ev, err := range s.board.Events(ctx, after) {
		if err != nil {
			sse.fail(ctx, err)
			return
		}
		if err := sse.send(ev.ID, string(ev.Kind), ev); err != nil {
			return
		}
	}
}

// httpError is the one place errors become HTTP statuses.
func httpError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, kuis.ErrInvalidParticipant), errors.Is(err, kuis.ErrInvalidRange):
		code = http.StatusBadRequest
	case errors.Is(err, kuis.ErrQuizNotFound), errors.Is(err, kuis.ErrNotOnBoard):
		code = http.StatusNotFound
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = http.StatusServiceUnavailable
	}
	if code == http.StatusInternalServerError {
		log.Print(err)
	}
	http.Error(w, err.Error(), code)
}

// sse writes one Server-Sent Events stream.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startSSE sends the stream's headers; false if the connection cannot stream.
func startSSE(w http.ResponseWriter) (*sse, bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, rc: http.NewResponseController(w)}
	return s, s.rc.Flush() == nil
}

// send writes one event (id may be empty) with v as JSON, and flushes it.
func (s *sse) send(id, event string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if id != "" {
		if _, err := fmt.Fprintf(s.w, "id: %s\n", id); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return err
	}
	return s.rc.Flush()
}

// fail ends a stream that had started: the client is told, unless it is the
// one who left.
func (s *sse) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	log.Print(err)
	_ = s.send("", "failure", map[string]string{"error": err.Error()})
}
