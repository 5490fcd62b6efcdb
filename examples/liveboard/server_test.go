package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
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

// testServer serves a new quiz of the reference session's first two rounds,
// in a namespace of the test's own.
func testServer(t *testing.T) (*httptest.Server, *kuis.Meta, *kuis.Board) {
	t.Helper()
	client := testClient(t)
	opts := []kuis.Option{kuis.WithNamespace("live" + rand.Text())}
	if client.Mode() == rueidis.ClientModeCluster {
		opts = append(opts, kuis.WithHashTag())
	}
	store, err := kuis.New(client, opts...)
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
	}
	srv := httptest.NewServer((&server{meta: meta, board: board, every: 50 * time.Millisecond}).routes())
	t.Cleanup(srv.Close)
	return srv, meta, board
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

// TestEventsResumeWithLastEventID: /events relays the feed as SSE with each
// event's ID, and a Last-Event-ID header resumes right after it.
func TestEventsResumeWithLastEventID(t *testing.T) {
	srv, meta, _ := testServer(t)
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

// TestBoardStreamEndsFinished: /board/stream sends the top with the title,
// then the final board marked finished.
func TestBoardStreamEndsFinished(t *testing.T) {
	srv, meta, board := testServer(t)
	resp := get(t, srv.URL+"/board/stream")
	var views []boardView
	readSSE(t, resp, func(e sseEvent) bool {
		var v boardView
		if err := json.Unmarshal([]byte(e.data), &v); err != nil {
			t.Fatalf("event %q: %v", e.data, err)
		}
		views = append(views, v)
		switch len(views) {
		case 1:
			if _, err := board.RecordAnswer(context.Background(), "Budi", 3); err != nil {
				t.Fatal(err)
			}
		case 2:
			if err := meta.Finish(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return v.Finished
	})
	if len(views) < 3 {
		t.Fatalf("%d boards, want the first, the one after Budi's answer, and the final one", len(views))
	}
	first, last := views[0], views[len(views)-1]
	if first.Title != "Kuis Matematika Kelas 8" || first.Status != "running" || len(first.Top) != 3 {
		t.Errorf("first board %+v", first)
	}
	// Equal scores in reverse order of names: Citra, Budi, Ali.
	budi := views[1].Top[1]
	if budi.Participant != "Budi" || budi.Score != 20 || budi.CompetitionRank != 1 || budi.Move != "up" {
		t.Errorf("after Budi's answer, second row %+v, want Budi up, with 20 sharing first place", budi)
	}
	if !last.Finished || last.Status != "finished" {
		t.Errorf("last board %+v, want finished", last)
	}
}

// TestStudentErrors: a bad name is refused before the stream starts, with a
// status mapped in one place; a name not on the board yet is a view.
func TestStudentErrors(t *testing.T) {
	srv, _, _ := testServer(t)
	if resp := get(t, srv.URL+"/me/stream?name="); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("empty name: %s, want 400", resp.Status)
	}
	resp := get(t, srv.URL+"/me/stream?name=Eka")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Eka: %s, want 200", resp.Status)
	}
	got := readSSE(t, resp, func(sseEvent) bool { return true })
	var v meView
	if err := json.Unmarshal([]byte(got[0].data), &v); err != nil || v.OnBoard || v.Name != "Eka" {
		t.Errorf("Eka's view %+v (%v), want not on the board", v, err)
	}
}
