package kuis_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// withCacheMinute is the cache option of these tests: a TTL far longer than any test,
// so a changed value can only show up through the server's invalidation.
var withCacheMinute = kuis.WithClientCache(time.Minute)

// trackingOnly skips tests that need the server's CLIENT TRACKING.
func trackingOnly(t *testing.T) {
	t.Helper()
	if !redistest.Real() {
		t.Skip("miniredis has no CLIENT TRACKING: nothing is cached there")
	}
}

// cachedRead is one read of the library that WithClientCache serves from the
// client-side cache, and the server commands it costs when not cached.
type cachedRead struct {
	name  string
	stats []string // INFO commandstats entries the read sends
	read  func(ctx context.Context, m *kuis.Meta, b *kuis.Board) (any, error)
}

var cachedReads = []cachedRead{
	{"Standings", []string{"zrevrange"}, func(ctx context.Context, _ *kuis.Meta, b *kuis.Board) (any, error) {
		return b.Standings(ctx)
	}},
	{"Page", []string{"zrevrange"}, func(ctx context.Context, _ *kuis.Meta, b *kuis.Board) (any, error) {
		return b.Page(ctx, 0, 1)
	}},
	{"Around", []string{"zrevrank", "zrevrange"}, func(ctx context.Context, _ *kuis.Meta, b *kuis.Board) (any, error) {
		return b.Around(ctx, "Ali", 0)
	}},
	{"Rank", []string{"zrevrank"}, func(ctx context.Context, _ *kuis.Meta, b *kuis.Board) (any, error) {
		return b.Rank(ctx, "Ali")
	}},
	{"CompetitionRank", []string{"zscore", "zcount"}, func(ctx context.Context, _ *kuis.Meta, b *kuis.Board) (any, error) {
		return b.CompetitionRank(ctx, "Ali")
	}},
	{"Score", []string{"zscore"}, func(ctx context.Context, _ *kuis.Meta, b *kuis.Board) (any, error) {
		return b.Score(ctx, "Ali")
	}},
	{"Len", []string{"zcard"}, func(ctx context.Context, _ *kuis.Meta, b *kuis.Board) (any, error) {
		return b.Len(ctx)
	}},
	{"Get", []string{"hgetall"}, func(ctx context.Context, m *kuis.Meta, _ *kuis.Board) (any, error) {
		return m.Get(ctx)
	}},
	{"Status", []string{"hgetall"}, func(ctx context.Context, m *kuis.Meta, _ *kuis.Board) (any, error) {
		return m.Status(ctx)
	}},
}

// cmdstatCalls sums the calls of the named commands over every node of the
// env's client (INFO commandstats), which the cached reader never goes through.
func cmdstatCalls(t *testing.T, e *env, names []string) int64 {
	t.Helper()
	var total int64
	for addr, node := range e.client.Nodes() {
		info, err := node.Do(e.ctx, node.B().Info().Section("commandstats").Build()).ToString()
		if err != nil {
			t.Fatalf("INFO commandstats on %s: %v", addr, err)
		}
		for _, line := range strings.Split(info, "\n") {
			stat, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok {
				continue
			}
			for _, name := range names {
				if stat != "cmdstat_"+name {
					continue
				}
				calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
				n, err := strconv.ParseInt(calls, 10, 64)
				if err != nil {
					t.Fatalf("INFO commandstats on %s: %q: %v", addr, line, err)
				}
				total += n
			}
		}
	}
	return total
}

// cachedHandles opens a second client, the cached reader, on quiz id.
func cachedHandles(t *testing.T, e *env, id string, extra ...kuis.Option) (*kuis.Meta, *kuis.Board) {
	t.Helper()
	reader := redistest.Client(t)
	opts := append(append([]kuis.Option{}, e.opts...), extra...)
	m, err := kuis.NewMeta(reader, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := kuis.NewBoard(reader, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m, b
}

// TestClientCacheServesRepeatedReadsWithoutServerCommands: 200 cached calls of
// each read cost the server a handful of commands at most, where the same
// calls uncached cost 200 each.
func TestClientCacheServesRepeatedReadsWithoutServerCommands(t *testing.T) {
	trackingOnly(t)
	const calls, handful = 200, 5
	e := newEnv(t)
	id, _, _ := e.reference()
	for _, tc := range cachedReads {
		for _, withCache := range []bool{true, false} {
			name := tc.name + "/uncached"
			var extra []kuis.Option
			if withCache {
				name, extra = tc.name+"/cached", []kuis.Option{withCacheMinute}
			}
			t.Run(name, func(t *testing.T) {
				m, rb := cachedHandles(t, e, id, extra...)
				first, err := tc.read(e.ctx, m, rb)
				if err != nil {
					t.Fatal(err)
				}
				// The counters are server-wide, and other test packages may share the
				// server (go test ./... runs packages in parallel): a cached read
				// passes if one of a few rounds is quiet, while a read that is not
				// cached costs 200 commands in every round.
				var sent int64
				for round := 0; round < 5; round++ {
					before := cmdstatCalls(t, e, tc.stats)
					for range calls {
						got, err := tc.read(e.ctx, m, rb)
						if err != nil {
							t.Fatal(err)
						}
						if diff := cmp.Diff(first, got); diff != "" {
							t.Fatalf("read changed with no write (-first +now):\n%s", diff)
						}
					}
					sent = cmdstatCalls(t, e, tc.stats) - before
					t.Logf("round %d: %d calls sent %d %v commands", round, calls, sent, tc.stats)
					if !withCache || sent <= handful {
						break
					}
				}
				if withCache && sent > handful {
					t.Errorf("%d cached calls sent %d %v commands, want at most %d", calls, sent, tc.stats, handful)
				}
				// The control: the same count, uncached, shows the measure sees every read.
				if least := int64(calls * len(tc.stats)); !withCache && sent < least {
					t.Errorf("%d uncached calls sent %d %v commands, want at least %d", calls, sent, tc.stats, least)
				}
			})
		}
	}
}

// TestClientCacheSeesAnotherClientsWritesWithin100ms: a cached reader whose
// entries would live a minute sees another client's answers and Finish within
// 100 ms, because the server invalidates what it cached.
func TestClientCacheSeesAnotherClientsWritesWithin100ms(t *testing.T) {
	trackingOnly(t)
	const within = 100 * time.Millisecond
	e := newEnv(t)
	id, m, b := e.running(3)
	if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
		t.Fatal(err)
	}
	rm, rb := cachedHandles(t, e, id, withCacheMinute)
	info := kuis.Info{Title: "Kuis " + id, Questions: 3, Status: kuis.StatusRunning}
	done := info
	done.Status = kuis.StatusFinished
	// The writes below give Budi 30 and Ali 20: every read's answer changes.
	tests := []struct {
		name          string
		read          func() (any, error)
		before, after any
	}{
		{"Standings", func() (any, error) { return rb.Standings(e.ctx) },
			[]kuis.Standing{{Rank: 1, Participant: "Ali", Score: 10}},
			[]kuis.Standing{{Rank: 1, Participant: "Budi", Score: 30}, {Rank: 2, Participant: "Ali", Score: 20}}},
		{"Page", func() (any, error) { return rb.Page(e.ctx, 0, 1) },
			[]kuis.Standing{{Rank: 1, Participant: "Ali", Score: 10}},
			[]kuis.Standing{{Rank: 1, Participant: "Budi", Score: 30}}},
		{"Around", func() (any, error) { return rb.Around(e.ctx, "Ali", 0) },
			[]kuis.Standing{{Rank: 1, Participant: "Ali", Score: 10}},
			[]kuis.Standing{{Rank: 2, Participant: "Ali", Score: 20}}},
		{"Score", func() (any, error) { return rb.Score(e.ctx, "Ali") }, int64(10), int64(20)},
		{"Rank", func() (any, error) { return rb.Rank(e.ctx, "Ali") }, 1, 2},
		{"CompetitionRank", func() (any, error) { return rb.CompetitionRank(e.ctx, "Ali") }, 1, 2},
		{"Len", func() (any, error) { return rb.Len(e.ctx) }, int64(1), int64(2)},
		{"Get", func() (any, error) { return rm.Get(e.ctx) }, info, done},
		{"Status", func() (any, error) { return rm.Status(e.ctx) }, kuis.StatusRunning, kuis.StatusFinished},
	}
	for _, tc := range tests {
		for range 2 { // the second read is served from the cache
			got, err := tc.read()
			if err != nil {
				t.Fatalf("%s before the writes: %v", tc.name, err)
			}
			if diff := cmp.Diff(tc.before, got); diff != "" {
				t.Fatalf("%s before the writes (-want +got):\n%s", tc.name, diff)
			}
		}
	}

	answers := []kuis.AnswerInput{{"Budi", 1}, {"Budi", 2}, {"Budi", 3}, {"Ali", 2}}
	if _, err := b.RecordAnswers(e.ctx, answers); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for {
				got, err := tc.read()
				if err == nil && cmp.Equal(tc.after, got) {
					return
				}
				if time.Since(written) > within {
					t.Fatalf("after %v: %v, %v; want %v", time.Since(written), got, err, tc.after)
				}
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
}

// TestClientCacheNeverCachesWritesOrRecap: on one client with WithClientCache
// and warm cache entries, every write answers with the new score, TakeRecap
// sees the client's own write at once, and the status gate refuses an answer
// right after Finish, every time.
func TestClientCacheNeverCachesWritesOrRecap(t *testing.T) {
	const rounds = 200
	e := newEnv(t, withCacheMinute)
	id, _, b := e.running(3)
	for i := range rounds {
		if _, err := b.Standings(e.ctx); err != nil { // keeps a cached board around
			t.Fatal(err)
		}
		score, err := b.RecordCorrect(e.ctx, "Ali")
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(10 * (i + 1)); score != want {
			t.Fatalf("round %d: RecordCorrect = %d, want %d", i, score, want)
		}
		p := "P" + strconv.Itoa(i)
		a, err := b.RecordAnswer(e.ctx, p, 1)
		if err != nil || a != (kuis.Answer{Score: 10}) {
			t.Fatalf("round %d: RecordAnswer = %+v, %v; want score 10, not duplicate", i, a, err)
		}
		recap, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, s := range recap.Standings {
			got[s.Participant] = s.Score
		}
		if len(got) != i+2 || got["Ali"] != score || got[p] != 10 {
			t.Fatalf("round %d: recap has %d participants, Ali %d, %s %d; want %d, %d, 10",
				i, len(got), got["Ali"], p, got[p], i+2, score)
		}
	}

	for i := range 50 {
		_, m, b := e.running(1)
		if s, err := m.Status(e.ctx); err != nil || s != kuis.StatusRunning {
			t.Fatalf("Status = %q, %v", s, err)
		}
		if _, err := m.Get(e.ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Finish(e.ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.RecordCorrect(e.ctx, "Ali"); !errors.Is(err, kuis.ErrQuizFinished) {
			t.Fatalf("round %d: RecordCorrect right after Finish: %v, want ErrQuizFinished", i, err)
		}
		if _, err := b.RecordAnswer(e.ctx, "Ali", 1); !errors.Is(err, kuis.ErrQuizFinished) {
			t.Fatalf("round %d: RecordAnswer right after Finish: %v, want ErrQuizFinished", i, err)
		}
	}
}

// TestClientCacheReadsMatchContract: with WithClientCache every read returns
// the contract's reference answers, on the target (cached on a real server)
// and on a client without tracking (miniredis, DisableCache), where the same
// calls simply go to the server.
func TestClientCacheReadsMatchContract(t *testing.T) {
	clients := []struct {
		name   string
		client func(t *testing.T) rueidis.Client
	}{
		{redistest.Target(), func(t *testing.T) rueidis.Client { return redistest.Client(t) }},
		{"miniredis-DisableCache", func(t *testing.T) rueidis.Client { _, c := redistest.Miniredis(t); return c }},
	}
	want := map[string]any{
		"Standings": []kuis.Standing{{1, "Citra", 30}, {2, "Ali", 30}, {3, "Budi", 20}, {4, "Dewi", 10}},
		"Page":      []kuis.Standing{{1, "Citra", 30}},
		"Around":    []kuis.Standing{{2, "Ali", 30}},
		"Rank":      2,
		// Citra and Ali tie at 30: both rank 1 in competition ranking.
		"CompetitionRank": 1,
		"Score":           int64(30),
		"Len":             int64(4),
		"Status":          kuis.StatusRunning,
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			e := envWith(t, c.client(t), withCacheMinute)
			id, m, b := e.reference()
			want["Get"] = kuis.Info{Title: "Kuis " + id, Questions: 3, Status: kuis.StatusRunning}
			for _, tc := range cachedReads {
				for range 2 { // a miss, then (where tracking exists) a hit
					got, err := tc.read(e.ctx, m, b)
					if err != nil {
						t.Fatalf("%s: %v", tc.name, err)
					}
					if diff := cmp.Diff(want[tc.name], got); diff != "" {
						t.Errorf("%s (-want +got):\n%s", tc.name, diff)
					}
				}
			}
		})
	}
}
