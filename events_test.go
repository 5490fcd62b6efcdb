package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// collect runs Events until it stops, or until n events were seen (n < 0: no
// limit), and returns the events and the error it yielded, if any.
func collect(ctx context.Context, b *kuis.Board, after string, n int) ([]kuis.Event, error) {
	var out []kuis.Event
	for ev, err := range b.Events(ctx, after) {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
		if len(out) == n {
			break
		}
	}
	return out, nil
}

// brief is an event without its ID and time, which the server chooses.
type brief struct {
	Kind        kuis.EventKind
	Participant string
	Question    int
	Score       int64
}

func briefs(evs []kuis.Event) []brief {
	out := make([]brief, len(evs))
	for i, e := range evs {
		out[i] = brief{e.Kind, e.Participant, e.Question, e.Score}
	}
	return out
}

// referenceEvents are the reference session's nine answers as events.
var referenceEvents = []brief{
	{kuis.EventAnswer, "Ali", 1, 10}, {kuis.EventAnswer, "Citra", 1, 10},
	{kuis.EventAnswer, "Ali", 2, 20}, {kuis.EventAnswer, "Budi", 2, 10}, {kuis.EventAnswer, "Citra", 2, 20},
	{kuis.EventAnswer, "Ali", 3, 30}, {kuis.EventAnswer, "Budi", 3, 20}, {kuis.EventAnswer, "Citra", 3, 30},
	{kuis.EventAnswer, "Dewi", 3, 10},
}

func TestEventsReplayFinishAndResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, m, b := e.reference()
	// Neither a duplicate nor a refusal makes an event.
	if a, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil || !a.Duplicate {
		t.Fatalf("repeat: %+v, %v; want a Duplicate", a, err)
	}
	if _, err := b.RecordAnswer(e.ctx, "Ali", 4); !errors.Is(err, kuis.ErrInvalidQuestion) {
		t.Fatalf("question 4 of 3: %v, want ErrInvalidQuestion", err)
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.RecordAnswer(e.ctx, "Dewi", 1); !errors.Is(err, kuis.ErrQuizFinished) {
		t.Fatalf("answer after Finish: %v, want ErrQuizFinished", err)
	}
	if err := m.Finish(e.ctx); err != nil { // a second Finish logs nothing
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	all, err := collect(ctx, b, "", -1) // ends by itself after the finish
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	want := append(append([]brief{}, referenceEvents...), brief{Kind: kuis.EventFinished})
	if diff := cmp.Diff(want, briefs(all)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	for i, ev := range all {
		if ev.At.IsZero() || time.Since(ev.At) > time.Hour {
			t.Errorf("event %d at %v, want the server's time of now", i, ev.At)
		}
		if i > 0 && !idBefore(all[i-1].ID, ev.ID) {
			t.Errorf("event IDs %s then %s: not increasing", all[i-1].ID, ev.ID)
		}
	}
	// Resuming after any event yields exactly the rest; after the last, nothing.
	for i, ev := range all {
		rest, err := collect(ctx, b, ev.ID, -1)
		if err != nil {
			t.Fatalf("Events after %s: %v", ev.ID, err)
		}
		if diff := cmp.Diff(briefs(all[i+1:]), briefs(rest), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("after event %d (-want +got):\n%s", i, diff)
		}
	}
	// The recap and the audit read past the finish entry.
	recap, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(recap.Answers) != 9 {
		t.Errorf("Recap.Answers: %d answers, want 9", len(recap.Answers))
	}
	if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
		t.Errorf("Audit of a finished quiz: %v, %v; want no violation", v, err)
	}
}

func TestEventsBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, b := e.running(3)
	for _, after := range []string{"x", "1", "-1-0", "1-", "-", "1-2-3", "99999999999999999999-0"} {
		if _, err := collect(e.ctx, b, after, -1); !errors.Is(err, kuis.ErrInvalidRange) {
			t.Errorf("Events after %q: %v, want ErrInvalidRange", after, err)
		}
	}
	missing := e.board(quizID())
	if _, err := collect(e.ctx, missing, "", -1); !errors.Is(err, kuis.ErrQuizNotFound) {
		t.Errorf("Events of a missing quiz: %v, want ErrQuizNotFound", err)
	}
	for _, c := range []struct {
		top   int
		every time.Duration
	}{{0, time.Second}, {1001, time.Second}, {10, 49 * time.Millisecond}, {-1, -1}} {
		for _, err := range b.Live(e.ctx, c.top, c.every) {
			if !errors.Is(err, kuis.ErrInvalidRange) {
				t.Errorf("Live(%d, %v): %v, want ErrInvalidRange", c.top, c.every, err)
			}
		}
	}
	for _, err := range missing.Live(e.ctx, 10, time.Second) {
		if !errors.Is(err, kuis.ErrQuizNotFound) {
			t.Errorf("Live of a missing quiz: %v, want ErrQuizNotFound", err)
		}
	}
}

// TestEventsFinishedWithoutEntry: a quiz whose answers predate the log gets
// no finish entry, and one finished by a plain HSET (the contract's own
// command) has none either; the feed still ends, on the status, with a
// finished event that a resume does not repeat.
func TestEventsFinishedWithoutEntry(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{FeedBlock: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(e.ctx, signalWait)
	defer cancel()

	t.Run("legacy", func(t *testing.T) {
		id, m, b := e.reference()
		e.mustRaw("DEL", e.keys(id).Log()) // as written before the log existed
		if err := m.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		if e.exists(e.keys(id).Log()) {
			t.Fatal("Finish created a log for a quiz whose answers predate it")
		}
		evs, err := collect(ctx, b, "", -1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]brief{{Kind: kuis.EventFinished}}, briefs(evs)); diff != "" {
			t.Fatalf("events (-want +got):\n%s", diff)
		}
		if rest, err := collect(ctx, b, evs[0].ID, -1); err != nil || len(rest) != 0 {
			t.Fatalf("after the finish: %v, %v; want nothing", rest, err)
		}
	})

	t.Run("hset", func(t *testing.T) {
		id, _, b := e.reference()
		type result struct {
			evs []kuis.Event
			err error
		}
		// The reader signals once it has seen the last logged answer: by then
		// it found the quiz running and follows the log, so the status can
		// only reach it through the shared reader's check after a block.
		caughtUp := make(chan struct{})
		done := make(chan result, 1)
		go func() {
			var r result
			for ev, err := range b.Events(ctx, "") {
				if err != nil {
					r.err = err
					continue // the iterator stops by itself after its error
				}
				if r.evs = append(r.evs, ev); len(r.evs) == len(referenceEvents) {
					close(caughtUp)
				}
			}
			done <- r
		}()
		select {
		case <-caughtUp:
		case r := <-done:
			t.Fatalf("Events ended before the HSET: %v, %v", briefs(r.evs), r.err)
		}
		e.mustRaw("HSET", e.keys(id).Meta(), "status", "selesai")
		r := <-done // ctx bounds the wait
		if r.err != nil {
			t.Fatal(r.err)
		}
		evs := r.evs
		want := append(append([]brief{}, referenceEvents...), brief{Kind: kuis.EventFinished})
		if diff := cmp.Diff(want, briefs(evs)); diff != "" {
			t.Fatalf("events (-want +got):\n%s", diff)
		}
		last := evs[len(evs)-1]
		if rest, err := collect(ctx, b, last.ID, -1); err != nil || len(rest) != 0 {
			t.Fatalf("after the finish %s: %v, %v; want nothing", last.ID, rest, err)
		}
		if rest, err := collect(ctx, b, evs[len(evs)-2].ID, -1); err != nil || len(rest) != 1 || rest[0].ID != last.ID {
			t.Fatalf("after the last answer: %v, %v; want the finish %s again", rest, err, last.ID)
		}
	})
}

// TestEventsLiveDelivery: a blocked reader gets each new answer as it is
// counted, and its ctx ends it at once, yielding ctx's error once: with no
// new event, and long before the shared reader's XREAD BLOCK would time out.
func TestEventsLiveDelivery(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{FeedBlock: longBlock})
	_, _, b := e.running(3)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	got := make(chan kuis.Event)
	ended := make(chan error, 1)
	go func() {
		var last error
		for ev, err := range b.Events(ctx, "") {
			if err != nil {
				last = err
				continue // the iterator must stop by itself after its error
			}
			got <- ev
		}
		ended <- last
	}()
	for i, name := range []string{"Ali", "Budi", "Citra"} {
		if _, err := b.RecordAnswer(e.ctx, name, 1); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-got:
			if ev.Participant != name || ev.Score != 10 || ev.Question != 1 {
				t.Fatalf("event %d: %+v, want %s's answer to 1", i, ev, name)
			}
		case <-time.After(signalWait):
			t.Fatalf("answer %d: no event within %v", i, signalWait)
		}
	}
	cancel()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after cancel: %v, want context.Canceled", err)
		}
	case ev := <-got:
		t.Fatalf("after cancel, with nothing written: event %+v", ev)
	case <-time.After(signalWait):
		// Only the cancel can end it this early: no event came, and the
		// block lasts longBlock.
		t.Fatalf("Events did not end within %v of its ctx's cancel (its XREAD blocks %v)", signalWait, longBlock)
	}
}

// TestEventsLiveNoGoroutineLeak: blocked readers and Live loops ended by
// their ctx leave no goroutine behind, once the client is closed.
func TestEventsLiveNoGoroutineLeak(t *testing.T) {
	client, closeClient, err := redistest.Open()
	if err != nil {
		t.Fatal(err)
	}
	e := envTuned(t, client, kuis.Tuning{FeedBlock: longBlock})
	_, _, b := e.reference()
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	ready := make(chan struct{}, 20) // a reader has caught up, or shown its first board
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last error
			if i%2 == 0 {
				n := 0
				for _, err := range b.Events(ctx, "") {
					if last = err; err == nil {
						n++
						if n == len(referenceEvents) {
							ready <- struct{}{}
						}
					}
				}
				errs <- last
				return
			}
			first := true
			for _, err := range b.Live(ctx, 10, 50*time.Millisecond) {
				if first && err == nil {
					ready <- struct{}{}
				}
				first, last = false, err
			}
			errs <- last
		}()
	}
	timeout := time.After(signalWait)
	for n := 0; n < 20; n++ {
		select {
		case <-ready:
		case <-timeout:
			t.Fatalf("%d of 20 readers were following the quiz after %v", n, signalWait)
		}
	}
	if redistest.Real() { // the shared reader waits in XREAD BLOCK, as the server sees it
		if err := waitBlockedInXread(e.ctx, e, ""); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.ContainsFunc(libraryGoroutines(), func(g string) bool { return strings.Contains(g, "(*feedHubs).run") }) {
		t.Fatalf("the readers follow the quiz but no feed hub runs: the goroutine count below would prove nothing")
	}
	start := time.Now()
	cancel()
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(signalWait):
		t.Fatalf("the iterators did not end within %v of their ctx's cancel (the XREAD blocks %v)", signalWait, longBlock)
	}
	t.Logf("the iterators ended %v after their ctx's cancel", time.Since(start))
	close(errs)
	for err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("reader ended with %v, want context.Canceled", err)
		}
	}
	if _, err := e.store.Purge(e.ctx); err != nil {
		t.Fatal(err)
	}
	closeClient()
	if left := libraryGoroutinesAfter(signalWait); len(left) > 0 {
		t.Fatalf("%d goroutines of the library still run %v after the client closed:\n%s", len(left), signalWait, strings.Join(left, "\n\n"))
	}
}

// TestEventsResumeAfterKill: 64 goroutines count 10,000 answers in four
// bursts while one reader follows the feed; between bursts, with the reader
// blocked in XREAD, its connection is killed (CLIENT KILL), and the reader
// resumes from the last ID it saw. It sees every answer exactly once, in the
// log's order, then the finish.
func TestEventsResumeAfterKill(t *testing.T) {
	const (
		writers      = 64
		participants = 100
		total        = 10_000
		bursts       = 4
	)
	e := newEnv(t)
	id, m, b := e.running(total / participants)
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
	defer cancel()
	reader := b // on miniredis, which has no CLIENT KILL, the reader drops its iterator instead
	if redistest.Real() {
		// Without rueidis' resend of a read-only command, each kill reaches
		// the reader as an error, and the reader resumes by itself.
		// Its name tells its connections apart in CLIENT LIST.
		rs := e.storeOn(redistest.ClientWith(t, func(o *rueidis.ClientOption) { o.DisableRetry, o.ClientName = true, e.ns }))
		var err error
		if reader, err = rs.Board(id); err != nil {
			t.Fatal(err)
		}
	}

	next := make(chan struct{}) // the reader lets the next burst go
	werrs := make(chan error, writers*bursts)
	finished := make(chan error, 1)
	go func() {
		for burst := range bursts {
			if burst > 0 {
				select {
				case <-next:
				case <-ctx.Done():
					return
				}
			}
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := burst*total/bursts + w; i < (burst+1)*total/bursts; i += writers {
						if _, err := b.RecordAnswer(ctx, fmt.Sprintf("p%03d", i%participants), i/participants+1); err != nil {
							werrs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
		}
		finished <- m.Finish(ctx)
	}()

	var (
		seen  = map[string]bool{}
		order []string
		last  string
		drops int
	)
read:
	for {
		for ev, err := range reader.Events(ctx, last) {
			if err != nil {
				if ctx.Err() != nil {
					t.Fatalf("after %d events: %v", len(order), err)
				}
				drops++
				continue read // resume after the last ID seen
			}
			if ev.Kind == kuis.EventFinished {
				break read
			}
			key := fmt.Sprintf("%d:%s", ev.Question, ev.Participant)
			if seen[key] {
				t.Fatalf("answer %s seen twice (event %s)", key, ev.ID)
			}
			seen[key] = true
			order = append(order, ev.ID)
			last = ev.ID
			if len(order)%(total/bursts) == 0 && len(order) < total {
				// The burst is read. Drop the reader.
				if !redistest.Real() {
					next <- struct{}{}
					drops++
					continue read
				}
				// Once the server shows it blocked in XREAD, kill it.
				if err := waitBlockedInXread(ctx, e, e.ns); err != nil {
					t.Fatal(err)
				}
				if err := killReaders(ctx, e); err != nil {
					t.Fatal(err)
				}
				next <- struct{}{}
			}
		}
		t.Fatalf("Events ended after %d events without the finish", len(order))
	}
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	close(werrs)
	for err := range werrs {
		t.Fatal(err)
	}
	if len(seen) != total {
		t.Fatalf("saw %d distinct answers, want %d", len(seen), total)
	}
	logged, err := e.client.Do(e.ctx, e.client.B().Xrange().Key(e.keys(id).Log()).Start("-").End("+").Build()).AsXRange()
	if err != nil {
		t.Fatal(err)
	}
	logged = logged[1:] // the start entry is no event
	if len(logged) != total+1 {
		t.Fatalf("log holds %d entries after the start, want %d answers and the finish", len(logged), total+1)
	}
	for i, id := range order {
		if logged[i].ID != id {
			t.Fatalf("event %d is %s, the log's entry %d is %s", i, id, i, logged[i].ID)
		}
	}
	// A kill may also hit the connection the reader catches up on, which
	// then fails once more: at least one resume per drop.
	if drops < bursts-1 {
		t.Errorf("the reader resumed %d times, want at least %d: once per drop", drops, bursts-1)
	}
	t.Logf("%d events, %d drops resumed", len(order), drops)
}

// killReaders kills, on every node, the connections whose last command was
// XREAD: the feed's dedicated connections.
func killReaders(ctx context.Context, e *env) error {
	killed := 0
	for addr, node := range e.client.Nodes() {
		clients, err := clientList(ctx, node)
		if err != nil {
			return fmt.Errorf("CLIENT LIST on %s: %w", addr, err)
		}
		for _, c := range clients {
			if c["cmd"] != "xread" {
				continue
			}
			id, err := strconv.ParseInt(c["id"], 10, 64)
			if err != nil {
				return fmt.Errorf("CLIENT LIST on %s: %v: %w", addr, c, err)
			}
			if err := node.Do(ctx, node.B().ClientKill().Id(id).Build()).Error(); err != nil {
				return fmt.Errorf("CLIENT KILL ID %d on %s: %w", id, addr, err)
			}
			killed++
		}
	}
	if killed == 0 {
		return errors.New("no XREAD connection to kill")
	}
	return nil
}

// clientList is CLIENT LIST of one node: each connection's fields by name
// (id, name, flags, cmd, user…).
func clientList(ctx context.Context, node rueidis.Client) ([]map[string]string, error) {
	list, err := node.Do(ctx, node.B().ClientList().Build()).ToString()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, line := range strings.Split(list, "\n") {
		// RESP3 replies a verbatim string: its first line starts "txt:".
		line = strings.TrimSpace(strings.TrimPrefix(line, "txt:"))
		if line == "" {
			continue
		}
		fields := map[string]string{}
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			fields[k] = v
		}
		out = append(out, fields)
	}
	return out, nil
}

// waitBlockedInXread waits until a connection of the real server named name
// ("" for any) is blocked in XREAD (CLIENT LIST: flags b, cmd xread), as a
// feed's shared reader is while it waits for entries: the server's own
// signal that the reader blocks, polled for at most signalWait.
func waitBlockedInXread(ctx context.Context, e *env, name string) error {
	for deadline := time.Now().Add(signalWait); ; time.Sleep(time.Millisecond) {
		for addr, node := range e.client.Nodes() {
			clients, err := clientList(ctx, node)
			if err != nil {
				return fmt.Errorf("CLIENT LIST on %s: %w", addr, err)
			}
			for _, c := range clients {
				if c["cmd"] == "xread" && strings.Contains(c["flags"], "b") && (name == "" || c["name"] == name) {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no connection named %q blocked in XREAD after %v", name, signalWait)
		}
	}
}

// TestLiveThrottled: under constant answering Live yields at most
// ceil(duration/every)+1 boards, keeps refreshing (throttled, not
// debounced), and ends with the final board after Finish.
func TestLiveThrottled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, m, b := e.running(1000)
	ctx, cancel := context.WithTimeout(e.ctx, signalWait)
	defer cancel()
	const (
		every = 100 * time.Millisecond
		// The answering goes on until Live has yielded this many boards, so
		// a stalled machine delays them but cannot make them fewer; a
		// debounced Live would never yield a second one.
		during = 5
	)
	stop := make(chan struct{})
	var stopOnce sync.Once
	stopAnswering := func() { stopOnce.Do(func() { close(stop) }) }
	defer stopAnswering()
	werr := make(chan error, 1)
	go func() {
		defer close(werr)
		for i := 0; ; i++ {
			select {
			case <-stop:
				werr <- m.Finish(ctx)
				return
			default:
			}
			if _, err := b.RecordAnswer(ctx, fmt.Sprintf("p%02d", i%40), i/40+1); err != nil {
				werr <- err
				return
			}
		}
	}()
	start := time.Now()
	var boards [][]kuis.Standing
	for page, err := range b.Live(ctx, 10, every) {
		if err != nil {
			t.Fatalf("Live after %d boards in %v of constant answering: %v; want %d, a refresh every %v (throttled, not debounced)",
				len(boards), time.Since(start), err, during, every)
		}
		if boards = append(boards, page); len(boards) == during {
			stopAnswering()
		}
	}
	d := time.Since(start) // around the whole iteration: every tick Live waited for is in it
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	// The first board, then at most one per tick.
	limit := int(math.Ceil(float64(d)/float64(every))) + 1
	if len(boards) > limit {
		t.Errorf("%d boards in %v at every %v, want at most %d", len(boards), d, every, limit)
	}
	if len(boards) < during+1 {
		t.Errorf("%d boards in %v, want %d during the answering and the final one", len(boards), d, during)
	}
	final, err := b.Page(e.ctx, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(final, boards[len(boards)-1]); diff != "" {
		t.Errorf("last board is not the final one (-final +last):\n%s", diff)
	}
	t.Logf("%d boards in %v", len(boards), d)
}

// TestLiveIdleAndCost: a board that does not change is not read again, and
// 100 readers of one board cost the server at most one board read per
// reader per every (counted with INFO commandstats on a real server).
func TestLiveIdleAndCost(t *testing.T) {
	e := newEnv(t)
	_, m, b := e.reference()
	const (
		readers = 100
		every   = 100 * time.Millisecond
	)
	var before map[string]int64
	if redistest.Real() {
		before = commandCalls(t, e.ctx, e.client, "zrange", "xrevrange")
	}
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	counts := make(chan int, readers)
	errs := make(chan error, readers)
	for range readers {
		go func() {
			n := 0
			for _, err := range b.Live(ctx, 10, every) {
				if err != nil {
					errs <- err
					break
				}
				n++
			}
			counts <- n
		}()
	}
	// One second of constant answering, then a second of silence, then the finish.
	for i := 0; time.Since(start) < time.Second; i++ {
		if _, err := b.RecordAnswer(ctx, fmt.Sprintf("p%05d", i), 1); err != nil {
			t.Fatal(err)
		}
	}
	busy := time.Since(start) // the last answer may end well after the second
	time.Sleep(time.Second)
	if err := m.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	total := 0
	for range readers {
		total += <-counts
	}
	d := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	perReader := int(math.Ceil(float64(d)/float64(every))) + 1
	// Each reader: the first board, one per tick while answers came, one
	// for the last answer, the final one.
	if most := readers * (int(busy/every) + 3); total > most {
		t.Errorf("%d boards for %d readers after %v of answering, want at most %d: a silent second must yield none", total, readers, busy, most)
	}
	if before != nil {
		after := commandCalls(t, e.ctx, e.client, "zrange", "xrevrange")
		reads, probes := after["zrange"]-before["zrange"], after["xrevrange"]-before["xrevrange"]
		if reads > int64(readers*perReader) {
			t.Errorf("%d board reads (ZRANGE) for %d readers over %v at every %v, want at most %d", reads, readers, d, every, readers*perReader)
		}
		if probes > int64(readers*perReader) {
			t.Errorf("%d probes (XREVRANGE), want at most %d", probes, readers*perReader)
		}
		t.Logf("%d boards, %d ZRANGE, %d XREVRANGE for %d readers over %v", total, reads, probes, readers, d)
	}
}

// idBefore reports whether stream ID a ("<ms>-<seq>") comes before b.
func idBefore(a, b string) bool {
	var am, as, bm, bs uint64
	if _, err := fmt.Sscanf(a, "%d-%d", &am, &as); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(b, "%d-%d", &bm, &bs); err != nil {
		return false
	}
	return am < bm || am == bm && as < bs
}

// TestEventsSharedReaders: 20 readers of one quiz share one reader of the
// log; half of them are slow and fall behind (a buffer of one batch), catch
// up alone and join again. Each sees every answer once, in the log's order.
func TestEventsSharedReaders(t *testing.T) {
	t.Parallel()
	const (
		readers = 20
		total   = 2_000
	)
	e := newTunedEnv(t, kuis.Tuning{MemberBuffer: 1})
	id, m, b := e.running(total / 50)
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	seen := make([][]string, readers)
	errs := make(chan error, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev, err := range b.Events(ctx, "") {
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				if ev.Kind == kuis.EventFinished {
					return
				}
				seen[r] = append(seen[r], ev.ID)
				if r%2 == 1 && len(seen[r])%100 == 0 {
					time.Sleep(20 * time.Millisecond) // fall behind
				}
			}
			errs <- fmt.Errorf("reader %d: ended without the finish", r)
		}()
	}
	var writers sync.WaitGroup
	for w := range 16 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := w; i < total; i += 16 {
				if _, err := b.RecordAnswer(ctx, fmt.Sprintf("p%02d", i%50), i/50+1); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	writers.Wait()
	if err := m.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	logged, err := e.client.Do(e.ctx, e.client.B().Xrange().Key(e.keys(id).Log()).Start("-").End("+").Build()).AsXRange()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, 0, total)
	for _, x := range logged[1 : len(logged)-1] { // the first is the start, the last the finish
		want = append(want, x.ID)
	}
	for r := range readers {
		if diff := cmp.Diff(want, seen[r]); diff != "" {
			t.Errorf("reader %d (-log +seen):\n%s", r, diff)
		}
	}
}

// TestACLFeed: both roles' ACL users may follow the feed and the live board.
func TestACLFeed(t *testing.T) {
	e := newEnv(t)
	id, m, _ := e.reference()
	running, _, _ := e.reference()
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher} {
		user := aclUser(t, e, kuis.ACLRules(role, kuis.WithNamespace(e.ns)))
		store := e.storeOn(user)
		// A running quiz: the answers, then the wait in XREAD BLOCK until ctx ends.
		rb, _ := handles(t, store, running)
		short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
		evs, err := collect(short, rb, "", -1)
		stop()
		if !errors.Is(err, context.DeadlineExceeded) || len(evs) != 9 {
			t.Errorf("%v: Events of a running quiz = %d events, %v; want 9, then the deadline", role, len(evs), err)
		}
		b, _ := handles(t, store, id)
		evs, err = collect(ctx, b, "", -1)
		if err != nil || len(evs) != 10 {
			t.Errorf("%v: Events = %d events, %v; want 9 answers and the finish", role, len(evs), err)
		}
		boards := 0
		for _, err := range b.Live(ctx, 10, time.Second) {
			if err != nil {
				t.Errorf("%v: Live: %v", role, err)
				break
			}
			boards++
		}
		if boards != 1 {
			t.Errorf("%v: Live on a finished quiz: %d boards, want the final one", role, boards)
		}
	}
}
