package kuis_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestSummaryAndAnsweredUnderDoubleTaps has 64 goroutines answer a class of
// 16, each answer sent twice and each pair by two goroutines, while readers
// call Summary and Answered: what a reader sees only grows, and at the end
// Summary counts exactly the pairs counted, Answered lists each one's
// questions, and the gradebook says the same as both.
func TestSummaryAndAnsweredUnderDoubleTaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const questions, class, writers = 5, 16, 64
	id, _, b := e.running(questions)
	name := func(i int) string { return fmt.Sprintf("Siswa-%02d", i%class) }
	want := map[string][]int{} // writer w answers question w/class+1 for name(w), twice; w and w+32 share a pair
	for w := range writers / 2 {
		want[name(w)] = append(want[name(w)], w/class+1)
	}

	var writing, reading sync.WaitGroup
	stop := make(chan struct{})
	for r := range 4 {
		reading.Go(func() {
			var last kuis.Summary
			lastAnswered := []int{}
			for {
				select {
				case <-stop:
					return
				default:
				}
				s, err := b.Summary(e.ctx)
				if err != nil {
					t.Errorf("Summary: %v", err)
					return
				}
				if s.Participants < last.Participants || s.Answers < last.Answers || s.Participants > class || s.Answers > writers/2 {
					t.Errorf("Summary went from %+v to %+v", last, s)
				}
				last = s
				got, err := b.Answered(e.ctx, name(r))
				if err != nil {
					t.Errorf("Answered: %v", err)
					return
				}
				if !isSubset(lastAnswered, got) || !isSubset(got, want[name(r)]) || !slices.IsSorted(got) {
					t.Errorf("Answered(%s) went from %v to %v, of %v", name(r), lastAnswered, got, want[name(r)])
				}
				lastAnswered = got
			}
		})
	}
	for w := range writers {
		writing.Go(func() {
			for range 2 {
				if _, err := b.RecordAnswer(e.ctx, name(w), w%(writers/2)/class+1); err != nil {
					t.Errorf("RecordAnswer: %v", err)
				}
			}
		})
	}
	writing.Wait()
	close(stop)
	reading.Wait()

	s, err := b.Summary(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantSummary := kuis.Summary{Title: "Kuis " + id, Questions: questions, Status: kuis.StatusRunning, Participants: class, Answers: writers / 2}
	if diff := cmp.Diff(wantSummary, s); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
	for p, qs := range want {
		got, err := b.Answered(e.ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, qs) {
			t.Errorf("Answered(%s) = %v, want %v", p, got, qs)
		}
	}
	if got, err := b.Answered(e.ctx, "Tamu"); err != nil || len(got) != 0 || got == nil {
		t.Errorf("Answered of a participant not on the board = %#v, %v; want []", got, err)
	}
	e.finish(id)
	r, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var wantRows []kuis.GradeRow
	for _, st := range r.Standings {
		wantRows = append(wantRows, kuis.GradeRow{Participant: st.Participant, Score: 10 * int64(len(want[st.Participant])), Correct: want[st.Participant]})
	}
	if diff := cmp.Diff(wantRows, r.Gradebook()); diff != "" || len(wantRows) != class {
		t.Errorf("gradebook (-want +got):\n%s", diff)
	}
}

// isSubset reports whether every element of a is in b.
func isSubset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// TestSummaryAndAnsweredRefuse: a quiz without meta is ErrQuizNotFound,
// whatever its other keys hold; a bad name is refused before any I/O;
// malformed meta and an answers set of the wrong type are ErrCorrupt.
func TestSummaryAndAnsweredRefuse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	missing := quizID()
	e.mustRaw("ZADD", e.keys(missing).Board(), "10", "Ali")
	e.mustRaw("SADD", e.keys(missing).Answers(), "1:Ali")
	badMeta, _, _ := e.reference()
	e.mustRaw("HSET", e.keys(badMeta).Meta(), "jumlah_soal", "tiga")
	badSet, _, _ := e.reference()
	e.mustRaw("DEL", e.keys(badSet).Answers())
	e.mustRaw("SET", e.keys(badSet).Answers(), "x")
	cases := []struct {
		id, participant   string
		summary, answered error
	}{
		{missing, "Ali", kuis.ErrQuizNotFound, kuis.ErrQuizNotFound},
		{badMeta, "Ali", kuis.ErrCorrupt, kuis.ErrCorrupt},
		{badSet, "Ali", kuis.ErrCorrupt, kuis.ErrCorrupt},
		{missing, "Ali\u200b", kuis.ErrQuizNotFound, kuis.ErrInvalidParticipant},
	}
	for _, c := range cases {
		b := e.board(c.id)
		if _, err := b.Summary(e.ctx); !errors.Is(err, c.summary) {
			t.Errorf("Summary(%s) = %v, want %v", c.id, err, c.summary)
		}
		if got, err := b.Answered(e.ctx, c.participant); !errors.Is(err, c.answered) || got != nil {
			t.Errorf("Answered(%s, %q) = %v, %v; want %v", c.id, c.participant, got, err, c.answered)
		}
	}
}

// TestFinishedAtIsTheServersTimeOfFinish: the recap's FinishedAt lies
// between the server's clock read just before and just after Finish, and is
// zero while the quiz runs and for one finished without a finish entry.
func TestFinishedAtIsTheServersTimeOfFinish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, m, _ := e.reference()
	if r, err := e.store.Recap(e.ctx, id); err != nil || !r.FinishedAt.IsZero() {
		t.Fatalf("running quiz: FinishedAt %v, %v; want zero", r.FinishedAt, err)
	}
	before := e.serverMillis()
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	after := e.serverMillis()
	for _, tune := range []kuis.Tuning{{}, {RecapInParts: true}} {
		r, err := e.tunedOn(e.client, tune).Recap(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if at := r.FinishedAt.UnixMilli(); at < before || at > after || r.FinishedAt.Location() != time.UTC {
			t.Errorf("in parts %v: FinishedAt %v, want %d to %d ms, UTC", tune.RecapInParts, r.FinishedAt, before, after)
		}
	}
	plain, _, _ := e.reference()
	e.mustRaw("HSET", e.keys(plain).Meta(), "status", "selesai")
	if r, err := e.store.Recap(e.ctx, plain); err != nil || !r.FinishedAt.IsZero() {
		t.Errorf("quiz finished by HSET: FinishedAt %v, %v; want zero", r.FinishedAt, err)
	}
}

// TestGradebookCSV writes the reference quiz's gradebook, and that of a quiz
// whose keys are the contract's and the answers set only, whose grades
// come from the answers set.
func TestGradebookCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.reference()
	e.mustRaw("ZADD", e.keys(id).Board(), "0", "Eka") // on the board without an answer
	old := quizID()
	k := e.keys(old)
	e.mustRaw("HSET", k.Meta(), "judul", "Lama", "jumlah_soal", "4", "status", "selesai")
	e.mustRaw("ZADD", k.Board(), "20", "Ali", "10", "Budi")
	e.mustRaw("SADD", k.Answers(), "4:Ali", "1:Ali", "3:Budi")
	cases := []struct{ id, want string }{
		{id, "participant,score,1,2,3\nCitra,30,1,1,1\nAli,30,1,1,1\nBudi,20,0,1,1\nDewi,10,0,0,1\nEka,0,0,0,0\n"},
		{old, "participant,score,1,2,3,4\nAli,20,1,0,0,1\nBudi,10,0,0,1,0\n"},
	}
	for _, c := range cases {
		r, err := e.store.Recap(e.ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.WriteGradebookCSV(&buf); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, buf.String()); diff != "" {
			t.Errorf("%s: gradebook CSV (-want +got):\n%s", c.id, diff)
		}
	}
}
