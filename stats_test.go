package kuis_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestStatsCountAKnownMix runs a known mix of new, repeated, refused and
// cancelled answers, feeds, a Live board and a Repair on a Store of its own,
// and checks every field of its Stats.
func TestStatsCountAKnownMix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.storeOn(e.client)
	id, _, _ := e.running(3)
	b, _ := handles(t, s, id)
	record := func(b *kuis.Board, ctx context.Context, p string, q int) {
		t.Helper()
		b.RecordAnswer(ctx, p, q) //nolint:errcheck // outcomes are what Stats counts
	}
	for _, a := range []kuis.AnswerInput{{"Ali", 1}, {"Ali", 2}, {"Budi", 1}, {"Ali", 1}, {"", 1}, {"Ali", 0}, {"Ali", 4}} {
		record(b, e.ctx, a.Participant, a.Question) // 3 counted, 1 repeat, 1 bad name, 2 bad questions (one on the server): 5 runs
	}
	b.RecordAnswers(e.ctx, []kuis.AnswerInput{ //nolint:errcheck // outcomes are what Stats counts
		{"Citra", 1}, {"Citra", 1}, {"Citra", 2}, {"Ali", 3}, {"Ali\u200b", 1}, {"Dewi", 9}, // 3 counted, 1 repeat, 1 bad name, 1 bad question: 1 run of 4
	})
	missing, _ := handles(t, s, quizID())
	record(missing, e.ctx, "Ali", 1)
	done, _, _ := e.reference()
	e.finish(done)
	finished, _ := handles(t, s, done)
	record(finished, e.ctx, "Eka", 1)
	broken, _, _ := e.running(3)
	e.mustRaw("HSET", e.keys(broken).Meta(), "jumlah_soal", "tiga")
	corrupt, _ := handles(t, s, broken)
	record(corrupt, e.ctx, "Ali", 1)
	cancelled, cancel := context.WithCancel(e.ctx)
	cancel()
	record(b, cancelled, "Eka", 1)
	b.RecordAnswers(cancelled, []kuis.AnswerInput{{"Eka", 1}, {"Eka", 1}}) //nolint:errcheck // 2 not sent

	// The finished reference quiz: its feed is 9 answers and the finish,
	// read in one XREAD; Live yields its final board once.
	events := 0
	for _, err := range finished.Events(e.ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		events++
		if s.Stats().Readers != 1 {
			t.Errorf("Readers = %d while one Events runs, want 1", s.Stats().Readers)
		}
	}
	for _, err := range finished.Live(e.ctx, 3, time.Second) {
		if err != nil {
			t.Fatal(err)
		}
		if s.Stats().Readers != 1 {
			t.Errorf("Readers = %d while one Live runs, want 1", s.Stats().Readers)
		}
	}
	e.mustRaw("ZINCRBY", e.keys(id).Board(), "10", "Budi")
	if c, err := s.Repair(e.ctx, id); err != nil || len(c) != 1 {
		t.Fatalf("Repair = %+v, %v; want Budi's score corrected", c, err)
	}

	want := kuis.Stats{
		Counted: 6, Duplicates: 2,
		Refused: kuis.Refusals{Finished: 1, NotFound: 1, InvalidQuestion: 3, InvalidParticipant: 2, Corrupt: 1},
		NotSent: 3, Runs: 9, RunAnswers: 12,
		FeedReads: 1, Events: 10, Refreshes: 1, Corrections: 1,
	}
	if diff := cmp.Diff(want, s.Stats()); diff != "" || events != 10 {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}

	t.Run("forbidden", func(t *testing.T) {
		as, _ := roleStore(t, e, kuis.RoleTeacher, false, kuis.Tuning{})
		tb, _ := handles(t, as, id)
		record(tb, e.ctx, "Eka", 2)
		if diff := cmp.Diff(kuis.Stats{Refused: kuis.Refusals{Forbidden: 1}, Runs: 1, RunAnswers: 1}, as.Stats()); diff != "" {
			t.Errorf("Stats of the teacher's Store (-want +got):\n%s", diff)
		}
	})
}

// TestStatsQueuedIsTheAnswersWaiting: with the runs in flight held, a call
// waits; Queued counts it, and counts nothing once it has been sent.
func TestStatsQueuedIsTheAnswersWaiting(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hc := newHoldClient(e.client)
	s := e.storeOn(hc)
	id, _, _ := e.running(3)
	b, _ := handles(t, s, id)
	wait := hc.fill(t, e.ctx, b)
	queued := make(chan error, 1)
	go func() { _, err := b.RecordAnswer(e.ctx, "Dewi", 1); queued <- err }()
	waitQueued(t, s, id, 1)
	if got := s.Stats(); got.Queued != 1 || got.Runs != kuis.MaxInFlight {
		t.Errorf("Stats with one call queued behind %d held runs: %+v", kuis.MaxInFlight, got)
	}
	close(hc.release)
	wait()
	if err := <-queued; err != nil {
		t.Fatal(err)
	}
	want := kuis.Stats{Counted: kuis.MaxInFlight + 1, Runs: kuis.MaxInFlight + 1, RunAnswers: kuis.MaxInFlight + 1}
	if diff := cmp.Diff(want, s.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

// TestStatsUnderConcurrentDoubleTaps: 64 goroutines answer 8 participants'
// 4 questions, each pair sent by 16 of them; every answer is counted once, as
// new or as a repeat, in runs that together carry every answer.
func TestStatsUnderConcurrentDoubleTaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.storeOn(e.client)
	id, _, _ := e.running(4)
	b, _ := handles(t, s, id)
	const goroutines, each = 64, 8
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				pair := (g*each + i) % 32
				if _, err := b.RecordAnswer(e.ctx, fmt.Sprintf("Siswa-%d", pair%8), pair/8+1); err != nil {
					t.Errorf("RecordAnswer: %v", err)
				}
			}
		})
	}
	wg.Wait()
	got := s.Stats()
	if got.Counted != 32 || got.Duplicates != goroutines*each-32 || got.RunAnswers != goroutines*each ||
		got.Runs < 1 || got.Runs > got.RunAnswers || got.Queued != 0 || got.Failed != 0 || got.Refused != (kuis.Refusals{}) {
		t.Errorf("Stats after %d answers of 32 pairs: %+v", goroutines*each, got)
	}
}
