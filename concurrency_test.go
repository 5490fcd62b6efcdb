package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestConcurrentDuplicatesCountOnce: every (participant, question) pair is
// submitted by every one of many goroutines at once, each in its own order,
// half of them one by one and half in batches. Exactly one submission of each
// pair may count; the board ends at 10 x the participant's distinct pairs,
// the answers set and the log hold exactly those pairs, once each, and Audit
// finds the order set placing everyone by their latest logged answer.
func TestConcurrentDuplicatesCountOnce(t *testing.T) {
	const (
		participants = 12
		questions    = 8
		submitters   = 16
		batch        = 7
	)
	e := newEnv(t)
	id, _, b := e.running(questions)
	// Participant p answers questions 1 to p%questions+1, so that scores differ
	// and a mix-up of members shows.
	var pairs []kuis.AnswerInput
	wantBoard := map[string]float64{}
	var wantPairs []string
	for p := range participants {
		name := fmt.Sprintf("Siswa %02d", p+1)
		for q := 1; q <= p%questions+1; q++ {
			pairs = append(pairs, kuis.AnswerInput{Participant: name, Question: q})
			wantPairs = append(wantPairs, fmt.Sprintf("%d:%s", q, name))
		}
		wantBoard[name] = float64(10 * (p%questions + 1))
	}
	sort.Strings(wantPairs)

	var (
		mu      sync.Mutex
		counted = map[kuis.AnswerInput]int{}
		errs    []error
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	for g := range submitters {
		mine := append([]kuis.AnswerInput(nil), pairs...)
		rand.New(rand.NewPCG(uint64(g), 1)).Shuffle(len(mine), func(i, j int) { mine[i], mine[j] = mine[j], mine[i] })
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var results []kuis.AnswerResult
			var callErr error
			for i := 0; i < len(mine) && callErr == nil; {
				n := 1
				if g%2 == 1 {
					n = min(batch, len(mine)-i)
				}
				var res []kuis.AnswerResult
				if n == 1 {
					a, err := b.RecordAnswer(e.ctx, mine[i].Participant, mine[i].Question)
					res = []kuis.AnswerResult{{Answer: a, Err: err}}
				} else {
					res, callErr = b.RecordAnswers(e.ctx, mine[i:i+n])
				}
				results = append(results, res...)
				i += n
			}
			mu.Lock()
			defer mu.Unlock()
			if callErr != nil {
				errs = append(errs, fmt.Errorf("submitter %d: RecordAnswers: %w", g, callErr))
			}
			for i, r := range results {
				switch {
				case r.Err != nil:
					errs = append(errs, fmt.Errorf("submitter %d: %+v: %w", g, mine[i], r.Err))
				case !r.Duplicate:
					counted[mine[i]]++
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}

	wantCounted := map[kuis.AnswerInput]int{}
	for _, p := range pairs {
		wantCounted[p] = 1
	}
	if diff := cmp.Diff(wantCounted, counted); diff != "" {
		t.Errorf("non-duplicate replies per pair (-want +got):\n%s", diff)
	}
	k := e.keys(id)
	if diff := cmp.Diff(wantBoard, scoresOnBoard(e, k)); diff != "" {
		t.Errorf("board (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantPairs, pairsAnswered(e, k)); diff != "" {
		t.Errorf("answers set (-want +got):\n%s", diff)
	}
	var loggedPairs []string
	for _, entry := range logFields(e, k) {
		loggedPairs = append(loggedPairs, entry[1]+":"+entry[0])
	}
	sort.Strings(loggedPairs)
	if diff := cmp.Diff(wantPairs, loggedPairs); diff != "" {
		t.Errorf("pairs in the log (-want +got):\n%s", diff)
	}
	if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
}

// TestFinishRacingWriters: Finish lands while writers record answers, several
// per participant. Before Finish returns, a call counts, answers Duplicate or
// is refused with ErrQuizFinished; once it has returned, or once the writer
// was refused, no call counts. The
// board then never changes, and holds 10 points per counted answer.
func TestFinishRacingWriters(t *testing.T) {
	const (
		writers   = 16
		questions = 1000
		// beforeFinish counted answers make sure Finish lands mid-stream.
		beforeFinish = 300
		// afterRefusal calls per writer check that the gate stays shut.
		afterRefusal = 5
	)
	e := newEnv(t)
	id, m, b := e.running(questions)
	var (
		mu        sync.Mutex
		counted   = map[string]float64{} // 10 per non-duplicate reply
		successes atomic.Int64
		finished  atomic.Bool // set once Finish has returned
		errs      []error
		wg        sync.WaitGroup
		started   = make(chan struct{})
		once      sync.Once
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("peserta-%d", w%5) // writers share participants
			refusals := 0
			for i := 0; i < questions && refusals <= afterRefusal; i++ {
				q := (i+61*w)%questions + 1
				sentAfterFinish := finished.Load()
				a, err := b.RecordAnswer(e.ctx, name, q)
				switch {
				case errors.Is(err, kuis.ErrQuizFinished):
					refusals++
				case err != nil:
					fail(fmt.Errorf("writer %d: RecordAnswer(%s, %d): %w", w, name, q, err))
					return
				case a.Duplicate:
				case sentAfterFinish || refusals > 0:
					fail(fmt.Errorf("writer %d: RecordAnswer(%s, %d) counted after Finish returned or refused: %+v", w, name, q, a))
					return
				default:
					mu.Lock()
					counted[name] += 10
					mu.Unlock()
					if successes.Add(1) == beforeFinish {
						once.Do(func() { close(started) })
					}
				}
			}
			if refusals == 0 {
				fail(fmt.Errorf("writer %d: never refused", w))
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-started:
	case <-done: // every writer stopped early; errs says why
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	finished.Store(true)
	k := e.keys(id)
	atFinish := scoresOnBoard(e, k)
	<-done
	for _, err := range errs {
		t.Error(err)
	}
	final := scoresOnBoard(e, k)
	if diff := cmp.Diff(atFinish, final); diff != "" {
		t.Errorf("board changed after Finish returned (-at Finish +final):\n%s", diff)
	}
	if diff := cmp.Diff(counted, final); diff != "" {
		t.Errorf("board (-10 per counted reply +got):\n%s", diff)
	}
	if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
	t.Logf("%d answers counted", successes.Load())
}

// TestExpiredCallerDoesNotFailOthers: rueidis dials a connection once for all
// concurrent callers, with the first caller's context. A caller whose
// deadline has passed must not make the others' calls fail with its dial
// timeout.
func TestExpiredCallerDoesNotFailOthers(t *testing.T) {
	e, fresh := newEnv(t), func() rueidis.Client { return redistest.Client(t) }
	if !redistest.Real() {
		m, c := redistest.Miniredis(t)
		e, fresh = envWith(t, c), func() rueidis.Client {
			c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{m.Addr()}, DisableCache: true, ForceSingleClient: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			return c
		}
	}
	id, _, _ := e.running(10)
	var mu sync.Mutex
	var failures []error
	for round := range 10 {
		store := e.storeOn(fresh()) // a fresh client: no connection dialled yet
		b, err := store.Board(id)
		if err != nil {
			t.Fatal(err)
		}
		expired, cancel := context.WithDeadline(e.ctx, time.Unix(0, 0))
		var wg sync.WaitGroup
		for g := range 16 {
			wg.Go(func() {
				if g%2 == 0 {
					_, _ = b.RecordAnswer(expired, "Late", 1) // fails; what matters is the others
					return
				}
				if _, err := b.RecordAnswer(e.ctx, fmt.Sprintf("S%d", g), round+1); err != nil {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		cancel()
	}
	for _, err := range failures {
		t.Errorf("a caller with a live context failed: %v", err)
	}
}
