package kuis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestEventsEndWhenTheQuizIsPurgedAndCreatedAgain: a reader following a
// running quiz that is purged and created again under the same ID, with
// answers of the same participants, ends with ErrQuizNotFound and never
// yields an event of the new quiz; so does a reader resuming after an event
// of the old quiz. A reader that starts on the new quiz follows it.
func TestEventsEndWhenTheQuizIsPurgedAndCreatedAgain(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	id, m, b := e.running(3)
	if _, err := b.RecordAnswer(ctx, "Ali", 1); err != nil {
		t.Fatal(err)
	}
	type result struct {
		events []kuis.Event
		err    error
	}
	follow := func(after string, first chan<- struct{}) <-chan result {
		done := make(chan result, 1)
		go func() {
			var r result
			for ev, err := range b.Events(ctx, after) {
				if err != nil {
					r.err = err
					break
				}
				r.events = append(r.events, ev)
				if first != nil && len(r.events) == 1 {
					close(first)
				}
			}
			done <- r
		}()
		return done
	}
	seen := make(chan struct{})
	old := follow("", seen)
	<-seen // the reader follows the old quiz
	if _, err := e.store.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, "Kuis baru", 3); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Ali", "Budi"} {
		if _, err := b.RecordAnswer(ctx, name, 1); err != nil {
			t.Fatal(err)
		}
	}
	r := <-old
	if !errors.Is(r.err, kuis.ErrQuizNotFound) || len(r.events) != 1 || r.events[0].Participant != "Ali" {
		t.Errorf("the old quiz's reader: events %+v, then %v; want Ali's first answer, then ErrQuizNotFound", r.events, r.err)
	}
	resumed := <-follow(r.events[0].ID, nil)
	if !errors.Is(resumed.err, kuis.ErrQuizNotFound) || len(resumed.events) != 0 {
		t.Errorf("resuming after the old quiz's event: %+v, then %v; want ErrQuizNotFound at once", resumed.events, resumed.err)
	}
	if err := e.meta(id).Finish(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := <-follow("", nil)
	var got []string
	for _, ev := range fresh.events {
		got = append(got, string(ev.Kind)+" "+ev.Participant)
	}
	if diff := cmp.Diff([]string{"answer Ali", "answer Budi", "finished "}, got); fresh.err != nil || diff != "" {
		t.Errorf("a reader of the new quiz: %v (-want +got):\n%s", fresh.err, diff)
	}
}
