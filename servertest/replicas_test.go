package servertest_test

// Replica tests on servers of their own (the root's replicas_test.go keeps
// those on the target).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// replicaServers returns the starter of a test's own servers, on the ports
// of the failover tests (failover_test.go).
func replicaServers(t *testing.T) *redistest.Servers {
	t.Helper()
	return redistest.StandaloneServers(t, replicaPortLo, replicaPortHi)
}

// countOf is how many times s holds v.
func countOf(s []string, v string) int {
	return len(slices.DeleteFunc(slices.Clone(s), func(x string) bool { return x != v }))
}

// stall stops srv's process (SIGSTOP) until resume is called, or the test
// ends: a replica stalled so stays online for its primary (for
// repl-timeout, 60 s) but acknowledges nothing.
func stall(t *testing.T, srv *redistest.Server) (resume func()) {
	t.Helper()
	pid := srv.PID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP to %s: %v", srv.Addr(), err)
	}
	var once sync.Once
	resume = func() { once.Do(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) }
	t.Cleanup(resume)
	return resume
}

// TestReplicasRepeatedAnswer: with WithReplicas, a repeated answer's nil
// error means the answer is on the replica, as a new answer's does, even
// when the call that counted it was never acknowledged and the repeat comes
// from another client, whose connections wrote nothing; while the replica
// stalls, answers new and repeated return their Answer beside
// ErrNotReplicated, and a run that wrote nothing (refusals) sends no WAIT and
// keeps its refusal; the repeat's no-op leaves the log as it was; RoleApp's
// rules with WithReplicas allow that no-op, and without them a repeat is
// ErrNotReplicated beside its Answer.
func TestReplicasRepeatedAnswer(t *testing.T) {
	t.Parallel()
	s := replicaServers(t)
	primary, replica := s.PrimaryWithReplica()
	ctx := context.Background()
	rec := redistest.NewRecorder(redistest.ClientAt(t, primary.Addr()))
	// st waits long enough for a healthy replica on a loaded machine; hasty
	// gives up soon on a stalled one.
	st, err := kuis.New(rec, kuis.WithReplicas(1, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	hasty, err := kuis.New(rec, kuis.WithReplicas(1, 300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	// created is a new quiz of 3 questions, created through st, and its
	// boards of st and hasty.
	created := func(t *testing.T) (id string, b, hb *kuis.Board, k kuis.Keys) {
		t.Helper()
		id = quizID()
		b, m := handles(t, st, id)
		if err := m.Create(ctx, "Kuis", 3); err != nil {
			t.Fatal(err)
		}
		hb, _ = handles(t, hasty, id)
		k, _ = st.Keys(id)
		return id, b, hb, k
	}
	answer := func(a kuis.Answer, err error) kuis.AnswerResult { return kuis.AnswerResult{Answer: a, Err: err} }

	t.Run("a stalled replica", func(t *testing.T) {
		_, b, hb, _ := created(t)
		if _, err := b.RecordAnswer(ctx, "Ali", 1); err != nil {
			t.Fatal(err)
		}
		stall(t, replica)
		for _, c := range []struct {
			name     string
			question int
			want     kuis.AnswerResult
			waits    int
		}{
			{"a new answer", 2, kuis.AnswerResult{Answer: kuis.Answer{Score: 20}, Err: kuis.ErrNotReplicated}, 1},
			{"its retry", 2, kuis.AnswerResult{Answer: kuis.Answer{Score: 20, Duplicate: true}, Err: kuis.ErrNotReplicated}, 1},
			{"a repeat of an acknowledged answer", 1, kuis.AnswerResult{Answer: kuis.Answer{Score: 20, Duplicate: true}, Err: kuis.ErrNotReplicated}, 1},
			{"a refusal, which wrote nothing", 9, kuis.AnswerResult{Err: kuis.ErrInvalidQuestion}, 0},
		} {
			rec.Start()
			got := answer(hb.RecordAnswer(ctx, "Ali", c.question))
			sent := rec.Stop()
			if diff := cmp.Diff(c.want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.name, diff)
			}
			if waits := countOf(sent, "WAIT"); waits != c.waits {
				t.Errorf("%s sent %d WAITs (%v); want %d", c.name, waits, sent, c.waits)
			}
		}
		results, err := hb.RecordAnswers(ctx, []kuis.AnswerInput{{Participant: "Ali", Question: 2}, {Participant: "Ali", Question: 9}, {Participant: "Ali", Question: 2}})
		want := []kuis.AnswerResult{
			{Answer: kuis.Answer{Score: 20, Duplicate: true}, Err: kuis.ErrNotReplicated},
			{Err: kuis.ErrInvalidQuestion},
			{Answer: kuis.Answer{Score: 20, Duplicate: true}, Err: kuis.ErrNotReplicated},
		}
		if diff := cmp.Diff(want, results, cmpopts.EquateErrors()); !errors.Is(err, kuis.ErrNotReplicated) || diff != "" {
			t.Errorf("RecordAnswers: %v; want ErrNotReplicated (-want +got):\n%s", err, diff)
		}
	})

	t.Run("a repeat on another client returns once the earlier write is on the replica", func(t *testing.T) {
		retryWaitsForReplica(t, primary, replica, primary.Addr())
	})

	t.Run("the no-op leaves the log as it was", func(t *testing.T) {
		_, b, _, k := created(t)
		for _, p := range []string{"Ali", "Budi"} {
			if _, err := b.RecordAnswer(ctx, p, 1); err != nil {
				t.Fatal(err)
			}
		}
		// Its last entry deleted, the log's last ID is above its top entry,
		// to which an XSETID would lower it.
		last, err := primary.Do("XREVRANGE", k.Log(), "+", "-", "COUNT", "1")
		if err != nil {
			t.Fatal(err)
		}
		deleted, _, _ := strings.Cut(last, "\n")
		if _, err := primary.Do("XDEL", k.Log(), deleted); err != nil {
			t.Fatal(err)
		}
		before, err := primary.Do("XINFO", "STREAM", k.Log())
		if err != nil {
			t.Fatal(err)
		}
		rec.Start()
		got := answer(b.RecordAnswer(ctx, "Ali", 1))
		sent := rec.Stop()
		if diff := cmp.Diff(kuis.AnswerResult{Answer: kuis.Answer{Score: 10, Duplicate: true}}, got, cmpopts.EquateErrors()); diff != "" || countOf(sent, "WAIT") != 1 {
			t.Errorf("a repeat sent %v (-want +got):\n%s", sent, diff)
		}
		for _, srv := range []*redistest.Server{primary, replica} {
			if after, err := srv.Do("XINFO", "STREAM", k.Log()); err != nil || after != before {
				t.Errorf("XINFO STREAM on %s after the repeat = %q, %v; want as before: %q", srv.Addr(), after, err, before)
			}
		}
	})

	t.Run("RoleApp's rules", func(t *testing.T) {
		id, _, _, _ := created(t)
		for _, withReplicas := range []bool{true, false} {
			var opts []kuis.Option
			if withReplicas {
				opts = append(opts, kuis.WithReplicas(1, time.Second))
			}
			rules := kuis.ACLRules(kuis.RoleApp, opts...)
			if got := slices.Contains(rules, "+xsetid") && slices.Contains(rules, "+xinfo|stream"); got != withReplicas {
				t.Errorf("ACLRules(RoleApp), WithReplicas %v: %q; want +xsetid and +xinfo|stream only with WithReplicas", withReplicas, rules)
			}
			if !withReplicas {
				rules = append(rules, "+role") // so that New may count the replicas
			}
			user := fmt.Sprintf("app-%s-%v", id, withReplicas)
			as, arec := replicasStoreAs(t, primary, user, rules)
			ab, _ := handles(t, as, id)
			p := fmt.Sprintf("Dewi-%v", withReplicas)
			if got := answer(ab.RecordAnswer(ctx, p, 1)); got != (kuis.AnswerResult{Answer: kuis.Answer{Score: 10}}) {
				t.Errorf("a new answer as %s: %+v; want {Score: 10}", user, got)
			}
			arec.Start()
			got := answer(ab.RecordAnswer(ctx, p, 1))
			sent := arec.Stop()
			want, waits := error(nil), 1 // the no-op allowed: confirmed
			if !withReplicas {
				want, waits = kuis.ErrNotReplicated, 0 // the no-op refused: nothing to wait for, unconfirmed
			}
			if diff := cmp.Diff(kuis.AnswerResult{Answer: kuis.Answer{Score: 10, Duplicate: true}, Err: want}, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("a repeat as %s (-want +got):\n%s", user, diff)
			}
			if n := countOf(sent, "WAIT"); n != waits {
				t.Errorf("a repeat as %s sent %d WAITs (%v); want %d", user, n, sent, waits)
			}
			if !withReplicas && (got.Err == nil || !strings.Contains(got.Err.Error(), "no-op")) {
				t.Errorf("a repeat as %s: %v; want the error to say its no-op failed", user, got.Err)
			}
		}
	})
}

// TestReplicasRepeatedAnswerCluster: on a Redis Cluster (one primary and its
// replica, of the test's own), as on a standalone primary, a retried answer
// whose first attempt was never acknowledged returns nil only once the
// earlier write is on the replica.
func TestReplicasRepeatedAnswerCluster(t *testing.T) {
	t.Parallel()
	c := replicaServers(t).Cluster(1, 1)
	retryWaitsForReplica(t, c.Primaries[0], c.Replicas[0][0], c.Addrs()...)
}

// retryWaitsForReplica counts an answer on primary while its replica stalls,
// the first attempt unacknowledged, then retries it from another client of
// seeds, whose connections wrote nothing: the retry must wait in WAIT until
// the replica is back, return the Duplicate with a nil error, and the replica
// must hold the answer the moment it returns.
func retryWaitsForReplica(t *testing.T, primary, replica *redistest.Server, seeds ...string) {
	t.Helper()
	ctx := context.Background()
	client := redistest.ClientAt(t, seeds...)
	st, err := kuis.New(client, kuis.WithHashTag(), kuis.WithReplicas(1, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	hasty, err := kuis.New(client, kuis.WithHashTag(), kuis.WithReplicas(1, 300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	id := quizID()
	_, m := handles(t, st, id)
	if err := m.Create(ctx, "Kuis", 3); err != nil {
		t.Fatal(err)
	}
	k, _ := st.Keys(id)
	hb, _ := handles(t, hasty, id)
	// The retry comes from another process of the application, started
	// before the stall: New asks every node for its ROLE.
	other, err := kuis.New(redistest.ClientAt(t, seeds...), kuis.WithHashTag(), kuis.WithReplicas(1, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ob, _ := handles(t, other, id)
	resume := stall(t, replica)
	if a, err := hb.RecordAnswer(ctx, "Citra", 1); !errors.Is(err, kuis.ErrNotReplicated) || a != (kuis.Answer{Score: 10}) {
		t.Fatalf("the first attempt while the replica stalls: %+v, %v; want {Score: 10} beside ErrNotReplicated", a, err)
	}
	short, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	done := make(chan kuis.AnswerResult, 1)
	go func() {
		a, err := ob.RecordAnswer(short, "Citra", 1)
		done <- kuis.AnswerResult{Answer: a, Err: err}
	}()
	// The signal: the retry waits in WAIT for the stalled replica.
	for blocked := false; !blocked; {
		select {
		case got := <-done:
			t.Fatalf("the retry returned %+v while the replica stalled, without the earlier write", got)
		case <-time.After(20 * time.Millisecond):
		}
		clients, err := primary.Do("CLIENT", "LIST")
		if err != nil {
			t.Fatal(err)
		}
		blocked = strings.Contains(clients, "cmd=wait")
	}
	resume()
	if diff := cmp.Diff(kuis.AnswerResult{Answer: kuis.Answer{Score: 10, Duplicate: true}}, <-done, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("the retry once the replica is back (-want +got):\n%s", diff)
	}
	// Read on the replica itself: READONLY lets a cluster replica answer.
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{replica.Addr()}, ForceSingleClient: true, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	res := rc.DoMulti(ctx, rc.B().Readonly().Build(), rc.B().Zscore().Key(k.Board()).Member("Citra").Build())
	if got, err := res[1].ToString(); err != nil || got != "10" {
		t.Errorf("ZSCORE on the replica right after the retry = %q, %v; want 10", got, err)
	}
}

// Ports of TestReplicasOnOwnServers' servers: the lower half of the range
// whose upper half the failover and other replica tests take.
const ownPortLo, ownPortHi = 33000, 33049

// TestReplicasOnOwnServers: on a primary with one replica, New refuses two
// replicas; every write waits on its own connection for its replica; a
// write its replica does not acknowledge returns ErrNotReplicated, and the
// Stats count it.
func TestReplicasOnOwnServers(t *testing.T) {
	t.Parallel()
	s := redistest.StandaloneServers(t, ownPortLo, ownPortHi)
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
		rec := redistest.NewRecorder(client)
		st, err := kuis.New(rec, kuis.WithReplicas(1, 10*time.Second))
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
		tamper := func(pairs ...string) error {
			_, err := primary.Do(append([]string{"ZADD", k.Board()}, pairs...)...)
			return err
		}
		// Members with no answer, more than the corrections Repair makes in
		// one script (500, its doc says): it rebuilds the board instead.
		var ghosts []string
		for i := range 501 {
			ghosts = append(ghosts, "10", fmt.Sprintf("ghost-%03d", i))
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
			{"Store.Repair (one script)", 1, func() error {
				if err := tamper("70", "Ali"); err != nil {
					return err
				}
				_, err := st.Repair(ctx, id)
				return err
			}},
			{"Store.Repair (a rebuild)", -1, func() error {
				if err := tamper(append([]string{"70", "Ali", "990", "Budi"}, ghosts...)...); err != nil {
					return err
				}
				fixed, err := st.Repair(ctx, id)
				if err == nil && len(fixed) != 503 {
					err = fmt.Errorf("%d corrections; want 503: Ali, Budi and 501 ghosts", len(fixed))
				}
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
			{"Store.Erase", -1, func() error {
				e, err := st.Erase(ctx, "Ali")
				if err == nil && (len(e.Quizzes) != 1 || len(e.Courses) != 1) {
					err = fmt.Errorf("erased %+v; want Ali out of the quiz and the course", e)
				}
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
			rec.Start()
			err := c.call()
			sent := rec.Stop()
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
		rec := redistest.NewRecorder(client)
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
		results, err := b.RecordAnswers(ctx, []kuis.AnswerInput{{Participant: "Budi", Question: 1}, {Participant: "Budi", Question: 9}, {Participant: "Budi", Question: 1}, {Participant: "Ali", Question: 3}})
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
			{"Create of a quiz that exists", func() error { rec.Start(); return m.Create(ctx, "Kuis", 3) }(), kuis.ErrQuizExists},
			{"Finish of a quiz that does not exist", func() error { rec.Start(); return missing.Finish(ctx) }(), kuis.ErrQuizNotFound},
		} {
			if sent := rec.Stop(); !errors.Is(c.err, c.want) || slices.Contains(sent, "WAIT") {
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
