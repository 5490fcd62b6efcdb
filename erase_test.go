package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// term is a school's term in one namespace, for erasures: Ali is in three
// finished quizzes (the second played and recapped by a store that orders
// ties by time), two courses (ipa folds the first two, mat the third) and
// class 8a's roster; a finished quiz, a running quiz, a course and class 8b
// never had him.
type term struct {
	e          *env
	held       []string // the quizzes that hold Ali
	other      string   // finished, without Ali
	live       string   // running, without Ali
	ipa, mat   *kuis.Course
	bio        *kuis.Course // the other quiz folded: no Ali
	class      *kuis.Class  // 8a: Ali (S-ALI) and Budi (S-BUDI)
	otherClass *kuis.Class  // 8b: Eka
	recaps     map[string]kuis.Recap
}

// play makes a quiz of three questions on store s, plays who's answers
// (participant -> questions) after the joins, and finishes it unless
// running; it returns the quiz ID.
func (e *env) play(s *kuis.Store, joins []string, answers [][2]any, running bool, opts ...kuis.CreateOption) string {
	e.t.Helper()
	id := quizID()
	b, m := handles(e.t, s, id)
	if err := m.Create(e.ctx, "Kuis "+id, 3, opts...); err != nil {
		e.t.Fatal(err)
	}
	for _, p := range joins {
		if _, err := b.Join(e.ctx, p); err != nil {
			e.t.Fatalf("Join(%q): %v", p, err)
		}
	}
	for _, a := range answers {
		if _, err := b.RecordAnswer(e.ctx, a[0].(string), a[1].(int)); err != nil {
			e.t.Fatalf("RecordAnswer(%v): %v", a, err)
		}
	}
	if !running {
		e.finish(id)
	}
	return id
}

func newTerm(t *testing.T) *term { return newTunedTerm(t, kuis.Tuning{}) }

// newTunedTerm is newTerm on stores tuned by tune.
func newTunedTerm(t *testing.T, tune kuis.Tuning) *term {
	e := newTunedEnv(t, tune)
	byTime := e.storeOn(e.client, kuis.WithTies(kuis.TiesByTime))
	tm := &term{e: e, recaps: map[string]kuis.Recap{}}
	tm.held = []string{
		e.play(e.store, []string{"Ali", "Dewi"}, [][2]any{{"Ali", 1}, {"Budi", 1}, {"Ali", 2}, {"Citra", 3}}, false),
		e.play(byTime, nil, [][2]any{{"Citra", 1}, {"Ali", 1}, {"Budi", 2}, {"Ali", 3}, {"Citra", 2}}, false),
		e.play(e.store, []string{"Budi"}, [][2]any{{"Ali", 2}, {"Budi", 2}}, false, kuis.ForClass("8a")),
	}
	tm.other = e.play(e.store, nil, [][2]any{{"Budi", 1}, {"Eka", 1}}, false)
	tm.live = e.play(e.store, []string{"Eka"}, [][2]any{{"Budi", 3}}, true)
	for i, id := range append(slices.Clone(tm.held), tm.other) {
		s := e.store
		if i == 1 {
			s = byTime
		}
		r, err := s.Recap(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		tm.recaps[id] = r
	}
	tm.ipa, tm.mat, tm.bio = e.course("ipa"), e.course("mat"), e.course("bio")
	for c, ids := range map[*kuis.Course][]string{tm.ipa: tm.held[:2], tm.mat: tm.held[2:], tm.bio: {tm.other}} {
		for _, id := range ids {
			if _, err := c.Fold(e.ctx, tm.recaps[id]); err != nil {
				t.Fatalf("Fold(%s): %v", id, err)
			}
		}
	}
	tm.class, tm.otherClass = e.class("8a"), e.class("8b")
	if err := tm.class.Enroll(e.ctx, kuis.Student{ID: "S-ALI", Name: "Ali"}, kuis.Student{ID: "S-BUDI", Name: "Budi"}); err != nil {
		t.Fatal(err)
	}
	if err := tm.otherClass.Enroll(e.ctx, kuis.Student{ID: "S-EKA", Name: "Eka"}); err != nil {
		t.Fatal(err)
	}
	return tm
}

// contents reads every key of e's namespace as a list of elements: a sorted
// set's "member score", a hash's "field=value", a set's members, a stream's
// "id field=value ...", each list sorted.
func (e *env) contents() map[string][]string {
	e.t.Helper()
	nodes := map[string]rueidis.Client{"": e.client}
	if redistest.Cluster() {
		nodes = redistest.Primaries(e.t, e.ctx, e.client)
	}
	out := map[string][]string{}
	for key := range redistest.KeysByNode(e.t, e.ctx, nodes, e.ns+":*") {
		typ, err := e.mustRaw("TYPE", key).ToString()
		if err != nil {
			e.t.Fatal(err)
		}
		var elems []string
		switch typ {
		case "zset":
			zs, err := e.mustRaw("ZRANGE", key, "0", "-1", "WITHSCORES").AsZScores()
			if err != nil {
				e.t.Fatal(err)
			}
			for _, z := range zs {
				elems = append(elems, fmt.Sprintf("%s %v", z.Member, z.Score))
			}
		case "hash":
			m, err := e.mustRaw("HGETALL", key).AsStrMap()
			if err != nil {
				e.t.Fatal(err)
			}
			for f, v := range m {
				elems = append(elems, f+"="+v)
			}
		case "set":
			if elems, err = e.mustRaw("SMEMBERS", key).AsStrSlice(); err != nil {
				e.t.Fatal(err)
			}
		case "stream":
			xs, err := e.mustRaw("XRANGE", key, "-", "+").AsXRange()
			if err != nil {
				e.t.Fatal(err)
			}
			for _, x := range xs {
				fields := []string{x.ID}
				for _, f := range slices.Sorted(maps.Keys(x.FieldValues)) {
					fields = append(fields, f+"="+x.FieldValues[f])
				}
				elems = append(elems, strings.Join(fields, " "))
			}
		default:
			e.t.Fatalf("key %s of type %s", key, typ)
		}
		slices.Sort(elems)
		out[key] = elems
	}
	return out
}

// withoutTraces is contents with every element that names one of traces
// removed, and keys left empty dropped, skipping the keys skip holds.
func withoutTraces(contents map[string][]string, skip func(key string) bool, traces ...string) map[string][]string {
	out := map[string][]string{}
	for key, elems := range contents {
		if skip(key) {
			continue
		}
		var kept []string
		for _, el := range elems {
			if !slices.ContainsFunc(traces, func(tr string) bool { return strings.Contains(el, tr) }) {
				kept = append(kept, el)
			}
		}
		if len(kept) > 0 {
			out[key] = kept
		}
	}
	return out
}

// clean checks that every quiz, course and class of the term audits clean
// and that Repair of each quiz and course finds nothing to change.
func (tm *term) clean(t *testing.T) {
	t.Helper()
	e := tm.e
	for _, id := range append(slices.Clone(tm.held), tm.other, tm.live) {
		if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) > 0 {
			t.Errorf("Audit(%s) = %v, %v; want clean", id, v, err)
		}
		if fixes, err := e.store.Repair(e.ctx, id); err != nil || len(fixes) > 0 {
			t.Errorf("Repair(%s) = %v, %v; want nothing to change", id, fixes, err)
		}
	}
	for _, c := range []*kuis.Course{tm.ipa, tm.mat, tm.bio} {
		if v, err := c.Audit(e.ctx); err != nil || len(v) > 0 {
			t.Errorf("Audit of course %s = %v, %v; want clean", c.Keys().CourseID(), v, err)
		}
		if fixes, err := c.Repair(e.ctx); err != nil || len(fixes) > 0 {
			t.Errorf("Repair of course %s = %v, %v; want nothing to change", c.Keys().CourseID(), fixes, err)
		}
	}
	for _, c := range []*kuis.Class{tm.class, tm.otherClass} {
		if v, err := c.Audit(e.ctx); err != nil || len(v) > 0 {
			t.Errorf("Audit of class %s = %v, %v; want clean", c.Keys().ClassID(), v, err)
		}
	}
}

// ignoreTaken leaves out when a recap was read.
var ignoreTaken = cmpopts.IgnoreFields(kuis.Recap{}, "TakenAt")

// TestEraseRemovesEveryTraceAndNothingElse: Store.Erase takes Ali out of
// three finished quizzes, two courses and a roster. Afterwards nothing of
// the namespace names him, every other element of every key is as it was,
// the keys he never touched are DUMP-identical, each recap is the recap
// before without him (a fold of it matches the course), every Audit is clean
// and every Repair finds nothing; Erase again is empty. Read in pages of
// two (SCAN, HSCAN, XRANGE), it does the same.
func TestEraseRemovesEveryTraceAndNothingElse(t *testing.T) {
	for name, tune := range map[string]kuis.Tuning{"default": {}, "in pages of two": {ScanCount: 2, PageSize: 2}} {
		t.Run(name, func(t *testing.T) { eraseEverything(t, newTunedTerm(t, tune)) })
	}
}

func eraseEverything(t *testing.T, tm *term) {
	e := tm.e
	before := tm.read()
	var untouched []string
	for _, k := range append(e.quizKeys(tm.other, tm.live), tm.bio.Keys().Board(), tm.bio.Keys().Quizzes(),
		tm.otherClass.Keys().Roster(), tm.otherClass.Keys().Names(), tm.otherClass.Keys().Lookalikes()) {
		if _, ok := before.contents[k]; ok {
			untouched = append(untouched, k)
		}
	}
	dumped := e.dump(untouched...)

	got, err := e.store.Erase(e.ctx, "Ali")
	if err != nil {
		t.Fatalf("Erase: %v", err)
	}
	want := kuis.Erasure{Participant: "Ali",
		Quizzes: []kuis.QuizErasure{
			{QuizID: tm.held[0], Points: 20, Answers: 2, Entries: 3},
			{QuizID: tm.held[1], Points: 20, Answers: 2, Entries: 2},
			{QuizID: tm.held[2], Points: 10, Answers: 1, Entries: 1},
		},
		Courses: []kuis.CourseErasure{
			{CourseID: "ipa", Points: 40, Instances: []string{tm.held[0] + "@" + tm.recaps[tm.held[0]].Instance, tm.held[1] + "@" + tm.recaps[tm.held[1]].Instance}},
			{CourseID: "mat", Points: 10, Instances: []string{tm.held[2] + "@" + tm.recaps[tm.held[2]].Instance}},
		},
		Classes: []kuis.ClassErasure{{ClassID: "8a", StudentID: "S-ALI"}},
	}
	slices.Sort(want.Courses[0].Instances)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Erase (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff(dumped, e.dump(untouched...)); diff != "" {
		t.Errorf("keys Ali never touched changed (-before +after):\n%s", diff)
	}
	tm.checkErased(t, before)
	again, err := e.store.Erase(e.ctx, "Ali")
	if err != nil || !again.Empty() {
		t.Errorf("Erase again = %+v, %v; want empty", again, err)
	}
}

// termRead is what checkErased compares an erasure's outcome with.
type termRead struct {
	contents map[string][]string
	courses  map[*kuis.Course]kuis.CourseRecap
}

// read reads the namespace's contents and the recaps of the courses that
// hold Ali.
func (tm *term) read() termRead {
	tm.e.t.Helper()
	r := termRead{contents: tm.e.contents(), courses: map[*kuis.Course]kuis.CourseRecap{}}
	for _, c := range []*kuis.Course{tm.ipa, tm.mat} {
		cr, err := c.Recap(tm.e.ctx)
		if err != nil {
			tm.e.t.Fatal(err)
		}
		r.courses[c] = cr
	}
	return r
}

// checkErased checks the term once Ali is erased: every element of every
// key but him is as before, nothing names him, each recap is the recap
// before without him and folds as the course holds it already, every Audit
// is clean and every Repair finds nothing.
func (tm *term) checkErased(t *testing.T, before termRead) {
	t.Helper()
	e := tm.e
	after := e.contents()
	indexes := func(key string) bool { return key == tm.ipa.Keys().Quizzes() || key == tm.mat.Keys().Quizzes() }
	if diff := cmp.Diff(withoutTraces(before.contents, indexes, "Ali", "S-ALI"), withoutTraces(after, indexes)); diff != "" {
		t.Errorf("the namespace after Erase, but for the course indexes (-before without Ali +after):\n%s", diff)
	}
	for key, elems := range after {
		for _, el := range elems {
			if strings.Contains(el, "Ali") || strings.Contains(el, "S-ALI") {
				t.Errorf("%s still holds %q", key, el)
			}
		}
	}
	byTime := e.storeOn(e.client, kuis.WithTies(kuis.TiesByTime))
	for i, id := range tm.held {
		s := e.store
		if i == 1 {
			s = byTime
		}
		r, err := s.Recap(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tm.recaps[id].Without("Ali"), r, ignoreTaken); diff != "" {
			t.Errorf("Recap(%s) after Erase (-before.Without +after):\n%s", id, diff)
		}
	}
	for c, was := range before.courses {
		r, err := c.Recap(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(was.Without("Ali"), r, cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt")); diff != "" {
			t.Errorf("Recap of course %s after Erase (-before.Without +after):\n%s", c.Keys().CourseID(), diff)
		}
	}
	for c, ids := range map[*kuis.Course][]string{tm.ipa: tm.held[:2], tm.mat: tm.held[2:]} {
		for _, id := range ids {
			if f, err := c.Fold(e.ctx, tm.recaps[id].Without("Ali")); err != nil || !f.AlreadyFolded {
				t.Errorf("Fold of %s without Ali into %s = %+v, %v; want folded already", id, c.Keys().CourseID(), f, err)
			}
		}
	}
	tm.clean(t)
}

// quizKeys lists the five keys of each quiz.
func (e *env) quizKeys(ids ...string) []string {
	var out []string
	for _, id := range ids {
		k := e.keys(id)
		out = append(out, k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order())
	}
	return out
}

// TestEraseRefusesWhileARunningQuizHoldsThem: a running quiz that holds the
// participant refuses the whole erasure, naming the quiz, with nothing
// written anywhere; once it is finished, Erase takes them out of it too.
func TestEraseRefusesWhileARunningQuizHoldsThem(t *testing.T) {
	tm := newTerm(t)
	e := tm.e
	running := e.play(e.store, nil, [][2]any{{"Ali", 1}}, true)
	before := e.contents()
	got, err := e.store.Erase(e.ctx, "Ali")
	if !errors.Is(err, kuis.ErrQuizRunning) || !strings.Contains(err.Error(), running) || !got.Empty() {
		t.Errorf("Erase with %s running = %+v, %v; want ErrQuizRunning naming it, nothing erased", running, got, err)
	}
	if diff := cmp.Diff(before, e.contents()); diff != "" {
		t.Errorf("a refused Erase changed the namespace (-before +after):\n%s", diff)
	}
	e.finish(running)
	got, err = e.store.Erase(e.ctx, "Ali")
	if err != nil || !slices.ContainsFunc(got.Quizzes, func(q kuis.QuizErasure) bool { return q.QuizID == running && q.Points == 10 }) {
		t.Errorf("Erase once %s finished = %+v, %v; want it erased from it, 10 points", running, got, err)
	}
}

// cutShort is a client that cancels a context after the n-th script run it
// sent (EVALSHA or EVAL) has answered: an erasure cut between two keys.
type cutShort struct {
	rueidis.Client
	runs   atomic.Int64
	n      int64
	cancel context.CancelFunc
}

// scripts counts the script runs among cmds, read before they are sent:
// rueidis recycles a command once it answered.
func scripts(cmds ...rueidis.Completed) (n int64) {
	for _, cmd := range cmds {
		if name := cmd.Commands()[0]; name == "EVALSHA" || name == "EVAL" {
			n++
		}
	}
	return n
}

// ran counts n runs answered, and cancels at the n-th.
func (c *cutShort) ran(n int64) {
	if now := c.runs.Add(n); now >= c.n && now-n < c.n {
		c.cancel()
	}
}

func (c *cutShort) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	n := scripts(cmd)
	r := c.Client.Do(ctx, cmd)
	c.ran(n)
	return r
}

func (c *cutShort) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	n := scripts(cmds...)
	r := c.Client.DoMulti(ctx, cmds...)
	c.ran(n)
	return r
}

// TestEraseCutShortIsCompletedByTheNextCall: an Erase whose context ends
// after its first, second, ... script run (all but the last of a whole
// erasure's, counted first) returns the context's error; the next Erase
// completes it, to what one whole erasure leaves.
func TestEraseCutShortIsCompletedByTheNextCall(t *testing.T) {
	whole := newTerm(t)
	counter := &cutShort{Client: whole.e.client, n: -1, cancel: func() {}}
	if _, err := whole.e.storeOn(counter).Erase(whole.e.ctx, "Ali"); err != nil {
		t.Fatal(err)
	}
	runs := counter.runs.Load()
	if runs < 7 { // three quizzes, three ledgers, a roster
		t.Fatalf("a whole erasure ran %d scripts, want at least 7", runs)
	}
	for n := int64(1); n < runs; n++ {
		t.Run(fmt.Sprintf("after %d runs", n), func(t *testing.T) {
			tm := newTerm(t)
			e := tm.e
			before := tm.read()
			ctx, cancel := context.WithCancel(e.ctx)
			defer cancel()
			cut := &cutShort{Client: e.client, n: n, cancel: cancel}
			s := e.storeOn(cut)
			part, err := s.Erase(ctx, "Ali")
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Erase cut after %d runs = %+v, %v; want context.Canceled", n, part, err)
			}
			rest, err := e.store.Erase(e.ctx, "Ali")
			if err != nil {
				t.Fatalf("Erase after the cut: %v", err)
			}
			if rest.Empty() {
				t.Errorf("Erase after the cut erased nothing; the cut one erased %+v", part)
			}
			tm.checkErased(t, before)
			tm.clean(t)
		})
	}
}

// TestClassEraseKeepsAnotherClassesNamesake: Class.Erase of 8a's Ali takes
// him out of 8a's quiz, of that quiz's ledger in the course (his total keeps
// what 8b's quiz and a quiz of no class gave) and of 8a's roster; 8b's Ali
// keeps his quiz, ledger entries and roster place, byte for byte.
func TestClassEraseKeepsAnotherClassesNamesake(t *testing.T) {
	e := newEnv(t)
	a, b := e.class("8a"), e.class("8b")
	if err := a.Enroll(e.ctx, kuis.Student{ID: "S-ALI", Name: "Ali"}, kuis.Student{ID: "S-BUDI", Name: "Budi"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Enroll(e.ctx, kuis.Student{ID: "S-ALI-B", Name: "Ali"}); err != nil {
		t.Fatal(err)
	}
	qa := e.play(e.store, nil, [][2]any{{"Ali", 1}, {"Ali", 2}, {"Budi", 1}}, false, kuis.ForClass("8a"))
	qb := e.play(e.store, nil, [][2]any{{"Ali", 3}, {"Citra", 1}}, false, kuis.ForClass("8b"))
	qc := e.play(e.store, nil, [][2]any{{"Ali", 2}}, false)
	c := e.course("ipa")
	recaps := map[string]kuis.Recap{}
	for _, id := range []string{qa, qb, qc} {
		r, err := e.store.Recap(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		recaps[id] = r
		if _, err := c.Fold(e.ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	kept := append(e.quizKeys(qb, qc), b.Keys().Roster(), b.Keys().Names(), b.Keys().Lookalikes(),
		c.Keys().Ledger(qb, recaps[qb].Instance), c.Keys().Ledger(qc, recaps[qc].Instance))
	dumped := e.dump(kept...)

	got, err := a.Erase(e.ctx, "S-ALI")
	if err != nil {
		t.Fatalf("Class.Erase: %v", err)
	}
	want := kuis.Erasure{Participant: "Ali",
		Quizzes: []kuis.QuizErasure{{QuizID: qa, Points: 20, Answers: 2, Entries: 2}},
		Courses: []kuis.CourseErasure{{CourseID: "ipa", Points: 20, Instances: []string{qa + "@" + recaps[qa].Instance}}},
		Classes: []kuis.ClassErasure{{ClassID: "8a", StudentID: "S-ALI"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Class.Erase (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(dumped, e.dump(kept...)); diff != "" {
		t.Errorf("8b's Ali changed (-before +after):\n%s", diff)
	}
	r, err := e.store.Recap(e.ctx, qa)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recaps[qa].Without("Ali"), r, ignoreTaken); diff != "" {
		t.Errorf("Recap of 8a's quiz (-before.Without +after):\n%s", diff)
	}
	if st, err := c.Standing(e.ctx, "Ali"); err != nil || st.Score != 20 {
		t.Errorf("course Standing(Ali) = %+v, %v; want 20 points, from 8b's quiz and the quiz of no class", st, err)
	}
	if _, err := a.Student(e.ctx, "S-ALI"); !errors.Is(err, kuis.ErrNotEnrolled) {
		t.Errorf("8a's Student(S-ALI) after Class.Erase: %v; want ErrNotEnrolled", err)
	}
	if v, err := c.Audit(e.ctx); err != nil || len(v) > 0 {
		t.Errorf("course Audit = %v, %v; want clean", v, err)
	}
	if v, err := e.store.Audit(e.ctx, qa); err != nil || len(v) > 0 {
		t.Errorf("Audit(%s) = %v, %v; want clean", qa, v, err)
	}
	if again, err := a.Erase(e.ctx, "S-ALI"); err != nil || !again.Empty() {
		t.Errorf("Class.Erase again = %+v, %v; want empty", again, err)
	}
}

// TestEraseOfNobodyIsEmpty: a participant on no key is an empty Erasure,
// no error, and an invalid name is ErrInvalidParticipant before any I/O.
func TestEraseOfNobodyIsEmpty(t *testing.T) {
	tm := newTerm(t)
	e := tm.e
	before := e.contents()
	got, err := e.store.Erase(e.ctx, "Zahra")
	if err != nil || !got.Empty() || got.Quizzes == nil || got.Courses == nil || got.Classes == nil {
		t.Errorf("Erase(Zahra) = %#v, %v; want empty lists, no error", got, err)
	}
	for _, bad := range []string{"", "a\x00b", strings.Repeat("x", 300)} {
		if _, err := e.store.Erase(e.ctx, bad); !errors.Is(err, kuis.ErrInvalidParticipant) {
			t.Errorf("Erase(%q): %v; want ErrInvalidParticipant", bad, err)
		}
	}
	if diff := cmp.Diff(before, e.contents()); diff != "" {
		t.Errorf("Erase of nobody changed the namespace (-before +after):\n%s", diff)
	}
}

// TestEraseTakesAStrangerOffACourseBoard: a course board member no ledger
// holds (a raw write; Audit reports it) goes too, and the course audits clean.
func TestEraseTakesAStrangerOffACourseBoard(t *testing.T) {
	e := newEnv(t)
	id := e.play(e.store, nil, [][2]any{{"Budi", 1}}, false)
	r, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	c := e.course("bio")
	if _, err := c.Fold(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	e.mustRaw("ZADD", c.Keys().Board(), "30", "Zahra")
	got, err := e.store.Erase(e.ctx, "Zahra")
	want := []kuis.CourseErasure{{CourseID: "bio", Points: 30, Instances: []string{}}}
	if err != nil || !cmp.Equal(want, got.Courses) {
		t.Errorf("Erase(Zahra) = %+v, %v; want courses %+v", got, err, want)
	}
	if v, err := c.Audit(e.ctx); err != nil || len(v) > 0 {
		t.Errorf("course Audit = %v, %v; want clean", v, err)
	}
}

// TestClassEraseLeavesAnEarlierInstance: a quiz ID played once without a
// class, folded and purged, then created again for class 8a: Class.Erase
// takes 8a's student out of the second instance's ledger only.
func TestClassEraseLeavesAnEarlierInstance(t *testing.T) {
	e := newEnv(t)
	a := e.class("8a")
	if err := a.Enroll(e.ctx, kuis.Student{ID: "S-ALI", Name: "Ali"}); err != nil {
		t.Fatal(err)
	}
	c := e.course("ipa")
	id := quizID()
	var recaps []kuis.Recap
	for i, opts := range [][]kuis.CreateOption{nil, {kuis.ForClass("8a")}} {
		b, m := handles(t, e.store, id)
		if err := m.Create(e.ctx, "Kuis "+id, 3, opts...); err != nil {
			t.Fatal(err)
		}
		for q := 1; q <= i+1; q++ {
			if _, err := b.RecordAnswer(e.ctx, "Ali", q); err != nil {
				t.Fatal(err)
			}
		}
		e.finish(id)
		r, err := e.store.Recap(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Fold(e.ctx, r); err != nil {
			t.Fatal(err)
		}
		recaps = append(recaps, r)
		if i == 0 {
			if _, err := e.store.PurgeQuiz(e.ctx, id, func(context.Context, kuis.Recap) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	earlier := c.Keys().Ledger(id, recaps[0].Instance)
	kept := e.dump(earlier)
	got, err := a.Erase(e.ctx, "S-ALI")
	want := []kuis.CourseErasure{{CourseID: "ipa", Points: 20, Instances: []string{id + "@" + recaps[1].Instance}}}
	if err != nil || !cmp.Equal(want, got.Courses) {
		t.Errorf("Class.Erase = %+v, %v; want courses %+v", got, err, want)
	}
	if diff := cmp.Diff(kept, e.dump(earlier)); diff != "" {
		t.Errorf("the earlier instance's ledger changed (-before +after):\n%s", diff)
	}
	if st, err := c.Standing(e.ctx, "Ali"); err != nil || st.Score != 10 {
		t.Errorf("course Standing(Ali) = %+v, %v; want the earlier instance's 10 points", st, err)
	}
	if v, err := c.Audit(e.ctx); err != nil || len(v) > 0 {
		t.Errorf("course Audit = %v, %v; want clean", v, err)
	}
}
