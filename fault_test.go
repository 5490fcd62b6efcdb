package kuis_test

// Fault tests: each starts its own redis-server processes (never the target of
// REDIS_ADDR), breaks them on purpose and checks that no acknowledged answer is
// lost, none is counted twice, nothing is half deleted and no call hangs.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// Fault servers listen on these loopback ports only (the range given to this
// suite), so they never collide with a shared server on 6379 or CI's own.
const faultPortLo, faultPortHi = 30060, 30069

// faultServer is one redis-server process of a fault test, restartable on the
// same port and directory, so that an append-only file reloads.
type faultServer struct {
	t    *testing.T
	port int
	dir  string
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// startFaultServer skips the test without a redis-server binary or in -short
// mode, picks a free port of the suite's range and starts a server with the
// extra arguments. The process is killed by PID at cleanup.
func startFaultServer(t *testing.T, extra ...string) *faultServer {
	t.Helper()
	if testing.Short() {
		t.Skip("fault tests start redis-server processes; skipped in -short mode")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		msg := "fault tests need the redis-server binary on PATH (apt-get install redis-server): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg) // .ci/run installs it: a skip there would hide that the proof never ran
		}
		t.Skip(msg)
	}
	s := &faultServer{t: t, port: freeFaultPort(t), dir: t.TempDir()}
	s.args = append([]string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "",
		"--daemonize", "no", "--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log"),
	}, extra...)
	t.Cleanup(s.kill)
	s.start()
	return s
}

// freeFaultPort returns a port of the suite's range that nothing listens on.
func freeFaultPort(t *testing.T) int {
	t.Helper()
	n := faultPortHi - faultPortLo + 1
	first := rand.Intn(n)
	for i := 0; i < n; i++ {
		port := faultPortLo + (first+i)%n
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		l.Close()
		return port
	}
	t.Fatalf("no free port in %d-%d", faultPortLo, faultPortHi)
	return 0
}

func (s *faultServer) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// start runs redis-server and waits until it answers PING (an AOF is loaded by then).
func (s *faultServer) start() {
	s.t.Helper()
	cmd := exec.Command("redis-server", s.args...)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if reply, err := s.send("PING", time.Second); err == nil && reply == "+PONG" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	s.t.Fatalf("redis-server on %s did not answer PING in 10 s; log:\n%s", s.addr(), log)
}

// kill sends SIGKILL to the server's PID and reaps it; a no-op when it is down.
func (s *faultServer) kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// restart is kill -9 then start on the same port and directory.
func (s *faultServer) restart() {
	s.t.Helper()
	s.kill()
	s.start()
}

// send writes one inline command on a fresh connection and returns the first
// reply line; timeout 0 sends without waiting for the reply.
func (s *faultServer) send(command string, timeout time.Duration) (string, error) {
	conn, err := net.DialTimeout("tcp", s.addr(), time.Second)
	if err != nil {
		return "", err
	}
	if timeout == 0 {
		// Leave the connection open until the server answers, so the command is not
		// dropped with a closed socket; the server closes it when it dies.
		_, err = conn.Write([]byte(command + "\r\n"))
		go func() {
			_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			_, _ = bufio.NewReader(conn).ReadString('\n')
			conn.Close()
		}()
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if _, err := conn.Write([]byte(command + "\r\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

// faultClient is one rueidis client on the fault server, closed at cleanup.
// Client-side caching stays on (the default), as a production client has it.
func faultClient(t *testing.T, s *faultServer) rueidis.Client {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{s.addr()}, ForceSingleClient: true})
	if err != nil {
		t.Fatalf("connect to %s: %v", s.addr(), err)
	}
	t.Cleanup(c.Close)
	return c
}

// librarySentinels are the errors that mean "the library refused", as opposed
// to a network or context error that a retry may cure.
var librarySentinels = []error{
	kuis.ErrInvalidQuizID, kuis.ErrInvalidNamespace, kuis.ErrInvalidParticipant, kuis.ErrInvalidMeta,
	kuis.ErrInvalidQuestion, kuis.ErrInvalidRange, kuis.ErrNoClient, kuis.ErrQuizExists,
	kuis.ErrQuizNotFound, kuis.ErrQuizFinished, kuis.ErrQuizRunning, kuis.ErrNotOnBoard,
	kuis.ErrNoArchive, kuis.ErrCorrupt, kuis.ErrNeedsHashTag, kuis.ErrForbidden,
}

// sentinelOf returns the library sentinel err wraps, or nil.
func sentinelOf(err error) error {
	for _, s := range librarySentinels {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// TestFaultKill9MidQuizLosesAndDoublesNothing: with appendfsync always, a
// server killed with SIGKILL a third of the way through a quiz and restarted
// keeps every acknowledged answer, and RecordAnswer's retries after the crash
// count nothing twice. Every call keeps its 500 ms deadline (plus 1 s of
// slack), and the one rueidis client reconnects by itself.
func TestFaultKill9MidQuizLosesAndDoublesNothing(t *testing.T) {
	srv := startFaultServer(t, "--appendonly", "yes", "--appendfsync", "always")
	client := faultClient(t, srv)
	ctx := context.Background()
	const (
		participants = 12
		questions    = 20
		writers      = 8
		deadline     = 500 * time.Millisecond
		slack        = time.Second
	)
	ns := kuis.WithNamespace("fault")
	meta, err := kuis.NewMeta(client, "kill9", ns)
	if err != nil {
		t.Fatal(err)
	}
	board, err := kuis.NewBoard(client, "kill9", ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.Create(ctx, "Kill -9", questions); err != nil {
		t.Fatal(err)
	}

	type job struct {
		participant string
		question    int
	}
	var jobs []job
	for p := 0; p < participants; p++ {
		for q := 1; q <= questions; q++ {
			name := fmt.Sprintf("murid-%02d", p)
			jobs = append(jobs, job{name, q}, job{name, q}) // every answer submitted twice
		}
	}
	seed := time.Now().UnixNano()
	t.Logf("shuffle seed %d", seed)
	rand.New(rand.NewSource(seed)).Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })

	var (
		done       atomic.Int64 // acknowledged calls
		restarted  atomic.Bool
		afterCrash atomic.Int64 // calls acknowledged after the restart: the client reconnected
		retries    atomic.Int64
		mu         sync.Mutex
		firstAcks  = map[job]int{} // acknowledgements with Duplicate false, per answer
		overruns   []string
	)
	killAt := int64(len(jobs) / 3)
	crash := make(chan struct{})
	crashed := make(chan struct{})
	go func() {
		defer close(crashed)
		<-crash
		srv.kill()
		srv.start()
		restarted.Store(true)
	}()

	// Retrying forever would hide a lost quiz; give up well after a restart.
	giveUp := time.Now().Add(60 * time.Second)
	queue := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				for {
					callCtx, cancel := context.WithTimeout(ctx, deadline)
					start := time.Now()
					a, err := board.RecordAnswer(callCtx, j.participant, j.question)
					took := time.Since(start)
					cancel()
					if took > deadline+slack {
						mu.Lock()
						overruns = append(overruns, fmt.Sprintf("%v took %v (err %v)", j, took, err))
						mu.Unlock()
					}
					if err == nil {
						mu.Lock()
						if !a.Duplicate {
							firstAcks[j]++
						}
						mu.Unlock()
						if restarted.Load() {
							afterCrash.Add(1)
						}
						if done.Add(1) == killAt {
							close(crash)
						}
						break
					}
					if s := sentinelOf(err); s != nil {
						// A refusal (quiz not found, corrupt...) after a crash means data was lost.
						t.Errorf("RecordAnswer(%q, %d): library refusal %v: %v", j.participant, j.question, s, err)
						break
					}
					if time.Now().After(giveUp) {
						t.Errorf("RecordAnswer(%q, %d) still failing after 60 s: %v", j.participant, j.question, err)
						break
					}
					retries.Add(1)
					time.Sleep(10 * time.Millisecond)
				}
			}
		}()
	}
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	wg.Wait()
	select {
	case <-crashed:
	case <-time.After(15 * time.Second):
		t.Fatal("the server was never killed and restarted")
	}
	t.Logf("%d calls acknowledged, %d after the restart, %d retries", done.Load(), afterCrash.Load(), retries.Load())

	for _, o := range overruns {
		t.Errorf("deadline overrun: %s", o)
	}
	if afterCrash.Load() == 0 {
		t.Error("no call succeeded after the restart: the kill came too late to test recovery")
	}
	for j, n := range firstAcks {
		if n > 1 {
			t.Errorf("%v was counted %d times", j, n)
		}
	}
	standings, err := board.Standings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range standings {
		got[s.Participant] = s.Score
	}
	want := map[string]int64{}
	for p := 0; p < participants; p++ {
		want[fmt.Sprintf("murid-%02d", p)] = 10 * questions // all answers are distinct per participant
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scores after kill -9 and restart (-want +got):\n%s", diff)
	}
	if n, err := client.Do(ctx, client.B().Scard().Key(board.Keys().Answers()).Build()).AsInt64(); err != nil || n != participants*questions {
		t.Errorf("SCARD answers = %d, %v; want %d", n, err, participants*questions)
	}
	if v, err := kuis.Audit(ctx, client, "kill9", ns); err != nil || len(v) != 0 {
		t.Errorf("Audit after the crash = %v, %v; want no violation", v, err)
	}
}

// stallCall is one public method run against a server that does not answer.
type stallCall struct {
	name string
	call func(ctx context.Context) error
}

// stallCalls lists every public method that does I/O, on quiz id, plain and,
// for the reads, through WithClientCache. Inputs are valid, so each method
// reaches the server. A fresh id per stall keeps the client-side cache cold: a
// cached read served without the server would prove nothing here (and replies
// that arrive after a caller gave up still fill the cache).
func stallCalls(t *testing.T, client rueidis.Client, id string) []stallCall {
	t.Helper()
	ns := kuis.WithNamespace("fault")
	cache := kuis.WithClientCache(time.Minute)
	meta, err := kuis.NewMeta(client, id, ns)
	if err != nil {
		t.Fatal(err)
	}
	board, err := kuis.NewBoard(client, id, ns)
	if err != nil {
		t.Fatal(err)
	}
	cmeta, err := kuis.NewMeta(client, id, ns, cache)
	if err != nil {
		t.Fatal(err)
	}
	cboard, err := kuis.NewBoard(client, id, ns, cache)
	if err != nil {
		t.Fatal(err)
	}
	archive := func(context.Context, kuis.Recap) error { return nil }
	calls := []stallCall{
		{"Meta.Create", func(ctx context.Context) error { return meta.Create(ctx, "Stall", 5) }},
		{"Meta.Finish", meta.Finish},
		{"TakeRecap", func(ctx context.Context) error { _, err := kuis.TakeRecap(ctx, client, id, ns); return err }},
		{"PurgeQuiz", func(ctx context.Context) error {
			_, err := kuis.PurgeQuiz(ctx, client, id, archive, ns)
			return err
		}},
		{"Purge", func(ctx context.Context) error { _, err := kuis.Purge(ctx, client, ns); return err }},
		{"Quizzes", func(ctx context.Context) error { _, err := kuis.Quizzes(ctx, client, ns); return err }},
		{"Audit", func(ctx context.Context) error { _, err := kuis.Audit(ctx, client, id, ns); return err }},
		{"Board.RecordCorrect", func(ctx context.Context) error { _, err := board.RecordCorrect(ctx, "Ali"); return err }},
		{"Board.RecordAnswer", func(ctx context.Context) error { _, err := board.RecordAnswer(ctx, "Ali", 2); return err }},
		{"Board.RecordAnswers", func(ctx context.Context) error {
			_, err := board.RecordAnswers(ctx, []kuis.AnswerInput{{Participant: "Ali", Question: 3}, {Participant: "Budi", Question: 1}})
			return err
		}},
	}
	for _, v := range []struct {
		suffix string
		meta   *kuis.Meta
		board  *kuis.Board
	}{{"", meta, board}, {" (cached)", cmeta, cboard}} {
		m, b := v.meta, v.board
		calls = append(calls,
			stallCall{"Meta.Get" + v.suffix, func(ctx context.Context) error { _, err := m.Get(ctx); return err }},
			stallCall{"Meta.Status" + v.suffix, func(ctx context.Context) error { _, err := m.Status(ctx); return err }},
			stallCall{"Board.Standings" + v.suffix, func(ctx context.Context) error { _, err := b.Standings(ctx); return err }},
			stallCall{"Board.Page" + v.suffix, func(ctx context.Context) error { _, err := b.Page(ctx, 0, 10); return err }},
			stallCall{"Board.Around" + v.suffix, func(ctx context.Context) error { _, err := b.Around(ctx, "Ali", 2); return err }},
			stallCall{"Board.Rank" + v.suffix, func(ctx context.Context) error { _, err := b.Rank(ctx, "Ali"); return err }},
			stallCall{"Board.CompetitionRank" + v.suffix, func(ctx context.Context) error { _, err := b.CompetitionRank(ctx, "Ali"); return err }},
			stallCall{"Board.Score" + v.suffix, func(ctx context.Context) error { _, err := b.Score(ctx, "Ali"); return err }},
			stallCall{"Board.Len" + v.suffix, func(ctx context.Context) error { _, err := b.Len(ctx); return err }},
		)
	}
	return calls
}

// TestFaultStalledServerEveryMethodKeepsItsDeadline: against a server that has
// stopped answering, every public method gives up at its context deadline with
// an error wrapping context.DeadlineExceeded. CLIENT PAUSE ALL (commands are
// held, connections stay up) is tried all at once, one call at a time (rueidis'
// direct path drops the connection on a timeout, so each next call reconnects
// to the stalled server) and all at once while reconnecting; DEBUG SLEEP (the
// whole event loop blocks) all at once.
func TestFaultStalledServerEveryMethodKeepsItsDeadline(t *testing.T) {
	srv := startFaultServer(t, "--appendonly", "no", "--enable-debug-command", "yes")
	client := faultClient(t, srv)
	ctx := context.Background()
	const (
		deadline = 200 * time.Millisecond
		// Slack for a busy 2-core machine with the race detector; a hang is seconds.
		slack = 400 * time.Millisecond
		// Each stall stays well under rueidis' 10 s health-check timeout.
		window = 3 * time.Second
	)
	check := func(t *testing.T, name string, took, allowed time.Duration, err error) {
		t.Helper()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s on a stalled server: err = %v, want one wrapping context.DeadlineExceeded", name, err)
		}
		if took > deadline+allowed {
			t.Errorf("%s on a stalled server took %v, deadline %v + slack %v", name, took, deadline, allowed)
		}
	}
	pause := func(t *testing.T) {
		t.Helper()
		// CLIENT UNPAUSE would itself be held, so a pause always runs its course.
		if reply, err := srv.send(fmt.Sprintf("CLIENT PAUSE %d ALL", window.Milliseconds()), time.Second); err != nil || reply != "+OK" {
			t.Fatalf("CLIENT PAUSE: %q, %v", reply, err)
		}
	}
	sleep := func(t *testing.T) {
		t.Helper()
		if _, err := srv.send(fmt.Sprintf("DEBUG SLEEP %.1f", window.Seconds()), 0); err != nil {
			t.Fatalf("DEBUG SLEEP: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // let the server read it before the calls arrive
	}
	// awake waits until the server answers again, so the next stall starts clean.
	awake := func(t *testing.T) {
		t.Helper()
		for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if reply, err := srv.send("PING", 2*time.Second); err == nil && reply == "+PONG" {
				return
			}
		}
		t.Fatal("the server did not answer again after the stall")
	}
	allAtOnce := func(t *testing.T, calls []stallCall, allowed time.Duration) {
		errs := make([]error, len(calls))
		took := make([]time.Duration, len(calls))
		var wg sync.WaitGroup
		for i, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				callCtx, cancel := context.WithTimeout(ctx, deadline)
				defer cancel()
				start := time.Now()
				errs[i] = c.call(callCtx)
				took[i] = time.Since(start)
			}()
		}
		wg.Wait()
		for i, c := range calls {
			check(t, c.name, took[i], allowed, errs[i])
		}
	}

	// Calls made together may have to reconnect to the stalled server (the first
	// call on a fresh connection takes rueidis' direct path, which drops the
	// connection on a timeout). rueidis v1.0.79 then closes each half-open
	// connection with a PING that only a hard-coded 1 s timer ends (pipe.Close,
	// pipe.go:1944), which can hold a call up to ~1 s past its deadline: bounded,
	// allowed here, and listed in RELIABILITY.md.
	together := slack + time.Second
	t.Run("CLIENT PAUSE ALL/all at once", func(t *testing.T) {
		pause(t)
		allAtOnce(t, stallCalls(t, client, "stall-1"), together)
		awake(t)
	})
	t.Run("DEBUG SLEEP/all at once", func(t *testing.T) {
		sleep(t)
		allAtOnce(t, stallCalls(t, client, "stall-2"), together)
		awake(t)
	})
	// One at a time, every call after the first reconnects to the stalled server,
	// alone, and must keep its deadline with the ordinary slack.
	t.Run("CLIENT PAUSE ALL/one at a time", func(t *testing.T) {
		var until time.Time
		for _, c := range stallCalls(t, client, "stall-3") {
			// Start a new pause when the current one could end during the call.
			if time.Until(until) < deadline+slack {
				awake(t)
				pause(t)
				until = time.Now().Add(window)
			}
			callCtx, cancel := context.WithTimeout(ctx, deadline)
			start := time.Now()
			err := c.call(callCtx)
			check(t, c.name, time.Since(start), slack, err)
			cancel()
		}
		awake(t)
	})
	// The connections the calls above dropped are re-established by these, together.
	t.Run("CLIENT PAUSE ALL/all at once while reconnecting", func(t *testing.T) {
		pause(t)
		allAtOnce(t, stallCalls(t, client, "stall-4"), together)
		awake(t)
	})
	// The same client works again, by itself, once the server answers.
	b, err := kuis.NewBoard(client, "stall-3", kuis.WithNamespace("fault"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Standings(ctx); err != nil {
		t.Errorf("Standings after the stalls: %v", err)
	}
}

// quizSnapshot is the content of a quiz's three keys, for comparing before and after.
func quizSnapshot(t *testing.T, ctx context.Context, client rueidis.Client, k kuis.Keys) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, key := range []string{k.Meta(), k.Board(), k.Answers()} {
		out[key] = dumpKey(t, ctx, client, key)
	}
	return out
}

// dumpKey renders a key's type and content as text: "none", or the type and
// its sorted members, fields or elements.
func dumpKey(t *testing.T, ctx context.Context, client rueidis.Client, key string) string {
	t.Helper()
	typ, err := client.Do(ctx, client.B().Type().Key(key).Build()).ToString()
	if err != nil {
		t.Fatalf("TYPE %s: %v", key, err)
	}
	var content any
	switch typ {
	case "none":
		return typ
	case "string":
		content, err = client.Do(ctx, client.B().Get().Key(key).Build()).ToString()
	case "hash":
		content, err = client.Do(ctx, client.B().Hgetall().Key(key).Build()).AsStrMap()
	case "zset":
		content, err = client.Do(ctx, client.B().Zrange().Key(key).Min("0").Max("-1").Withscores().Build()).AsZScores()
	case "set":
		var m []string
		m, err = client.Do(ctx, client.B().Smembers().Key(key).Build()).AsStrSlice()
		sort.Strings(m)
		content = m
	case "list":
		content, err = client.Do(ctx, client.B().Lrange().Key(key).Start(0).Stop(-1).Build()).AsStrSlice()
	default:
		t.Fatalf("TYPE %s = %s: not snapshotted", key, typ)
	}
	if err != nil {
		t.Fatalf("read %s %s: %v", typ, key, err)
	}
	ttl, err := client.Do(ctx, client.B().Pttl().Key(key).Build()).AsInt64()
	if err != nil {
		t.Fatalf("PTTL %s: %v", key, err)
	}
	if ttl >= 0 {
		ttl = 1 // a TTL that counts down is still the same TTL
	}
	return fmt.Sprintf("%s ttl=%d %v", typ, ttl, content)
}

// TestFaultRestartInsidePurgeQuizDeletesAllOrNothing: a server killed and
// restarted (AOF always) while PurgeQuiz's archive runs, i.e. between the
// recap and the delete, leaves the quiz's keys all present or all gone, never
// a half: whether it is back before the delete or still down during it.
func TestFaultRestartInsidePurgeQuizDeletesAllOrNothing(t *testing.T) {
	srv := startFaultServer(t, "--appendonly", "yes", "--appendfsync", "always")
	client := faultClient(t, srv)
	ctx := context.Background()
	ns := kuis.WithNamespace("fault")
	for _, tc := range []struct {
		name string
		// fault runs inside archive, after the recap was taken.
		fault func(k kuis.Keys)
		// after runs once PurgeQuiz has returned.
		after func()
	}{
		// The delete runs on a new connection to the restarted server, whose script
		// cache is empty: EVALSHA answers NOSCRIPT and rueidis falls back to EVAL.
		{"back and reconnected before the delete", func(k kuis.Keys) { srv.restart(); waitReconnect(client, k) }, func() {}},
		// The delete is sent on the connection the kill broke.
		{"back before the delete, stale connection", func(kuis.Keys) { srv.restart() }, func() {}},
		{"down during the delete", func(kuis.Keys) { srv.kill() }, srv.start},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "purge-" + strconv.Itoa(rand.Intn(1e9))
			m, err := kuis.NewMeta(client, id, ns)
			if err != nil {
				t.Fatal(err)
			}
			b, err := kuis.NewBoard(client, id, ns)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Create(ctx, "Purge "+id, 3); err != nil {
				t.Fatal(err)
			}
			for _, a := range []kuis.AnswerInput{{Participant: "Ali", Question: 1}, {Participant: "Ali", Question: 2}, {Participant: "Budi", Question: 1}} {
				if _, err := b.RecordAnswer(ctx, a.Participant, a.Question); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Finish(ctx); err != nil {
				t.Fatal(err)
			}
			keys := m.Keys()
			before := quizSnapshot(t, ctx, client, keys)

			var archived kuis.Recap
			purgeCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
			n, purgeErr := kuis.PurgeQuiz(purgeCtx, client, id, func(_ context.Context, r kuis.Recap) error {
				archived = r
				tc.fault(m.Keys())
				return nil
			}, ns)
			cancel()
			tc.after()
			t.Logf("PurgeQuiz = %d, %v", n, purgeErr)

			wantRecap := []kuis.Standing{{Rank: 1, Participant: "Ali", Score: 20}, {Rank: 2, Participant: "Budi", Score: 10}}
			if diff := cmp.Diff(wantRecap, archived.Standings); diff != "" {
				t.Errorf("archived standings (-want +got):\n%s", diff)
			}
			after := readAfterRestart(t, client, keys)
			gone := map[string]string{keys.Meta(): "none", keys.Board(): "none", keys.Answers(): "none"}
			switch {
			case purgeErr == nil:
				if diff := cmp.Diff(gone, after); diff != "" || n != 3 {
					t.Errorf("PurgeQuiz succeeded with %d deleted, but keys (-want +got):\n%s", n, diff)
				}
			default:
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("PurgeQuiz failed (%v) and the quiz changed (-before +after):\n%s", purgeErr, diff)
				}
				// The keys are intact, so the purge can simply be run again.
				if n, err := kuis.PurgeQuiz(ctx, client, id, func(context.Context, kuis.Recap) error { return nil }, ns); err != nil || n != 3 {
					t.Errorf("PurgeQuiz retried = %d, %v; want 3, nil", n, err)
				}
				if diff := cmp.Diff(gone, quizSnapshot(t, ctx, client, keys)); diff != "" {
					t.Errorf("keys after the retried purge (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// readAfterRestart snapshots the quiz, retrying while the client's connection
// to the restarted server is re-established.
func readAfterRestart(t *testing.T, client rueidis.Client, k kuis.Keys) map[string]string {
	t.Helper()
	waitReconnect(client, k)
	return quizSnapshot(t, context.Background(), client, k)
}

// waitReconnect sends EXISTS on the quiz's keys until it succeeds: rueidis
// picks one of its pipelined connections by key slot and finds a broken one
// only when it uses it, so the probe goes where the quiz's commands go.
func waitReconnect(client rueidis.Client, k kuis.Keys) {
	for i := 0; i < 100; i++ {
		if err := client.Do(context.Background(), client.B().Exists().Key(k.Meta(), k.Board(), k.Answers()).Build()).Error(); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
