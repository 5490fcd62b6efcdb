package servertest_test

// Replica tests on servers of their own (the root's replicas_test.go keeps
// the rest, and the one that tunes the library's bounds).

import (
	"context"
	"errors"
	"fmt"
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
			if _, err := primary.Do(append([]string{"ACL", "SETUSER", user, "reset", "on", ">pw"}, rules...)...); err != nil {
				t.Fatal(err)
			}
			c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{primary.Addr()}, Username: user, Password: "pw", DisableCache: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			arec := redistest.NewRecorder(c)
			as, err := kuis.New(arec, kuis.WithReplicas(1, 10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
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
