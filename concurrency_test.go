package kuis_test

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// boardTotal sums the standings' scores.
func boardTotal(t *testing.T, e *env, b *kuis.Board) (int64, []kuis.Standing) {
	t.Helper()
	standings, err := b.Standings(e.ctx)
	if err != nil {
		t.Fatalf("Standings: %v", err)
	}
	var sum int64
	for _, s := range standings {
		sum += s.Score
	}
	return sum, standings
}

// TestConcurrentAnswersAddUpExactly: 32 goroutines x 400 answers over 20
// participants lose no point and double none. Each participant's replies must
// be exactly 10, 20, ... 10 x its count, so every ZINCRBY saw every earlier one.
func TestConcurrentAnswersAddUpExactly(t *testing.T) {
	const (
		goroutines   = 32
		perGoroutine = 400
		participants = 20
	)
	if !redistest.Real() {
		// It passes there too, but proves little: miniredis runs every command
		// under one lock, and 12,800 scripts in gopher-lua take ~10 s under -race.
		t.Skip("lost updates can only happen on a real server; set REDIS_ADDR or REDIS_CLUSTER_ADDRS")
	}
	e := newEnv(t)
	_, _, b := e.running(10)
	var (
		mu      sync.Mutex
		replies = map[string][]int64{}
		wg      sync.WaitGroup
	)
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := map[string][]int64{}
			for i := 0; i < perGoroutine; i++ {
				// An uneven spread, so that equal counts cannot hide a mix-up of members.
				name := fmt.Sprintf("peserta-%02d", (i*i+g)%participants)
				s, err := b.RecordCorrect(e.ctx, name)
				if err != nil {
					errs <- fmt.Errorf("RecordCorrect(%s): %w", name, err)
					return
				}
				mine[name] = append(mine[name], s)
			}
			mu.Lock()
			for name, s := range mine {
				replies[name] = append(replies[name], s...)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	total, standings := boardTotal(t, e, b)
	if total != 10*goroutines*perGoroutine {
		t.Errorf("board total = %d; want %d", total, 10*goroutines*perGoroutine)
	}
	got := map[string]int64{}
	for _, s := range standings {
		got[s.Participant] = s.Score
	}
	want := map[string]int64{}
	for name, s := range replies {
		want[name] = 10 * int64(len(s))
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		for i, score := range s {
			if score != 10*int64(i+1) {
				t.Errorf("%s: replies sorted %v...; reply %d is %d, want %d", name, s[:min(len(s), 5)], i, score, 10*(i+1))
				break
			}
		}
	}
	if len(want) != participants {
		t.Errorf("%d participants answered, want %d", len(want), participants)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scores (-want from the replies +got on the board):\n%s", diff)
	}
}

// TestFinishRacingWriters: Finish lands while 16 writers hammer one quiz.
// Every call either counts (and its 10 points are on the board) or is refused
// with ErrQuizFinished, and no call sent after Finish returned counts. It is
// cheap, so it also runs on miniredis, where it checks the refusal path.
func TestFinishRacingWriters(t *testing.T) {
	const (
		writers = 16
		// beforeFinish successes make sure Finish lands mid-stream, not before it.
		beforeFinish = 2000
		// afterRefusal calls per writer check that the gate stays shut.
		afterRefusal = 5
		// maxCalls bounds a writer if Finish is never called.
		maxCalls = 1_000_000
	)
	e := newEnv(t)
	_, m, b := e.running(10)
	var (
		successes atomic.Int64
		refused   atomic.Int64
		finished  atomic.Bool // set once Finish has returned
		wg        sync.WaitGroup
		once      sync.Once
		started   = make(chan struct{})
	)
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("peserta-%d", w%5) // shared members: writers contend on them
			for i := 0; i < maxCalls; i++ {
				sentAfterFinish := finished.Load()
				_, err := b.RecordCorrect(e.ctx, name)
				if err == nil {
					if sentAfterFinish {
						errs <- fmt.Errorf("writer %d: an answer sent after Finish returned was counted", w)
						return
					}
					if successes.Add(1) == beforeFinish {
						once.Do(func() { close(started) })
					}
					continue
				}
				if !errors.Is(err, kuis.ErrQuizFinished) {
					errs <- fmt.Errorf("writer %d: RecordCorrect = %v; want success or ErrQuizFinished", w, err)
					return
				}
				refused.Add(1)
				for j := 0; j < afterRefusal; j++ {
					if _, err := b.RecordCorrect(e.ctx, name); !errors.Is(err, kuis.ErrQuizFinished) {
						errs <- fmt.Errorf("writer %d: RecordCorrect after a refusal = %v; want ErrQuizFinished", w, err)
						return
					}
					refused.Add(1)
				}
				return
			}
			errs <- fmt.Errorf("writer %d: %d calls and never refused", w, maxCalls)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-started:
	case <-done: // every writer stopped early; the checks below report why
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	finished.Store(true)
	// Whatever counted was applied on the server before Finish: the board
	// now holds its final total.
	atFinish, _ := boardTotal(t, e, b)
	<-done
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	final, _ := boardTotal(t, e, b)
	if final != atFinish {
		t.Errorf("board total moved after Finish returned: %d then %d", atFinish, final)
	}
	if want := 10 * successes.Load(); final != want {
		t.Errorf("board total = %d; want 10 x %d successes = %d", final, successes.Load(), want)
	}
	if got := refused.Load(); got < writers*(1+afterRefusal) {
		t.Errorf("%d refusals; want at least %d (every writer is refused, then %d more times)", got, writers*(1+afterRefusal), afterRefusal)
	}
	if s, err := m.Status(e.ctx); err != nil || s != kuis.StatusFinished {
		t.Errorf("Status = %q, %v; want %q", s, err, kuis.StatusFinished)
	}
	t.Logf("%d answers counted, %d refused", successes.Load(), refused.Load())
}
