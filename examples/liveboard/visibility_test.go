package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// boardViews reads /board/stream of srv, calling next with each view until
// it returns true.
func boardViews(t *testing.T, srv *httptest.Server, next func(boardView) bool) []boardView {
	t.Helper()
	var views []boardView
	readSSE(t, get(t, srv.URL+"/board/stream"), func(e sseEvent) bool {
		var v boardView
		if err := json.Unmarshal([]byte(e.data), &v); err != nil {
			t.Fatalf("event %q: %v", e.data, err)
		}
		views = append(views, v)
		return next(v)
	})
	return views
}

// firstMe is the first view of /me/stream?name=name of srv.
func firstMe(t *testing.T, srv *httptest.Server, name string) meView {
	t.Helper()
	var v meView
	readSSE(t, get(t, srv.URL+"/me/stream?name="+name), func(e sseEvent) bool {
		if err := json.Unmarshal([]byte(e.data), &v); err != nil {
			t.Fatalf("event %q: %v", e.data, err)
		}
		return true
	})
	return v
}

// TestVisibilityOnThePages: the projector and a student's page follow the
// teacher's visibility, without a change of the board: shown, the board;
// sembunyi, the progress and who joined in alphabetical order, no rows,
// each student their score without a rank, /events refused; akhir, hidden
// while running, the whole board once finished.
func TestVisibilityOnThePages(t *testing.T) {
	srv, _, meta, _ := testServer(t)
	ctx := context.Background()
	set := func(v kuis.Visibility) {
		t.Helper()
		if err := meta.SetVisibility(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	views := boardViews(t, srv, func(v boardView) bool {
		switch {
		case v.Visibility == kuis.VisibilityShown:
			set(kuis.VisibilityHidden) // no answer follows: the page must see the meta change itself
		case v.Visibility == kuis.VisibilityHidden:
			budi := firstMe(t, srv, "Budi")
			if want := (meView{Title: "Kuis Matematika Kelas 8", Name: "Budi", Of: 3, Score: 10, Answered: []int{2}, Hidden: true}); !cmp.Equal(want, budi) {
				t.Errorf("Budi's view while hidden (-want +got):\n%s", cmp.Diff(want, budi))
			}
			if resp := get(t, srv.URL+"/events"); resp.StatusCode != http.StatusForbidden {
				t.Errorf("/events while hidden: %d, want 403", resp.StatusCode)
			}
			set(kuis.VisibilityAtEnd)
		case v.Visibility == kuis.VisibilityAtEnd && !v.Finished:
			if err := meta.Finish(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return v.Finished
	})
	byVisibility := map[kuis.Visibility]boardView{}
	for _, v := range views {
		if _, seen := byVisibility[v.Visibility]; !seen {
			byVisibility[v.Visibility] = v
		}
	}
	if shown := byVisibility[kuis.VisibilityShown]; shown.Hidden || !slices.Equal(names(shown.Rows), []string{"Ali", "Citra", "Budi"}) {
		t.Errorf("shown: %+v, want the board Ali, Citra, Budi", shown)
	}
	for _, vis := range []kuis.Visibility{kuis.VisibilityHidden, kuis.VisibilityAtEnd} {
		v := byVisibility[vis]
		if !v.Hidden || len(v.Rows) != 0 || !slices.Equal(v.Joined, []string{"Ali", "Budi", "Citra"}) || v.Participants != 3 || v.Answers != 5 {
			t.Errorf("%s while running: %+v, want hidden, no rows, Ali, Budi and Citra joined, 3 participants, 5 answers", vis, v)
		}
	}
	last := views[len(views)-1]
	if last.Visibility != kuis.VisibilityAtEnd || last.Hidden || last.Joined != nil || !slices.Equal(names(last.Rows), []string{"Ali", "Citra", "Budi"}) {
		t.Errorf("akhir, finished: %+v, want the whole board Ali, Citra, Budi", last)
	}
	if budi := firstMe(t, srv, "Budi"); budi.Hidden || budi.Rank != 3 {
		t.Errorf("Budi's view at the end under akhir: %+v, want rank 3", budi)
	}
	if resp := get(t, srv.URL+"/events"); resp.StatusCode != http.StatusOK {
		t.Errorf("/events at the end under akhir: %d, want 200", resp.StatusCode)
	}
}

// TestPseudonymsOnThePages: with a secret, every name the projector shows
// (rows, absentees, who joined) is its pseudonym, each student's page
// shows their own alias beside their name, and /events is refused.
func TestPseudonymsOnThePages(t *testing.T) {
	_, store, meta, board := testServer(t)
	ctx := context.Background()
	class, err := store.Class("8a")
	if err != nil {
		t.Fatal(err)
	}
	if err := class.Enroll(ctx, kuis.Student{ID: "s-1", Name: "Ali"}, kuis.Student{ID: "s-2", Name: "Fajar"}); err != nil {
		t.Fatal(err)
	}
	secret := []byte("kelas-8a-rahasia-2026")
	alias := func(n string) string { return kuis.Pseudonym(secret, n) }
	srv := httptest.NewServer((&server{board: board, meta: meta, every: 50 * time.Millisecond, class: class, secret: secret}).routes())
	t.Cleanup(srv.Close)
	views := boardViews(t, srv, func(v boardView) bool { return true })
	v := views[0]
	if !v.Pseudonyms || !slices.Equal(names(v.Rows), []string{alias("Ali"), alias("Citra"), alias("Budi")}) ||
		!slices.Equal(v.Absent, []string{alias("Fajar")}) {
		t.Errorf("projector with pseudonyms: %+v; want rows %q, absent %q", v, []string{alias("Ali"), alias("Citra"), alias("Budi")}, alias("Fajar"))
	}
	if err := meta.SetVisibility(ctx, kuis.VisibilityHidden); err != nil {
		t.Fatal(err)
	}
	joined := []string{alias("Ali"), alias("Budi"), alias("Citra")}
	slices.Sort(joined)
	views = boardViews(t, srv, func(v boardView) bool { return true })
	if v := views[0]; !v.Hidden || !slices.Equal(v.Joined, joined) {
		t.Errorf("hidden with pseudonyms: %+v; want joined %q", v, joined)
	}
	if budi := firstMe(t, srv, "Budi"); budi.Name != "Budi" || budi.Alias != alias("Budi") || budi.Alias == "" {
		t.Errorf("Budi's view: %+v; want his name and alias %q", budi, alias("Budi"))
	}
	if err := meta.SetVisibility(ctx, kuis.VisibilityShown); err != nil {
		t.Fatal(err)
	}
	if resp := get(t, srv.URL+"/events"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("/events with pseudonyms: %d, want 403", resp.StatusCode)
	}
}
