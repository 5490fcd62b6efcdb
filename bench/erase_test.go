package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// TestEraseShapeLayout: the layout -erase builds is the one it reports:
// every quiz of 30 distinct participants, each target in 50 quizzes of 4
// courses of its own, 12 or 13 instances each, with every answer of its
// quizzes, and on the roster of 30.
func TestEraseShapeLayout(t *testing.T) {
	s := eraseFull
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if got := s.quizzes(); got != 500 {
		t.Errorf("%d quizzes, want 500", got)
	}
	seen := map[string]int{} // target: its quizzes
	for i := range s.quizzes() {
		ps := s.participants(i)
		if len(ps) != 30 || len(slices.Compact(slices.Sorted(slices.Values(ps)))) != 30 {
			t.Errorf("quiz %d: participants %v, want 30 distinct", i, ps)
		}
		for _, p := range ps {
			if strings.HasPrefix(p, "target-") {
				seen[p]++
			}
		}
		answered := map[string]int{}
		for _, a := range s.answers(i) {
			answered[a.Participant]++
		}
		if t0 := s.holder(i); t0 >= 0 && answered[eraseTarget(t0)] != 10 {
			t.Errorf("quiz %d: target answers %d questions, want 10", i, answered[eraseTarget(t0)])
		}
		if len(answered) != 30 {
			t.Errorf("quiz %d: %d participants answer, want 30", i, len(answered))
		}
	}
	courses := map[string]string{} // course: the target it holds
	for tg := range s.targets {
		if got := seen[eraseTarget(tg)]; got != 50 {
			t.Errorf("%s in %d quizzes, want 50", eraseTarget(tg), got)
		}
		held := s.held(tg)
		if len(held) != 4 {
			t.Errorf("%s in %d courses, want 4", eraseTarget(tg), len(held))
		}
		for c, ids := range held {
			if len(ids) != 12 && len(ids) != 13 {
				t.Errorf("%s: %d instances in course %s, want 12 or 13", eraseTarget(tg), len(ids), c)
			}
			if other, ok := courses[c]; ok {
				t.Errorf("course %s holds %s and %s: each target wants courses of its own", c, other, eraseTarget(tg))
			}
			courses[c] = eraseTarget(tg)
		}
	}
	roster := s.roster()
	names := map[string]bool{}
	for _, st := range roster {
		names[st.Name] = true
	}
	if len(roster) != 30 || len(names) != 30 {
		t.Errorf("roster of %d students, %d names; want 30 of each", len(roster), len(names))
	}
	for tg := range s.targets {
		if !names[eraseTarget(tg)] {
			t.Errorf("%s is not on the roster", eraseTarget(tg))
		}
	}
}

func TestEraseShapeCheck(t *testing.T) {
	tests := []struct {
		name  string
		shape eraseShape
		ok    bool
	}{
		{"full", eraseFull, true},
		{"no target", eraseShape{courses: 4, perCourse: 1, seats: 2, questions: 1}, false},
		{"targets beyond the courses", eraseShape{courses: 7, perCourse: 1, seats: 3, questions: 1, targets: 2}, false},
		{"a roster without room", eraseShape{courses: 4, perCourse: 1, seats: 1, questions: 1, targets: 1}, false},
		{"no question", eraseShape{courses: 4, perCourse: 1, seats: 2, targets: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.shape.check(); (err == nil) != tt.ok {
				t.Errorf("check() = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestEraseSetupPlacesTargets builds a small shape through eraseSetup and
// reads, through the library, that each target is where the layout says and
// nowhere else: on the boards of its quizzes, on its courses' boards with
// the points of its instances, on the roster; then that Erase finds it
// there (checkErasure) and that the baseline finds nothing.
func TestEraseSetupPlacesTargets(t *testing.T) {
	ctx := context.Background()
	client := redistest.Client(t)
	ns := redistest.Namespace(t)
	opts := []kuis.Option{kuis.WithNamespace(ns)}
	if redistest.Cluster() {
		opts = append(opts, kuis.WithHashTag())
	}
	store, err := kuis.New(client, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := store.Purge(context.Background()); err != nil {
			t.Errorf("purge of %s: %v", ns, err)
		}
	})
	shape := eraseShape{courses: 9, perCourse: 3, seats: 4, questions: 3, targets: 2}
	r := &runner{ctx: ctx, client: client, ns: ns, store: store, progress: io.Discard}
	if err := r.eraseSetup(store, shape); err != nil {
		t.Fatal(err)
	}

	for tg := range shape.targets {
		who := eraseTarget(tg)
		held := shape.held(tg)
		inQuiz := map[string]bool{}
		for _, ids := range held {
			for _, id := range ids {
				inQuiz[id] = true
			}
		}
		if len(inQuiz) != 6 {
			t.Fatalf("%s: layout puts it in %d quizzes, want 6 (the evens of 12)", who, len(inQuiz))
		}
		for i := range shape.quizzes() {
			b, err := store.Board(eraseQuizID(i))
			if err != nil {
				t.Fatal(err)
			}
			st, err := b.Standing(ctx, who)
			switch {
			case inQuiz[eraseQuizID(i)] && err != nil:
				t.Errorf("%s on the board of %s: %v", who, eraseQuizID(i), err)
			case inQuiz[eraseQuizID(i)] && st.Score != int64(10*shape.questions):
				t.Errorf("%s on the board of %s with %d points, want %d", who, eraseQuizID(i), st.Score, 10*shape.questions)
			case !inQuiz[eraseQuizID(i)] && !errors.Is(err, kuis.ErrNotOnBoard):
				t.Errorf("%s on the board of %s, not in its layout: %+v, %v", who, eraseQuizID(i), st, err)
			}
		}
		for c := range shape.courses {
			course, err := store.Course(eraseCourseID(c))
			if err != nil {
				t.Fatal(err)
			}
			st, err := course.Standing(ctx, who)
			ids, ok := held[eraseCourseID(c)]
			switch {
			case ok && err != nil:
				t.Errorf("%s on course %s: %v", who, eraseCourseID(c), err)
			case ok && st.Score != int64(10*shape.questions*len(ids)):
				t.Errorf("%s on course %s with %d points, want %d", who, eraseCourseID(c), st.Score, 10*shape.questions*len(ids))
			case !ok && !errors.Is(err, kuis.ErrNotOnBoard):
				t.Errorf("%s on course %s, not in its layout: %+v, %v", who, eraseCourseID(c), st, err)
			}
		}
	}
	class, err := store.Class(eraseClass)
	if err != nil {
		t.Fatal(err)
	}
	students, err := class.Students(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := func(a, b kuis.Student) int { return strings.Compare(a.ID, b.ID) }
	want := shape.roster()
	slices.SortFunc(want, byID)
	slices.SortFunc(students, byID)
	if diff := cmp.Diff(want, students); diff != "" {
		t.Errorf("roster (-want +got):\n%s", diff)
	}

	none, err := store.Erase(ctx, eraseAbsent)
	if err != nil {
		t.Fatal(err)
	}
	if err := shape.checkErasure(none, -1); err != nil {
		t.Errorf("erase of %s: %v", eraseAbsent, err)
	}
	for tg := range shape.targets {
		e, err := store.Erase(ctx, eraseTarget(tg))
		if err != nil {
			t.Fatal(err)
		}
		if err := shape.checkErasure(e, tg); err != nil {
			t.Errorf("erase of %s: %v", eraseTarget(tg), err)
		}
	}
}

// TestCheckErasureRefusesAMiss: checkErasure can fail, on a quiz or a
// ledger or a roster entry too few.
func TestCheckErasureRefusesAMiss(t *testing.T) {
	s := eraseShape{courses: 4, perCourse: 2, seats: 2, questions: 1, targets: 1}
	full := kuis.Erasure{Participant: eraseTarget(0), Classes: []kuis.ClassErasure{{ClassID: eraseClass, StudentID: "nis-target-0"}}}
	for c, ids := range s.held(0) {
		ce := kuis.CourseErasure{CourseID: c}
		for _, id := range ids {
			full.Quizzes = append(full.Quizzes, kuis.QuizErasure{QuizID: id, Points: 10, Answers: 1, Entries: 2})
			ce.Instances = append(ce.Instances, id+"@1-0")
		}
		full.Courses = append(full.Courses, ce)
	}
	slices.SortFunc(full.Quizzes, func(a, b kuis.QuizErasure) int { return strings.Compare(a.QuizID, b.QuizID) })
	if err := s.checkErasure(full, 0); err != nil {
		t.Fatalf("the whole erasure: %v", err)
	}
	tests := []struct {
		name string
		cut  func(e *kuis.Erasure)
	}{
		{"a quiz too few", func(e *kuis.Erasure) { e.Quizzes = e.Quizzes[1:] }},
		{"a ledger too few", func(e *kuis.Erasure) { e.Courses[0].Instances = e.Courses[0].Instances[1:] }},
		{"no roster", func(e *kuis.Erasure) { e.Classes = nil }},
		{"a course too many", func(e *kuis.Erasure) { e.Courses = append(e.Courses, kuis.CourseErasure{CourseID: "x"}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := full
			e.Quizzes = slices.Clone(full.Quizzes)
			e.Courses = slices.Clone(full.Courses)
			e.Courses[0].Instances = slices.Clone(full.Courses[0].Instances)
			tt.cut(&e)
			if err := s.checkErasure(e, 0); err == nil {
				t.Error("checkErasure = nil, want a difference")
			}
		})
	}
}

// TestSummarizeErase: the counts of every run are summed up as the fewest
// and the most, a command a run did not send counting 0 there.
func TestSummarizeErase(t *testing.T) {
	ms := time.Millisecond
	row := summarizeErase("x", "y", []erasePass{
		{took: 30 * ms, cpuSec: 0.010, inCommands: 9000, trips: 47, sent: map[string]int64{"scan": 4, "eval": 1}},
		{took: 10 * ms, cpuSec: 0.030, inCommands: 7000, trips: 47, sent: map[string]int64{"scan": 4}},
		{took: 20 * ms, cpuSec: 0.020, inCommands: 8000, trips: 48, sent: map[string]int64{"scan": 5}},
	})
	got := []string{row.median.String(), row.max.String(), fmt.Sprint(row.cpuMedian, row.cpuMax, row.inCommandsMedian),
		span([2]int64{row.tripsMin, row.tripsMax}), span(row.sentTotal), counted(row.sent), fmt.Sprintf("%.1f", row.serverShare)}
	want := []string{"20ms", "30ms", "0.02 0.03 8000", "47–48", "4–5", "SCAN 4–5, EVAL 0–1", "1.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summarizeErase (-want +got):\n%s", diff)
	}
}
