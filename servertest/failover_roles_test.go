package servertest_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestFailoverAsEachRoleSeesIt: a cluster of three primaries with a replica
// each; the app, teacher and operator each with an ACL user of their role
// and a Store made before anything fails. While goroutines answer (app,
// WithReplicas), read boards (app), recap a quiz big enough to be recapped
// in parts and fold it into a course (operator), the first primary is
// killed -9; the test waits for its replica's promotion, restarts the old
// primary (it rejoins as a replica), then finishes and recaps the quizzes of
// its shard. No call returns ErrNeedsClusterClient; every error wraps
// ErrUnavailable or ErrNotReplicated; every acknowledged answer is counted
// once.
func TestFailoverAsEachRoleSeesIt(t *testing.T) {
	t.Parallel()
	servers := redistest.StandaloneServers(t, silencePortLo, silencePortHi)
	c := servers.Cluster(3, 1, "--cluster-node-timeout", "1000", "--aclfile", "users.acl")
	for _, p := range c.Primaries {
		if err := p.WaitReplicas(1); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	replicas := kuis.WithReplicas(1, 500*time.Millisecond)
	store := func(role kuis.Role, opts ...kuis.Option) *kuis.Store {
		t.Helper()
		opts = append(opts, kuis.WithHashTag())
		name, password := role.String()+"-user", role.String()+"-secret"
		args := append([]string{"ACL", "SETUSER", name, "reset", "on", ">" + password}, kuis.ACLRules(role, opts...)...)
		for _, n := range c.Nodes() {
			if _, err := n.Do(args...); err != nil {
				t.Fatalf("%v on %s: %v", args[:3], n.Addr(), err)
			}
			if _, err := n.Do("ACL", "SAVE"); err != nil { // the old primary restarts with its users
				t.Fatalf("ACL SAVE on %s: %v", n.Addr(), err)
			}
		}
		client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: c.Addrs(), Username: name, Password: password, DisableCache: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(client.Close)
		s, err := kuis.New(client, opts...)
		if err != nil {
			t.Fatalf("New as %s: %v", role, err)
		}
		return s
	}
	app, teacher, operator := store(kuis.RoleApp, replicas), store(kuis.RoleTeacher, replicas), store(kuis.RoleOperator)

	// Quizzes on every shard (primary i serves slots [i*16384/3, (i+1)*16384/3)),
	// and the big finished one on the shard of the primary killed.
	shard := func(id string) int {
		slot, err := c.Primaries[0].Do("CLUSTER", "KEYSLOT", id)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(slot)
		return n * 3 / 16384
	}
	var quizzes, doomed []string
	big := ""
	for per := make([]int, 3); len(quizzes) < 9 || big == ""; {
		id := quizID()
		switch p := shard(id); {
		case p == 0 && big == "":
			big = id
		case per[p] < 3:
			per[p]++
			quizzes = append(quizzes, id)
			if p == 0 {
				doomed = append(doomed, id)
			}
		}
	}
	const questions = 20
	for _, id := range append([]string{big}, quizzes...) {
		_, m := handles(t, teacher, id)
		if err := m.Create(ctx, "Kuis "+id, questions); err != nil {
			t.Fatal(err)
		}
	}
	// 250 participants x 20 questions: more members, answers and entries than
	// one recap script reads.
	bb, bm := handles(t, app, big)
	var in []kuis.AnswerInput
	for p := range 250 {
		for q := range questions {
			in = append(in, kuis.AnswerInput{Participant: fmt.Sprintf("Siswa %03d", p), Question: q + 1})
		}
	}
	if res, err := bb.RecordAnswers(ctx, in); err != nil || res[len(res)-1].Err != nil {
		t.Fatalf("the big quiz's answers: %v", err)
	}
	if err := bm.Finish(ctx); err == nil {
		t.Fatal("the app finished a quiz: want ErrForbidden")
	}
	if _, m := handles(t, teacher, big); m.Finish(ctx) != nil {
		t.Fatal("the teacher could not finish the big quiz")
	}
	course, err := operator.Course("kelas-" + big)
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu    sync.Mutex
		acked = map[string]map[string]bool{} // quiz -> "question:participant"
		errs  = map[string][]error{}         // call -> errors
		calls atomic.Int64
		next  atomic.Int64
	)
	note := func(call string, err error) {
		calls.Add(1)
		if err != nil {
			mu.Lock()
			errs[call] = append(errs[call], err)
			mu.Unlock()
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	spawn := func(n int, work func(i int)) {
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					work(i)
				}
			}()
		}
	}
	boards := map[string]*kuis.Board{}
	for _, id := range quizzes {
		boards[id], _ = handles(t, app, id)
		acked[id] = map[string]bool{}
	}
	spawn(16, func(int) {
		n := next.Add(1)
		id := quizzes[n%int64(len(quizzes))]
		p, q := fmt.Sprintf("Murid %d", n/int64(len(quizzes))%200), int(n/int64(len(quizzes))/200)%questions+1
		_, err := boards[id].RecordAnswer(ctx, p, q)
		note("RecordAnswer", err)
		if err == nil {
			mu.Lock()
			acked[id][strconv.Itoa(q)+":"+p] = true
			mu.Unlock()
		} else {
			time.Sleep(5 * time.Millisecond) // a dead primary fails at once: spare the answers
		}
	})
	spawn(2, func(i int) {
		_, err := boards[quizzes[i]].Standings(ctx)
		note("Standings", err)
	})
	spawn(1, func(int) {
		r, err := operator.Recap(ctx, big)
		note("Recap", err)
		if err == nil {
			if len(r.Answers) != len(in) {
				t.Errorf("the big quiz's recap holds %d answers, want %d", len(r.Answers), len(in))
			}
			_, err = course.Fold(ctx, r)
			note("Fold", err)
		}
	})
	until := func(what string, done func() bool) {
		t.Helper()
		for end := time.Now().Add(90 * time.Second); !done(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("gave up waiting for %s", what)
			}
		}
	}
	defer func() {
		close(stop)
		wg.Wait()
	}()
	until("500 calls before the kill", func() bool { return calls.Load() >= 500 })
	c.Primaries[0].Kill()
	if err := c.WaitOK(); err != nil {
		t.Fatal(err)
	}
	if err := c.Primaries[0].Start(); err != nil { // rejoins as the promoted node's replica
		t.Fatal(err)
	}
	before := calls.Load()
	until("500 calls after the old primary rejoined", func() bool { return calls.Load() >= before+500 })
	close(stop)
	wg.Wait()
	stop = make(chan struct{})

	mu.Lock()
	defer mu.Unlock()
	for call, list := range errs {
		for _, err := range list {
			if errors.Is(err, kuis.ErrNeedsClusterClient) ||
				!errors.Is(err, kuis.ErrUnavailable) && !errors.Is(err, kuis.ErrNotReplicated) {
				t.Errorf("%s: %v; want ErrUnavailable or ErrNotReplicated", call, err)
			}
		}
		t.Logf("%s: %d errors, the first: %v", call, len(list), list[0])
	}
	t.Logf("%d calls in all", calls.Load())

	// Finish and recap the quizzes of the shard whose primary died: every
	// acknowledged answer is there, once.
	for _, id := range quizzes {
		_, m := handles(t, teacher, id)
		if err := m.Finish(ctx); err != nil {
			t.Fatalf("Finish %s after the failover: %v", id, err)
		}
		r, err := operator.Recap(ctx, id)
		if err != nil {
			t.Fatalf("Recap %s after the failover: %v", id, err)
		}
		seen := map[string]int{}
		for _, a := range r.Answers {
			seen[strconv.Itoa(a.Question)+":"+a.Participant]++
		}
		for pair := range acked[id] {
			if seen[pair] != 1 {
				t.Errorf("quiz %s: acknowledged answer %s counted %d times, want once", id, pair, seen[pair])
			}
		}
		if v, err := operator.Audit(ctx, id); err != nil || len(v) != 0 {
			t.Errorf("Audit %s: %v, %v; want clean", id, v, err)
		}
	}
	if len(doomed) == 0 {
		t.Fatal("no quiz on the killed primary's shard")
	}
	if _, err := operator.Recap(ctx, big); err != nil {
		t.Errorf("Recap of the big quiz after the failover: %v", err)
	}
}
