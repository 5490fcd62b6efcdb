package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// cacheTTL is how long these tests' cached entries would live: far longer
// than a test waits, so a changed answer can only come from the server's
// invalidation.
const cacheTTL = time.Minute

// cacheMinute is the cache option of these tests.
var cacheMinute = kuis.WithClientCache(cacheTTL)

// quizReads are the reads of a quiz, each with fixed arguments, and the
// commands (INFO commandstats names) each sends when not cached.
var quizReads = []struct {
	name  string
	sends []string
	read  func(context.Context, *kuis.Board, *kuis.Meta) (any, error)
}{
	{"Standings", []string{"hlen", "zrange"}, func(ctx context.Context, b *kuis.Board, _ *kuis.Meta) (any, error) {
		return b.Standings(ctx)
	}},
	{"Page", []string{"hlen", "zrange", "zcount"}, func(ctx context.Context, b *kuis.Board, _ *kuis.Meta) (any, error) {
		return b.Page(ctx, 1, 2)
	}},
	{"Around", []string{"hlen", "zrevrank", "zrange", "zcount"}, func(ctx context.Context, b *kuis.Board, _ *kuis.Meta) (any, error) {
		return b.Around(ctx, "Budi", 1)
	}},
	{"Standing", []string{"evalsha_ro", "hlen", "zscore", "zrevrank", "zcount"}, func(ctx context.Context, b *kuis.Board, _ *kuis.Meta) (any, error) {
		return b.Standing(ctx, "Ali")
	}},
	{"Len", []string{"hlen", "zcard"}, func(ctx context.Context, b *kuis.Board, _ *kuis.Meta) (any, error) {
		return b.Len(ctx)
	}},
	{"Get", []string{"hgetall"}, func(ctx context.Context, _ *kuis.Board, m *kuis.Meta) (any, error) {
		return m.Get(ctx)
	}},
	{"Status", []string{"hgetall"}, func(ctx context.Context, _ *kuis.Board, m *kuis.Meta) (any, error) {
		return m.Status(ctx)
	}},
}

// referenceAnswers is what each of quizReads answers on quiz id after
// env.reference. Page(1, 2) and Around("Budi", 1) start inside the tie of
// Citra and Ali, so they need the extra ZCOUNT.
func referenceAnswers(id string) map[string]any {
	board := []kuis.Standing{{1, 1, "Citra", 30}, {2, 1, "Ali", 30}, {3, 3, "Budi", 20}, {4, 4, "Dewi", 10}}
	return map[string]any{
		"Standings": board, "Page": board[1:3], "Around": board[1:4], "Standing": board[1], "Len": int64(4),
		"Get":    kuis.Info{Title: "Kuis " + id, Questions: 3, Status: kuis.StatusRunning, Visibility: kuis.VisibilityShown},
		"Status": kuis.StatusRunning,
	}
}

// readAll runs every one of quizReads through s on quiz id and returns the
// answers by name; a read that fails is reported and left out.
func readAll(t testing.TB, ctx context.Context, s *kuis.Store, id string) map[string]any {
	t.Helper()
	b, m := handles(t, s, id)
	out := map[string]any{}
	for _, r := range quizReads {
		got, err := r.read(ctx, b, m)
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		out[r.name] = got
	}
	return out
}

// TestClientCacheServesRepeatedReads: every read answers right, cached or not;
// on a real server repeated cached calls send (almost) none of the read's
// commands, where the same calls uncached send each command every time.
func TestClientCacheServesRepeatedReads(t *testing.T) {
	const calls, handful = 50, 5
	watched := []string{"hlen", "zrange", "zrevrank", "zscore", "zcount", "zcard", "hgetall", "evalsha_ro"}
	e := newEnv(t)
	id, _, _ := e.reference()
	want := referenceAnswers(id)
	client := e.client // on miniredis a new client would start a new server
	if redistest.Real() {
		client = redistest.Client(t) // the cache is the client's
	}
	stores := map[bool]*kuis.Store{false: e.store, true: e.storeOn(client, cacheMinute)}
	for _, r := range quizReads {
		for _, cached := range []bool{false, true} {
			b, m := handles(t, stores[cached], id)
			t.Run(fmt.Sprintf("%s/cached=%v", r.name, cached), func(t *testing.T) {
				read := func() {
					got, err := r.read(e.ctx, b, m)
					if diff := cmp.Diff(want[r.name], got); err != nil || diff != "" {
						t.Fatalf("err %v, (-want +got):\n%s", err, diff)
					}
				}
				read() // fills the cache
				if !redistest.Real() {
					t.Skip("miniredis keeps no commandstats and has no CLIENT TRACKING: only the answer was checked")
				}
				sent, total := quietRound(t, e, watched, calls, handful, func() { read() }, !cached)
				if cached && total > handful {
					t.Errorf("%d cached calls sent %v, want at most %d commands in all", calls, sent, handful)
				}
				for _, c := range r.sends {
					if !cached && sent[c] < calls {
						t.Errorf("%d uncached calls sent %d %s, want at least %d", calls, sent[c], c, calls)
					}
				}
			})
		}
	}
}

// TestClientCacheSeesOtherClientsWrites: a cached reader whose entries would
// live a minute sees another client's answers and Finish, then its PurgeQuiz
// (ErrQuizNotFound through the cached HLEN of meta), every read before any
// entry it cached could have expired, because the server invalidates what the
// reader cached.
func TestClientCacheSeesOtherClientsWrites(t *testing.T) {
	if !redistest.Real() {
		t.Skip("miniredis has no CLIENT TRACKING: nothing is cached there")
	}
	// Every entry the reader holds was cached after filled, so none expires
	// before filled+cacheTTL: a read that changes before the deadline, half
	// that, changed by invalidation. Invalidation takes milliseconds; the
	// rest is for a loaded machine.
	const within = cacheTTL / 2
	e := newEnv(t)
	id, _, b := e.reference()
	cached := e.storeOn(redistest.Client(t), cacheMinute)
	filled := time.Now()
	for range 2 { // a miss, then a hit
		if diff := cmp.Diff(referenceAnswers(id), readAll(t, e.ctx, cached, id)); diff != "" {
			t.Fatalf("cached reads (-want +got):\n%s", diff)
		}
	}
	deadline := filled.Add(within)
	cb, cm := handles(t, cached, id)
	eventually := func(phase string, ok func(name string, got any, err error) bool) {
		t.Helper()
		for _, r := range quizReads {
			t.Run(phase+"/"+r.name, func(t *testing.T) {
				for {
					got, err := r.read(e.ctx, cb, cm)
					if ok(r.name, got, err) {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("still %v, %v %v after the cache was filled", got, err, within)
					}
					time.Sleep(time.Millisecond)
				}
			})
		}
	}

	for _, p := range []string{"Budi", "Eka"} {
		if _, err := b.RecordAnswer(e.ctx, p, 1); err != nil {
			t.Fatal(err)
		}
	}
	e.finish(id)
	board := []kuis.Standing{{1, 1, "Citra", 30}, {2, 1, "Budi", 30}, {3, 1, "Ali", 30}, {4, 4, "Eka", 10}, {5, 4, "Dewi", 10}}
	after := map[string]any{
		"Standings": board, "Page": board[1:3], "Around": board[0:3], "Standing": board[2], "Len": int64(5),
		"Get":    kuis.Info{Title: "Kuis " + id, Questions: 3, Status: kuis.StatusFinished, Visibility: kuis.VisibilityShown},
		"Status": kuis.StatusFinished,
	}
	eventually("writes", func(name string, got any, err error) bool { return err == nil && cmp.Equal(after[name], got) })

	if _, err := e.store.PurgeQuiz(e.ctx, id, func(context.Context, kuis.Recap) error { return nil }); err != nil {
		t.Fatal(err)
	}
	eventually("purge", func(_ string, _ any, err error) bool { return errors.Is(err, kuis.ErrQuizNotFound) })
}

// TestClientCacheNeverCachesWrites: on a Store with WithClientCache and warm
// cache entries, every answer returns the new score, Recap sees it at once,
// and the status gate refuses an answer right after Finish, every time.
func TestClientCacheNeverCachesWrites(t *testing.T) {
	t.Parallel()
	const rounds = 20
	e := newEnv(t, cacheMinute)
	id, _, b := e.running(rounds)
	for i := range rounds {
		if _, err := b.Standings(e.ctx); err != nil { // keeps a cached board around
			t.Fatal(err)
		}
		want := kuis.Answer{Score: int64(10 * (i + 1))}
		if got, err := b.RecordAnswer(e.ctx, "Ali", i+1); err != nil || got != want {
			t.Fatalf("question %d: RecordAnswer = %+v, %v; want %+v", i+1, got, err, want)
		}
		recap, err := e.store.Recap(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]kuis.Standing{{1, 1, "Ali", want.Score}}, recap.Standings); diff != "" {
			t.Fatalf("question %d: Recap (-want +got):\n%s", i+1, diff)
		}
	}
	for range 10 {
		_, m, b := e.running(1)
		if s, err := m.Status(e.ctx); err != nil || s != kuis.StatusRunning { // now cached
			t.Fatalf("Status = %q, %v", s, err)
		}
		if err := m.Finish(e.ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.RecordAnswer(e.ctx, "Budi", 1); !errors.Is(err, kuis.ErrQuizFinished) {
			t.Fatalf("RecordAnswer right after Finish: %v, want ErrQuizFinished", err)
		}
	}
}
