package kuis_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// course returns the store's handle on course id.
func (e *env) course(id string) *kuis.Course {
	e.t.Helper()
	return courseOn(e.t, e.store, id)
}

func courseOn(t testing.TB, s *kuis.Store, id string) *kuis.Course {
	t.Helper()
	c, err := s.Course(id)
	if err != nil {
		t.Fatalf("Course(%q): %v", id, err)
	}
	return c
}

var courseSeq atomic.Int64

// courseID returns a course ID unused in this process.
func courseID() string { return fmt.Sprintf("ipa-%02d", courseSeq.Add(1)) }

// finishedReference plays the reference session on a new quiz, finishes it
// and returns its recap: Citra 30, Ali 30, Budi 20, Dewi 10, of 3 questions.
func (e *env) finishedReference() kuis.Recap {
	e.t.Helper()
	id, _, _ := e.reference()
	e.finish(id)
	return e.recap(id)
}

// recap is Store.Recap that fails the test on an error.
func (e *env) recap(id string) kuis.Recap {
	e.t.Helper()
	r, err := e.store.Recap(e.ctx, id)
	if err != nil {
		e.t.Fatalf("Recap(%q): %v", id, err)
	}
	return r
}

// handRecap is a finished quiz's recap as Recap returns one, made by hand,
// with a participant per name/score pair: Fold reads nothing else of it.
func handRecap(id string, questions int64, pairs ...any) kuis.Recap {
	r := kuis.Recap{QuizID: id, Info: kuis.Info{Title: "Kuis " + id, Questions: questions, Status: kuis.StatusFinished}}
	for i := 0; i+1 < len(pairs); i += 2 {
		r.Standings = append(r.Standings, kuis.Standing{Rank: len(r.Standings) + 1, Participant: pairs[i].(string), Score: int64(pairs[i+1].(int))})
	}
	return r
}

// classRecap is handRecap of n participants "p000", "p001", ..., participant
// i with 10 x (i % 7 + 1) points, and their total.
func classRecap(id string, n int) (kuis.Recap, int64) {
	var pairs []any
	var total int64
	for i := range n {
		pairs = append(pairs, fmt.Sprintf("p%03d", i), 10*(i%7+1))
		total += int64(10 * (i%7 + 1))
	}
	return handRecap(id, 7, pairs...), total
}

// courseView is what a course's keys hold, as tests compare it: each
// index field's marker without its digest and time, "<possible>
// <participants> <points> folded" (or "in parts"), each listed ledger, and
// the board.
type courseView struct {
	Index   map[string]string
	Ledgers map[string]map[string]string
	Board   map[string]float64
}

// courseState reads a course's index, each ledger it lists, and its board
// with the env's client.
func (e *env) courseState(c *kuis.Course) courseView {
	e.t.Helper()
	k := c.Keys()
	index, err := e.mustRaw("HGETALL", k.Quizzes()).AsStrMap()
	if err != nil {
		e.t.Fatal(err)
	}
	v := courseView{Index: map[string]string{}, Ledgers: map[string]map[string]string{}, Board: map[string]float64{}}
	for field, m := range index {
		f := strings.Fields(m)
		state := "in parts"
		if len(f) == 5 && f[4] != "0" {
			state = "folded"
		}
		v.Index[field] = strings.Join(append(f[:min(3, len(f))], state), " ")
		quiz, instance, _ := strings.Cut(field, "@")
		if v.Ledgers[field], err = e.mustRaw("HGETALL", k.Ledger(quiz, instance)).AsStrMap(); err != nil {
			e.t.Fatal(err)
		}
	}
	zs, err := e.mustRaw("ZRANGE", k.Board(), "0", "-1", "WITHSCORES").AsZScores()
	if err != nil {
		e.t.Fatal(err)
	}
	for _, z := range zs {
		v.Board[z.Member] = z.Score
	}
	return v
}

// courseKeys lists the course's board and index, the ledger of every field
// of its index, and those of the recaps' instances.
func (e *env) courseKeys(c *kuis.Course, rcs ...kuis.Recap) []string {
	e.t.Helper()
	k := c.Keys()
	keys := []string{k.Board(), k.Quizzes()}
	fields, _ := e.raw("HKEYS", k.Quizzes()).AsStrSlice() // none from an index of the wrong type
	for _, f := range fields {
		quiz, instance, _ := strings.Cut(f, "@")
		keys = append(keys, k.Ledger(quiz, instance))
	}
	for i := range rcs {
		rc := &rcs[i]
		keys = append(keys, k.Ledger(rc.QuizID, instanceOf(rc)))
	}
	return keys
}

// instanceOf is the instance a recap folds as.
func instanceOf(rc *kuis.Recap) string {
	if rc.Instance == "" {
		return kuis.NoInstance
	}
	return rc.Instance
}

// courseDump is dump of the course's keys, as courseKeys lists them.
func (e *env) courseDump(c *kuis.Course, rcs ...kuis.Recap) map[string]string {
	e.t.Helper()
	return e.dump(e.courseKeys(c, rcs...)...)
}

// wantClean expects Course.Audit to find nothing and Course.Repair to
// correct nothing and write nothing.
func wantClean(t *testing.T, e *env, c *kuis.Course) {
	t.Helper()
	if v, err := c.Audit(e.ctx); err != nil || v == nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want an empty, non-nil slice", v, err)
	}
	before := e.courseDump(c)
	if fixes, err := c.Repair(e.ctx); err != nil || fixes == nil || len(fixes) != 0 {
		t.Errorf("Repair = %#v, %v; want an empty, non-nil slice", fixes, err)
	}
	if diff := cmp.Diff(before, e.courseDump(c)); diff != "" {
		t.Errorf("Repair of a clean course changed it (-before +after):\n%s", diff)
	}
}

// wantFolded expects the course to hold exactly the recaps rcs, each folded
// once and wholly, 0-point participants included, and to be clean.
func wantFolded(t *testing.T, e *env, c *kuis.Course, rcs ...kuis.Recap) {
	t.Helper()
	want := courseView{Index: map[string]string{}, Ledgers: map[string]map[string]string{}, Board: map[string]float64{}}
	for i := range rcs {
		rc := &rcs[i]
		field := rc.QuizID + "@" + instanceOf(rc)
		ledger := map[string]string{}
		var points int64
		for _, s := range rc.Standings {
			ledger[s.Participant] = strconv.FormatInt(s.Score, 10)
			want.Board[s.Participant] += float64(s.Score)
			points += s.Score
		}
		want.Index[field] = fmt.Sprintf("%d %d %d folded", 10*rc.Info.Questions, len(rc.Standings), points)
		want.Ledgers[field] = ledger
	}
	if diff := cmp.Diff(want, e.courseState(c), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("course (-want +got):\n%s", diff)
	}
	wantClean(t, e, c)
}

// fold folds each recap into c, failing the test on an error.
func fold(t testing.TB, e *env, c *kuis.Course, rcs ...kuis.Recap) {
	t.Helper()
	for i := range rcs {
		rc := &rcs[i]
		if _, err := c.Fold(e.ctx, *rc); err != nil {
			t.Fatalf("Fold(%s@%s): %v", rc.QuizID, rc.Instance, err)
		}
	}
}

// withInstance is rc folded as instance.
func withInstance(rc kuis.Recap, instance string) kuis.Recap {
	rc.Instance = instance
	return rc
}

// conflictOf is err's *kuis.ConflictError, or nil.
func conflictOf(err error) *kuis.ConflictError {
	var ce *kuis.ConflictError
	if errors.As(err, &ce) {
		return ce
	}
	return nil
}

func TestCourseIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, id := range []string{"", "ipa:8a", "ipa*", "{ipa}", strings.Repeat("a", 65), "ipa 8a"} {
		if c, err := e.store.Course(id); !errors.Is(err, kuis.ErrInvalidCourseID) || c != nil {
			t.Errorf("Course(%q) = %v, %v; want ErrInvalidCourseID", id, c, err)
		}
	}
	for _, tc := range []struct {
		opts                 []kuis.Option
		board, index, ledger string
	}{
		{nil, "kuis:kursus:ipa-8a", "kuis:kursus-kuis:ipa-8a", "kuis:kursus-rincian:ipa-8a:kuis-02@1733299200000-0"},
		{[]kuis.Option{kuis.WithNamespace("sekolah"), kuis.WithHashTag()}, "sekolah:kursus:{ipa-8a}", "sekolah:kursus-kuis:{ipa-8a}",
			"sekolah:kursus-rincian:{ipa-8a}:kuis-02@1733299200000-0"},
	} {
		s, err := kuis.New(e.client, tc.opts...)
		if err != nil {
			if errors.Is(err, kuis.ErrNeedsHashTag) {
				continue // a cluster client takes only the hash-tagged keys
			}
			t.Fatal(err)
		}
		k := courseOn(t, s, "ipa-8a").Keys()
		got := []string{k.CourseID(), k.Board(), k.Quizzes(), k.Ledger("kuis-02", "1733299200000-0")}
		if diff := cmp.Diff([]string{"ipa-8a", tc.board, tc.index, tc.ledger}, got); diff != "" {
			t.Errorf("Keys (-want +got):\n%s", diff)
		}
	}
}

// TestCourseFold folds the reference quiz and a second quiz into a course:
// each participant's total is the sum of their points from both, a
// participant who missed a quiz has no points from it, the ledger says who
// got what from which quiz, and a fold repeated writes nothing.
func TestCourseFold(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ref := e.finishedReference()
	second := e.finished(2, map[string]int{"Ali": 2, "Eka": 1})
	c := e.course(courseID())

	if got, err := c.Fold(e.ctx, ref); err != nil || got != (kuis.Fold{QuizID: ref.QuizID, Instance: ref.Instance, Participants: 4, Points: 90}) {
		t.Fatalf("Fold(reference) = %+v, %v; want 4 participants, 90 points", got, err)
	}
	if got, err := c.Fold(e.ctx, second); err != nil || got != (kuis.Fold{QuizID: second.QuizID, Instance: second.Instance, Participants: 2, Points: 30}) {
		t.Fatalf("Fold(second) = %+v, %v; want 2 participants, 30 points", got, err)
	}
	r, s := ref.QuizID+"@"+ref.Instance, second.QuizID+"@"+second.Instance
	want := courseView{
		Index: map[string]string{r: "30 4 90 folded", s: "20 2 30 folded"},
		Ledgers: map[string]map[string]string{r: {"Citra": "30", "Ali": "30", "Budi": "20", "Dewi": "10"},
			s: {"Ali": "20", "Eka": "10"}},
		Board: map[string]float64{"Ali": 50, "Citra": 30, "Budi": 20, "Dewi": 10, "Eka": 10},
	}
	if diff := cmp.Diff(want, e.courseState(c)); diff != "" {
		t.Errorf("course (-want +got):\n%s", diff)
	}

	// Repeats, in either order, write nothing.
	before := e.courseDump(c)
	for _, rc := range []kuis.Recap{second, ref, ref} {
		if got, err := c.Fold(e.ctx, rc); err != nil || got != (kuis.Fold{QuizID: rc.QuizID, Instance: rc.Instance, AlreadyFolded: true}) {
			t.Errorf("Fold(%s) again = %+v, %v; want {%s %s 0 0 true}", rc.QuizID, got, err, rc.QuizID, rc.Instance)
		}
	}
	if diff := cmp.Diff(before, e.courseDump(c)); diff != "" {
		t.Errorf("repeated folds changed the course (-before +after):\n%s", diff)
	}

	// The reads, as Board's: equal totals in reverse name order, both ranks.
	all := []kuis.Standing{{1, 1, "Ali", 50}, {2, 2, "Citra", 30}, {3, 3, "Budi", 20}, {4, 4, "Eka", 10}, {5, 4, "Dewi", 10}}
	got := map[string]any{}
	got["Standings"], _ = c.Standings(e.ctx)
	got["Page"], _ = c.Page(e.ctx, 4, 3)
	got["Around"], _ = c.Around(e.ctx, "Budi", 1)
	got["Standing"], _ = c.Standing(e.ctx, "Dewi")
	got["Len"], _ = c.Len(e.ctx)
	got["Quizzes"], _ = c.Quizzes(e.ctx)
	quizzes := []kuis.CourseQuiz{{QuizID: ref.QuizID, Instance: ref.Instance, Questions: 3, Participants: 4, Points: 90},
		{QuizID: second.QuizID, Instance: second.Instance, Questions: 2, Participants: 2, Points: 30}}
	if second.QuizID < ref.QuizID {
		quizzes[0], quizzes[1] = quizzes[1], quizzes[0]
	}
	for _, q := range got["Quizzes"].([]kuis.CourseQuiz) {
		if q.FoldedAt.IsZero() {
			t.Errorf("Quizzes: %s has no FoldedAt", q.QuizID)
		}
	}
	wantReads := map[string]any{"Standings": all, "Page": all[4:], "Around": all[1:4], "Standing": all[4], "Len": int64(5), "Quizzes": quizzes}
	if diff := cmp.Diff(wantReads, got, cmpopts.IgnoreFields(kuis.CourseQuiz{}, "FoldedAt")); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	if _, err := c.Standing(e.ctx, "Fajar"); !errors.Is(err, kuis.ErrNotOnBoard) {
		t.Errorf("Standing(Fajar) = %v; want ErrNotOnBoard", err)
	}
	if _, err := c.Around(e.ctx, "Fajar", 2); !errors.Is(err, kuis.ErrNotOnBoard) {
		t.Errorf("Around(Fajar) = %v; want ErrNotOnBoard", err)
	}
	wantClean(t, e, c)
}

// finished plays a new quiz of questions in which each participant answers
// questions 1..n of scores, finishes it and returns its recap.
func (e *env) finished(questions int, scores map[string]int) kuis.Recap {
	e.t.Helper()
	id, _, b := e.running(questions)
	var in []kuis.AnswerInput
	for name, n := range scores {
		for q := 1; q <= n; q++ {
			in = append(in, kuis.AnswerInput{Participant: name, Question: q})
		}
	}
	if len(in) > 0 {
		if _, err := b.RecordAnswers(e.ctx, in); err != nil {
			e.t.Fatal(err)
		}
	}
	e.finish(id)
	return e.recap(id)
}

// TestCourseEmpty: a course with nothing folded reads as empty, and the
// first fold of a finished quiz nobody scored in writes only its marker.
func TestCourseEmpty(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.course(courseID())
	got := map[string]any{}
	got["Standings"], _ = c.Standings(e.ctx)
	got["Page"], _ = c.Page(e.ctx, 0, 10)
	got["Len"], _ = c.Len(e.ctx)
	got["Quizzes"], _ = c.Quizzes(e.ctx)
	got["Audit"], _ = c.Audit(e.ctx)
	recap, err := c.Recap(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	got["Recap"] = recap
	want := map[string]any{"Standings": []kuis.Standing{}, "Page": []kuis.Standing{}, "Len": int64(0), "Quizzes": []kuis.CourseQuiz{},
		"Audit": []kuis.Violation{}, "Recap": kuis.CourseRecap{CourseID: c.Keys().CourseID(), Standings: []kuis.Standing{},
			Quizzes: []kuis.CourseQuiz{}, Entries: []kuis.CourseEntry{}}}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt")); diff != "" {
		t.Errorf("reads of an empty course (-want +got):\n%s", diff)
	}
	if _, err := c.Standing(e.ctx, "Ali"); !errors.Is(err, kuis.ErrNotOnBoard) {
		t.Errorf("Standing = %v; want ErrNotOnBoard", err)
	}
	if fixes, err := c.Unfold(e.ctx, "kuis-99"); err != nil || fixes == nil || len(fixes) != 0 {
		t.Errorf("Unfold of a quiz never folded = %#v, %v; want an empty, non-nil slice", fixes, err)
	}

	nobody := e.finished(4, nil)
	if got, err := c.Fold(e.ctx, nobody); err != nil || got != (kuis.Fold{QuizID: nobody.QuizID, Instance: nobody.Instance}) {
		t.Errorf("Fold(nobody took it) = %+v, %v; want {%s %s 0 0 false}", got, err, nobody.QuizID, nobody.Instance)
	}
	if got, err := c.Fold(e.ctx, nobody); err != nil || got != (kuis.Fold{QuizID: nobody.QuizID, Instance: nobody.Instance, AlreadyFolded: true}) {
		t.Errorf("Fold(nobody took it) again = %+v, %v; want {%s %s 0 0 true}", got, err, nobody.QuizID, nobody.Instance)
	}
	recap, err = c.Recap(e.ctx)
	wantRecap := kuis.CourseRecap{CourseID: c.Keys().CourseID(), Standings: []kuis.Standing{},
		Quizzes: []kuis.CourseQuiz{{QuizID: nobody.QuizID, Instance: nobody.Instance, Questions: 4}}, Possible: 40, Entries: []kuis.CourseEntry{}}
	if diff := cmp.Diff(wantRecap, recap, cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt"),
		cmpopts.IgnoreFields(kuis.CourseQuiz{}, "FoldedAt")); err != nil || diff != "" {
		t.Errorf("Recap: %v (-want +got):\n%s", err, diff)
	}
	wantFolded(t, e, c, nobody)

	// A participant who took a quiz and scored 0 is in the course with 0.
	zero := handRecap("kuis-nol", 2, "Budi", 0, "Ali", 10)
	if got, err := c.Fold(e.ctx, zero); err != nil || got.Participants != 2 || got.Points != 10 {
		t.Errorf("Fold(Budi 0, Ali 10) = %+v, %v; want 2 participants, 10 points", got, err)
	}
	if s, err := c.Standing(e.ctx, "Budi"); err != nil || s.Score != 0 {
		t.Errorf("Standing(Budi) = %+v, %v; want 0 points", s, err)
	}
	wantFolded(t, e, c, nobody, zero)
}

// TestCourseFoldRefusals: what Fold refuses before any I/O, and that a
// refusal writes nothing.
func TestCourseFoldRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(3)
	if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
		t.Fatal(err)
	}
	running := e.recap(id)
	good := handRecap("kuis-x", 3, "Ali", 30, "Budi", 10)
	change := func(f func(r *kuis.Recap)) kuis.Recap {
		r := handRecap("kuis-x", 3, "Ali", 30, "Budi", 10)
		f(&r)
		return r
	}
	tests := []struct {
		name string
		in   kuis.Recap
		want error
	}{
		{"a running quiz", running, kuis.ErrQuizRunning},
		{"no status", change(func(r *kuis.Recap) { r.Info.Status = "" }), kuis.ErrQuizRunning},
		{"no quiz ID", change(func(r *kuis.Recap) { r.QuizID = "" }), kuis.ErrInvalidQuizID},
		{"a quiz ID with ':'", change(func(r *kuis.Recap) { r.QuizID = "kuis:01" }), kuis.ErrInvalidQuizID},
		{"no questions", change(func(r *kuis.Recap) { r.Info.Questions = 0 }), kuis.ErrCorrupt},
		{"a score of 15", change(func(r *kuis.Recap) { r.Standings[1].Score = 15 }), kuis.ErrCorrupt},
		{"a negative score", change(func(r *kuis.Recap) { r.Standings[1].Score = -10 }), kuis.ErrCorrupt},
		{"a score past 2^53 - 2", change(func(r *kuis.Recap) { r.Standings[1].Score = 9007199254741000 }), kuis.ErrCorrupt},
		{"a score above the questions'", change(func(r *kuis.Recap) { r.Standings[1].Score = 40 }), kuis.ErrCorrupt},
		{"an instance that is no entry ID", change(func(r *kuis.Recap) { r.Instance = "kemarin" }), kuis.ErrCorrupt},
		{"a participant twice", change(func(r *kuis.Recap) { r.Standings[1].Participant = "Ali" }), kuis.ErrCorrupt},
		{"a name that is not UTF-8", change(func(r *kuis.Recap) { r.Standings[1].Participant = "B\xffudi" }), kuis.ErrCorrupt},
		{"an empty name", change(func(r *kuis.Recap) { r.Standings[1].Participant = "" }), kuis.ErrCorrupt},
	}
	c := e.course(courseID())
	rec := newRecorder(e.client)
	rc := courseOn(t, e.storeOn(rec), c.Keys().CourseID())
	for _, tt := range tests {
		rec.start()
		got, err := rc.Fold(e.ctx, tt.in)
		if sent := rec.stop(); !errors.Is(err, tt.want) || got != (kuis.Fold{}) || len(sent) != 0 {
			t.Errorf("%s: Fold = %+v, %v, sent %v; want %v before any I/O", tt.name, got, err, sent, tt.want)
		}
	}
	if got, err := c.Fold(e.ctx, good); err != nil || got.Participants != 2 {
		t.Errorf("Fold(good) = %+v, %v", got, err)
	}
	// A total that a fold would raise past 2^53 - 2 is refused, with nothing written.
	e.mustRaw("ZADD", c.Keys().Board(), "9007199254740980", "Eka")
	raising := handRecap("kuis-y", 3, "Ali", 10, "Eka", 20)
	before := e.courseDump(c, raising)
	if _, err := c.Fold(e.ctx, raising); !errors.Is(err, kuis.ErrCorrupt) {
		t.Errorf("Fold raising a total past 2^53 - 2 = %v; want ErrCorrupt", err)
	}
	if diff := cmp.Diff(before, e.courseDump(c, raising)); diff != "" {
		t.Errorf("a refused fold changed the course (-before +after):\n%s", diff)
	}
}

// partHook is a client that runs after, once per fold part, right after a
// part of course.lua returned, with the part's number (1, 2, ...); when
// cut > 0, it fails the part after the cut-th, not sending it, as a lost
// connection would.
type partHook struct {
	rueidis.Client
	cut   int
	after func(part int)
	mu    *sync.Mutex
	parts *int
}

var errCut = errors.New("the test cut the fold here")

// courseMode is the mode of a course.lua run ("fold", "unfold"), or "".
func courseMode(cmd rueidis.Completed) string {
	args := cmd.Commands()
	if len(args) < 8 || (args[0] != "EVALSHA" && args[0] != "EVAL") || args[2] != "3" || !strings.Contains(args[3], ":kursus:") {
		return ""
	}
	return args[6]
}

func (c partHook) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	if courseMode(cmd) != "fold" { // read before Do: rueidis recycles cmd once sent
		return c.Client.Do(ctx, cmd)
	}
	c.mu.Lock()
	n := *c.parts + 1
	c.mu.Unlock()
	if c.cut > 0 && n > c.cut {
		return rueidis.NewErrorResult(errCut)
	}
	res := c.Client.Do(ctx, cmd)
	if re, ok := rueidis.IsRedisErr(res.Error()); ok && re.IsNoScript() {
		return res // not run: the library sends it again by its source
	}
	c.mu.Lock()
	*c.parts++
	n = *c.parts
	c.mu.Unlock()
	if c.after != nil {
		c.after(n)
	}
	return res
}

// TestCourseFoldInParts: a quiz of 25 participants folds in parts of 10,
// three scripts; the quiz is listed by Quizzes, and its marker written,
// only once the third is in, while each part's participants show on the
// board as soon as their part is.
func TestCourseFoldInParts(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{FoldStep: 10})
	rc, total := classRecap("kuis-besar", 25)
	c := e.course(courseID())
	var parts int
	listed := map[int][]kuis.CourseQuiz{}
	onBoard := map[int]int64{}
	hook := partHook{Client: e.client, mu: &sync.Mutex{}, parts: &parts, after: func(part int) {
		listed[part], _ = c.Quizzes(e.ctx)
		onBoard[part], _ = c.Len(e.ctx)
	}}
	got, err := courseOn(t, e.storeOn(hook), c.Keys().CourseID()).Fold(e.ctx, rc)
	if err != nil || got != (kuis.Fold{QuizID: "kuis-besar", Instance: kuis.NoInstance, Participants: 25, Points: total}) {
		t.Fatalf("Fold = %+v, %v; want 25 participants, %d points", got, err, total)
	}
	done := []kuis.CourseQuiz{{QuizID: "kuis-besar", Instance: kuis.NoInstance, Questions: 7, Participants: 25, Points: total}}
	want := map[int][]kuis.CourseQuiz{1: {}, 2: {}, 3: done}
	if diff := cmp.Diff(want, listed, cmpopts.IgnoreFields(kuis.CourseQuiz{}, "FoldedAt")); parts != 3 || diff != "" {
		t.Errorf("%d parts; Quizzes after each (-want +got):\n%s", parts, diff)
	}
	if diff := cmp.Diff(map[int]int64{1: 10, 2: 20, 3: 25}, onBoard); diff != "" {
		t.Errorf("participants on the board after each part (-want +got):\n%s", diff)
	}
	wantFolded(t, e, c, rc)
}

// TestCourseFoldInterruptedAndRetried: a fold cut after its first part (of
// 3 participants) leaves those three folded and the instance in parts:
// Quizzes does not list it and Audit says its fold stopped midway. Folded again, it
// adds exactly the seven missing, whether retried by one call or by eight
// at once; a fold cut again midway and retried is the same.
func TestCourseFoldInterruptedAndRetried(t *testing.T) {
	t.Parallel()
	for _, retries := range []int{1, 8} {
		t.Run(fmt.Sprintf("%d retries", retries), func(t *testing.T) {
			e := newTunedEnv(t, kuis.Tuning{FoldStep: 3})
			rc, total := classRecap("kuis-putus", 10)
			c := e.course(courseID())
			cut := func(after int) *kuis.Course {
				return courseOn(t, e.storeOn(partHook{Client: e.client, cut: after, mu: &sync.Mutex{}, parts: new(int)}), c.Keys().CourseID())
			}
			got, err := cut(1).Fold(e.ctx, rc)
			if !errors.Is(err, errCut) || got != (kuis.Fold{QuizID: "kuis-putus", Instance: kuis.NoInstance, Participants: 3, Points: 60}) {
				t.Fatalf("cut Fold = %+v, %v; want the first part's 3 participants, 60 points, and the cut", got, err)
			}
			if q, err := c.Quizzes(e.ctx); err != nil || len(q) != 0 {
				t.Errorf("Quizzes of a fold cut midway = %v, %v; want none", q, err)
			}
			wantAudit := []kuis.Violation{{Key: c.Keys().Quizzes(), Rule: "unfinished",
				Detail: `instance "kuis-putus@0-0" is folded in parts: fold its recap again, or unfold the instance`}}
			if v, err := c.Audit(e.ctx); err != nil || !cmp.Equal(wantAudit, v) {
				t.Errorf("Audit of a fold cut midway = %v, %v; want %v", v, err, wantAudit)
			}
			// A second cut, one part further in, then the retries.
			again, err := cut(2).Fold(e.ctx, rc)
			if !errors.Is(err, errCut) || again != (kuis.Fold{QuizID: "kuis-putus", Instance: kuis.NoInstance, Participants: 3, Points: 150}) {
				t.Fatalf("Fold cut again = %+v, %v; want the second part's 3 participants, 150 points, and the cut", again, err)
			}
			results := make([]kuis.Fold, retries)
			errs := make([]error, retries)
			var wg sync.WaitGroup
			for i := range retries {
				wg.Go(func() { results[i], errs[i] = c.Fold(e.ctx, rc) })
			}
			wg.Wait()
			var added kuis.Fold
			for i := range retries {
				if errs[i] != nil {
					t.Fatalf("retry %d: %v", i, errs[i])
				}
				added.Participants += results[i].Participants
				added.Points += results[i].Points
			}
			if added.Participants != 4 || added.Points != total-60-150 {
				t.Errorf("the retries added %d participants, %d points; want the 4 missing, %d points", added.Participants, added.Points, total-210)
			}
			wantFolded(t, e, c, rc)
		})
	}
}

// TestCourseFoldConcurrent: 64 goroutines fold the same quiz of 50
// participants, in parts of 7, at once, and each of 8 quizzes twice more,
// all into one course: each (quiz, participant) counts exactly once, and the
// calls' own counts add up to what was folded.
func TestCourseFoldConcurrent(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{FoldStep: 7})
	c := e.course(courseID())
	same, total := classRecap("kuis-sama", 50)
	var others []kuis.Recap
	for i := range 8 {
		rc, _ := classRecap(fmt.Sprintf("kuis-lain-%d", i), 10+i)
		others = append(others, rc)
	}
	var calls []kuis.Recap
	for range 64 {
		calls = append(calls, same)
	}
	for _, rc := range others {
		calls = append(calls, rc, rc)
	}
	results := make([]kuis.Fold, len(calls))
	errs := make([]error, len(calls))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, rc := range calls {
		wg.Go(func() {
			<-start
			results[i], errs[i] = c.Fold(e.ctx, rc)
		})
	}
	close(start)
	wg.Wait()
	added := map[string]kuis.Fold{}
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("Fold(%s): %v", calls[i].QuizID, errs[i])
		}
		a := added[r.QuizID]
		a.Participants += r.Participants
		a.Points += r.Points
		added[r.QuizID] = a
	}
	if a := added["kuis-sama"]; a.Participants != 50 || a.Points != total {
		t.Errorf("the 64 folds of one quiz added %d participants, %d points in all; want 50, %d", a.Participants, a.Points, total)
	}
	wantFolded(t, e, c, append(others, same)...)
}

// TestCourseConflict: a quiz folded, then repaired (its board had been
// tampered with before the fold), is a *ConflictError naming the
// participant, with nothing written, whether a participant's points changed
// or one was removed; so is any other recap while a fold of the instance is
// only part way in (ConflictRecap), another question count, or a
// participant more. UnfoldInstance, then Fold, takes the new recap.
func TestCourseConflict(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{FoldStep: 2})
	for _, tamper := range []struct {
		name string
		raw  []string
		want kuis.ConflictError // without Course, Quiz, Instance
	}{
		{"points changed", []string{"ZINCRBY", "10", "Dewi"},
			kuis.ConflictError{Reason: kuis.ConflictPoints, Participant: "Dewi", Held: "20", Given: "10"}},
		{"a participant removed", []string{"ZADD", "10", "Eka"},
			kuis.ConflictError{Reason: kuis.ConflictParticipants, Participant: "Eka", Held: "10"}},
	} {
		id, _, _ := e.reference()
		e.mustRaw(tamper.raw[0], e.keys(id).Board(), tamper.raw[1:]...)
		e.finish(id)
		c := e.course(courseID())
		tampered := e.recap(id)
		if _, err := c.Fold(e.ctx, tampered); err != nil {
			t.Fatalf("%s: Fold: %v", tamper.name, err)
		}
		if fixes, err := e.store.Repair(e.ctx, id); err != nil || len(fixes) != 1 {
			t.Fatalf("%s: Repair of the quiz = %v, %v; want one correction", tamper.name, fixes, err)
		}
		repaired := e.recap(id)
		before := e.courseDump(c)
		got, err := c.Fold(e.ctx, repaired)
		want := tamper.want
		want.Course, want.Quiz, want.Instance = c.Keys().CourseID(), id, repaired.Instance
		if ce := conflictOf(err); !errors.Is(err, kuis.ErrConflict) || ce == nil || got != (kuis.Fold{}) {
			t.Errorf("%s: Fold of the repaired quiz = %+v, %v; want a *ConflictError", tamper.name, got, err)
		} else if diff := cmp.Diff(&want, ce); diff != "" {
			t.Errorf("%s: conflict (-want +got):\n%s", tamper.name, diff)
		}
		if diff := cmp.Diff(before, e.courseDump(c)); diff != "" {
			t.Errorf("%s: a conflicting fold changed the course (-before +after):\n%s", tamper.name, diff)
		}
		if _, err := c.UnfoldInstance(e.ctx, id, repaired.Instance); err != nil {
			t.Fatalf("%s: UnfoldInstance: %v", tamper.name, err)
		}
		if got, err := c.Fold(e.ctx, repaired); err != nil || got.Participants != 4 || got.Points != 90 {
			t.Errorf("%s: Fold after UnfoldInstance = %+v, %v; want 4 participants, 90 points", tamper.name, got, err)
		}
		wantFolded(t, e, c, repaired)
	}

	// Part way in: the first part (Ali 30, Budi 20) is folded when another recap comes.
	c := e.course(courseID())
	first := handRecap("kuis-z", 3, "Ali", 30, "Budi", 20, "Citra", 30)
	cut := courseOn(t, e.storeOn(partHook{Client: e.client, cut: 1, mu: &sync.Mutex{}, parts: new(int)}), c.Keys().CourseID())
	if _, err := cut.Fold(e.ctx, first); !errors.Is(err, errCut) {
		t.Fatalf("cut Fold: %v", err)
	}
	before := e.courseDump(c)
	for _, rc := range []kuis.Recap{
		handRecap("kuis-z", 3, "Ali", 20, "Budi", 20, "Citra", 30), // other points
		handRecap("kuis-z", 3, "Ali", 30, "Citra", 30),             // Budi removed
		handRecap("kuis-z", 3, "Dewi", 30),                         // another class
	} {
		if ce := conflictOf(errOf(c.Fold(e.ctx, rc))); ce == nil || ce.Reason != kuis.ConflictRecap {
			t.Errorf("Fold of %v over a part-folded instance = %v; want ConflictRecap", rc.Standings, ce)
		}
	}
	if diff := cmp.Diff(before, e.courseDump(c)); diff != "" {
		t.Errorf("conflicting folds changed the course (-before +after):\n%s", diff)
	}
	if _, err := c.Fold(e.ctx, first); err != nil {
		t.Fatal(err)
	}
	// Once folded: another question count, a participant more.
	for _, tc := range []struct {
		rc   kuis.Recap
		want kuis.ConflictError
	}{
		{handRecap("kuis-z", 4, "Ali", 30, "Budi", 20, "Citra", 30), kuis.ConflictError{Reason: kuis.ConflictQuestions, Held: "30", Given: "40"}},
		{handRecap("kuis-z", 3, "Ali", 30, "Budi", 20, "Citra", 30, "Dewi", 10),
			kuis.ConflictError{Reason: kuis.ConflictParticipants, Participant: "Dewi", Given: "10"}},
	} {
		tc.want.Course, tc.want.Quiz, tc.want.Instance = c.Keys().CourseID(), "kuis-z", kuis.NoInstance
		if diff := cmp.Diff(&tc.want, conflictOf(errOf(c.Fold(e.ctx, tc.rc)))); diff != "" {
			t.Errorf("Fold of %v: conflict (-want +got):\n%s", tc.rc.Standings, diff)
		}
	}
	wantFolded(t, e, c, first)
}

// TestCourseUnfold: Unfold takes one quiz's points out, in parts; a
// participant left without points leaves the board, unless another quiz
// gave them 0 points; the other quizzes stay.
func TestCourseUnfold(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{FoldStep: 2})
	c := e.course(courseID())
	a := handRecap("kuis-a", 3, "Ali", 30, "Budi", 20, "Citra", 10)
	b := handRecap("kuis-b", 2, "Ali", 20, "Dewi", 10)
	zero := handRecap("kuis-c", 1, "Budi", 0)
	for _, rc := range []kuis.Recap{a, b, zero} {
		if _, err := c.Fold(e.ctx, rc); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Unfold(e.ctx, "kuis-a")
	want := []kuis.Correction{{"Ali", 50, 20}, {"Budi", 20, 0}, {"Citra", 10, 0}}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Unfold(kuis-a): %v (-want +got):\n%s", err, diff)
	}
	wantFolded(t, e, c, b, zero)
	if again, err := c.Unfold(e.ctx, "kuis-a"); err != nil || again == nil || len(again) != 0 {
		t.Errorf("Unfold(kuis-a) again = %#v, %v; want an empty, non-nil slice", again, err)
	}
	if again, err := c.UnfoldInstance(e.ctx, "kuis-a", kuis.NoInstance); err != nil || again == nil || len(again) != 0 {
		t.Errorf("UnfoldInstance(kuis-a) again = %#v, %v; want an empty, non-nil slice", again, err)
	}
	for _, bad := range [][2]string{{"kuis:a", kuis.NoInstance}, {"kuis-a", "kemarin"}, {"kuis-a", "1-"}} {
		if _, err := c.UnfoldInstance(e.ctx, bad[0], bad[1]); !errors.Is(err, kuis.ErrInvalidQuizID) {
			t.Errorf("UnfoldInstance(%q, %q) = %v; want ErrInvalidQuizID", bad[0], bad[1], err)
		}
	}
	if _, err := c.Unfold(e.ctx, "kuis:a"); !errors.Is(err, kuis.ErrInvalidQuizID) {
		t.Errorf("Unfold(kuis:a) = %v; want ErrInvalidQuizID", err)
	}
	// A quiz whose fold stopped midway unfolds too.
	cut := courseOn(t, e.storeOn(partHook{Client: e.client, cut: 1, mu: &sync.Mutex{}, parts: new(int)}), c.Keys().CourseID())
	if _, err := cut.Fold(e.ctx, a); !errors.Is(err, errCut) {
		t.Fatalf("cut Fold: %v", err)
	}
	if got, err := c.Unfold(e.ctx, "kuis-a"); err != nil || len(got) != 2 {
		t.Errorf("Unfold of a part-folded quiz = %v, %v; want Ali's and Budi's corrections", got, err)
	}
	wantFolded(t, e, c, b, zero)
	// A ledger value out of its form is refused, by the script, with nothing
	// written (Ada's part is the first).
	ledger := c.Keys().Ledger("kuis-b", kuis.NoInstance)
	for _, v := range []string{"9007199254741000", "15", "x"} {
		e.mustRaw("HSET", ledger, "Ada", v)
		before := e.courseDump(c)
		if _, err := c.Unfold(e.ctx, "kuis-b"); !errors.Is(err, kuis.ErrCorrupt) {
			t.Errorf("Unfold with a ledger value %q = %v; want ErrCorrupt", v, err)
		}
		if diff := cmp.Diff(before, e.courseDump(c)); diff != "" {
			t.Errorf("a refused Unfold changed the course (-before +after):\n%s", diff)
		}
	}
	// The largest value the format allows is taken, by the script as by Go.
	e.mustRaw("HSET", ledger, "Ada", "9007199254740990")
	e.mustRaw("ZADD", c.Keys().Board(), "9007199254740990", "Ada")
	if got, err := c.Unfold(e.ctx, "kuis-b"); err != nil || len(got) != 3 || got[0] != (kuis.Correction{"Ada", 9007199254740990, 0}) {
		t.Errorf("Unfold(kuis-b) = %v, %v; want Ada's 9007199254740990 points out", got, err)
	}
	wantFolded(t, e, c, zero)
}

// TestCourseAuditAndRepair tampers with a course of two quizzes behind the
// library's back and expects exactly these violations, then Repair's
// corrections where the totals can be set back from a sound ledger, and
// ErrCorrupt with nothing changed where the ledger itself is wrong.
func TestCourseAuditAndRepair(t *testing.T) {
	t.Parallel()
	const ttl = "expires in N ms; the contract allows no TTL"
	a, b := "kuis-a@0-0", "kuis-b@0-0"
	tests := []struct {
		name   string
		setup  func(e *env, k kuis.CourseKeys)
		want   [][3]string // key ("b", "i", "a", "b": board, index, ledgers of kuis-a and kuis-b), rule, detail
		repair []kuis.Correction
		fixed  bool // Audit finds nothing after Repair
	}{
		{"a total raised", func(e *env, k kuis.CourseKeys) { e.mustRaw("ZINCRBY", k.Board(), "10", "Dewi") },
			[][3]string{{"b", "total", `member "Dewi" has 20 points, and the ledger gives 10`}}, []kuis.Correction{{"Dewi", 20, 10}}, true},
		{"a total removed", func(e *env, k kuis.CourseKeys) { e.mustRaw("ZREM", k.Board(), "Ali") },
			[][3]string{{"b", "total", `participant "Ali" is not on the board, and the ledger gives 50 points`}}, []kuis.Correction{{"Ali", 0, 50}}, true},
		{"the board deleted", func(e *env, k kuis.CourseKeys) { e.mustRaw("DEL", k.Board()) },
			[][3]string{{"b", "total", `participant "Ali" is not on the board, and the ledger gives 50 points`},
				{"b", "total", `participant "Budi" is not on the board, and the ledger gives 20 points`},
				{"b", "total", `participant "Citra" is not on the board, and the ledger gives 0 points`},
				{"b", "total", `participant "Dewi" is not on the board, and the ledger gives 10 points`}},
			[]kuis.Correction{{"Ali", 0, 50}, {"Budi", 0, 20}, {"Citra", 0, 0}, {"Dewi", 0, 10}}, true},
		{"strangers on the board", func(e *env, k kuis.CourseKeys) { e.mustRaw("ZADD", k.Board(), "0", "Eka", "10", "Fajar") },
			[][3]string{{"b", "total", `member "Eka" has 0 points, and the ledger gives none`},
				{"b", "total", `member "Fajar" has 10 points, and the ledger gives none`}},
			[]kuis.Correction{{"Eka", 0, 0}, {"Fajar", 10, 0}}, true},
		{"an unsound total", func(e *env, k kuis.CourseKeys) { e.mustRaw("ZADD", k.Board(), "15", "Dewi", "-10", "Eka\n") },
			[][3]string{{"b", "score", `member "Dewi" has score 15, want a non-negative multiple of 10`},
				{"b", "member", `participant "Eka\n" has white space around it (CleanParticipant trims it)`},
				{"b", "score", `member "Eka\n" has score -10, want a non-negative multiple of 10`},
				{"b", "total", `member "Dewi" has 15 points, and the ledger gives 10`},
				{"b", "total", `member "Eka\n" has -10 points, and the ledger gives none`}},
			[]kuis.Correction{{"Dewi", 15, 10}, {"Eka\n", -10, 0}}, true},
		{"TTLs", func(e *env, k kuis.CourseKeys) {
			for _, key := range []string{k.Board(), k.Quizzes(), k.Ledger("kuis-a", kuis.NoInstance)} {
				e.mustRaw("PEXPIRE", key, "600000")
			}
		}, [][3]string{{"b", "ttl", ttl}, {"i", "ttl", ttl}, {"a", "ttl", ttl}}, []kuis.Correction{}, false},
		{"the index deleted", func(e *env, k kuis.CourseKeys) { e.mustRaw("DEL", k.Quizzes()) },
			[][3]string{{"i", "ledger", "is missing, and the board holds 4 participants"}}, nil, false},
		{"a ledger deleted", func(e *env, k kuis.CourseKeys) { e.mustRaw("DEL", k.Ledger("kuis-b", kuis.NoInstance)) },
			[][3]string{{"b", "ledger", `is missing, and the marker of "kuis-b@0-0" says 2 participants`},
				{"b", "total", `member "Ali" has 50 points, and the ledger gives 30`},
				{"b", "total", `member "Citra" has 0 points, and the ledger gives none`}}, nil, false},
		{"impossible entries", func(e *env, k kuis.CourseKeys) {
			e.mustRaw("HSET", k.Ledger("kuis-a", kuis.NoInstance), "Budi", "40", "Dewi", "15")
		}, [][3]string{{"a", "entry", `participant "Budi" holds "40", want a multiple of 10 of at most 30`},
			{"a", "entry", `participant "Dewi" holds "15", want a multiple of 10 of at most 30`},
			{"i", "marker", `instance "kuis-a@0-0" is marked with 3 participants and 60 points, and its ledger holds 3 and 30`},
			{"b", "total", `member "Budi" has 20 points, and the ledger gives none`},
			{"b", "total", `member "Dewi" has 10 points, and the ledger gives none`}}, nil, false},
		{"an entry more", func(e *env, k kuis.CourseKeys) { e.mustRaw("HSET", k.Ledger("kuis-a", kuis.NoInstance), "Eka", "10") },
			[][3]string{{"i", "marker", `instance "kuis-a@0-0" is marked with 3 participants and 60 points, and its ledger holds 4 and 70`},
				{"b", "total", `participant "Eka" is not on the board, and the ledger gives 10 points`}}, nil, false},
		{"an entry's points changed", func(e *env, k kuis.CourseKeys) { e.mustRaw("HSET", k.Ledger("kuis-a", kuis.NoInstance), "Dewi", "20") },
			[][3]string{{"i", "marker", `instance "kuis-a@0-0" is marked with 3 participants and 60 points, and its ledger holds 3 and 70`},
				{"b", "total", `member "Dewi" has 10 points, and the ledger gives 20`}}, nil, false},
		{"a fold in parts", func(e *env, k kuis.CourseKeys) {
			m, _ := e.mustRaw("HGET", k.Quizzes(), b).ToString()
			f := strings.Fields(m)
			e.mustRaw("HSET", k.Quizzes(), b, strings.Join(append(f[:4], "0"), " "))
		}, [][3]string{{"i", "unfinished", `instance "kuis-b@0-0" is folded in parts: fold its recap again, or unfold the instance`}}, nil, false},
		{"index fields out of form", func(e *env, k kuis.CourseKeys) {
			e.mustRaw("HSET", k.Quizzes(), "tanpa-at", "x", "kuis*@0-0", "x", "kuis-c@kemarin", "x", "kuis-c@1-0", "rusak")
		}, [][3]string{
			{"i", "field", `field "kuis*@0-0" is not <quiz>@<instance>`},
			{"i", "marker", `field "kuis-c@1-0" holds "rusak", not a marker`},
			{"i", "field", `field "kuis-c@kemarin" is not <quiz>@<instance>`},
			{"i", "field", `field "tanpa-at" is not <quiz>@<instance>`},
		}, nil, false},
		{"a board of the wrong type", func(e *env, k kuis.CourseKeys) {
			e.mustRaw("DEL", k.Board())
			e.mustRaw("SET", k.Board(), "papan")
		}, [][3]string{{"b", "type", "is a string, want a zset"}}, nil, false},
		{"an index of the wrong type", func(e *env, k kuis.CourseKeys) {
			e.mustRaw("DEL", k.Quizzes())
			e.mustRaw("RPUSH", k.Quizzes(), a)
		}, [][3]string{{"i", "type", "is a list, want a hash"}}, nil, false},
		{"a ledger of the wrong type", func(e *env, k kuis.CourseKeys) {
			e.mustRaw("DEL", k.Ledger("kuis-b", kuis.NoInstance))
			e.mustRaw("RPUSH", k.Ledger("kuis-b", kuis.NoInstance), "Ali")
		}, [][3]string{{"b", "type", "is a list, want a hash"},
			{"b", "total", `member "Ali" has 50 points, and the ledger gives 30`},
			{"b", "total", `member "Citra" has 0 points, and the ledger gives none`}}, nil, false},
	}
	e := newEnv(t)
	for _, tt := range tests {
		c := e.course(courseID())
		for _, rc := range []kuis.Recap{handRecap("kuis-a", 3, "Ali", 30, "Budi", 20, "Dewi", 10), handRecap("kuis-b", 2, "Ali", 20, "Citra", 0)} {
			if _, err := c.Fold(e.ctx, rc); err != nil {
				t.Fatal(err)
			}
		}
		k := c.Keys()
		tt.setup(e, k)
		got, err := c.Audit(e.ctx)
		if err != nil {
			t.Fatalf("%s: Audit: %v", tt.name, err)
		}
		// "b" names the board in a board's rule, kuis-b's ledger in a ledger's.
		names := map[string]string{"b": k.Board(), "i": k.Quizzes(), "a": k.Ledger("kuis-a", kuis.NoInstance)}
		want := []kuis.Violation{}
		for _, w := range tt.want {
			key := names[w[0]]
			if w[0] == "b" && (w[1] == "ledger" || w[1] == "type" && strings.Contains(w[2], "hash")) {
				key = k.Ledger("kuis-b", kuis.NoInstance)
			}
			want = append(want, kuis.Violation{Key: key, Rule: w[1], Detail: w[2]})
		}
		for i := range got {
			if strings.HasPrefix(got[i].Detail, "expires in ") {
				got[i].Detail = ttl
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Audit (-want +got):\n%s", tt.name, diff)
		}
		before := e.courseDump(c)
		fixes, err := c.Repair(e.ctx)
		if tt.repair == nil {
			if !errors.Is(err, kuis.ErrCorrupt) {
				t.Errorf("%s: Repair = %v, %v; want ErrCorrupt", tt.name, fixes, err)
			}
			if diff := cmp.Diff(before, e.courseDump(c)); diff != "" {
				t.Errorf("%s: a refused Repair changed the course (-before +after):\n%s", tt.name, diff)
			}
			continue
		}
		if diff := cmp.Diff(tt.repair, fixes); err != nil || diff != "" {
			t.Errorf("%s: Repair: %v (-want +got):\n%s", tt.name, err, diff)
		}
		if tt.fixed {
			wantClean(t, e, c)
		}
	}
}

// TestCourseRepairWhileFolding: a quiz folded while Repair reads the course
// (after its first page of the ledger) makes Repair read again, so that it
// never sets a total from a ledger read before the fold.
func TestCourseRepairWhileFolding(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{PageSize: 2})
	c := e.course(courseID())
	a := handRecap("kuis-a", 3, "Ali", 30, "Budi", 20, "Citra", 10)
	b := handRecap("kuis-b", 2, "Ali", 20, "Dewi", 10)
	if _, err := c.Fold(e.ctx, a); err != nil {
		t.Fatal(err)
	}
	e.mustRaw("ZINCRBY", c.Keys().Board(), "10", "Citra")
	folded := 0
	hooked := dedicatedHook{Client: e.client, cmd: "HSCAN", after: func() {
		folded++
		if folded == 1 {
			if _, err := c.Fold(e.ctx, b); err != nil {
				t.Errorf("Fold during Repair: %v", err)
			}
		}
	}}
	got, err := courseOn(t, e.storeOn(hooked), c.Keys().CourseID()).Repair(e.ctx)
	if diff := cmp.Diff([]kuis.Correction{{"Citra", 20, 10}}, got); err != nil || diff != "" {
		t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
	}
	wantFolded(t, e, c, a, b)
}

// dedicatedHook runs after right after each command named cmd that returns
// on a dedicated connection.
type dedicatedHook struct {
	rueidis.Client
	cmd   string
	after func()
}

func (h dedicatedHook) Dedicated(fn func(rueidis.DedicatedClient) error) error {
	return h.Client.Dedicated(func(d rueidis.DedicatedClient) error { return fn(hookedConn{DedicatedClient: d, h: h}) })
}

type hookedConn struct {
	rueidis.DedicatedClient
	h dedicatedHook
}

func (c hookedConn) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	name := cmd.Commands()[0] // rueidis recycles cmd once sent
	res := c.DedicatedClient.Do(ctx, cmd)
	if strings.EqualFold(name, c.h.cmd) {
		c.h.after()
	}
	return res
}

// TestCourseRecapAndPurge: the recap holds the standings, the folded quizzes,
// the points possible and the ledger; its CSV has a column per quiz; Purge
// archives it, then deletes both keys, and deletes nothing when archive
// fails, when archive is nil, or when the course changes while archived.
func TestCourseRecapAndPurge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.course(courseID())
	a := handRecap("kuis-a", 3, "Ali", 30, "Budi", 20, "Citra", 10)
	b := handRecap("kuis-b", 2, "Ali", 20, "Dewi", 10)
	for _, rc := range []kuis.Recap{a, b} {
		if _, err := c.Fold(e.ctx, rc); err != nil {
			t.Fatal(err)
		}
	}
	want := kuis.CourseRecap{
		CourseID:  c.Keys().CourseID(),
		Standings: []kuis.Standing{{1, 1, "Ali", 50}, {2, 2, "Budi", 20}, {3, 3, "Dewi", 10}, {4, 3, "Citra", 10}},
		Quizzes: []kuis.CourseQuiz{{QuizID: "kuis-a", Instance: kuis.NoInstance, Questions: 3, Participants: 3, Points: 60},
			{QuizID: "kuis-b", Instance: kuis.NoInstance, Questions: 2, Participants: 2, Points: 30}},
		Possible: 50,
		Entries: []kuis.CourseEntry{{"kuis-a", kuis.NoInstance, "Ali", 30}, {"kuis-a", kuis.NoInstance, "Budi", 20},
			{"kuis-a", kuis.NoInstance, "Citra", 10}, {"kuis-b", kuis.NoInstance, "Ali", 20}, {"kuis-b", kuis.NoInstance, "Dewi", 10}},
	}
	noTimes := cmp.Options{cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt"), cmpopts.IgnoreFields(kuis.CourseQuiz{}, "FoldedAt")}
	got, err := c.Recap(e.ctx)
	if diff := cmp.Diff(want, got, noTimes); err != nil || diff != "" || got.TakenAt.IsZero() {
		t.Errorf("Recap: %v, TakenAt %v (-want +got):\n%s", err, got.TakenAt, diff)
	}
	var buf bytes.Buffer
	if err := got.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	wantRows := [][]string{{"rank", "competition_rank", "participant", "score", "kuis-a", "kuis-b"},
		{"1", "1", "Ali", "50", "30", "20"}, {"2", "2", "Budi", "20", "20", "0"}, {"3", "3", "Dewi", "10", "0", "10"},
		{"4", "3", "Citra", "10", "10", "0"}}
	if diff := cmp.Diff(wantRows, rows); err != nil || diff != "" {
		t.Errorf("WriteCSV: %v (-want +got):\n%s", err, diff)
	}
	data, err := json.Marshal(got)
	var back kuis.CourseRecap
	if err == nil {
		err = json.Unmarshal(data, &back)
	}
	if diff := cmp.Diff(got, back); err != nil || diff != "" {
		t.Errorf("JSON round trip: %v (-want +got):\n%s", err, diff)
	}

	before := e.courseDump(c)
	if n, err := c.Purge(e.ctx, nil); !errors.Is(err, kuis.ErrNoArchive) || n != 0 {
		t.Errorf("Purge(nil) = %d, %v; want ErrNoArchive", n, err)
	}
	full := errors.New("disk full")
	if n, err := c.Purge(e.ctx, func(context.Context, kuis.CourseRecap) error { return full }); !errors.Is(err, full) || n != 0 {
		t.Errorf("Purge with a failing archive = %d, %v; want its error", n, err)
	}
	late := handRecap("kuis-c", 1, "Eka", 10)
	n, err := c.Purge(e.ctx, func(context.Context, kuis.CourseRecap) error {
		_, err := c.Fold(e.ctx, late) // folded after the recap: the archive would miss it
		return err
	})
	if !errors.Is(err, kuis.ErrBusy) || n != 0 {
		t.Errorf("Purge while a quiz is folded = %d, %v; want ErrBusy", n, err)
	}
	if _, err := c.Unfold(e.ctx, "kuis-c"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, e.courseDump(c)); diff != "" {
		t.Errorf("refused purges changed the course (-before +after):\n%s", diff)
	}
	var archived kuis.CourseRecap
	keys := e.courseKeys(c)
	n, err = c.Purge(e.ctx, func(_ context.Context, r kuis.CourseRecap) error { archived = r; return nil })
	if diff := cmp.Diff(want, archived, noTimes); err != nil || n != 4 || diff != "" {
		t.Errorf("Purge = %d, %v; want 4; archived (-want +got):\n%s", n, err, diff)
	}
	if diff := cmp.Diff(gone(keys...), e.dump(keys...)); diff != "" {
		t.Errorf("after Purge (-want +got):\n%s", diff)
	}
	called := false
	if n, err := c.Purge(e.ctx, func(context.Context, kuis.CourseRecap) error { called = true; return nil }); err != nil || n != 0 || !called {
		t.Errorf("Purge of an empty course = %d, %v, archive called %v; want 0, nil, true", n, err, called)
	}
	// A ledger out of its form is no recap: nothing to archive, nothing deleted.
	fold(t, e, c, a)
	e.mustRaw("HSET", c.Keys().Ledger("kuis-a", kuis.NoInstance), "Ali", "031")
	if _, err := c.Recap(e.ctx); !errors.Is(err, kuis.ErrCorrupt) {
		t.Errorf("Recap of a ledger out of its form = %v; want ErrCorrupt", err)
	}
	if n, err := c.Purge(e.ctx, func(context.Context, kuis.CourseRecap) error { t.Error("archive called"); return nil }); !errors.Is(err, kuis.ErrCorrupt) || n != 0 {
		t.Errorf("Purge of a ledger out of its form = %d, %v; want ErrCorrupt", n, err)
	}
}

// TestCourseArchivePurgesQuizzes: PurgeQuiz with Course.Archive folds each
// quiz before its keys go, then calls the next archive; when that fails the
// quiz stays, and a retry folds nothing twice and deletes it. The course
// stays exact once every quiz is purged, and Store.Purge deletes it too.
func TestCourseArchivePurgesQuizzes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.course(courseID())
	ref := e.finishedReference()
	second := e.finished(2, map[string]int{"Ali": 2, "Eka": 1})
	var archived []string
	next := func(_ context.Context, r kuis.Recap) error { archived = append(archived, r.QuizID); return nil }
	fail := errors.New("archive offline")
	if _, err := e.store.PurgeQuiz(e.ctx, ref.QuizID, c.Archive(func(context.Context, kuis.Recap) error { return fail })); !errors.Is(err, fail) {
		t.Fatalf("PurgeQuiz with a failing next = %v; want its error", err)
	}
	if !e.exists(e.keys(ref.QuizID).Meta()) {
		t.Fatal("the quiz was deleted although its archive failed")
	}
	for _, rc := range []kuis.Recap{ref, second} {
		if n, err := e.store.PurgeQuiz(e.ctx, rc.QuizID, c.Archive(next)); err != nil || n != 5 {
			t.Fatalf("PurgeQuiz(%s) = %d, %v; want 5 keys", rc.QuizID, n, err)
		}
	}
	if _, err := e.store.PurgeQuiz(e.ctx, quizID(), c.Archive(nil)); !errors.Is(err, kuis.ErrQuizNotFound) {
		t.Errorf("PurgeQuiz of no quiz = %v; want ErrQuizNotFound", err)
	}
	if diff := cmp.Diff([]string{ref.QuizID, second.QuizID}, archived); diff != "" {
		t.Errorf("next archived (-want +got):\n%s", diff)
	}
	wantFolded(t, e, c, ref, second)
	if ids, err := e.store.Quizzes(e.ctx); err != nil || len(ids) != 0 {
		t.Errorf("Quizzes after the purges = %v, %v; want none", ids, err)
	}
	keys := e.courseKeys(c)
	if n, err := e.store.Purge(e.ctx); err != nil || n != 4 {
		t.Errorf("Store.Purge = %d, %v; want the course's 4 keys", n, err)
	}
	if diff := cmp.Diff(gone(keys...), e.dump(keys...)); diff != "" {
		t.Errorf("after Store.Purge (-want +got):\n%s", diff)
	}
}

// TestCourseReadRefusals: bad arguments are refused before any I/O, and a
// course key of the wrong type is ErrCorrupt naming it.
func TestCourseReadRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.course(courseID())
	rec := newRecorder(e.client)
	rc := courseOn(t, e.storeOn(rec), c.Keys().CourseID())
	calls := []struct {
		name string
		call func() error
		want error
	}{
		{"Page(-1, 10)", func() error { _, err := rc.Page(e.ctx, -1, 10); return err }, kuis.ErrInvalidRange},
		{"Page(0, 0)", func() error { _, err := rc.Page(e.ctx, 0, 0); return err }, kuis.ErrInvalidRange},
		{"Page(0, 1001)", func() error { _, err := rc.Page(e.ctx, 0, 1001); return err }, kuis.ErrInvalidRange},
		{"Around(Ali, 501)", func() error { _, err := rc.Around(e.ctx, "Ali", 501); return err }, kuis.ErrInvalidRange},
		{"Around(\" Ali\", 1)", func() error { _, err := rc.Around(e.ctx, " Ali", 1); return err }, kuis.ErrInvalidParticipant},
		{"Standing(\"\")", func() error { _, err := rc.Standing(e.ctx, ""); return err }, kuis.ErrInvalidParticipant},
		{"Unfold(\"\")", func() error { _, err := rc.Unfold(e.ctx, ""); return err }, kuis.ErrInvalidQuizID},
	}
	for _, tc := range calls {
		rec.start()
		err := tc.call()
		if sent := rec.stop(); !errors.Is(err, tc.want) || len(sent) != 0 {
			t.Errorf("%s = %v, sent %v; want %v before any I/O", tc.name, err, sent, tc.want)
		}
	}
	e.mustRaw("SET", c.Keys().Board(), "papan")
	for name, call := range map[string]func() error{
		"Standings": func() error { _, err := c.Standings(e.ctx); return err },
		"Len":       func() error { _, err := c.Len(e.ctx); return err },
		"Standing":  func() error { _, err := c.Standing(e.ctx, "Ali"); return err },
		"Recap":     func() error { _, err := c.Recap(e.ctx); return err },
		"Fold":      func() error { _, err := c.Fold(e.ctx, handRecap("kuis-a", 1, "Ali", 10)); return err },
	} {
		if err := call(); !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(err.Error(), c.Keys().Board()) {
			t.Errorf("%s of a board that is a string = %v; want ErrCorrupt naming %s", name, err, c.Keys().Board())
		}
	}
}

// TestCourseFoldsAcrossSlots: on a cluster, the quiz and the course live in
// slots of their own, and the fold reads the quiz's recap only: the course
// is written on its node alone. Courses of one school stay apart.
func TestCourseFoldsAcrossSlots(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ref := e.finishedReference()
	courses := []*kuis.Course{e.course("ipa-8a"), e.course("ipa-8b"), e.course("ips-9c")}
	for _, c := range courses {
		if _, err := c.Fold(e.ctx, ref); err != nil {
			t.Fatalf("Fold into %s: %v", c.Keys().CourseID(), err)
		}
	}
	for _, c := range courses {
		wantFolded(t, e, c, ref)
	}
	if _, err := courses[0].Unfold(e.ctx, ref.QuizID); err != nil {
		t.Fatal(err)
	}
	wantFolded(t, e, courses[0])
	wantFolded(t, e, courses[1], ref)
}

// TestCourseClientCache: with WithClientCache, repeated course reads and
// team boards are served from the cache (on a real server: a quiet round of
// 50 calls sends at most a handful of commands), and a fold by another
// client is seen through the cache without waiting for its entries to
// expire.
func TestCourseClientCache(t *testing.T) {
	const calls, handful = 50, 5
	watched := []string{"zrange", "zrevrank", "zscore", "zcount", "zcard", "zmscore", "hlen"}
	e := newEnv(t)
	ref := e.finishedReference()
	c := e.course(courseID())
	if _, err := c.Fold(e.ctx, ref); err != nil {
		t.Fatal(err)
	}
	want := courseReadsOf(e.ctx, c, e.board(ref.QuizID))
	delete(want, "Quizzes") // HSCAN: never cached
	delete(want, "Recap")   // a snapshot: never cached
	client := e.client
	if redistest.Real() {
		client = redistest.Client(t) // the cache is the client's
	}
	cs := e.storeOn(client, cacheMinute)
	cc := courseOn(t, cs, c.Keys().CourseID())
	cb, _ := handles(t, cs, ref.QuizID)
	read := func() map[string]any {
		got := courseReadsOf(e.ctx, cc, cb)
		delete(got, "Quizzes")
		delete(got, "Recap")
		return got
	}
	if diff := cmp.Diff(want, read()); diff != "" {
		t.Fatalf("cached reads (-want +got):\n%s", diff)
	}
	if !redistest.Real() {
		t.Skip("miniredis keeps no commandstats and has no CLIENT TRACKING: only the answers were checked")
	}
	_, total := quietRound(t, e, watched, calls, handful, func() { read() }, false)
	if total > handful {
		t.Errorf("%d rounds of cached course reads sent %d commands, want at most %d", calls, total, handful)
	}
	second := handRecap("kuis-lagi", 1, "Dewi", 10)
	if _, err := c.Fold(e.ctx, second); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(signalWait); ; {
		s, err := cc.Standing(e.ctx, "Dewi")
		if err == nil && s.Score == 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a cached Standing did not see the fold within %v: %+v, %v", signalWait, s, err)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCourseInstances: a quiz ID created again after its purge is another
// quiz instance. Folded into one course, both count (Ali 20 + 10); Quizzes
// lists both, in start order; the recap's entries and the CSV's columns
// tell them apart; Unfold of the ID refuses, naming both; UnfoldInstance
// takes one out.
func TestCourseInstances(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.course(courseID())
	id := quizID()
	play := func(scores map[string]int) kuis.Recap {
		t.Helper()
		e.nextMillisecond() // a new instance starts in a later millisecond
		if err := e.meta(id).Create(e.ctx, "Kuis "+id, 2); err != nil {
			t.Fatal(err)
		}
		var in []kuis.AnswerInput
		for name, n := range scores {
			for q := 1; q <= n; q++ {
				in = append(in, kuis.AnswerInput{Participant: name, Question: q})
			}
		}
		if _, err := e.board(id).RecordAnswers(e.ctx, in); err != nil {
			t.Fatal(err)
		}
		e.finish(id)
		rc := e.recap(id)
		if _, err := e.store.PurgeQuiz(e.ctx, id, c.Archive(nil)); err != nil {
			t.Fatal(err)
		}
		return rc
	}
	first := play(map[string]int{"Ali": 2, "Budi": 1})
	second := play(map[string]int{"Ali": 1, "Eka": 1})
	if first.Instance == second.Instance {
		t.Fatalf("two quizzes under %s share instance %s", id, first.Instance)
	}
	wantFolded(t, e, c, first, second)
	if s, err := c.Standing(e.ctx, "Ali"); err != nil || s.Score != 30 {
		t.Errorf("Standing(Ali) = %+v, %v; want 30 points", s, err)
	}
	r, err := c.Recap(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantQuizzes := []kuis.CourseQuiz{{QuizID: id, Instance: first.Instance, Questions: 2, Participants: 2, Points: 30},
		{QuizID: id, Instance: second.Instance, Questions: 2, Participants: 2, Points: 20}}
	wantEntries := []kuis.CourseEntry{{id, first.Instance, "Ali", 20}, {id, first.Instance, "Budi", 10},
		{id, second.Instance, "Ali", 10}, {id, second.Instance, "Eka", 10}}
	noTimes := cmpopts.IgnoreFields(kuis.CourseQuiz{}, "FoldedAt")
	if diff := cmp.Diff(wantQuizzes, r.Quizzes, noTimes); diff != "" {
		t.Errorf("Recap.Quizzes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantEntries, r.Entries); diff != "" {
		t.Errorf("Recap.Entries (-want +got):\n%s", diff)
	}
	if r.Possible != 40 {
		t.Errorf("Recap.Possible = %d; want 40", r.Possible)
	}
	column := func(instance string) string {
		ms, _, _ := strings.Cut(instance, "-")
		n, _ := strconv.ParseInt(ms, 10, 64)
		return id + " " + time.UnixMilli(n).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	var buf bytes.Buffer
	if err := r.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	wantRows := [][]string{{"rank", "competition_rank", "participant", "score", column(first.Instance), column(second.Instance)},
		{"1", "1", "Ali", "30", "20", "10"}, {"2", "2", "Eka", "10", "0", "10"}, {"3", "2", "Budi", "10", "10", "0"}}
	if diff := cmp.Diff(wantRows, rows); err != nil || diff != "" {
		t.Errorf("WriteCSV: %v (-want +got):\n%s", err, diff)
	}

	before := e.courseDump(c)
	_, err = c.Unfold(e.ctx, id)
	want := &kuis.ConflictError{Course: c.Keys().CourseID(), Quiz: id, Reason: kuis.ConflictInstances,
		Instances: []string{first.Instance, second.Instance}}
	if diff := cmp.Diff(want, conflictOf(err)); !errors.Is(err, kuis.ErrConflict) || diff != "" {
		t.Errorf("Unfold of an ID in two instances = %v (-want +got):\n%s", err, diff)
	}
	if diff := cmp.Diff(before, e.courseDump(c)); diff != "" {
		t.Errorf("a refused Unfold changed the course (-before +after):\n%s", diff)
	}
	got, err := c.UnfoldInstance(e.ctx, id, first.Instance)
	if diff := cmp.Diff([]kuis.Correction{{"Ali", 30, 10}, {"Budi", 10, 0}}, got); err != nil || diff != "" {
		t.Errorf("UnfoldInstance(first): %v (-want +got):\n%s", err, diff)
	}
	wantFolded(t, e, c, second)
	if got, err := c.Unfold(e.ctx, id); err != nil || len(got) != 2 {
		t.Errorf("Unfold of an ID in one instance = %v, %v; want Ali's and Eka's corrections", got, err)
	}
	wantFolded(t, e, c)
}

// TestCourseInstanceOrder: Quizzes orders instances by quiz ID, then by
// start time as numbers (9 ms before 10 ms), NoInstance first; the CSV names
// each column by its start in UTC, the quiz ID alone for NoInstance.
func TestCourseInstanceOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.course(courseID())
	fold(t, e, c, withInstance(handRecap("kuis-02", 1, "Ali", 10), "10-0"), withInstance(handRecap("kuis-02", 1, "Ali", 10), "9-1"),
		withInstance(handRecap("kuis-02", 1, "Ali", 0), "9-0"), handRecap("kuis-02", 1, "Budi", 10),
		withInstance(handRecap("kuis-01", 1, "Ali", 10), "1733299200000-0"))
	r, err := c.Recap(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range r.Quizzes {
		got = append(got, q.QuizID+"@"+q.Instance)
	}
	if diff := cmp.Diff([]string{"kuis-01@1733299200000-0", "kuis-02@0-0", "kuis-02@9-0", "kuis-02@9-1", "kuis-02@10-0"}, got); diff != "" {
		t.Errorf("Quizzes (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := r.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(buf.String(), "\n")
	want := "rank,competition_rank,participant,score,kuis-01 2024-12-04T08:00:00.000Z,kuis-02," +
		"kuis-02 1970-01-01T00:00:00.009Z,kuis-02 1970-01-01T00:00:00.009Z,kuis-02 1970-01-01T00:00:00.010Z"
	if header != want {
		t.Errorf("CSV header = %q; want %q", header, want)
	}
}

// TestCourseFoldCutThenOtherRecap: a fold of 250 of an instance's 300
// participants cut short, then a recap of 10 other participants under the
// same instance, is a ConflictRecap with nothing written, before and at
// its script; the first recap folded again completes the instance.
func TestCourseFoldCutThenOtherRecap(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{FoldStep: 50})
	c := e.course(courseID())
	rc, _ := classRecap("kuis-dua-rekap", 300)
	rc.Instance = "1733299200000-0"
	cut := courseOn(t, e.storeOn(partHook{Client: e.client, cut: 5, mu: &sync.Mutex{}, parts: new(int)}), c.Keys().CourseID())
	if got, err := cut.Fold(e.ctx, rc); !errors.Is(err, errCut) || got.Participants != 250 {
		t.Fatalf("cut Fold = %+v, %v; want 250 participants and the cut", got, err)
	}
	var pairs []any
	for i := range 10 {
		pairs = append(pairs, fmt.Sprintf("q%03d", i), 10)
	}
	other := withInstance(handRecap("kuis-dua-rekap", 7, pairs...), rc.Instance)
	before := e.courseDump(c, other)
	got, err := c.Fold(e.ctx, other)
	want := &kuis.ConflictError{Course: c.Keys().CourseID(), Quiz: "kuis-dua-rekap", Instance: rc.Instance, Reason: kuis.ConflictRecap}
	if diff := cmp.Diff(want, conflictOf(err)); !errors.Is(err, kuis.ErrConflict) || diff != "" || got != (kuis.Fold{}) {
		t.Errorf("Fold of another recap = %+v, %v (-want +got):\n%s", got, err, diff)
	}
	if strings.Contains(err.Error(), "Unfold") && !strings.Contains(err.Error(), "UnfoldInstance") {
		t.Errorf("the conflict %q advises Unfold, which would take the whole quiz ID out", err)
	}
	if diff := cmp.Diff(before, e.courseDump(c, other)); diff != "" {
		t.Errorf("a refused fold changed the course (-before +after):\n%s", diff)
	}
	if got, err := c.Fold(e.ctx, rc); err != nil || got.Participants != 50 {
		t.Errorf("Fold of the first recap again = %+v, %v; want the 50 missing", got, err)
	}
	wantFolded(t, e, c, rc)
}

// TestCourseFoldRacingRecaps: two disjoint recaps of 600 participants of one
// instance, folded at the same time from two goroutines, 30 times over on a
// fresh course: the first part of one writes the instance's marker, so
// exactly one recap is folded wholly and the other refused (ConflictRecap,
// or ConflictParticipants if it comes after the first is complete), never a
// mixed ledger; Audit finds nothing.
func TestCourseFoldRacingRecaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rounds := 30
	for round := range rounds {
		c := e.course(courseID())
		var a, b []any
		for i := range 600 {
			a = append(a, fmt.Sprintf("a%03d", i), 10*(i%3))
			b = append(b, fmt.Sprintf("b%03d", i), 10*(i%3))
		}
		rcs := []kuis.Recap{withInstance(handRecap("kuis-balap", 3, a...), "5-0"), withInstance(handRecap("kuis-balap", 3, b...), "5-0")}
		errs := make([]error, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range rcs {
			wg.Go(func() {
				<-start
				_, errs[i] = c.Fold(e.ctx, rcs[i])
			})
		}
		close(start)
		wg.Wait()
		var won []kuis.Recap
		for i, err := range errs {
			switch ce := conflictOf(err); {
			case err == nil:
				won = append(won, rcs[i])
			case ce == nil || ce.Reason != kuis.ConflictRecap && ce.Reason != kuis.ConflictParticipants:
				t.Errorf("round %d: Fold %d: %v; want nil or ConflictRecap", round, i, err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: %d folds succeeded (%v); want exactly one", round, len(won), errs)
		}
		wantFolded(t, e, c, won...)
	}
}

// TestCourseFoldReadsOneInstance: folding again and unfolding one small
// quiz instance of a course that holds two big ones reads only that
// instance's keys: no HSCAN for a fold, one page of its own ledger for
// UnfoldInstance, and one page of the index more for Unfold, whatever the
// other instances hold (pages of 5 fields: the others would take dozens).
// On a real server the server's own command counts say the same.
func TestCourseFoldReadsOneInstance(t *testing.T) {
	e := newTunedEnv(t, kuis.Tuning{PageSize: 5})
	c := e.course(courseID())
	for _, id := range []string{"kuis-besar-1", "kuis-besar-2"} {
		rc, _ := classRecap(id, 200)
		fold(t, e, c, rc)
	}
	small := handRecap("kuis-kecil", 2, "Ali", 20, "Budi", 10, "Citra", 0)
	fold(t, e, c, small)
	rec := newRecorder(e.client)
	rc := courseOn(t, e.storeOn(rec), c.Keys().CourseID())
	for _, step := range []struct {
		name  string
		call  func() error
		scans int
	}{
		{"Fold again", func() error { _, err := rc.Fold(e.ctx, small); return err }, 0},
		{"UnfoldInstance", func() error { _, err := rc.UnfoldInstance(e.ctx, "kuis-kecil", kuis.NoInstance); return err }, 1},
		{"Fold", func() error { _, err := rc.Fold(e.ctx, small); return err }, 0},
		{"Unfold", func() error { _, err := rc.Unfold(e.ctx, "kuis-kecil"); return err }, 2},
	} {
		var before map[string]int64
		if redistest.Real() {
			before = commandCalls(t, e.ctx, e.client, "hscan", "hgetall", "hkeys")
		}
		rec.start()
		err := step.call()
		sent := rec.stop()
		if err != nil || countOf(sent, "HSCAN") != step.scans || countOf(sent, "HGETALL") != 0 {
			t.Errorf("%s: %v, sent %v; want %d HSCAN", step.name, err, sent, step.scans)
		}
		if redistest.Real() {
			// Other tests share the server: at most a few of theirs.
			after := commandCalls(t, e.ctx, e.client, "hscan", "hgetall", "hkeys")
			if n := after["hscan"] - before["hscan"] + after["hgetall"] - before["hgetall"]; n > int64(step.scans)+10 {
				t.Errorf("%s: the server ran %d HSCAN and HGETALL; want about %d, not the other instances' %d pages",
					step.name, n, step.scans, 2*200/5)
			}
		}
	}
	wantFolded(t, e, c, func() []kuis.Recap {
		a, _ := classRecap("kuis-besar-1", 200)
		b, _ := classRecap("kuis-besar-2", 200)
		return []kuis.Recap{a, b}
	}()...)
}

// TestCourseArchiveOtherCourse: PurgeQuiz with Course.Archive of a quiz
// whose meta names another course is a ConflictCourse naming both: nothing
// is folded, next is not called, the quiz is kept, and the message does not
// advise an Unfold.
func TestCourseArchiveOtherCourse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.course(courseID())
	id, _, _ := e.reference()
	e.mustRaw("HSET", e.keys(id).Meta(), "kursus", "ips-9c")
	e.finish(id)
	called := false
	next := func(context.Context, kuis.Recap) error { called = true; return nil }
	before := e.courseDump(c, e.recap(id))
	n, err := e.store.PurgeQuiz(e.ctx, id, c.Archive(next))
	want := &kuis.ConflictError{Course: c.Keys().CourseID(), Quiz: id, Instance: e.instance(id), Reason: kuis.ConflictCourse,
		Held: "ips-9c", Given: c.Keys().CourseID()}
	if diff := cmp.Diff(want, conflictOf(err)); n != 0 || !errors.Is(err, kuis.ErrConflict) || diff != "" {
		t.Errorf("PurgeQuiz = %d, %v (-want +got):\n%s", n, err, diff)
	}
	if err != nil && (!strings.Contains(err.Error(), `"ips-9c"`) || !strings.Contains(err.Error(), strconv.Quote(c.Keys().CourseID())) ||
		strings.Contains(err.Error(), "nfold")) {
		t.Errorf("the message %q does not name both courses, or advises an unfold", err)
	}
	if called || !e.exists(e.keys(id).Meta()) {
		t.Errorf("next called %v, meta kept %v; want next not called and the quiz kept", called, e.exists(e.keys(id).Meta()))
	}
	if diff := cmp.Diff(before, e.courseDump(c, e.recap(id))); diff != "" {
		t.Errorf("the refused archive changed the course (-before +after):\n%s", diff)
	}
	// Its own course takes it.
	own := e.course("ips-9c")
	if n, err := e.store.PurgeQuiz(e.ctx, id, own.Archive(next)); err != nil || n != 5 || !called {
		t.Errorf("PurgeQuiz into its own course = %d, %v, next called %v", n, err, called)
	}
}

// TestCourseRepairProperty tampers with many courses at random (a fixed
// seed: 200 courses on miniredis, 20 on a real server), each of two to four
// quiz instances, and expects Repair to change only what Audit reported:
// nothing (and no error) when Audit is clean; ErrCorrupt, with nothing
// changed, exactly when Audit reports the ledger itself wrong; otherwise
// one correction per "total" violation, naming its participant, the board
// the only key written, and Audit clean after.
func TestCourseRepairProperty(t *testing.T) {
	t.Parallel()
	cases := 200
	if redistest.Real() {
		cases = 20
	}
	e := newEnv(t)
	rng := rand.New(rand.NewPCG(33, 5))
	names := []string{"Ali", "Budi", "Citra", "Dewi", "Eka", "Fajar"}
	ledgerRules := map[string]bool{"field": true, "marker": true, "entry": true, "unfinished": true, "ledger": true, "type": true}
	for n := range cases {
		c := e.course(courseID())
		k := c.Keys()
		var rcs []kuis.Recap
		for i := range 2 + rng.IntN(3) {
			var pairs []any
			for _, p := range names {
				if rng.IntN(3) > 0 {
					pairs = append(pairs, p, 10*rng.IntN(4))
				}
			}
			rcs = append(rcs, withInstance(handRecap(fmt.Sprintf("kuis-%d", rng.IntN(2)), 3, pairs...), fmt.Sprintf("%d-0", i+1)))
		}
		fold(t, e, c, rcs...)
		pick := func() string { return names[rng.IntN(len(names))] }
		ledger := func() string { rc := rcs[rng.IntN(len(rcs))]; return k.Ledger(rc.QuizID, rc.Instance) }
		tampers := []func(){
			func() { e.mustRaw("ZINCRBY", k.Board(), "10", pick()) },
			func() { e.mustRaw("ZREM", k.Board(), pick()) },
			func() { e.mustRaw("DEL", k.Board()) },
			func() { e.mustRaw("ZADD", k.Board(), "20", "Orang-"+pick()) },
			func() { e.mustRaw("HSET", ledger(), pick(), []string{"15", "40", "10", "0"}[rng.IntN(4)]) },
			func() { e.mustRaw("HDEL", ledger(), pick()) },
			func() { e.mustRaw("DEL", ledger()) },
			func() { e.mustRaw("DEL", k.Quizzes()) },
			func() {
				rc := rcs[rng.IntN(len(rcs))]
				field := rc.QuizID + "@" + rc.Instance
				if m, err := e.raw("HGET", k.Quizzes(), field).ToString(); err == nil {
					e.mustRaw("HSET", k.Quizzes(), field, strings.Join(append(strings.Fields(m)[:4], "0"), " "))
				}
			},
		}
		for range rng.IntN(4) {
			tampers[rng.IntN(len(tampers))]()
		}
		v, err := c.Audit(e.ctx)
		if err != nil {
			t.Fatalf("case %d: Audit: %v", n, err)
		}
		totals, wrong := map[string]bool{}, false
		for _, x := range v {
			if x.Rule == "total" {
				totals[x.Detail] = true
			}
			wrong = wrong || ledgerRules[x.Rule]
		}
		before := e.courseState(c)
		fixes, err := c.Repair(e.ctx)
		after := e.courseState(c)
		switch {
		case wrong:
			if !errors.Is(err, kuis.ErrCorrupt) {
				t.Errorf("case %d: Audit %v; Repair = %v, %v; want ErrCorrupt", n, v, fixes, err)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("case %d: a refused Repair changed the course (-before +after):\n%s", n, diff)
			}
			continue
		case err != nil:
			t.Errorf("case %d: Audit %v; Repair: %v", n, v, err)
			continue
		}
		if len(fixes) != len(totals) {
			t.Errorf("case %d: Audit %v; Repair %v: %d corrections for %d total violations", n, v, fixes, len(fixes), len(totals))
		}
		for _, f := range fixes {
			if !slices.ContainsFunc(v, func(x kuis.Violation) bool {
				return x.Rule == "total" && strings.Contains(x.Detail, strconv.Quote(f.Participant))
			}) {
				t.Errorf("case %d: Repair corrected %+v, which Audit %v did not report", n, f, v)
			}
		}
		if len(v) > 0 {
			after.Board, before.Board = nil, nil
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("case %d: Repair changed more than Audit %v reported (-before +after):\n%s", n, v, diff)
		}
		if again, err := c.Audit(e.ctx); err != nil || len(again) != 0 {
			t.Errorf("case %d: Audit after Repair = %v, %v; want nothing", n, again, err)
		}
	}
}
