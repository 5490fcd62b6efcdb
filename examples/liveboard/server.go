package main

import (
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"fmt"
	"iter"
	"log"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis"
)

// server serves one quiz's pages and streams. Each request gets its own
// context from net/http, canceled when the client goes away or the server
// shuts down, and every stream ends with it.
type server struct {
	board *kuis.Board
	meta  *kuis.Meta    // the quiz's meta, read for the visibility the teacher set (Info.Visibility)
	every time.Duration // Board.Live's interval, and how often a stream looks for a new visibility
	class *kuis.Class   // the class the quiz names (Info.Class), whose absentees the projector lists; nil: none
	// secret, when set (-pseudonyms), makes the projector show every name as
	// its kuis.Pseudonym, and each student's page their own alias.
	secret []byte
}

// errHidden refuses the raw feed while it would show what the projector
// may not: scores of a hidden board, or names behind pseudonyms.
var errHidden = errors.New("the teacher hides the board")

// label is a name as the projector shows it: its pseudonym with -pseudonyms.
func (s *server) label(name string) string {
	if s.secret == nil {
		return name
	}
	return kuis.Pseudonym(s.secret, name)
}

// live is Board.Live(top, every), plus a value whenever the visibility the
// teacher set changes (looked for once per every): a meta change is no
// change of the board, and the pages must follow it without a reload. The
// added value repeats Live's last one.
func (s *server) live(ctx context.Context, top int) iter.Seq2[[]kuis.Standing, error] {
	return func(yield func([]kuis.Standing, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type result struct {
			top []kuis.Standing
			err error
		}
		results := make(chan result)
		go func() {
			defer close(results)
			for v, err := range s.board.Live(ctx, top, s.every) {
				select {
				case results <- result{v, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
		ticker := time.NewTicker(s.every)
		defer ticker.Stop()
		var last result
		started := false // Live yielded: its first value comes before any of ours
		var seen kuis.Visibility
		for {
			select {
			case r, ok := <-results:
				if !ok {
					return
				}
				// The visibility is read before the page is: a change made while
				// the page reads it, or right after, is seen at the next tick.
				if info, err := s.meta.Get(ctx); err == nil {
					seen = info.Visibility
				}
				last, started = r, true
				if !yield(r.top, r.err) || r.err != nil {
					return
				}
			case <-ticker.C:
				if !started {
					continue
				}
				info, err := s.meta.Get(ctx)
				if err != nil || info.Visibility == seen {
					continue // a failed look is tried again at the next tick; the next refresh reports it
				}
				seen = info.Visibility
				if !yield(last.top, nil) {
					return
				}
			}
		}
	}
}

// stats is the Store whose counters /debug/vars publishes, as "kuis".
var stats atomic.Pointer[kuis.Store]

func init() {
	expvar.Publish("kuis", expvar.Func(func() any {
		if s := stats.Load(); s != nil {
			return s.Stats()
		}
		return nil
	}))
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
	mux.HandleFunc("POST /join", s.join)
	mux.HandleFunc("GET /events", s.events)
	mux.Handle("GET /debug/vars", expvar.Handler()) // Store.Stats for an operator's dashboard
	return mux
}

// boardView is one refresh of the projector page.
type boardView struct {
	kuis.Summary                 // title, questions, status, participants, answers
	Finished     bool            `json:"finished"`
	Join         string          `json:"join"` // the address a student opens, their name appended
	Rows         []kuis.Standing `json:"rows"` // the top 10; the whole board once finished
	// Absent are the names of the class's enrolled students not on the
	// board, in the roster's order; nil (left out) when the quiz names no
	// class.
	Absent []string `json:"absent,omitempty"`
	// Visibility is the teacher's (Info.Visibility). Hidden is true while it
	// keeps the standings off the projector (Visibility.ShowsBoard): Rows is
	// empty then, and Joined lists who is on the board, in alphabetical
	// order, so that no order tells a rank.
	Visibility kuis.Visibility `json:"visibility"`
	Hidden     bool            `json:"hidden"`
	Joined     []string        `json:"joined,omitempty"`
	// Pseudonyms is true with -pseudonyms: every name above is an alias.
	Pseudonyms bool `json:"pseudonyms"`
}

// boardStream sends the progress and the top 10 whenever the quiz or its
// visibility changes, at most once per every, then the whole final board.
// While the visibility hides the board it sends the progress and who joined
// instead of standings; with -pseudonyms every name is an alias.
func (s *server) boardStream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// The host the page was served from: the one the class can reach.
	join := "http://" + r.Host + "/me?name="
	stream(w, r, s.live(ctx, 10), func(top []kuis.Standing) (event, error) {
		info, err := s.meta.Get(ctx)
		if err != nil {
			return event{}, err
		}
		sum, err := s.board.Summary(ctx)
		if err != nil {
			return event{}, err
		}
		v := boardView{Summary: sum, Finished: sum.Status == kuis.StatusFinished, Join: join, Rows: top,
			Visibility: info.Visibility, Hidden: !info.Visibility.ShowsBoard(sum.Status), Pseudonyms: s.secret != nil}
		var whole []kuis.Standing
		if v.Finished || v.Hidden || s.class != nil {
			if whole, err = s.board.Standings(ctx); err != nil {
				return event{}, err
			}
		}
		if v.Finished { // no answer can change it any more: the podium and everyone below
			v.Rows = whole
		}
		if s.class != nil {
			if v.Absent, err = s.absent(ctx, whole); err != nil {
				return event{}, err
			}
			for i, n := range v.Absent {
				v.Absent[i] = s.label(n)
			}
		}
		if v.Hidden {
			v.Rows, v.Joined = []kuis.Standing{}, make([]string, len(whole))
			for i, st := range whole {
				v.Joined[i] = s.label(st.Participant)
			}
			slices.Sort(v.Joined)
		}
		v.Rows = slices.Clone(v.Rows)
		for i := range v.Rows {
			v.Rows[i].Participant = s.label(v.Rows[i].Participant)
		}
		return event{name: "board", data: v}, nil
	})
}

// absent are the names of the class's students whom board, the whole
// board, lacks, in the roster's order: never nil.
func (s *server) absent(ctx context.Context, board []kuis.Standing) ([]string, error) {
	roster, err := s.class.Students(ctx)
	if err != nil {
		return nil, err
	}
	here := make(map[string]bool, len(board))
	for _, st := range board {
		here[st.Participant] = true
	}
	out := []string{}
	for _, st := range roster {
		if !here[st.Name] {
			out = append(out, st.Name)
		}
	}
	return out, nil
}

// join puts the student ?name= on the board with 0 points (Board.Join), as
// their page opens, so that the projector shows who is in before the first
// question, and answers their standing as JSON. A name CleanParticipant
// refuses is 400; a finished quiz that does not have them is 409.
func (s *server) join(w http.ResponseWriter, r *http.Request) {
	name, err := kuis.CleanParticipant(r.URL.Query().Get("name"))
	if err != nil {
		httpError(w, err)
		return
	}
	st, err := s.board.Join(r.Context(), name)
	if err != nil {
		httpError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(st)
}

// meView is one refresh of a student's page.
type meView struct {
	Title    string `json:"title"`
	Name     string `json:"name"`     // as the board holds it (CleanParticipant)
	Rank     int    `json:"rank"`     // competition rank; 0 while not on the board
	Of       int64  `json:"of"`       // participants on the board
	Score    int64  `json:"score"`    // points
	Answered []int  `json:"answered"` // the questions answered correctly, ascending
	Finished bool   `json:"finished"`
	// Hidden is true while the teacher's visibility hides the board: Rank
	// is 0 then, and the student sees their own score only.
	Hidden bool `json:"hidden,omitempty"`
	// Alias is the student's pseudonym, with -pseudonyms: what the
	// projector shows for them, beside their name on their own page.
	Alias string `json:"alias,omitempty"`
}

// meStream sends a student's view whenever the quiz or its visibility
// changes: Board.Live (its top 1) is only the signal, at most once per
// every. A name that CleanParticipant refuses is answered 400 before the
// stream starts.
func (s *server) meStream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name, err := kuis.CleanParticipant(r.URL.Query().Get("name"))
	if err != nil {
		httpError(w, err)
		return
	}
	stream(w, r, s.live(ctx, 1), func([]kuis.Standing) (event, error) {
		v, err := s.me(ctx, name)
		return event{name: "me", data: v}, err
	})
}

// me reads a student's view. Standing comes before Summary, so that the
// rank is never above the number of participants; the visibility is read
// with Summary, and a rank read under another is dropped when it hides it.
func (s *server) me(ctx context.Context, name string) (meView, error) {
	v := meView{Name: name}
	if s.secret != nil {
		v.Alias = kuis.Pseudonym(s.secret, name)
	}
	st, err := s.board.Standing(ctx, name)
	switch {
	case errors.Is(err, kuis.ErrNotOnBoard): // no correct answer yet: a view, not an error
	case err != nil:
		return v, err
	default:
		v.Rank, v.Score = st.CompetitionRank, st.Score
	}
	if v.Answered, err = s.board.Answered(ctx, name); err != nil {
		return v, err
	}
	sum, err := s.board.Summary(ctx)
	if err != nil {
		return v, err
	}
	v.Title, v.Of, v.Finished = sum.Title, sum.Participants, sum.Status == kuis.StatusFinished
	info, err := s.meta.Get(ctx)
	if err != nil {
		return v, err
	}
	if v.Hidden = !info.Visibility.ShowsBoard(sum.Status); v.Hidden {
		v.Rank = 0
	}
	return v, nil
}

// events relays the quiz's feed. A browser's EventSource resumes with the
// Last-Event-ID header; ?after=<id> does the same by hand. The feed names
// every participant with their score, so it is refused (403) with
// -pseudonyms, and while the visibility hides the board: checked before it
// starts and at each event, which ends the stream once the board is hidden.
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	after := r.Header.Get("Last-Event-ID")
	if after == "" {
		after = r.URL.Query().Get("after")
	}
	if err := s.feedShown(ctx); err != nil {
		httpError(w, err)
		return
	}
	stream(w, r, s.board.Events(ctx, after), func(ev kuis.Event) (event, error) {
		if err := s.feedShown(ctx); err != nil {
			return event{}, err
		}
		return event{id: ev.ID, name: string(ev.Kind), data: ev}, nil
	})
}

// feedShown is nil when the raw feed may be shown: no pseudonyms, and a
// visibility that shows the board now; otherwise errHidden, or Get's error.
func (s *server) feedShown(ctx context.Context) error {
	if s.secret != nil {
		return fmt.Errorf("%w: the board shows pseudonyms", errHidden)
	}
	info, err := s.meta.Get(ctx)
	if err != nil {
		return err
	}
	if !info.Visibility.ShowsBoard(info.Status) {
		return fmt.Errorf("%w (tampilan %s)", errHidden, info.Visibility)
	}
	return nil
}

// event is one Server-Sent Event: an ID (may be empty), a name, and data
// sent as JSON.
type event struct {
	id, name string
	data     any
}

// stream sends feed as Server-Sent Events, one per value, made by toEvent.
// The feed's first value is pulled before any header is written: Board.Live
// and Board.Events yield a missing quiz or a bad argument first, before any
// blocking read, so the client gets an honest status (404, 400) rather than
// a 200 and an error event; on a quiz with nothing logged yet, Events' first
// value is its first answer, and the headers wait for it. A later error ends
// the stream with a "failure" event, unless the client is the one who left.
func stream[V any](w http.ResponseWriter, r *http.Request, feed iter.Seq2[V, error], toEvent func(V) (event, error)) {
	next, stop := iter.Pull2(feed)
	defer stop()
	v, err, ok := next()
	if ok && err != nil {
		httpError(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	for ; ok; v, err, ok = next() {
		var e event
		if err == nil {
			e, err = toEvent(v)
		}
		if err != nil {
			if r.Context().Err() == nil {
				log.Print(err)
				_ = send(w, rc, event{name: "failure", data: map[string]string{"error": err.Error()}})
			}
			return
		}
		if send(w, rc, e) != nil {
			return
		}
	}
}

// send writes one event and flushes it.
func send(w http.ResponseWriter, rc *http.ResponseController, e event) error {
	data, err := json.Marshal(e.data)
	if err != nil {
		return err
	}
	if e.id != "" {
		if _, err := fmt.Fprintf(w, "id: %s\n", e.id); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, data); err != nil {
		return err
	}
	return rc.Flush()
}

// httpError is the one place errors become HTTP statuses.
func httpError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, kuis.ErrInvalidParticipant), errors.Is(err, kuis.ErrInvalidRange):
		code = http.StatusBadRequest
	case errors.Is(err, kuis.ErrQuizNotFound):
		code = http.StatusNotFound
	case errors.Is(err, kuis.ErrQuizFinished):
		code = http.StatusConflict
	case errors.Is(err, errHidden):
		code = http.StatusForbidden
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = http.StatusServiceUnavailable
	}
	if code == http.StatusInternalServerError {
		log.Print(err)
	}
	http.Error(w, err.Error(), code)
}
