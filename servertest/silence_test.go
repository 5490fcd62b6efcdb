package servertest_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// Ports of the silence and cluster-failover tests' own servers (cluster bus
// ports 10000 above).
const silencePortLo, silencePortHi = 34200, 34249

// TestSilentServerIsUnavailableInBound: a server stopped (SIGSTOP) under
// RecordAnswer, a batch of RecordAnswers, Recap, Fold and an Events iterator, all called with no
// deadline of their own: each returns ErrUnavailable within WithSilence's
// bound after the server fell silent (Events, whose read blocks by design,
// within its block more); once the server runs again (SIGCONT), each works.
//
// Not parallel: it runs before the parallel tests, whose load would eat
// into bounds of a few seconds.
func TestSilentServerIsUnavailableInBound(t *testing.T) {
	const silence = 2 * time.Second
	const margin = 3 * time.Second // scheduling on a loaded machine
	const feedBlock = 5 * time.Second
	srv := redistest.StandaloneServers(t, silencePortLo, silencePortHi).Standalone()
	client := redistest.ClientAt(t, srv.Addr())
	s, err := kuis.New(client, kuis.WithSilence(silence))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	running, done := quizID(), quizID()
	live, _ := handles(t, s, running)
	finished, finisher := handles(t, s, done)
	for _, id := range []string{running, done} {
		if _, m := handles(t, s, id); m.Create(ctx, "Kuis "+id, 3) != nil {
			t.Fatalf("Create %s failed", id)
		}
	}
	for _, p := range []string{"Ali", "Budi", "Citra"} {
		if _, err := finished.RecordAnswer(ctx, p, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := finisher.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	recap, err := s.Recap(ctx, done)
	if err != nil {
		t.Fatal(err)
	}
	course, err := s.Course("kelas-8")
	if err != nil {
		t.Fatal(err)
	}

	// An Events iterator of the running quiz, blocked in its read on the
	// server before the stop.
	events := make(chan error, 1)
	eventsCtx, stopEvents := context.WithCancel(ctx)
	defer stopEvents()
	go func() {
		for _, err := range live.Events(eventsCtx, "") {
			events <- err
			return
		}
		events <- errors.New("the iterator ended without an event or an error")
	}()
	waitFor(t, 30*time.Second, "the Events iterator's XREAD", func() bool {
		list, err := srv.Do("CLIENT", "LIST")
		return err == nil && strings.Contains(list, "cmd=xread")
	})

	if err := syscall.Kill(srv.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := syscall.Kill(srv.PID(), syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}
	}
	defer resume()
	stopped := time.Now()

	type outcome struct {
		name  string
		err   error
		after time.Duration
	}
	calls := map[string]func() error{
		"RecordAnswer": func() error { return errOf(live.RecordAnswer(ctx, "Dewi", 1)) },
		"RecordAnswers": func() error { // a batch of many script runs: watched by PINGs, not a deadline
			in := make([]kuis.AnswerInput, 600)
			for i := range in {
				in[i] = kuis.AnswerInput{Participant: fmt.Sprintf("Siswa %d", i), Question: 1 + i%3}
			}
			return errOf(live.RecordAnswers(ctx, in))
		},
		"Recap":  func() error { return errOf(s.Recap(ctx, done)) },
		"Fold":   func() error { return errOf(course.Fold(ctx, recap)) },
		"Events": func() error { return <-events },
	}
	out := make(chan outcome, len(calls))
	for name, call := range calls {
		go func() {
			err := call()
			out <- outcome{name, err, time.Since(stopped)}
		}()
	}
	for range calls {
		var o outcome
		select {
		case o = <-out:
		case <-time.After(feedBlock + silence + time.Minute):
			t.Fatal("a call on the stopped server never returned")
		}
		t.Logf("%s: %v after %v", o.name, o.err, o.after.Round(time.Millisecond))
		bound := silence + margin
		if o.name == "Events" {
			bound += feedBlock
		}
		if !errors.Is(o.err, kuis.ErrUnavailable) || o.after > bound {
			t.Errorf("%s on a stopped server: %v after %v; want ErrUnavailable within %v", o.name, o.err, o.after.Round(time.Millisecond), bound)
		}
	}

	resume()
	waitFor(t, 30*time.Second, "the resumed server's PONG", func() bool { _, err := srv.Do("PING"); return err == nil })
	if _, err := live.RecordAnswer(ctx, "Eka", 2); err != nil {
		t.Errorf("RecordAnswer after the server resumed: %v", err)
	}
	if got, err := s.Recap(ctx, done); err != nil || len(got.Standings) != 3 {
		t.Errorf("Recap after the server resumed: %d standings, %v; want 3", len(got.Standings), err)
	}
	if _, err := course.Fold(ctx, recap); err != nil {
		t.Errorf("Fold after the server resumed: %v", err)
	}
	if st, err := course.Standing(ctx, "Ali"); err != nil || st.Score != 10 {
		t.Errorf("the course's Ali after the fold: %+v, %v; want 10 points", st, err)
	}
	for ev, err := range live.Events(ctx, "") {
		if err != nil || ev.Kind != kuis.EventAnswer {
			t.Errorf("Events after the server resumed: %+v, %v; want an answer", ev, err)
		}
		break
	}
}

// holdingProxy passes connections through to a server until hold is
// called; from then on it passes only its first connection's traffic, and
// drops what any other connection, old or new, sends either way: a server
// that still serves one connection and answers no other.
type holdingProxy struct {
	ln      net.Listener
	holding atomic.Bool
	mu      sync.Mutex
	conns   []net.Conn
}

func startHoldingProxy(t *testing.T, target string) *holdingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdingProxy{ln: ln}
	t.Cleanup(p.close)
	go p.serve(target)
	return p
}

func (p *holdingProxy) addr() string { return p.ln.Addr().String() }

func (p *holdingProxy) hold() { p.holding.Store(true) }

func (p *holdingProxy) serve(target string) {
	for first := true; ; first = false {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.keep(c)
		s, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			continue
		}
		p.keep(s)
		go p.pass(s, c, first)
		go p.pass(c, s, first)
	}
}

// pass copies what src sends to dst, and drops it instead while the proxy
// holds, unless the connection is its first.
func (p *holdingProxy) pass(dst, src net.Conn, first bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && (first || !p.holding.Load()) {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *holdingProxy) keep(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c)
}

func (p *holdingProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// TestSilentServerEndsEventsOnAnotherConnection: an Events iterator whose
// blocking read went out on a connection the server no longer answers,
// while the client's main connection still works, ends with ErrUnavailable
// within its block and the silence bound (6 s here), although rueidis
// returns that read only about 10 s after it was sent.
//
// Not parallel, as TestSilentServerIsUnavailableInBound.
func TestSilentServerEndsEventsOnAnotherConnection(t *testing.T) {
	const silence = time.Second
	const margin = 3 * time.Second // scheduling on a loaded machine
	const feedBlock = 5 * time.Second
	srv := redistest.StandaloneServers(t, silencePortLo, silencePortHi).Standalone()
	proxy := startHoldingProxy(t, srv.Addr())
	client, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress: []string{proxy.addr()}, DisableCache: true,
		PipelineMultiplex: -1, // one main connection: the proxy's first
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	s, err := kuis.New(client, kuis.WithSilence(silence))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := quizID()
	b, m := handles(t, s, id)
	if err := m.Create(ctx, "Kuis "+id, 3); err != nil {
		t.Fatal(err)
	}
	proxy.hold()
	start := time.Now()
	var got error
	for _, err := range b.Events(ctx, "") {
		if err != nil {
			got = err
			break
		}
	}
	took := time.Since(start)
	if bound := feedBlock + silence + margin; !errors.Is(got, kuis.ErrUnavailable) || took > bound {
		t.Errorf("Events whose blocking read's connection went silent: %v after %v; want ErrUnavailable within %v", got, took.Round(time.Millisecond), bound)
	}
}
