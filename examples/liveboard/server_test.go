package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// sseEvent is one Server-Sent Event as a browser's EventSource sees it.
type sseEvent struct{ id, event, data string }

// readSSE reads events from resp until it ends or stop says so.
func readSSE(t *testing.T, resp *http.Response, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			out = append(out, cur)
			if stop(cur) {
				return out
			}
			cur = sseEvent{}
			continue
		}
		name, value, _ := strings.Cut(line, ": ")
		switch name {
		case "id":
			cur.id = value
		case "event":
			cur.event = value
		case "data":
			cur.data = value
		}
	}
	return out
}

// testClient is a client of REDIS_CLUSTER_ADDRS (a Redis Cluster, its nodes
// comma-separated), else of REDIS_ADDR (a standalone Redis), else of an
// in-process miniredis, closed at cleanup.
func testClient(t *testing.T) rueidis.Client {
	t.Helper()
	var opt rueidis.ClientOption
	switch nodes, addr := os.Getenv("REDIS_CLUSTER_ADDRS"), os.Getenv("REDIS_ADDR"); {
	case nodes != "":
		opt = rueidis.ClientOption{InitAddress: strings.Split(nodes, ",")}
	case addr != "":
		opt = rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true}
	default:
		// miniredis has no CLIENT TRACKING and fakes a one-node cluster.
		opt = rueidis.ClientOption{InitAddress: []string{miniredis.RunT(t).Addr()}, DisableCache: true, ForceSingleClient: true}
	}
	client, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close) // before miniredis stops: cleanups run last first
	return client
}

// tick waits until the server's clock shows a later millisecond than when it
// was called, so that the next answer's time differs from the last one's and
// the order of equal scores (TiesByTime) is the order of the test's answers.
func tick(t *testing.T, client rueidis.Client) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	// now is the server's clock in ms. On a cluster TIME goes to any node the
	// client knows, one of which may be gone (another package's test adds and
	// removes nodes): a failed TIME is asked again until the deadline.
	now := func() int64 {
		for {
			tm, err := client.Do(context.Background(), client.B().Time().Build()).AsIntSlice()
			if err == nil && len(tm) == 2 {
				return tm[0]*1000 + tm[1]/1000 // seconds and microseconds
			}
			if time.Now().After(deadline) {
				t.Fatalf("TIME: %v %v", tm, err)
			}
		}
	}
	start := now()
	for now() == start {
		if time.Now().After(deadline) {
			t.Fatal("the server's clock did not move in 5 s")
		}
	}
}

// testServer serves a new quiz of the reference session's first two rounds,
// in a namespace of the test's own, through the example's own Store (equal
// scores by time). It returns the store too, for a server of a quiz that
// does not exist.
func testServer(t *testing.T) (*httptest.Server, *kuis.Store, *kuis.Meta, *kuis.Board) {
	t.Helper()
	client := testClient(t)
	store, err := newStore(client, kuis.WithNamespace("live"+rand.Text()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = store.Purge(context.Background()) })
	meta, err := store.Meta("kuis-live")
	if err != nil {
		t.Fatal(err)
	}
	board, err := store.Board("kuis-live")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		name string
		q    int
	}{{"Ali", 1}, {"Citra", 1}, {"Ali", 2}, {"Budi", 2}, {"Citra", 2}} {
		if _, err := board.RecordAnswer(ctx, a.name, a.q); err != nil {
			t.Fatal(err)
		}
		tick(t, client)
	}
	return serveBoard(t, meta, board), store, meta, board
}

// serveBoard serves the pages and streams of the quiz of meta and board
// until the test ends.
func serveBoard(t *testing.T, meta *kuis.Meta, board *kuis.Board) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer((&server{board: board, meta: meta, every: 50 * time.Millisecond}).routes())
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header ...string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// TestStreamStatuses: each stream answers a missing quiz, a bad event ID or
// a bad name with a status before it starts, not with a 200 and an error.
func TestStreamStatuses(t *testing.T) {
	srv, store, _, _ := testServer(t)
	missing, err := store.Board("kuis-missing")
	if err != nil {
		t.Fatal(err)
	}
	missingMeta, err := store.Meta("kuis-missing")
	if err != nil {
		t.Fatal(err)
	}
	none := serveBoard(t, missingMeta, missing)
	tests := []struct {
		name   string
		url    string
		header []string
		want   int
	}{
		{name: "board", url: srv.URL + "/board/stream", want: http.StatusOK},
		{name: "events", url: srv.URL + "/events", want: http.StatusOK},
		{name: "student", url: srv.URL + "/me/stream?name=Ali", want: http.StatusOK},
		{name: "student, name cleaned", url: srv.URL + "/me/stream?name=%20Ali%20", want: http.StatusOK},
		{name: "board of no quiz", url: none.URL + "/board/stream", want: http.StatusNotFound},
		{name: "events of no quiz", url: none.URL + "/events", want: http.StatusNotFound},
		{name: "student of no quiz", url: none.URL + "/me/stream?name=Ali", want: http.StatusNotFound},
		{name: "after not an event ID", url: srv.URL + "/events?after=latest", want: http.StatusBadRequest},
		{name: "Last-Event-ID not an event ID", url: srv.URL + "/events", header: []string{"Last-Event-ID", "1-2-3"}, want: http.StatusBadRequest},
		{name: "no name", url: srv.URL + "/me/stream", want: http.StatusBadRequest},
		{name: "empty name", url: srv.URL + "/me/stream?name=", want: http.StatusBadRequest},
		{name: "blank name", url: srv.URL + "/me/stream?name=%C2%A0%20", want: http.StatusBadRequest},
		{name: "name shown reversed", url: srv.URL + "/me/stream?name=%E2%80%AEilA", want: http.StatusBadRequest},
		{name: "bad name of no quiz", url: none.URL + "/me/stream?name=", want: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := get(t, tt.url, tt.header...)
			if resp.StatusCode != tt.want {
				t.Errorf("%s: %s, want %d", tt.url, resp.Status, tt.want)
			}
			stream := resp.Header.Get("Content-Type") == "text/event-stream"
			if stream != (tt.want == http.StatusOK) {
				t.Errorf("%s: %s with Content-Type %q", tt.url, resp.Status, resp.Header.Get("Content-Type"))
			}
		})
	}
}

// TestEventsResumeWithLastEventID: /events relays the feed as SSE with each
// event's ID, and a Last-Event-ID header resumes right after it.
func TestEventsResumeWithLastEventID(t *testing.T) {
	srv, _, meta, _ := testServer(t)
	if err := meta.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	finished := func(e sseEvent) bool { return e.event == "finished" }
	all := readSSE(t, get(t, srv.URL+"/events"), finished)
	if len(all) != 6 || all[5].event != "finished" {
		t.Fatalf("/events: %d events %v, want 5 answers and the finish", len(all), all)
	}
	var ev kuis.Event
	if err := json.Unmarshal([]byte(all[2].data), &ev); err != nil || ev.ID != all[2].id ||
		ev.Participant != "Ali" || ev.Question != 2 || ev.Score != 20 {
		t.Fatalf("third event %+v (%v), want Ali's answer to 2 for 20 with ID %s", ev, err, all[2].id)
	}
	rest := readSSE(t, get(t, srv.URL+"/events", "Last-Event-ID", all[2].id), finished)
	if diff := cmp.Diff(all[3:], rest, cmp.AllowUnexported(sseEvent{})); diff != "" {
		t.Errorf("resumed after %s (-want +got):\n%s", all[2].id, diff)
	}
}

// names lists the participants of rows, in order.
func names(rows []kuis.Standing) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Participant
	}
	return out
}

// TestBoardStream: /board/stream sends the progress, the join address and
// the top 10, equal scores in the order they were reached, as the quiz
// moves on; once finished, the whole board.
func TestBoardStream(t *testing.T) {
	srv, _, meta, board := testServer(t)
	ctx := context.Background()
	// Nine more students on 10 points: twelve on the board, more than the top 10.
	var late []kuis.AnswerInput
	for _, name := range []string{"Dewi", "Eka", "Fajar", "Gilang", "Hana", "Indah", "Joko", "Lia", "Made"} {
		late = append(late, kuis.AnswerInput{Participant: name, Question: 1})
	}
	var views []boardView
	readSSE(t, get(t, srv.URL+"/board/stream"), func(e sseEvent) bool {
		var v boardView
		if err := json.Unmarshal([]byte(e.data), &v); err != nil {
			t.Fatalf("event %q: %v", e.data, err)
		}
		views = append(views, v)
		switch {
		case len(views) == 1:
			if _, err := board.RecordAnswers(ctx, late); err != nil {
				t.Fatal(err)
			}
		case v.Participants == 12 && !v.Finished:
			if err := meta.Finish(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return v.Finished
	})
	first, last := views[0], views[len(views)-1]
	want := boardView{
		Summary:    kuis.Summary{Title: "Kuis Matematika Kelas 8", Questions: 3, Status: kuis.StatusRunning, Participants: 3, Answers: 5},
		Join:       "http://" + strings.TrimPrefix(srv.URL, "http://") + "/me?name=",
		Visibility: kuis.VisibilityShown,
		// Ali reached 20 before Citra: by name, Citra would come first.
		Rows: []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Ali", Score: 20},
			{Rank: 2, CompetitionRank: 1, Participant: "Citra", Score: 20},
			{Rank: 3, CompetitionRank: 3, Participant: "Budi", Score: 10},
		},
	}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("first board (-want +got):\n%s", diff)
	}
	if len(views) < 3 || views[len(views)-2].Participants != 12 || len(views[len(views)-2].Rows) != 10 {
		t.Errorf("boards %+v, want one of the top 10 of 12 participants before the final one", views)
	}
	if !last.Finished || last.Status != kuis.StatusFinished || last.Participants != 12 || last.Answers != 14 {
		t.Errorf("last board %+v, want finished, 12 participants, 14 answers", last)
	}
	whole, err := board.Standings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole, last.Rows); diff != "" || len(whole) != 12 {
		t.Errorf("final board, want the whole board of 12 (-want +got):\n%s", diff)
	}
	if got := names(last.Rows[:3]); !slices.Equal(got, []string{"Ali", "Citra", "Budi"}) {
		t.Errorf("final top three %v, want Ali, Citra, Budi", got)
	}
}

// TestStudentStream: /me/stream sends the student's view, the name as
// CleanParticipant makes it, until the quiz is finished; a student without
// a correct answer yet has a view too.
func TestStudentStream(t *testing.T) {
	srv, _, meta, _ := testServer(t)
	var views []meView
	readSSE(t, get(t, srv.URL+"/me/stream?name=%20Budi%20"), func(e sseEvent) bool {
		var v meView
		if err := json.Unmarshal([]byte(e.data), &v); err != nil {
			t.Fatalf("event %q: %v", e.data, err)
		}
		views = append(views, v)
		if len(views) == 1 {
			if err := meta.Finish(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return v.Finished
	})
	budi := meView{Title: "Kuis Matematika Kelas 8", Name: "Budi", Rank: 3, Of: 3, Score: 10, Answered: []int{2}}
	if diff := cmp.Diff(budi, views[0]); diff != "" {
		t.Errorf("Budi's first view (-want +got):\n%s", diff)
	}
	budi.Finished = true
	if diff := cmp.Diff(budi, views[len(views)-1]); diff != "" {
		t.Errorf("Budi's last view (-want +got):\n%s", diff)
	}

	got := readSSE(t, get(t, srv.URL+"/me/stream?name=Eka"), func(sseEvent) bool { return true })
	var eka meView
	if err := json.Unmarshal([]byte(got[0].data), &eka); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(meView{Title: "Kuis Matematika Kelas 8", Name: "Eka", Of: 3, Answered: []int{}, Finished: true}, eka); diff != "" {
		t.Errorf("Eka's view (-want +got):\n%s", diff)
	}
}

// TestDebugVarsPublishesStats: /debug/vars carries the Store's Stats under
// "kuis": the five answers the test server's quiz counted.
func TestDebugVarsPublishesStats(t *testing.T) {
	srv, store, _, _ := testServer(t)
	stats.Store(store)
	t.Cleanup(func() { stats.Store(nil) })
	var vars struct{ Kuis kuis.Stats }
	if err := json.NewDecoder(get(t, srv.URL+"/debug/vars").Body).Decode(&vars); err != nil {
		t.Fatal(err)
	}
	if want := store.Stats(); vars.Kuis != want || want.Counted != 5 {
		t.Errorf("/debug/vars kuis = %+v, want %+v with 5 answers counted", vars.Kuis, want)
	}
}

// TestJoinAndAbsent: POST /join puts a student on the board with 0 points
// (400 for a name that cannot be on it); the projector's stream lists the
// class's enrolled students not on the board, and nothing when the quiz
// names no class.
func TestJoinAndAbsent(t *testing.T) {
	srv, store, meta, board := testServer(t)
	ctx := context.Background()
	class, err := store.Class("8a")
	if err != nil {
		t.Fatal(err)
	}
	if err := class.Enroll(ctx, kuis.Student{ID: "s-1", Name: "Ali"}, kuis.Student{ID: "s-2", Name: "Eka"}, kuis.Student{ID: "s-3", Name: "Fajar"}); err != nil {
		t.Fatal(err)
	}
	post := func(query string) *http.Response {
		t.Helper()
		resp, err := http.Post(srv.URL+"/join?name="+query, "", http.NoBody)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	resp := post("Eka")
	var st kuis.Standing
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("join Eka: %d, %v", resp.StatusCode, err)
	}
	if st.Participant != "Eka" || st.Score != 0 {
		t.Errorf("join Eka answered %+v, want Eka with 0 points", st)
	}
	if got, err := board.Standing(ctx, "Eka"); err != nil || got.Score != 0 {
		t.Errorf("Eka on the board: %+v, %v", got, err)
	}
	if resp := post("%E2%80%AEilA"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("join of a hidden character: %d, want 400", resp.StatusCode)
	}

	first := func(s *server) boardView {
		t.Helper()
		h := httptest.NewServer(s.routes())
		t.Cleanup(h.Close)
		var v boardView
		readSSE(t, get(t, h.URL+"/board/stream"), func(e sseEvent) bool {
			if err := json.Unmarshal([]byte(e.data), &v); err != nil {
				t.Fatalf("event %q: %v", e.data, err)
			}
			return true
		})
		return v
	}
	if v := first(&server{board: board, meta: meta, every: 50 * time.Millisecond, class: class}); !slices.Equal(v.Absent, []string{"Fajar"}) || v.Participants != 4 {
		t.Errorf("absent %q of %d participants, want [Fajar] of 4 (Ali, Budi, Citra, Eka)", v.Absent, v.Participants)
	}
	if v := first(&server{board: board, meta: meta, every: 50 * time.Millisecond}); v.Absent != nil {
		t.Errorf("absent %q for a quiz with no class, want none", v.Absent)
	}
	if err := meta.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if resp := post("Fajar"); resp.StatusCode != http.StatusConflict {
		t.Errorf("join of a finished quiz: %d, want 409", resp.StatusCode)
	}
	if v := first(&server{board: board, meta: meta, every: 50 * time.Millisecond, class: class}); !slices.Equal(v.Absent, []string{"Fajar"}) || len(v.Rows) != 4 {
		t.Errorf("finished: absent %q, rows %v, want [Fajar] and the whole board of 4", v.Absent, v.Rows)
	}
}
