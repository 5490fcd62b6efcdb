package servertest_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// Ports of the erasure tests' own cluster (cluster bus ports 10000 above).
const erasePortLo, erasePortHi = 34250, 34299

// stopAfter is a client that stops a server (SIGSTOP) once the n-th script
// run it sent has succeeded: a node lost in the middle of an erasure. A
// failed run (a NOSCRIPT before rueidis sends the script itself) does not
// count: it erased nothing.
type stopAfter struct {
	rueidis.Client
	runs atomic.Int64
	n    int64
	stop func()
}

// scripts tells which of cmds are script runs; read before they are sent,
// since rueidis recycles a command once it has answered.
func scripts(cmds ...rueidis.Completed) []bool {
	is := make([]bool, len(cmds))
	for i, cmd := range cmds {
		name := cmd.Commands()[0]
		is[i] = name == "EVALSHA" || name == "EVAL"
	}
	return is
}

// ran counts the script runs that succeeded, by their results rs, and
// stops the server when they reach the n-th.
func (c *stopAfter) ran(script []bool, rs []rueidis.RedisResult) {
	var n int64
	for i, r := range rs {
		if script[i] && r.Error() == nil {
			n++
		}
	}
	if now := c.runs.Add(n); now >= c.n && now-n < c.n {
		c.stop()
	}
}

func (c *stopAfter) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	script := scripts(cmd)
	r := c.Client.Do(ctx, cmd)
	c.ran(script, []rueidis.RedisResult{r})
	return r
}

func (c *stopAfter) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	script := scripts(cmds...)
	rs := c.Client.DoMulti(ctx, cmds...)
	c.ran(script, rs)
	return rs
}

// TestEraseOnAClusterWithAPrimaryStopped: Ali's quizzes and courses spread
// over the three primaries of a cluster. With one primary stopped
// (SIGSTOP), Erase answers ErrUnavailable having written nothing on the
// others. Stopped after Erase's first script run that succeeds, the call answers
// ErrUnavailable with the erasure so far; once the primary runs again (SIGCONT),
// Erase completes it and nothing names Ali.
func TestEraseOnAClusterWithAPrimaryStopped(t *testing.T) {
	t.Parallel()
	const silence = 2 * time.Second
	c := redistest.StandaloneServers(t, erasePortLo, erasePortHi).Cluster(3, 0)
	ctx := context.Background()
	client := redistest.ClientAt(t, c.Addrs()...)
	s, err := kuis.New(client, kuis.WithHashTag(), kuis.WithSilence(silence))
	if err != nil {
		t.Fatal(err)
	}
	var quizzes, keys []string
	for i := range 12 {
		id := quizID()
		b, m := handles(t, s, id)
		if err := m.Create(ctx, "Kuis "+id, 2); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"Ali", "Budi"} {
			if _, err := b.RecordAnswer(ctx, p, 1+i%2); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		r, err := s.Recap(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		course, err := s.Course(fmt.Sprintf("kursus-%d", i%4))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := course.Fold(ctx, r); err != nil {
			t.Fatal(err)
		}
		k, _ := s.Keys(id)
		quizzes, keys = append(quizzes, id), append(keys, fiveKeys(k)...)
		keys = append(keys, course.Keys().Board(), course.Keys().Quizzes(), course.Keys().Ledger(id, r.Instance))
	}
	owners := redistest.KeysByNode(t, ctx, redistest.Primaries(t, ctx, client), "kuis:*")
	byNode := map[string]int{}
	for _, addr := range owners {
		byNode[addr]++
	}
	if len(byNode) != 3 {
		t.Fatalf("the keys live on %d primaries, want all 3: %v", len(byNode), byNode)
	}
	// The primary that holds the most quizzes (4 or more of 12): once the
	// first quiz is erased, some of its quizzes are still to erase.
	quizzesOn := map[string]int{}
	for _, id := range quizzes {
		k, _ := s.Keys(id)
		quizzesOn[owners[k.Meta()]]++
	}
	stopped := c.Primaries[0]
	for _, p := range c.Primaries {
		if quizzesOn[p.Addr()] > quizzesOn[stopped.Addr()] {
			stopped = p
		}
	}
	var alive []string
	for _, k := range keys {
		if owners[k] != stopped.Addr() {
			alive = append(alive, k)
		}
	}
	dump := func() map[string]string { return redistest.DumpKeys(t, ctx, client, alive...) }
	before := dump()

	signal := func(sig syscall.Signal) {
		if err := syscall.Kill(stopped.PID(), sig); err != nil {
			t.Error(err)
		}
	}
	signal(syscall.SIGSTOP)
	got, err := s.Erase(ctx, "Ali")
	signal(syscall.SIGCONT)
	if !errors.Is(err, kuis.ErrUnavailable) || !got.Empty() {
		t.Fatalf("Erase with a primary stopped = %+v, %v; want ErrUnavailable, nothing erased", got, err)
	}
	if diff := cmp.Diff(before, dump()); diff != "" {
		t.Errorf("Erase with a primary stopped changed the others (-before +after):\n%s", diff)
	}

	// Lost midway: the primary stops once the first quiz is erased.
	cut := &stopAfter{Client: client, n: 1, stop: func() { signal(syscall.SIGSTOP) }}
	sc, err := kuis.New(cut, kuis.WithHashTag(), kuis.WithSilence(silence))
	if err != nil {
		t.Fatal(err)
	}
	part, err := sc.Erase(ctx, "Ali")
	signal(syscall.SIGCONT)
	if !errors.Is(err, kuis.ErrUnavailable) || len(part.Quizzes) == 0 || len(part.Quizzes) == len(quizzes) {
		t.Fatalf("Erase with a primary lost midway = %+v, %v; want ErrUnavailable and some quizzes erased", part, err)
	}
	rest, err := s.Erase(ctx, "Ali")
	if err != nil {
		t.Fatalf("Erase once the primary runs again: %v", err)
	}
	erased := map[string]bool{}
	for _, e := range append(part.Quizzes, rest.Quizzes...) {
		if erased[e.QuizID] {
			t.Errorf("quiz %s erased by both calls", e.QuizID)
		}
		erased[e.QuizID] = true
	}
	if len(erased) != len(quizzes) {
		t.Errorf("the two calls erased %d quizzes, want %d", len(erased), len(quizzes))
	}
	for _, id := range quizzes {
		b, _ := handles(t, s, id)
		if _, err := b.Standing(ctx, "Ali"); !errors.Is(err, kuis.ErrNotOnBoard) {
			t.Errorf("Standing(Ali) on %s after the erasure: %v; want ErrNotOnBoard", id, err)
		}
		if v, err := s.Audit(ctx, id); err != nil || len(v) > 0 {
			t.Errorf("Audit(%s) = %v, %v; want clean", id, v, err)
		}
	}
	for i := range 4 {
		course, _ := s.Course(fmt.Sprintf("kursus-%d", i))
		if _, err := course.Standing(ctx, "Ali"); !errors.Is(err, kuis.ErrNotOnBoard) {
			t.Errorf("course %d Standing(Ali) after the erasure: %v; want ErrNotOnBoard", i, err)
		}
		if v, err := course.Audit(ctx); err != nil || len(v) > 0 {
			t.Errorf("course %d Audit = %v, %v; want clean", i, v, err)
		}
	}
}
