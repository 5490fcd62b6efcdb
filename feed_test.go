package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestEventsEndWhenTheQuizIsPurgedAndCreatedAgain: a reader following a
// running quiz that is purged and created again under the same ID, with
// answers of the same participants, ends with ErrQuizNotFound and never
// yields an event of the new quiz; so does a reader resuming after an event
// of the old quiz. A reader that starts on the new quiz follows it. On
// miniredis the clock stands still from the old quiz's answer on, so the new
// quiz's entries share that answer's millisecond.
func TestEventsEndWhenTheQuizIsPurgedAndCreatedAgain(t *testing.T) {
	t.Parallel()
	e := clockEnv(t)
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	id, m, b := e.running(3)
	tick(e) // the new quiz is created in a later millisecond than the old one
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

// TestEventsFromZeroReadTheQuizFromItsStart: "0-0", Redis's own "from the
// start", reads a live, never-purged quiz from its start as "" does, where
// a resume position of an earlier quiz of the same ID still ends the feed
// (TestEventsEndWhenTheQuizIsPurgedAndCreatedAgain).
func TestEventsFromZeroReadTheQuizFromItsStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	_, m, b := e.reference()
	if err := m.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	want := append(append([]brief{}, referenceEvents...), brief{Kind: kuis.EventFinished})
	for _, after := range []string{"", "0-0"} {
		got, err := collect(ctx, b, after, -1)
		if diff := cmp.Diff(want, briefs(got)); err != nil || diff != "" {
			t.Errorf("Events after %q: %v (-want +got):\n%s", after, err, diff)
		}
	}
}

// TestLiveEndsWhenTheQuizIsPurgedAndCreatedAgain: Live, like Events, ends
// with ErrQuizNotFound when its quiz is purged, or purged and created again
// with answers, all within one interval; it never yields the new quiz's
// board as the old one's.
func TestLiveEndsWhenTheQuizIsPurgedAndCreatedAgain(t *testing.T) {
	t.Parallel()
	e := clockEnv(t)
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	for _, again := range []bool{false, true} {
		id, m, b := e.reference()
		tick(e) // the new quiz is created in a later millisecond than the old one
		var boards [][]kuis.Standing
		var end error
		for page, err := range b.Live(ctx, 10, 50*time.Millisecond) {
			if err != nil {
				end = err
				break
			}
			boards = append(boards, page)
			if len(boards) > 1 {
				continue
			}
			// Between two polls: finish, purge, and maybe create again and answer.
			if err := m.Finish(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := e.store.PurgeQuiz(ctx, id, func(context.Context, kuis.Recap) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if !again {
				continue
			}
			if err := m.Create(ctx, "Kuis baru", 3); err != nil {
				t.Fatal(err)
			}
			if _, err := b.RecordAnswer(ctx, "Murid Baru", 1); err != nil {
				t.Fatal(err)
			}
		}
		if !errors.Is(end, kuis.ErrQuizNotFound) || len(boards) != 1 || len(boards[0]) != 4 {
			t.Errorf("created again %v: Live yielded %v, then %v; want the reference board, then ErrQuizNotFound", again, boards, end)
		}
	}
}

// TestLogIDsNearTheEnd: entry IDs whose sequence, or whole ID, is the
// greatest a stream holds (2^64 - 1) end every paged read of the log, with
// a result or ErrCorrupt, however the pages fall: Audit, Repair and Recap
// read in parts, and the feed of the quiz once finished.
func TestLogIDsNearTheEnd(t *testing.T) {
	t.Parallel()
	const top = "18446744073709551615"
	for _, pageSize := range []int64{1, 2, 3} {
		t.Run(fmt.Sprintf("pages of %d", pageSize), func(t *testing.T) {
			e := newTunedEnv(t, kuis.Tuning{PageSize: pageSize, RecapInParts: true, FeedBlock: 100 * time.Millisecond})
			ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
			defer cancel()
			id, _, b := e.reference()
			k := e.keys(id)
			last := answerLog(e, k)[8].ms()
			e.mustRaw("XADD", k.Log(), fmt.Sprintf("%d-%s", last+1, top), "x", "y") // a sequence at the end,
			e.mustRaw("XADD", k.Log(), fmt.Sprintf("%d-0", last+2), "x", "y")       // then the next millisecond's
			if v, err := e.store.Audit(ctx, id); err != nil || !hasViolation(v, k.Log(), "log") {
				t.Errorf("Audit = %v, %v; want the stray entry reported", v, err)
			}
			if fixes, err := e.store.Repair(ctx, id); err != nil || len(fixes) != 0 {
				t.Errorf("Repair = %v, %v; want nothing to correct", fixes, err)
			}
			if r, err := e.store.Recap(ctx, id); err != nil || len(r.Answers) != 9 {
				t.Errorf("Recap in parts: %d answers, %v; want 9", len(r.Answers), err)
			}
			e.mustRaw("XADD", k.Log(), top+"-"+top, "x", "y") // the greatest ID: no entry can follow
			if err := e.meta(id).Finish(ctx); err != nil {
				t.Errorf("Finish of a quiz whose log takes no entry: %v; want nil", err)
			}
			if s, err := e.meta(id).Status(ctx); err != nil || s != kuis.StatusFinished {
				t.Errorf("Status after Finish = %q, %v; want selesai", s, err)
			}
			var kinds []kuis.EventKind
			for ev, err := range b.Events(ctx, "") {
				if err != nil {
					t.Fatalf("Events: %v", err)
				}
				kinds = append(kinds, ev.Kind)
			}
			if len(kinds) != 10 || kinds[8] != kuis.EventAnswer || kinds[9] != kuis.EventFinished {
				t.Errorf("Events: %v; want the 9 answers, then the finish", kinds)
			}
			if _, err := e.store.Audit(ctx, id); err != nil {
				t.Errorf("Audit: %v", err)
			}
			if n, err := e.store.PurgeQuiz(ctx, id, func(context.Context, kuis.Recap) error { return nil }); err != nil || n != 5 {
				t.Errorf("PurgeQuiz = %d, %v; want 5", n, err)
			}
		})
	}
}

// TestFeedsRefuseBeforeTheyBlock: an invalid after, a missing quiz and a
// Live of bad bounds are the first value Events and Live yield, each the
// iterator's last, with no blocking read sent before it; so a handler that
// pulls the first value knows whether to answer 200 before it writes
// headers.
func TestFeedsRefuseBeforeTheyBlock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rec := newRecorder(e.client)
	s := e.storeOn(rec)
	running, _, _ := e.reference()
	missing := quizID()
	e.mustRaw("XADD", e.keys(missing).Log(), "*", "status", "berjalan") // a log left without meta
	board := func(id string) *kuis.Board {
		b, err := s.Board(id)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name  string
		feed  func(ctx context.Context) func(yield func(any, error) bool)
		want  error
		sends []string
	}{
		{"Events of a missing quiz", events(board(missing), ""), kuis.ErrQuizNotFound, []string{"HGETALL", "XRANGE", "XREVRANGE"}},
		{"Events resuming on a missing quiz", events(board(missing), "1-0"), kuis.ErrQuizNotFound, []string{"HGETALL", "XRANGE", "XREVRANGE"}},
		{"Events after a malformed ID", events(board(running), "1-x"), kuis.ErrInvalidRange, nil},
		{"Live of a missing quiz", live(board(missing), 10, time.Second), kuis.ErrQuizNotFound, []string{"HGETALL", "XRANGE", "XREVRANGE"}},
		{"Live of top 0", live(board(running), 0, time.Second), kuis.ErrInvalidRange, nil},
	}
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
		rec.start()
		var errs []error
		c.feed(ctx)(func(_ any, err error) bool { errs = append(errs, err); return true })
		sent := rec.stop()
		cancel()
		if len(errs) != 1 || !errors.Is(errs[0], c.want) {
			t.Errorf("%s yielded %v, want one %v", c.name, errs, c.want)
		}
		if diff := cmp.Diff(c.sends, sent); diff != "" {
			t.Errorf("%s sent (-want +got):\n%s", c.name, diff)
		}
	}
}

// events and live adapt the two feeds to one shape for table tests.
func events(b *kuis.Board, after string) func(context.Context) func(func(any, error) bool) {
	return func(ctx context.Context) func(func(any, error) bool) {
		return func(yield func(any, error) bool) {
			for ev, err := range b.Events(ctx, after) {
				if !yield(ev, err) {
					return
				}
			}
		}
	}
}

func live(b *kuis.Board, top int, every time.Duration) func(context.Context) func(func(any, error) bool) {
	return func(ctx context.Context) func(func(any, error) bool) {
		return func(yield func(any, error) bool) {
			for page, err := range b.Live(ctx, top, every) {
				if !yield(page, err) {
					return
				}
			}
		}
	}
}
