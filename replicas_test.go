package kuis_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// TestWithReplicasBadArguments: n < 1 or a timeout <= 0 is ErrInvalidOption,
// before any I/O; ACLRules then returns nil, as for any invalid option.
func TestWithReplicasBadArguments(t *testing.T) {
	e := newEnv(t)
	rec := newRecorder(e.client)
	for _, tc := range []struct {
		n       int
		timeout time.Duration
	}{{0, time.Second}, {-1, time.Second}, {1, 0}, {1, -time.Millisecond}, {0, 0}} {
		name := fmt.Sprintf("WithReplicas(%d, %v)", tc.n, tc.timeout)
		rec.start()
		_, err := kuis.New(rec, append(e.opts, kuis.WithReplicas(tc.n, tc.timeout))...)
		if sent := rec.stop(); len(sent) > 0 {
			t.Errorf("New with %s sent %v; want no I/O", name, sent)
		}
		if !errors.Is(err, kuis.ErrInvalidOption) {
			t.Errorf("New with %s: %v; want ErrInvalidOption", name, err)
		}
		if rules := kuis.ACLRules(kuis.RoleApp, kuis.WithReplicas(tc.n, tc.timeout)); rules != nil {
			t.Errorf("ACLRules with %s = %q; want nil", name, rules)
		}
	}
}

// TestWithReplicasRefusedWithoutReplicas: the target has no replicas, so New
// refuses WithReplicas(1), saying how many it found; miniredis has no ROLE,
// and New returns that error.
func TestWithReplicasRefusedWithoutReplicas(t *testing.T) {
	e := newEnv(t)
	_, err := kuis.New(e.client, append(e.opts, kuis.WithReplicas(1, time.Second))...)
	switch {
	case !redistest.Real():
		if err == nil || errors.Is(err, kuis.ErrInvalidOption) {
			t.Errorf("New on miniredis, which has no ROLE: %v; want ROLE's error", err)
		}
	case !errors.Is(err, kuis.ErrInvalidOption) || !strings.Contains(err.Error(), "has 0 replica(s)"):
		t.Errorf("New with WithReplicas(1) on a server without replicas: %v; want ErrInvalidOption saying it has 0 replica(s)", err)
	}
}

// TestWithoutReplicasNoWait: without WithReplicas, neither New nor any call
// sends WAIT or ROLE, or takes a dedicated connection.
func TestWithoutReplicasNoWait(t *testing.T) {
	e := newEnv(t)
	rec := newRecorder(e.client)
	rec.start()
	s := e.storeOn(rec)
	if sent := rec.stop(); slices.Contains(sent, "ROLE") {
		t.Errorf("New sent %v; want no ROLE", sent)
	}
	b, m := handles(t, s, quizID())
	rec.start()
	err := errors.Join(
		m.Create(e.ctx, "Kuis", 3),
		func() error { _, err := b.RecordAnswer(e.ctx, "Ali", 1); return err }(),
		func() error {
			_, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Budi", 1}, {"Budi", 2}})
			return err
		}(),
		m.Finish(e.ctx),
	)
	sent := rec.stop()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"WAIT", "ROLE"} {
		if slices.Contains(sent, c) {
			t.Errorf("a Store without WithReplicas sent %s: %v", c, sent)
		}
	}
	if !slices.Contains(sent, "EVALSHA") {
		t.Errorf("sent %v; want the scripts' EVALSHA, to know the recorder saw them", sent)
	}
	if n := rec.DedicatedCalls(); n != 0 {
		t.Errorf("%d calls took a dedicated connection; want none", n)
	}
}

// TestWithReplicasACL: the rules of a role given WithReplicas allow New's
// ROLE (then New refuses: the target has no replicas), and those without it
// do not (ErrForbidden); every role's rules allow WAIT.
func TestWithReplicasACL(t *testing.T) {
	e := newEnv(t)
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
		for _, withReplicas := range []bool{true, false} {
			opts := slices.Clone(e.opts)
			if withReplicas {
				opts = append(opts, kuis.WithReplicas(1, time.Second))
			}
			rules := kuis.ACLRules(role, opts...)
			if !slices.Contains(rules, "+wait") || slices.Contains(rules, "+role") != withReplicas {
				t.Errorf("ACLRules(%v), WithReplicas %v: %q; want +wait, and +role only with WithReplicas", role, withReplicas, rules)
			}
			if !redistest.Real() {
				continue
			}
			client := aclUser(t, e, rules)
			_, err := kuis.New(client, append(slices.Clone(e.opts), kuis.WithReplicas(1, time.Second))...)
			if want := map[bool]error{true: kuis.ErrInvalidOption, false: kuis.ErrForbidden}[withReplicas]; !errors.Is(err, want) {
				t.Errorf("New with WithReplicas as %v, rules with WithReplicas %v: %v; want %v", role, withReplicas, err, want)
			}
		}
	}
}

// Ports of the replica tests' own servers (cluster bus ports 10000 above):
// the lower half of the range; servertest's failover and replica tests take
// the upper.
const replicaPortLo, replicaPortHi = 33000, 33049

// replicaServers returns the starter of a test's own servers (see
// redistest.StandaloneServers).
func replicaServers(t *testing.T) *redistest.Servers {
	t.Helper()
	return redistest.StandaloneServers(t, replicaPortLo, replicaPortHi)
}

// TestReplicasOnOwnServers: on a primary with one replica, New refuses two
// replicas; every write waits on its own connection for its replica; a
// write its replica does not acknowledge returns ErrNotReplicated, and the
// Stats count it.
func TestReplicasOnOwnServers(t *testing.T) {
	s := replicaServers(t)
	primary, replica := s.PrimaryWithReplica()
	client := redistest.ClientAt(t, primary.Addr())
	ctx := context.Background()

	t.Run("New refuses more replicas than the primary has", func(t *testing.T) {
		_, err := kuis.New(client, kuis.WithReplicas(2, time.Second))
		if !errors.Is(err, kuis.ErrInvalidOption) || !strings.Contains(err.Error(), primary.Addr()+" has 1 replica(s)") {
			t.Errorf("New with WithReplicas(2): %v; want ErrInvalidOption naming the primary and its 1 replica", err)
		}
		if _, err := kuis.New(client, kuis.WithReplicas(1, time.Second)); err != nil {
			t.Errorf("New with WithReplicas(1): %v", err)
		}
	})

	t.Run("every write waits on its own connection", func(t *testing.T) {
		rec := newRecorder(client)
		st, err := kuis.NewTuned(rec, kuis.Tuning{RepairStep: 1}, kuis.WithReplicas(1, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		id := quizID()
		b, m := handles(t, st, id)
		k, _ := st.Keys(id)
		course, err := st.Course("kursus-" + id)
		if err != nil {
			t.Fatal(err)
		}
		var recap kuis.Recap
		mon := startMonitor(t, primary)
		var batch []kuis.AnswerInput
		for q := 1; q <= 40; q++ {
			batch = append(batch, kuis.AnswerInput{Participant: "Budi", Question: q})
		}
		tamper := func(score string) {
			t.Helper()
			if _, err := primary.Do("ZADD", k.Board(), score, "Ali"); err != nil {
				t.Fatal(err)
			}
		}
		calls := []struct {
			method string
			waits  int // WAITs sent: one per round trip of runs that wrote, -1: at least one
			call   func() error
		}{
			{"Meta.Create", 1, func() error { return m.Create(ctx, "Kuis", 40) }},
			{"Board.RecordAnswer", 1, func() error { _, err := b.RecordAnswer(ctx, "Ali", 1); return err }},
			{"Board.RecordAnswers (two runs, one round trip)", 1, func() error { _, err := b.RecordAnswers(ctx, batch); return err }},
			{"Board.Standings", 0, func() error { _, err := b.Standings(ctx); return err }},
			{"Store.Repair (one script)", 1, func() error { tamper("70"); _, err := st.Repair(ctx, id); return err }},
			{"Store.Repair (a rebuild)", -1, func() error {
				tamper("70")
				if _, err := primary.Do("ZADD", k.Board(), "990", "Budi"); err != nil {
					return err
				}
				_, err := st.Repair(ctx, id)
				return err
			}},
			{"Meta.Finish", 1, func() error { return m.Finish(ctx) }},
			{"Store.Recap", 0, func() error { recap, err = st.Recap(ctx, id); return err }},
			{"Course.Fold", -1, func() error { _, err := course.Fold(ctx, recap); return err }},
			{"Course.Recap", 0, func() error { _, err := course.Recap(ctx); return err }},
			{"Course.Repair", -1, func() error {
				if _, err := primary.Do("ZADD", course.Keys().Board(), "990", "Ali"); err != nil {
					return err
				}
				_, err := course.Repair(ctx)
				return err
			}},
			{"Course.Unfold", -1, func() error { _, err := course.Unfold(ctx, id); return err }},
			{"Course.Purge", -1, func() error {
				_, err := course.Purge(ctx, func(context.Context, kuis.CourseRecap) error { return nil })
				return err
			}},
			{"Store.PurgeQuiz", 1, func() error {
				_, err := st.PurgeQuiz(ctx, id, func(context.Context, kuis.Recap) error { return nil })
				return err
			}},
		}
		for _, c := range calls {
			rec.start()
			err := c.call()
			sent := rec.stop()
			if err != nil {
				t.Errorf("%s: %v", c.method, err)
				continue
			}
			if waits := countOf(sent, "WAIT"); c.waits >= 0 && waits != c.waits || c.waits < 0 && waits < 1 {
				t.Errorf("%s sent %d WAITs (%v); want %d", c.method, waits, sent, c.waits)
			}
			if err := writesThenWait(sent); err != nil {
				t.Errorf("%s sent %v: %v", c.method, sent, err)
			}
			if c.method == "Board.RecordAnswer" {
				// Acknowledged: the replica has it the moment the call returns.
				if got, err := replica.Do("ZSCORE", k.Board(), "Ali"); err != nil || got != "10" {
					t.Errorf("ZSCORE on the replica right after RecordAnswer = %q, %v; want 10", got, err)
				}
			}
		}
		for conn, cmds := range mon.stop(t) {
			if err := writesThenWait(cmds); err != nil {
				t.Errorf("connection %s ran %v: %v", conn, cmds, err)
			}
		}
	})

	t.Run("a stalled primary: the write keeps its deadline", func(t *testing.T) {
		// A client whose first write needs a new dedicated connection, which
		// rueidis dials for a standalone client under no deadline of the caller.
		fresh := redistest.ClientAt(t, primary.Addr())
		st, err := kuis.New(fresh, kuis.WithReplicas(1, time.Second))
		if err != nil {
			t.Fatal(err)
		}
		_, m := handles(t, st, quizID())
		if got, err := primary.Do("CLIENT", "PAUSE", "3000", "ALL"); err != nil || got != "OK" {
			t.Fatalf("CLIENT PAUSE: %q, %v", got, err)
		}
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		start := time.Now()
		err = m.Create(short, "Kuis", 3)
		took := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || took > 1500*time.Millisecond {
			t.Errorf("Create with a 200 ms deadline on a primary paused for 3 s: %v after %v; want context.DeadlineExceeded within the deadline and 1.3 s of margin", err, took)
		}
		if _, err := primary.Do("CLIENT", "UNPAUSE"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a write its replica does not acknowledge", func(t *testing.T) {
		rec := newRecorder(client)
		st, err := kuis.New(rec, kuis.WithReplicas(1, 200*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := kuis.New(client, kuis.WithReplicas(1, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		id := quizID()
		b, m := handles(t, st, id)
		k, _ := st.Keys(id)
		if err := m.Create(ctx, "Kuis", 3); err != nil {
			t.Fatal(err)
		}
		if _, err := b.RecordAnswer(ctx, "Ali", 1); err != nil {
			t.Fatal(err)
		}
		replica.Kill()
		if err := primary.WaitReplicas(0); err != nil {
			t.Fatal(err)
		}

		_, err = b.RecordAnswer(ctx, "Ali", 2)
		if !errors.Is(err, kuis.ErrNotReplicated) || !strings.Contains(err.Error(), `participant "Ali": 0 of 1 replicas acknowledged within 200ms`) {
			t.Errorf("RecordAnswer with its replica gone: %v; want ErrNotReplicated saying 0 of 1 replicas acknowledged", err)
		}
		if got, err := primary.Do("ZSCORE", k.Board(), "Ali"); err != nil || got != "20" {
			t.Errorf("ZSCORE on the primary = %q, %v; want 20: the answer was applied there", got, err)
		}
		for _, q := range []int{2, 1} { // repeats: applied (nothing to add), unconfirmed
			if a, err := b.RecordAnswer(ctx, "Ali", q); !errors.Is(err, kuis.ErrNotReplicated) || a != (kuis.Answer{Score: 20, Duplicate: true}) {
				t.Errorf("a repeat of Ali's answer %d: %+v, %v; want {Score: 20, Duplicate: true} beside ErrNotReplicated", q, a, err)
			}
		}
		if _, err := b.RecordAnswer(ctx, "Ali", 9); !errors.Is(err, kuis.ErrInvalidQuestion) {
			t.Errorf("question 9 of 3: %v; want its refusal, ErrInvalidQuestion", err)
		}
		results, err := b.RecordAnswers(ctx, []kuis.AnswerInput{{"Budi", 1}, {"Budi", 9}, {"Budi", 1}, {"Ali", 3}})
		if !errors.Is(err, kuis.ErrNotReplicated) {
			t.Errorf("RecordAnswers: %v; want ErrNotReplicated for the call", err)
		}
		want := []kuis.AnswerResult{
			{Answer: kuis.Answer{Score: 10}, Err: kuis.ErrNotReplicated},
			{Err: kuis.ErrInvalidQuestion},
			{Answer: kuis.Answer{Score: 10, Duplicate: true}, Err: kuis.ErrNotReplicated},
			{Answer: kuis.Answer{Score: 30}, Err: kuis.ErrNotReplicated},
		}
		if diff := cmp.Diff(want, results, cmpopts.EquateErrors()); diff != "" {
			t.Errorf("RecordAnswers (-want +got):\n%s", diff)
		}
		// A run that failed is not waited for.
		_, missing := handles(t, st, quizID())
		for _, c := range []struct {
			call string
			err  error
			want error
		}{
			{"Create of a quiz that exists", func() error { rec.start(); return m.Create(ctx, "Kuis", 3) }(), kuis.ErrQuizExists},
			{"Finish of a quiz that does not exist", func() error { rec.start(); return missing.Finish(ctx) }(), kuis.ErrQuizNotFound},
		} {
			if sent := rec.stop(); !errors.Is(c.err, c.want) || slices.Contains(sent, "WAIT") {
				t.Errorf("%s: %v, sent %v; want %v and no WAIT", c.call, c.err, sent, c.want)
			}
		}
		// ctx ends before WAIT's timeout: both errors.
		sb, _ := handles(t, slow, id)
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		start := time.Now()
		_, err = sb.RecordAnswer(short, "Citra", 1)
		cancel()
		if !errors.Is(err, kuis.ErrNotReplicated) || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
			t.Errorf("RecordAnswer with a 100 ms ctx and WAIT for a minute: %v after %v; want ErrNotReplicated and context.DeadlineExceeded, soon", err, time.Since(start))
		}
		if err := m.Finish(ctx); !errors.Is(err, kuis.ErrNotReplicated) {
			t.Errorf("Finish: %v; want ErrNotReplicated", err)
		}
		if got, err := primary.Do("HGET", k.Meta(), "status"); err != nil || got != "selesai" {
			t.Errorf("status on the primary = %q, %v; want selesai", got, err)
		}
		if _, err := b.RecordAnswer(ctx, "Dewi", 1); !errors.Is(err, kuis.ErrQuizFinished) {
			t.Errorf("a new answer after Finish: %v; want ErrQuizFinished", err)
		}
		other := quizID()
		_, om := handles(t, st, other)
		if err := om.Create(ctx, "Kuis", 3); !errors.Is(err, kuis.ErrNotReplicated) {
			t.Errorf("Create: %v; want ErrNotReplicated", err)
		}
		ok, _ := st.Keys(other)
		if got, err := primary.Do("HGET", ok.Meta(), "status"); err != nil || got != "berjalan" {
			t.Errorf("the new quiz's status on the primary = %q, %v; want berjalan", got, err)
		}
		type outcomes struct{ Counted, Duplicates, NotReplicated, Failed int64 }
		got := st.Stats()
		refused := kuis.Refusals{InvalidQuestion: 2, Finished: 1}
		if diff := cmp.Diff(outcomes{Counted: 1, NotReplicated: 6}, outcomes{got.Counted, got.Duplicates, got.NotReplicated, got.Failed}); diff != "" {
			t.Errorf("Stats (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(refused, got.Refused); diff != "" {
			t.Errorf("Stats.Refused (-want +got):\n%s", diff)
		}
		if n := slow.Stats().NotReplicated; n != 1 {
			t.Errorf("the other Store's Stats.NotReplicated = %d; want 1", n)
		}
	})
}

// countOf is how many times s holds v.
func countOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// writesThenWait checks one connection's commands: every write, an EVALSHA
// or EVAL (a script that writes; the read-only ones run as EVALSHA_RO) or an
// EXEC of a transaction that queued commands (the library's transactions
// queue only writes), is followed by WAIT before any other command, and
// every WAIT follows a write.
func writesThenWait(cmds []string) error {
	pending := false
	multi := -1 // the position of the MULTI of a transaction under way
	for i, c := range cmds {
		switch c = strings.ToUpper(c); {
		case c == "MULTI":
			multi = i
		case c == "EXEC":
			pending = pending || multi >= 0 && i > multi+1
			multi = -1
		case multi >= 0: // queued
		case c == "EVALSHA" || c == "EVAL":
			pending = true
		case c == "WAIT" && !pending:
			return fmt.Errorf("command %d: WAIT after no write", i)
		case c == "WAIT":
			pending = false
		case pending:
			return fmt.Errorf("command %d: %s before the WAIT of the write before it", i, c)
		}
	}
	if pending {
		return errors.New("a write without WAIT after it")
	}
	return nil
}

// monitor reads a server's MONITOR stream: every command it runs, with the
// client connection that sent it.
type monitor struct {
	srv   *redistest.Server
	conn  net.Conn
	lines chan string
}

// startMonitor starts reading srv's MONITOR stream.
func startMonitor(t *testing.T, srv *redistest.Server) *monitor {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r := bufio.NewReader(conn)
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("MONITOR on %s: %q, %v", srv.Addr(), line, err)
	}
	m := &monitor{srv: srv, conn: conn, lines: make(chan string, 1<<16)}
	go func() {
		defer close(m.lines)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			m.lines <- strings.TrimSuffix(line, "\r\n")
		}
	}()
	return m
}

// stop returns the commands the server ran since start, by client
// connection (a script's own commands left out), up to a marker it sends
// last, so that nothing run before stop is missed.
func (m *monitor) stop(t *testing.T) map[string][]string {
	t.Helper()
	marker := fmt.Sprintf("monitor-end-%d", time.Now().UnixNano())
	if _, err := m.srv.Do("ECHO", marker); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-m.lines:
			if !ok {
				t.Fatalf("MONITOR on %s ended before its marker", m.srv.Addr())
			}
			if strings.Contains(line, `"`+marker+`"`) {
				m.conn.Close()
				return out
			}
			// +1700000000.123456 [0 127.0.0.1:49044] "evalsha" "..." ...
			_, rest, _ := strings.Cut(line, " [")
			who, cmd, _ := strings.Cut(rest, "] ")
			_, client, _ := strings.Cut(who, " ")
			name, _, _ := strings.Cut(strings.TrimPrefix(cmd, `"`), `"`)
			if client != "lua" {
				out[client] = append(out[client], name)
			}
		case <-timeout:
			t.Fatalf("MONITOR on %s: no marker within 30 s", m.srv.Addr())
		}
	}
}
