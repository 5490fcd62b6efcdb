package servertest_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// Ports of TestCourseNoWriteNoWait's servers.
const coursePortLo, coursePortHi = 30500, 30599

var courseSeq atomic.Int64

// courseOn is s's handle on a course unused in this process.
func courseOn(t testing.TB, s *kuis.Store) *kuis.Course {
	t.Helper()
	c, err := s.Course(fmt.Sprintf("ipa-%02d", courseSeq.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recapOf is a finished quiz's recap of instance, made by hand, with a
// participant per name/score pair: Fold reads nothing else of it.
func recapOf(id, instance string, questions int64, pairs ...any) kuis.Recap {
	r := kuis.Recap{QuizID: id, Instance: instance, Info: kuis.Info{Title: "Kuis " + id, Questions: questions, Status: kuis.StatusFinished}}
	for i := 0; i+1 < len(pairs); i += 2 {
		r.Standings = append(r.Standings, kuis.Standing{Rank: len(r.Standings) + 1, Participant: pairs[i].(string), Score: int64(pairs[i+1].(int))})
	}
	return r
}

// namedCall is a library call a test makes, and its name.
type namedCall struct {
	name string
	call func() error
}

// TestCourseNoWriteNoWait: a course operation that writes nothing sends no
// script that writes (its permission check is read-only), so that with
// WithReplicas no WAIT follows it; on servers of the test's own, a primary
// with a replica, it sends no WAIT, while a fold that writes does.
func TestCourseNoWriteNoWait(t *testing.T) {
	t.Parallel()
	calls := func(t *testing.T, e *env, c *kuis.Course) []namedCall {
		folded := recapOf("kuis-a", "7-0", 3, "Ali", 30, "Budi", 20)
		if _, err := c.Fold(e.ctx, folded); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Fold(e.ctx, recapOf("kuis-a", "8-0", 3, "Ali", 30, "Budi", 20)); err != nil {
			t.Fatal(err)
		}
		other := recapOf("kuis-b", "", 1, "Ali", 10)
		other.Info.Course = "lain"
		return []namedCall{
			{"Fold again", func() error { _, err := c.Fold(e.ctx, folded); return err }},
			{"Fold of a conflicting recap", func() error {
				_, err := c.Fold(e.ctx, recapOf("kuis-a", "7-0", 3, "Ali", 20))
				return wantErr(err, kuis.ErrConflict)
			}},
			{"Unfold of a quiz never folded", func() error { _, err := c.Unfold(e.ctx, "kuis-z"); return err }},
			{"Unfold of an ID in two instances", func() error { _, err := c.Unfold(e.ctx, "kuis-a"); return wantErr(err, kuis.ErrConflict) }},
			{"UnfoldInstance never folded", func() error { _, err := c.UnfoldInstance(e.ctx, "kuis-a", "9-0"); return err }},
			{"Repair of a clean course", func() error { _, err := c.Repair(e.ctx); return err }},
			{"Archive of another course's quiz", func() error { return wantErr(c.Archive(nil)(e.ctx, other), kuis.ErrConflict) }},
		}
	}
	e := newEnv(t)
	rec := redistest.NewRecorder(e.client)
	c := courseOn(t, e.storeOn(rec))
	for _, call := range calls(t, e, c) {
		rec.Start()
		err := call.call()
		sent := rec.Stop()
		if err != nil {
			t.Errorf("%s: %v", call.name, err)
		}
		if n := countOf(sent, "EVALSHA") + countOf(sent, "EVAL"); n > 0 {
			t.Errorf("%s sent %v: %d scripts that write", call.name, sent, n)
		}
	}
	t.Run("on a primary with a replica", func(t *testing.T) {
		primary, _ := redistest.StandaloneServers(t, coursePortLo, coursePortHi).PrimaryWithReplica()
		rec := redistest.NewRecorder(redistest.ClientAt(t, primary.Addr()))
		s, err := kuis.New(rec, kuis.WithReplicas(1, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		c := courseOn(t, s)
		e := envWith(t, redistest.ClientAt(t, primary.Addr()))
		rec.Start()
		cs := calls(t, e, c)
		if sent := rec.Stop(); countOf(sent, "WAIT") == 0 {
			t.Errorf("two folds that wrote sent %v: no WAIT", sent)
		}
		for _, call := range cs {
			rec.Start()
			err := call.call()
			if sent := rec.Stop(); err != nil || countOf(sent, "WAIT") != 0 {
				t.Errorf("%s: %v, sent %v; want no WAIT", call.name, err, sent)
			}
		}
	})
}

// wantErr is nil when err is want, and otherwise an error saying so.
func wantErr(err, want error) error {
	if errors.Is(err, want) {
		return nil
	}
	return fmt.Errorf("got %w, want %w", err, want)
}
