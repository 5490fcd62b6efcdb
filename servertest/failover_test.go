package servertest_test

// Failover tests: a primary is killed mid-burst and a replica takes its
// place. With WithReplicas, every answer acknowledged before is on the new
// primary; without it, the run reports how many acknowledged answers were
// lost. Redis replicates within microseconds on loopback, so to make the
// difference show, both runs cut the replica's link first (a wrong
// masterauth on it, then CLIENT KILL TYPE replica on the primary): the
// answers acknowledged after the cut are those a failover loses.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// Ports of the failover and replica tests' own servers (cluster bus ports
// 10000 above): the upper half of the range whose lower half
// TestReplicasOnOwnServers takes, so that two of them that run at the same
// time never race for a port.
const replicaPortLo, replicaPortHi = 33050, 33099

// TestFailoverClusterKeepsAcknowledgedAnswers: a cluster of three primaries
// with a replica each; answers of quizzes on every primary from 32
// goroutines; the first primary's replica is cut off, the primary killed -9,
// its replica promoted, and answers go on until the cluster serves again.
func TestFailoverClusterKeepsAcknowledgedAnswers(t *testing.T) {
	t.Parallel()
	for _, waited := range []bool{true, false} {
		t.Run(map[bool]string{true: "WithReplicas", false: "without"}[waited], func(t *testing.T) {
			s := replicaServers(t)
			c := s.Cluster(3, 1, "--cluster-node-timeout", "1000")
			for _, p := range c.Primaries {
				if err := p.WaitReplicas(1); err != nil {
					t.Fatal(err)
				}
			}
			client := redistest.ClientAt(t, c.Addrs()...)
			opts := []kuis.Option{kuis.WithHashTag()}
			if waited {
				opts = append(opts, kuis.WithReplicas(1, 200*time.Millisecond))
			}
			store, err := kuis.New(client, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := kuis.New(client, kuis.WithHashTag(), kuis.WithReplicas(2, time.Second)); !errors.Is(err, kuis.ErrInvalidOption) {
				t.Errorf("New with WithReplicas(2) on a cluster of one replica each: %v; want ErrInvalidOption", err)
			}
			// Six quizzes on each primary; primary i serves slots [i*16384/3, (i+1)*16384/3).
			var quizzes []string
			onKilled := map[string]bool{}
			per := make([]int, 3)
			for len(quizzes) < 18 {
				id := quizID()
				slot, err := c.Primaries[0].Do("CLUSTER", "KEYSLOT", id)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := strconv.Atoi(slot)
				if p := n * 3 / 16384; per[p] < 6 {
					per[p]++
					quizzes = append(quizzes, id)
					onKilled[id] = p == 0
				}
			}
			primary, replica := c.Primaries[0], c.Replicas[0][0]
			setup, err := kuis.New(client, kuis.WithHashTag(), kuis.WithReplicas(1, 10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			f := newFailover(t, setup, store, quizzes, onKilled)
			f.run(func() { cutReplica(t, primary, replica) }, primary.Kill, func() {
				if err := c.WaitOK(); err != nil {
					t.Fatal(err)
				}
			}, true)
			f.check(kuis.WithHashTag(), client, waited)
		})
	}
}

// TestFailoverStandaloneKeepsAcknowledgedAnswers: a standalone primary with
// one replica; answers of eight quizzes from 32 goroutines; the replica is
// cut off, the primary killed -9 and the replica promoted by hand
// (REPLICAOF NO ONE), then read by a client of its own.
func TestFailoverStandaloneKeepsAcknowledgedAnswers(t *testing.T) {
	t.Parallel()
	for _, waited := range []bool{true, false} {
		t.Run(map[bool]string{true: "WithReplicas", false: "without"}[waited], func(t *testing.T) {
			s := replicaServers(t)
			primary, replica := s.PrimaryWithReplica()
			client := redistest.ClientAt(t, primary.Addr())
			var opts []kuis.Option
			if waited {
				opts = append(opts, kuis.WithReplicas(1, 200*time.Millisecond))
			}
			store, err := kuis.New(client, opts...)
			if err != nil {
				t.Fatal(err)
			}
			var quizzes []string
			onKilled := map[string]bool{}
			for range 8 {
				id := quizID()
				quizzes = append(quizzes, id)
				onKilled[id] = true
			}
			setup, err := kuis.New(client, kuis.WithReplicas(1, 10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			f := newFailover(t, setup, store, quizzes, onKilled)
			f.run(func() { cutReplica(t, primary, replica) }, primary.Kill, func() {
				if got, err := replica.Do("REPLICAOF", "NO", "ONE"); err != nil || got != "OK" {
					t.Fatalf("REPLICAOF NO ONE: %q, %v", got, err)
				}
			}, false)
			f.check(nil, redistest.ClientAt(t, replica.Addr()), waited)
		})
	}
}

// cutReplica cuts replica off its primary for good: a wrong masterauth
// makes every new sync fail, and the primary drops the link it had.
func cutReplica(t *testing.T, primary, replica *redistest.Server) {
	t.Helper()
	if got, err := replica.Do("CONFIG", "SET", "masterauth", "not-the-password"); err != nil || got != "OK" {
		t.Fatalf("CONFIG SET masterauth on the replica: %q, %v", got, err)
	}
	if _, err := primary.Do("CLIENT", "KILL", "TYPE", "replica"); err != nil {
		t.Fatalf("CLIENT KILL TYPE replica on the primary: %v", err)
	}
}

// failover is one burst of answers through a primary's death.
type failover struct {
	t        *testing.T
	store    *kuis.Store
	quizzes  []string
	onKilled map[string]bool // the quizzes of the primary that is killed

	answers []answerOf // every answer, each sent at most once, in random order
	next    atomic.Int64
	// What the calls returned: the answers acknowledged (nil error), by
	// phase; and counts of the other outcomes.
	mu                           sync.Mutex
	phase                        int // 0 before the cut, 1 after it, 2 after the kill
	acked                        [3][]answerOf
	notReplicated, failed        [3]int
	returnedOnKilled, ackedTotal atomic.Int64
}

// answerOf is one answer of a quiz.
type answerOf struct {
	quiz        string
	participant string
	question    int
}

// newFailover creates the quizzes through setup, whose writes wait long for
// the replicas (so that every quiz is on every replica, however loaded the
// machine), and makes their answers, which store will record.
func newFailover(t *testing.T, setup, store *kuis.Store, quizzes []string, onKilled map[string]bool) *failover {
	t.Helper()
	f := &failover{t: t, store: store, quizzes: quizzes, onKilled: onKilled}
	ctx := context.Background()
	const participants, questions = 100, 100
	for _, id := range quizzes {
		m, err := setup.Meta(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Create(ctx, "Kuis "+id, questions); err != nil {
			t.Fatal(err)
		}
		for p := range participants {
			for q := 1; q <= questions; q++ {
				f.answers = append(f.answers, answerOf{id, fmt.Sprintf("Peserta %02d", p), q})
			}
		}
	}
	rand.Shuffle(len(f.answers), func(i, j int) { f.answers[i], f.answers[j] = f.answers[j], f.answers[i] })
	return f
}

// run drives 32 goroutines of answers: once 2,000 are acknowledged it calls
// cut, once 100 answers of the doomed primary's quizzes returned after the
// cut it calls kill, then promote (which returns once a replica took over),
// and then, if servesAgain, goes on until 300 more answers are acknowledged;
// each wait is bounded by 60 s. An answer's phase is the one its call began
// in: 1 from the start of the cut, 2 from the kill.
func (f *failover) run(cut, kill, promote func(), servesAgain bool) {
	t := f.t
	t.Helper()
	boards := map[string]*kuis.Board{}
	for _, id := range f.quizzes {
		b, err := f.store.Board(id)
		if err != nil {
			t.Fatal(err)
		}
		boards[id] = b
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				i := f.next.Add(1) - 1
				if i >= int64(len(f.answers)) {
					return
				}
				a := f.answers[i]
				f.mu.Lock()
				phase := f.phase
				f.mu.Unlock()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				_, err := boards[a.quiz].RecordAnswer(ctx, a.participant, a.question)
				cancel()
				f.mu.Lock()
				switch {
				case err == nil:
					f.acked[phase] = append(f.acked[phase], a)
					f.ackedTotal.Add(1)
				case errors.Is(err, kuis.ErrNotReplicated):
					f.notReplicated[phase]++
				default:
					f.failed[phase]++
				}
				f.mu.Unlock()
				if err != nil && !errors.Is(err, kuis.ErrNotReplicated) {
					time.Sleep(10 * time.Millisecond) // a dead primary fails at once: spare the answers
				}
				if phase == 1 && f.onKilled[a.quiz] {
					f.returnedOnKilled.Add(1)
				}
			}
		}()
	}
	defer func() {
		close(stop)
		wg.Wait()
	}()
	until := func(what string, done func() bool) {
		t.Helper()
		for end := time.Now().Add(60 * time.Second); !done(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(end) || f.next.Load() >= int64(len(f.answers)) {
				t.Fatalf("the burst never reached %s (%d answers sent)", what, f.next.Load())
			}
		}
	}
	until("2,000 acknowledged answers", func() bool { return f.ackedTotal.Load() >= 2000 })
	f.setPhase(1)
	cut()
	until("100 answers of the killed primary's quizzes after the cut", func() bool { return f.returnedOnKilled.Load() >= 100 })
	kill()
	f.setPhase(2)
	promote()
	if servesAgain {
		after := f.ackedTotal.Load()
		until("300 acknowledged answers after the failover", func() bool { return f.ackedTotal.Load() >= after+300 })
	}
}

func (f *failover) setPhase(p int) {
	f.mu.Lock()
	f.phase = p
	f.mu.Unlock()
}

// check reads every quiz through client (the new primary's) and reports
// the acknowledged answers missing, by phase. With waited (WithReplicas) it
// asserts that none is missing; either way that every answer found is in
// the answers set, the log and the board once, which Audit checks.
func (f *failover) check(hashTag kuis.Option, client rueidis.Client, waited bool) {
	t := f.t
	t.Helper()
	ctx := context.Background()
	var opts []kuis.Option
	if hashTag != nil {
		opts = append(opts, hashTag)
	}
	reader, err := kuis.New(client, opts...)
	if err != nil {
		t.Fatal(err)
	}
	found := map[answerOf]int{}
	for _, id := range f.quizzes {
		recap, err := reader.Recap(ctx, id)
		if err != nil {
			t.Fatalf("Recap of %s after the failover: %v", id, err)
		}
		for _, a := range recap.Answers {
			found[answerOf{id, a.Participant, a.Question}]++
		}
		k, err := reader.Keys(id)
		if err != nil {
			t.Fatal(err)
		}
		members, err := client.Do(ctx, client.B().Smembers().Key(k.Answers()).Build()).AsStrSlice()
		if err != nil {
			t.Fatal(err)
		}
		if len(members) != len(recap.Answers) {
			t.Errorf("%s: %d answers logged, %d in the answers set", id, len(recap.Answers), len(members))
		}
		for _, m := range members {
			q, p, _ := strings.Cut(m, ":")
			n, _ := strconv.Atoi(q)
			if found[answerOf{id, p, n}] != 1 {
				t.Errorf("%s: %q is in the answers set, logged %d times", id, m, found[answerOf{id, p, n}])
			}
		}
		violations, err := reader.Audit(ctx, id)
		if err != nil || len(violations) > 0 {
			t.Errorf("Audit of %s after the failover: %v, %v", id, violations, err)
		}
	}
	var lost [3]int
	ackedOnKilled := [3]int{}
	for phase, acked := range f.acked {
		for _, a := range acked {
			if f.onKilled[a.quiz] {
				ackedOnKilled[phase]++
			}
			if found[a] == 0 {
				lost[phase]++
			}
		}
	}
	t.Logf("acknowledged answers (those of the killed primary's quizzes), lost: before the cut %d (%d), %d lost; after the cut %d (%d), %d lost; after the kill %d (%d), %d lost",
		len(f.acked[0]), ackedOnKilled[0], lost[0], len(f.acked[1]), ackedOnKilled[1], lost[1], len(f.acked[2]), ackedOnKilled[2], lost[2])
	t.Logf("ErrNotReplicated by phase %v, other errors %v", f.notReplicated, f.failed)
	if waited && lost != [3]int{} {
		t.Errorf("with WithReplicas, %v acknowledged answers (by phase) are not on the new primary", lost)
	}
}
