package kuis_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
)

// courseReadsOf runs every read of a course, and Board.Teams of the quiz,
// and returns the results by name (an error in place of a failed read's).
func courseReadsOf(ctx context.Context, c *kuis.Course, b *kuis.Board) map[string]any {
	out := map[string]any{}
	pick := func(name string, v any, err error) {
		if err != nil {
			out[name] = err.Error()
			return
		}
		out[name] = v
	}
	v1, err := c.Standings(ctx)
	pick("Standings", v1, err)
	v2, err := c.Page(ctx, 1, 2)
	pick("Page", v2, err)
	v3, err := c.Around(ctx, "Budi", 1)
	pick("Around", v3, err)
	v4, err := c.Standing(ctx, "Dewi")
	pick("Standing", v4, err)
	v5, err := c.Len(ctx)
	pick("Len", v5, err)
	v6, err := c.Quizzes(ctx)
	pick("Quizzes", v6, err)
	v7, err := c.Teams(ctx, teamRoster, kuis.TeamMean)
	pick("Course.Teams", v7, err)
	v8, err := b.Teams(ctx, teamRoster, kuis.TeamSum)
	pick("Board.Teams", v8, err)
	r, err := c.Recap(ctx)
	r.TakenAt = r.TakenAt.UTC().Truncate(0)
	pick("Recap", r, err)
	return out
}

// refusedCourseWrites is what only the operator may do to course c, each a
// refused call: folds (of a new quiz, and of one folded already, which
// writes nothing for the operator but must still be refused), Unfold,
// Repair (with nothing to correct too) and Purge, whose archive must never
// be called.
func refusedCourseWrites(t *testing.T, e *env, c *kuis.Course, folded, fresh kuis.Recap) []refusedCall {
	return []refusedCall{
		{"Fold", func() error { _, err := c.Fold(e.ctx, fresh); return err }},
		{"Fold of a quiz folded already", func() error { _, err := c.Fold(e.ctx, folded); return err }},
		{"Unfold", func() error { _, err := c.Unfold(e.ctx, folded.QuizID); return err }},
		{"Unfold of a quiz never folded", func() error { _, err := c.Unfold(e.ctx, fresh.QuizID); return err }},
		{"Repair", func() error { _, err := c.Repair(e.ctx); return err }},
		{"Purge", func() error {
			_, err := c.Purge(e.ctx, func(context.Context, kuis.CourseRecap) error {
				t.Error("Course.Purge handed archive a recap of a course it may not delete")
				return nil
			})
			return err
		}},
	}
}

// TestACLCourseReaders: users made from ACLRules(RoleApp) and
// ACLRules(RoleTeacher), with and without the client-side cache, read a
// course as the operator folded it, ranks teams and recap it (the teacher
// audits it too); they are refused, with nothing written, every fold,
// unfold, repair and purge, and Audit for the app; the server refuses
// them every write to the course's keys.
func TestACLCourseReaders(t *testing.T) {
	t.Parallel()
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher} {
		t.Run(role.String(), func(t *testing.T) {
			eachCache(t, func(t *testing.T, cached bool) {
				e := newEnv(t)
				ref := e.finishedReference()
				fresh := e.finished(2, map[string]int{"Eka": 2})
				c := e.course(courseID())
				if _, err := c.Fold(e.ctx, ref); err != nil {
					t.Fatal(err)
				}
				e.mustRaw("ZINCRBY", c.Keys().Board(), "10", "Dewi") // something for Repair to do
				want := courseReadsOf(e.ctx, c, e.board(ref.QuizID))
				rs, raw := roleStore(t, e, role, cached, kuis.Tuning{})
				rc := courseOn(t, rs, c.Keys().CourseID())
				rb, _ := handles(t, rs, ref.QuizID)
				for range 2 { // cached: a miss, then a hit
					got := courseReadsOf(e.ctx, rc, rb)
					if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt")); diff != "" {
						t.Errorf("reads as %v (-admin +%v):\n%s", role, role, diff)
					}
				}
				audit := func() error { _, err := rc.Audit(e.ctx); return err }
				calls := refusedCourseWrites(t, e, rc, ref, fresh)
				if role == kuis.RoleTeacher {
					wantAudit := []kuis.Violation{{Key: c.Keys().Board(), Rule: "total", Detail: `member "Dewi" has 20 points, and the ledger gives 10`}}
					if v, err := rc.Audit(e.ctx); err != nil || !cmp.Equal(wantAudit, v) {
						t.Errorf("Audit as teacher = %v, %v; want %v", v, err, wantAudit)
					}
				} else {
					calls = append(calls, refusedCall{"Audit", audit})
				}
				keys := append(e.courseKeys(c, ref, fresh), quizKeys(e, ref.QuizID, fresh.QuizID)...)
				checkRefused(t, e, keys, isForbidden, calls...)
				k := c.Keys()
				ledger := k.Ledger(ref.QuizID, ref.Instance)
				checkRefused(t, e, keys, isRefusal,
					rawAs(e.ctx, raw, "HSET", ledger, "Eka", "10"),
					rawAs(e.ctx, raw, "HSETNX", ledger, "Eka", "10"),
					rawAs(e.ctx, raw, "HDEL", ledger, "Ali"),
					rawAs(e.ctx, raw, "HDEL", k.Quizzes(), ref.QuizID+"@"+ref.Instance),
					rawAs(e.ctx, raw, "ZINCRBY", k.Board(), "10", "Ali"),
					rawAs(e.ctx, raw, "ZADD", k.Board(), "100", "Ali"),
					rawAs(e.ctx, raw, "UNLINK", k.Board()),
					evalAs(e.ctx, raw, "return redis.call('ZINCRBY', KEYS[1], 10, 'Ali')", k.Board()),
				)
			})
		})
	}
}

// TestACLCourseOperator: a user made from ACLRules(RoleOperator), with and
// without the client-side cache, folds (directly and as PurgeQuiz's
// archive), reads, ranks teams, recaps, audits, repairs, unfolds and purges
// a course.
func TestACLCourseOperator(t *testing.T) {
	t.Parallel()
	eachCache(t, func(t *testing.T, cached bool) {
		e := newEnv(t)
		ref := e.finishedReference()
		second := e.finished(2, map[string]int{"Ali": 2, "Eka": 1})
		os, _ := roleStore(t, e, kuis.RoleOperator, cached, kuis.Tuning{})
		c := e.course(courseID())
		oc := courseOn(t, os, c.Keys().CourseID())
		if got, err := oc.Fold(e.ctx, ref); err != nil || got != (kuis.Fold{QuizID: ref.QuizID, Instance: ref.Instance, Participants: 4, Points: 90}) {
			t.Fatalf("Fold as operator = %+v, %v", got, err)
		}
		if got, err := oc.Fold(e.ctx, ref); err != nil || !got.AlreadyFolded {
			t.Errorf("Fold again as operator = %+v, %v; want AlreadyFolded", got, err)
		}
		if n, err := os.PurgeQuiz(e.ctx, second.QuizID, oc.Archive(nil)); err != nil || n != 5 {
			t.Errorf("PurgeQuiz with Archive as operator = %d, %v; want 5", n, err)
		}
		want := courseReadsOf(e.ctx, c, e.board(ref.QuizID))
		ob, _ := handles(t, os, ref.QuizID)
		for range 2 {
			if diff := cmp.Diff(want, courseReadsOf(e.ctx, oc, ob), cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt")); diff != "" {
				t.Errorf("reads as operator (-admin +operator):\n%s", diff)
			}
		}
		e.mustRaw("ZINCRBY", c.Keys().Board(), "10", "Dewi")
		if v, err := oc.Audit(e.ctx); err != nil || len(v) != 1 {
			t.Errorf("Audit as operator = %v, %v; want Dewi's total", v, err)
		}
		if got, err := oc.Repair(e.ctx); err != nil || !cmp.Equal([]kuis.Correction{{"Dewi", 20, 10}}, got) {
			t.Errorf("Repair as operator = %v, %v", got, err)
		}
		if got, err := oc.Unfold(e.ctx, second.QuizID); err != nil || len(got) != 2 {
			t.Errorf("Unfold as operator = %v, %v; want Ali's and Eka's corrections", got, err)
		}
		wantFolded(t, e, c, ref)
		var archived kuis.CourseRecap
		keys := e.courseKeys(c, second)
		if n, err := oc.Purge(e.ctx, func(_ context.Context, r kuis.CourseRecap) error { archived = r; return nil }); err != nil || n != 3 || len(archived.Standings) != 4 {
			t.Errorf("Purge as operator = %d, %v, archived %d standings; want 3 keys, 4 standings", n, err, len(archived.Standings))
		}
		if diff := cmp.Diff(gone(keys...), e.dump(keys...)); diff != "" {
			t.Errorf("after Purge (-want +got):\n%s", diff)
		}
	})
}
