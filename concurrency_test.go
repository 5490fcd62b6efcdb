package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestHandshakeCutShortByAnotherCallerFailsNoOne: rueidis shares a new
// connection's dial and handshake among the callers waiting for it, under
// the first caller's context. Here the first caller's deadline ends while the
// server's reply to the handshake is held back, so every waiting caller gets
// that caller's context.DeadlineExceeded although its own context lives and
// nothing of its was sent: the library sends each again, and each answer
// counts once.
func TestHandshakeCutShortByAnotherCallerFailsNoOne(t *testing.T) {
	if redistest.Cluster() {
		t.Skip("a cluster client dials every node; the proxy stands before one server")
	}
	var e *env
	var target string
	if redistest.Real() {
		e, target = newEnv(t), redistest.Nodes()[0]
	} else {
		m, c := redistest.Miniredis(t)
		e, target = envWith(t, c), m.Addr()
	}
	id, _, _ := e.running(20)
	p := newHoldProxy(t, target)
	c, _ := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{p.addr()}, ForceSingleClient: true,
		DisableCache: true, DisableRetry: true}) // the proxy refuses this first dial: nothing is connected yet
	t.Cleanup(c.Close)
	board, err := e.storeOn(c).Board(id)
	if err != nil {
		t.Fatal(err)
	}
	p.hold.Store(true)
	short, cancel := context.WithTimeout(e.ctx, 20*time.Millisecond)
	defer cancel()
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		_, _ = board.RecordAnswer(short, "Late", 1) // dials; its deadline ends inside the handshake
	}()
	<-p.accepted // the first caller's dial reached the proxy: the others now wait for it
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = board.RecordAnswer(e.ctx, fmt.Sprintf("S%d", i), i+1)
		})
	}
	wg.Wait()
	<-firstDone
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d, its context alive, failed: %v", i, err)
		}
	}
	for i := range errs {
		if s, err := e.board(id).Standing(e.ctx, fmt.Sprintf("S%d", i)); err != nil || s.Score != 10 {
			t.Errorf("S%d: %+v, %v; want 10 points", i, s, err)
		}
	}
}

// holdProxy forwards TCP to a server. It closes the first connection at
// once; while hold is set, it holds each later connection's first reply from
// the server for 200 ms.
type holdProxy struct {
	ln       net.Listener
	hold     atomic.Bool
	accepted chan struct{} // one send per connection held
}

func newHoldProxy(t *testing.T, target string) *holdProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdProxy{ln: ln, accepted: make(chan struct{}, 16)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		// The first two dials, rueidis's at NewClient and New's question
		// to the server, are refused: nothing is connected after them.
		for n := 1; ; n++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			if n <= 2 {
				conn.Close()
				continue
			}
			go p.forward(conn, target)
		}
	}()
	return p
}

func (p *holdProxy) addr() string { return p.ln.Addr().String() }

func (p *holdProxy) forward(conn net.Conn, target string) {
	defer conn.Close()
	server, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer server.Close()
	held := p.hold.Load()
	if held {
		p.accepted <- struct{}{}
	}
	go func() { _, _ = io.Copy(server, conn) }()
	if held {
		buf := make([]byte, 1)
		if _, err := io.ReadFull(server, buf); err != nil {
			return
		}
		time.Sleep(200 * time.Millisecond) // the server's reply, held back
		if _, err := conn.Write(buf); err != nil {
			return
		}
	}
	_, _ = io.Copy(conn, server)
}
