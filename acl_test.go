package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// aclUser makes, on every node, an ACL user of a unique name with
// `ACL SETUSER <name> reset on >password` and rules, deletes it at cleanup,
// and returns a client logged in as it, with client-side caching only if the
// rules allow CLIENT TRACKING. It skips the test on miniredis. setUser makes
// the user only.
func aclUser(t *testing.T, e *env, rules []string) rueidis.Client {
	t.Helper()
	name, password := setUser(t, e, rules)
	if !slices.Contains(rules, "+client|tracking") {
		return redistest.ClientAsUncached(t, name, password)
	}
	return redistest.ClientAs(t, name, password)
}

// setUser makes the user of aclUser on every node, deletes it at cleanup,
// and returns its name and password.
func setUser(t *testing.T, e *env, rules []string) (name, password string) {
	t.Helper()
	skipWithoutACL(t)
	if len(rules) == 0 {
		t.Fatal("no ACL rules")
	}
	name, password = "kuis-"+redistest.Namespace(t), redistest.Namespace(t)
	nodes := e.client.Nodes()
	for _, addr := range redistest.Nodes() {
		if _, ok := nodes[addr]; !ok {
			t.Fatalf("node %s is not among the client's nodes %v", addr, nodes)
		}
	}
	for addr, node := range nodes {
		t.Cleanup(func() {
			if err := node.Do(context.Background(), node.B().AclDeluser().Username(name).Build()).Error(); err != nil {
				t.Errorf("ACL DELUSER %s on %s: %v", name, addr, err)
			}
		})
		args := append([]string{"SETUSER", name, "reset", "on", ">" + password}, rules...)
		if err := node.Do(e.ctx, node.B().Arbitrary("ACL").Args(args...).Build()).Error(); err != nil {
			t.Fatalf("ACL SETUSER %s on %s: %v", name, addr, err)
		}
	}
	return name, password
}

// skipWithoutACL skips the test on miniredis, which has no ACL.
func skipWithoutACL(t *testing.T) {
	t.Helper()
	if !redistest.Real() {
		t.Skip("ACL needs a real Redis: miniredis has no ACL")
	}
}

// quizKeys lists the keys of each of the quizzes, repair keys included.
func quizKeys(e *env, ids ...string) []string {
	var out []string
	for _, id := range ids {
		k := e.keys(id)
		out = append(out, append(fiveKeys(k), k.RepairBoard(), k.RepairOrder())...)
	}
	return out
}

// refusedCall is a call the server's ACL must refuse.
type refusedCall struct {
	name string
	call func() error
}

// isForbidden is a library call's refusal.
func isForbidden(err error) bool { return errors.Is(err, kuis.ErrForbidden) }

// isRefusal is a raw command's refusal: NOPERM, or the words Redis 7.0 uses
// for a command refused inside a script.
func isRefusal(err error) bool {
	re, ok := rueidis.IsRedisErr(err)
	if !ok {
		return false
	}
	msg := re.Error()
	return strings.HasPrefix(msg, "NOPERM") || strings.Contains(msg, "can't run this command") ||
		strings.Contains(msg, "can't access") || strings.Contains(msg, "no permissions")
}

// rawAs is the raw command (name, key, args...) sent as client c.
func rawAs(ctx context.Context, c rueidis.Client, cmd ...string) refusedCall {
	return refusedCall{"raw " + strings.Join(cmd, " "), func() error {
		return c.Do(ctx, c.B().Arbitrary(cmd[0]).Keys(cmd[1]).Args(cmd[2:]...).Build()).Error()
	}}
}

// evalAs is EVAL of src on key as client c.
func evalAs(ctx context.Context, c rueidis.Client, src, key string) refusedCall {
	return refusedCall{"EVAL " + src, func() error {
		return c.Do(ctx, c.B().Eval().Script(src).Numkeys(1).Key(key).Build()).Error()
	}}
}

// checkRefused runs each call, wants refused(err) of each, and wants keys
// (dumped by the env's unrestricted client) unchanged afterwards.
func checkRefused(t *testing.T, e *env, keys []string, refused func(error) bool, calls ...refusedCall) {
	t.Helper()
	before := dumpKeys(t, e.ctx, e.client, keys...)
	for _, c := range calls {
		if err := c.call(); !refused(err) {
			t.Errorf("%s: err = %v, want a refusal", c.name, err)
		}
	}
	if diff := cmp.Diff(before, dumpKeys(t, e.ctx, e.client, keys...)); diff != "" {
		t.Errorf("refused calls changed keys (-before +after):\n%s", diff)
	}
}

// roleStore makes an ACL user of role (aclUser) and returns a Store on it:
// with cached, the rules and the Store have WithClientCache; without, the
// rules grant no client-side caching and the client has it off.
func roleStore(t *testing.T, e *env, role kuis.Role, cached bool, tune kuis.Tuning, extra ...kuis.Option) (*kuis.Store, rueidis.Client) {
	t.Helper()
	opts := []kuis.Option{kuis.WithNamespace(e.ns)}
	if cached {
		opts, extra = append(opts, cacheMinute), append(extra, cacheMinute)
	}
	c := aclUser(t, e, kuis.ACLRules(role, opts...))
	return e.tunedOn(c, tune, extra...), c
}

// eachCache runs f as a subtest without and with the client-side cache.
func eachCache(t *testing.T, f func(t *testing.T, cached bool)) {
	for _, cached := range []bool{false, true} {
		t.Run(fmt.Sprintf("cached=%v", cached), func(t *testing.T) { f(t, cached) })
	}
}

// refusedOperator is what only the operator may do, each a refused call for
// the store s of another role: Repair (one script and a rebuild), Purge,
// PurgeQuiz (whose archive must never be called) and Quizzes.
func refusedOperator(t *testing.T, e *env, s, rebuilds *kuis.Store, id, done string) []refusedCall {
	return []refusedCall{
		{"Repair", func() error { _, err := s.Repair(e.ctx, id); return err }},
		{"Repair (rebuild)", func() error { _, err := rebuilds.Repair(e.ctx, id); return err }},
		{"Purge", func() error { _, err := s.Purge(e.ctx); return err }},
		{"Quizzes", func() error { _, err := s.Quizzes(e.ctx); return err }},
		{"PurgeQuiz", func() error {
			_, err := s.PurgeQuiz(e.ctx, done, func(context.Context, kuis.Recap) error {
				t.Error("PurgeQuiz handed archive a recap of a quiz it may not delete")
				return nil
			})
			return err
		}},
	}
}

// TestACLAppRole: a user made from ACLRules(RoleApp), with and without the
// client-side cache, records answers by both paths, logged and placed in the
// order set, and runs every read, in either tie order, and Recap; it is
// refused, with nothing written, every meta write, Audit, everything only the
// operator may do, and any other namespace; the server refuses it DEL and
// XTRIM of the log.
func TestACLAppRole(t *testing.T) {
	t.Parallel()
	eachCache(t, func(t *testing.T, cached bool) {
		e := newEnv(t)
		other := newEnv(t) // another namespace on the same server
		id, _, _ := e.reference()
		otherID, _, _ := other.reference()
		done, _, b := e.running(3)
		if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
			t.Fatal(err)
		}
		e.finish(done)
		as, app := roleStore(t, e, kuis.RoleApp, cached, kuis.Tuning{})
		for range 2 { // cached: a miss, then a hit
			if diff := cmp.Diff(referenceAnswers(id), readAll(t, e.ctx, as, id)); diff != "" {
				t.Errorf("reads as app (-want +got):\n%s", diff)
			}
		}
		ab, am := handles(t, as, id)
		if a, err := ab.RecordAnswer(e.ctx, "Eka", 1); err != nil || a != (kuis.Answer{Score: 10}) {
			t.Errorf("RecordAnswer = %+v, %v; want score 10", a, err)
		}
		res, err := ab.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Eka", 2}, {"Eka", 1}, {"Eka", 4}})
		want := []kuis.AnswerResult{{Answer: kuis.Answer{Score: 20}}, {Answer: kuis.Answer{Score: 20, Duplicate: true}},
			{Err: kuis.ErrInvalidQuestion}}
		if diff := cmp.Diff(want, res, cmpopts.EquateErrors()); err != nil || diff != "" {
			t.Errorf("RecordAnswers: %v (-want +got):\n%s", err, diff)
		}
		// The server holds what the app wrote: Citra 30, Ali 30, Eka 20, Budi 20, Dewi 10,
		// the answers logged, and everyone placed in the order set (Audit checks both).
		if s, err := e.board(id).Standing(e.ctx, "Eka"); err != nil || s != (kuis.Standing{3, 3, "Eka", 20}) {
			t.Errorf("Standing(Eka) as admin = %+v, %v; want rank 3, score 20", s, err)
		}
		if l := logFields(e, e.keys(id)); len(l) != 11 || !cmp.Equal(l[9:], [][3]string{{"Eka", "1", "10"}, {"Eka", "2", "20"}}) {
			t.Errorf("log after the app's answers = %q; want the reference's nine, then Eka's two", l)
		}
		if v, err := e.store.Audit(e.ctx, id); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
			t.Errorf("Audit after the app's answers = %v, %v; want no violations", v, err)
		}

		// Answers the app records at different server milliseconds, read by
		// time: Ali answered before Citra, where name order puts Citra first.
		timed, _, _ := e.running(3)
		tb, _ := handles(t, as, timed)
		for _, a := range []kuis.AnswerInput{{"Ali", 1}, {"Citra", 1}, {"Budi", 1}, {"Budi", 2}} {
			e.nextMillisecond()
			if _, err := tb.RecordAnswer(e.ctx, a.Participant, a.Question); err != nil {
				t.Fatalf("RecordAnswer(%v) as app: %v", a, err)
			}
		}
		byTime := []kuis.Standing{{1, 1, "Budi", 20}, {2, 2, "Ali", 10}, {3, 2, "Citra", 10}}
		wantReads := map[string]any{"Standings": byTime, "Page": byTime[1:3], "Around": byTime[0:2], "Standing": byTime[1],
			"Len": int64(3), "Get": kuis.Info{Title: "Kuis " + timed, Questions: 3, Status: kuis.StatusRunning, Visibility: kuis.VisibilityShown}, "Status": kuis.StatusRunning}
		for _, tune := range []kuis.Tuning{{}, {RecapInParts: true}} {
			s, _ := roleStore(t, e, kuis.RoleApp, cached, tune, kuis.WithTies(kuis.TiesByTime))
			if diff := cmp.Diff(wantReads, readAll(t, e.ctx, s, timed)); diff != "" {
				t.Errorf("reads by time as app (-want +got):\n%s", diff)
			}
			recap, err := s.Recap(e.ctx, timed)
			if diff := cmp.Diff(byTime, recap.Standings); err != nil || diff != "" {
				t.Errorf("Recap by time as app (in parts %v): %v (-want +got):\n%s", tune.RecapInParts, err, diff)
			}
		}

		fresh := quizID()
		_, freshMeta := handles(t, as, fresh)
		_, doneMeta := handles(t, as, done)
		ob, om := handles(t, other.storeOn(app), otherID)
		keys := append(quizKeys(e, id, done, fresh), quizKeys(other, otherID)...)
		e.mustRaw("ZINCRBY", e.keys(id).Board(), "10", "Dewi") // something for Repair to do
		rebuilds, _ := roleStore(t, e, kuis.RoleApp, cached, kuis.Tuning{RepairStep: 1})
		checkRefused(t, e, keys, isForbidden, append(refusedOperator(t, e, as, rebuilds, id, done),
			refusedCall{"Create", func() error { return freshMeta.Create(e.ctx, "Kuis baru", 3) }},
			refusedCall{"Create existing", func() error { return am.Create(e.ctx, "Kuis lagi", 3) }},
			refusedCall{"Finish", func() error { return am.Finish(e.ctx) }},
			refusedCall{"Finish finished", func() error { return doneMeta.Finish(e.ctx) }},
			refusedCall{"Audit", func() error { _, err := as.Audit(e.ctx, id); return err }},
			refusedCall{"other namespace RecordAnswer", func() error { _, err := ob.RecordAnswer(e.ctx, "Eka", 1); return err }},
			refusedCall{"other namespace Standings", func() error { _, err := ob.Standings(e.ctx); return err }},
			refusedCall{"other namespace Get", func() error { _, err := om.Get(e.ctx); return err }},
		)...)
		// The server itself, not only the library, keeps the app off meta and deletes.
		k := e.keys(id)
		checkRefused(t, e, keys, isRefusal,
			rawAs(e.ctx, app, "HSET", k.Meta(), "status", "selesai"),
			rawAs(e.ctx, app, "DEL", k.Meta()),
			rawAs(e.ctx, app, "DEL", k.Log()),
			rawAs(e.ctx, app, "XTRIM", k.Log(), "MAXLEN", "0"),
			rawAs(e.ctx, app, "UNLINK", k.Board()),
			rawAs(e.ctx, app, "SCAN", "0"),
			evalAs(e.ctx, app, "return redis.call('HSET', KEYS[1], 'status', 'selesai')", k.Meta()),
			rawAs(e.ctx, app, "ZINCRBY", other.keys(otherID).Board(), "10", "Ali"),
			rawAs(e.ctx, app, "HGETALL", "kuis:meta:kuis-01"),
		)
	})
}

// TestACLTeacherRole: a user made from ACLRules(RoleTeacher), with and
// without the client-side cache, runs every read, creates (in a course), finishes, audits
// and recaps; it is refused, with nothing written, every answer, everything
// only the operator may do, and any other namespace, and the server refuses
// it every write to board, answers and order set, UNLINK, RENAME and SCAN,
// and DEL and XTRIM of the log.
func TestACLTeacherRole(t *testing.T) {
	t.Parallel()
	eachCache(t, func(t *testing.T, cached bool) {
		e := newEnv(t)
		other := newEnv(t)
		id, _, _ := e.reference()
		otherID, _, _ := other.reference()
		done, _, _ := e.reference()
		e.finish(done)
		ts, teacher := roleStore(t, e, kuis.RoleTeacher, cached, kuis.Tuning{})
		for range 2 { // cached: a miss, then a hit
			if diff := cmp.Diff(referenceAnswers(id), readAll(t, e.ctx, ts, id)); diff != "" {
				t.Errorf("reads as teacher (-want +got):\n%s", diff)
			}
		}

		tb, tm := handles(t, ts, id)
		_, om := handles(t, other.storeOn(teacher), otherID)
		fresh := quizID()
		keys := append(quizKeys(e, id, done, fresh), quizKeys(other, otherID)...)
		k, ko := e.keys(id), other.keys(otherID)      // ko: the other namespace's quiz
		e.mustRaw("ZINCRBY", k.Board(), "10", "Dewi") // something for Repair to do
		rebuilds, _ := roleStore(t, e, kuis.RoleTeacher, cached, kuis.Tuning{RepairStep: 1})
		checkRefused(t, e, keys, isForbidden, append(refusedOperator(t, e, ts, rebuilds, id, done),
			refusedCall{"RecordAnswer", func() error { _, err := tb.RecordAnswer(e.ctx, "Eka", 1); return err }},
			refusedCall{"RecordAnswer answered", func() error { _, err := tb.RecordAnswer(e.ctx, "Ali", 1); return err }},
			refusedCall{"RecordAnswers", func() error {
				res, err := tb.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Eka", 2}, {"Dewi", 1}})
				if err != nil {
					return fmt.Errorf("call error %w", err) // the refusals are the entries'
				}
				for _, r := range res {
					if !isForbidden(r.Err) {
						return fmt.Errorf("entry %+v", r)
					}
				}
				return kuis.ErrForbidden
			}},
			refusedCall{"other namespace Finish", func() error { return om.Finish(e.ctx) }},
			refusedCall{"other namespace Get", func() error { _, err := om.Get(e.ctx); return err }},
		)...)
		checkRefused(t, e, keys, isRefusal,
			rawAs(e.ctx, teacher, "ZINCRBY", k.Board(), "10", "Ali"),
			rawAs(e.ctx, teacher, "ZADD", k.Board(), "100", "Ali"),
			rawAs(e.ctx, teacher, "ZREM", k.Order(), "Ali"),
			rawAs(e.ctx, teacher, "SADD", k.Answers(), "3:Eka"),
			rawAs(e.ctx, teacher, "UNLINK", k.Answers()),
			rawAs(e.ctx, teacher, "RENAME", k.Board(), k.RepairBoard()),
			rawAs(e.ctx, teacher, "SCAN", "0"),
			rawAs(e.ctx, teacher, "DEL", k.Log()),
			rawAs(e.ctx, teacher, "XTRIM", k.Log(), "MAXLEN", "0"),
			rawAs(e.ctx, teacher, "XADD", ko.Log(), "*", "status", "selesai"),
			rawAs(e.ctx, teacher, "HSET", ko.Meta(), "status", "selesai"),
			evalAs(e.ctx, teacher, "return redis.call('ZINCRBY', KEYS[1], 10, 'Ali')", k.Board()),
		)
		e.mustRaw("ZINCRBY", k.Board(), "-10", "Dewi") // as the answers made it again

		_, fm := handles(t, ts, fresh)
		if err := fm.Create(e.ctx, "Kuis guru", 2, kuis.InCourse("mat-8a")); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if info, err := fm.Get(e.ctx); err != nil || info != (kuis.Info{Title: "Kuis guru", Questions: 2, Status: kuis.StatusRunning, Course: "mat-8a", Visibility: kuis.VisibilityShown}) {
			t.Errorf("Get = %+v, %v", info, err)
		}
		if err := tm.Finish(e.ctx); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		if s, err := e.meta(id).Status(e.ctx); err != nil || s != kuis.StatusFinished { // uncached: read-your-own-write
			t.Errorf("Status after Finish = %q, %v", s, err)
		}
		if v, err := ts.Audit(e.ctx, id); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
			t.Errorf("Audit = %#v, %v; want no violations", v, err)
		}
		standings := referenceAnswers(id)["Standings"]
		for _, tune := range []kuis.Tuning{{}, {RecapInParts: true}} {
			rs, _ := roleStore(t, e, kuis.RoleTeacher, cached, tune)
			recap, err := rs.Recap(e.ctx, id)
			if diff := cmp.Diff(standings, recap.Standings); err != nil || diff != "" || recap.Info.Status != kuis.StatusFinished {
				t.Errorf("Recap (in parts %v): %v, status %q, standings (-want +got):\n%s", tune.RecapInParts, err, recap.Info.Status, diff)
			}
		}
	})
}

// TestACLOperatorRole: a user made from ACLRules(RoleOperator), with and
// without the client-side cache, runs every read, audits, recaps, repairs
// (in one script and by a rebuild), lists, archives and purges; it is
// refused, with nothing written, every answer and every meta write, and the
// server refuses it HSET on meta, XADD to the log, SADD to the answers, ZADD
// onto meta or the log, RENAME onto meta or of the log, and the same inside
// EVAL: a finished quiz stays finished.
func TestACLOperatorRole(t *testing.T) {
	t.Parallel()
	eachCache(t, func(t *testing.T, cached bool) {
		e := newEnv(t)
		id, _, _ := e.reference()
		done, _, _ := e.reference()
		e.finish(done)
		os, operator := roleStore(t, e, kuis.RoleOperator, cached, kuis.Tuning{})
		for range 2 { // cached: a miss, then a hit
			if diff := cmp.Diff(referenceAnswers(id), readAll(t, e.ctx, os, id)); diff != "" {
				t.Errorf("reads as operator (-want +got):\n%s", diff)
			}
		}
		ob, om := handles(t, os, id)
		fresh := quizID()
		_, fm := handles(t, os, fresh)
		keys := quizKeys(e, id, done, fresh)
		k := e.keys(id)
		checkRefused(t, e, keys, isForbidden,
			refusedCall{"RecordAnswer", func() error { _, err := ob.RecordAnswer(e.ctx, "Eka", 1); return err }},
			refusedCall{"Create", func() error { return fm.Create(e.ctx, "Kuis baru", 3) }},
			refusedCall{"Finish", func() error { return om.Finish(e.ctx) }},
		)
		// A refusal names what the user may not do, as the library words it,
		// never the script's text or where in it the server refused.
		if _, err := ob.RecordAnswer(e.ctx, "Eka", 1); redistest.Real() &&
			(err == nil || strings.Contains(err.Error(), "script") || !strings.Contains(err.Error(), "the ACL user may not")) {
			t.Errorf("RecordAnswer as operator: %v; want the library's words for the refusal", err)
		}
		kd := e.keys(done)
		checkRefused(t, e, keys, isRefusal,
			rawAs(e.ctx, operator, "HSET", k.Meta(), "status", "selesai"),
			rawAs(e.ctx, operator, "XADD", k.Log(), "*", "status", "selesai"),
			rawAs(e.ctx, operator, "SADD", k.Answers(), "3:Eka"),
			rawAs(e.ctx, operator, "ZADD", kd.Meta(), "1", "status"),
			rawAs(e.ctx, operator, "ZADD", kd.Log(), "1", "Eka"),
			rawAs(e.ctx, operator, "RENAME", kd.Board(), kd.Meta()),
			rawAs(e.ctx, operator, "RENAME", kd.Log(), kd.Board()),
			evalAs(e.ctx, operator, "return redis.call('HSET', KEYS[1], 'status', 'selesai')", k.Meta()),
			evalAs(e.ctx, operator, "return redis.call('RENAME', KEYS[1], KEYS[1])", kd.Meta()),
		)
		if !redistest.Cluster() { // a running quiz's meta onto a finished one's: two hash slots on a cluster
			checkRefused(t, e, keys, isRefusal, rawAs(e.ctx, operator, "RENAME", k.Meta(), kd.Meta()))
		}

		if v, err := os.Audit(e.ctx, id); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
			t.Errorf("Audit = %#v, %v; want no violations", v, err)
		}
		standings := referenceAnswers(id)["Standings"]
		for _, tune := range []kuis.Tuning{{}, {RecapInParts: true}} {
			rs, _ := roleStore(t, e, kuis.RoleOperator, cached, tune)
			recap, err := rs.Recap(e.ctx, id)
			if diff := cmp.Diff(standings, recap.Standings); err != nil || diff != "" {
				t.Errorf("Recap (in parts %v): %v (-want +got):\n%s", tune.RecapInParts, err, diff)
			}
		}
		// Repair puts back a board changed behind the library's back, in one
		// script and by a rebuild.
		for _, tune := range []kuis.Tuning{{}, {RepairStep: 1}} {
			e.mustRaw("ZREM", k.Board(), "Budi")
			e.mustRaw("ZINCRBY", k.Board(), "10", "Dewi")
			want := []kuis.Correction{{Participant: "Budi", Was: 0, Now: 20}, {Participant: "Dewi", Was: 20, Now: 10}}
			rs, _ := roleStore(t, e, kuis.RoleOperator, cached, tune)
			if got, err := rs.Repair(e.ctx, id); err != nil || !cmp.Equal(want, got) {
				t.Errorf("Repair (step %d) = %+v, %v; want %+v", tune.RepairStep, got, err, want)
			}
			if got, err := os.Repair(e.ctx, id); err != nil || !cmp.Equal([]kuis.Correction{}, got) {
				t.Errorf("second Repair = %#v, %v; want an empty, non-nil slice", got, err)
			}
		}
		if ids, err := os.Quizzes(e.ctx); err != nil || !cmp.Equal(ids, []string{id, done}) {
			t.Errorf("Quizzes = %v, %v; want %v", ids, err, []string{id, done})
		}
		var archived []kuis.Standing
		n, err := os.PurgeQuiz(e.ctx, done, func(_ context.Context, r kuis.Recap) error { archived = r.Standings; return nil })
		if diff := cmp.Diff(standings, archived); err != nil || n != 5 || diff != "" {
			t.Errorf("PurgeQuiz = %d, %v; want 5, nil; archived (-want +got):\n%s", n, err, diff)
		}
		if n, err := os.Purge(e.ctx); err != nil || n != 5 { // the running quiz's five keys
			t.Errorf("Purge = %d, %v; want 5", n, err)
		}
		gone := map[string]string{}
		for _, key := range keys {
			gone[key] = "none"
		}
		if diff := cmp.Diff(gone, e.dump(keys...)); diff != "" {
			t.Errorf("after PurgeQuiz and Purge (-want +got):\n%s", diff)
		}
	})
}

// TestACLRefusalInsideAScriptIsErrForbidden: whatever words Redis uses for a
// command or key refused inside a script, the library says ErrForbidden and
// the script writes nothing. The users are narrower than either role, so the
// refusal comes from inside the script, not at EVALSHA or its own ACL check.
func TestACLRefusalInsideAScriptIsErrForbidden(t *testing.T) {
	skipWithoutACL(t)
	e := newEnv(t)
	id, _, _ := e.reference()
	ns := "~" + e.ns
	base := []string{"resetkeys", "resetchannels", "-@all", "+hello", "+ping", "+client|setname",
		"+client|tracking", "+client|caching", "+multi", "+exec", "+pttl", "+cluster|slots", "+cluster|shards",
		"(" + ns + ":* +evalsha +eval)"}
	// b is a handle on the reference quiz, m on a fresh one.
	record := func(b *kuis.Board, _ *kuis.Meta) error { _, err := b.RecordAnswer(e.ctx, "Eka", 1); return err }
	create := func(_ *kuis.Board, m *kuis.Meta) error { return m.Create(e.ctx, "Kuis baru", 3) }
	tests := []struct {
		name  string
		rules []string
		call  func(*kuis.Board, *kuis.Meta) error
	}{
		{"RecordAnswer without HMGET", []string{ns + ":*", "+zincrby", "+sadd", "+sismember", "+zscore", "+exists"}, record},
		{"RecordAnswer without XADD", []string{ns + ":*", "+hmget", "+zincrby", "+sadd", "+sismember", "+zscore", "+exists",
			"+zadd", "+zcard", "+xlen"}, record},
		{"Create without EXISTS", []string{ns + ":*", "+hset"}, create},
		{"Create without the board key", []string{ns + ":meta:*", "+hset", "+exists"}, create},
	}
	for _, tc := range tests {
		fresh := quizID()
		keys := quizKeys(e, id, fresh)
		t.Run(tc.name, func(t *testing.T) {
			s, err := kuis.New(aclUser(t, e, append(append([]string{}, base...), tc.rules...)), e.opts...)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := handles(t, s, id)
			_, m := handles(t, s, fresh)
			checkRefused(t, e, keys, isForbidden,
				refusedCall{tc.name, func() error { return tc.call(b, m) }})
			if err := tc.call(b, m); err == nil || strings.Contains(err.Error(), "script") {
				t.Errorf("%s: %v; want the refusal without the script's text or place", tc.name, err)
			}
		})
	}
}

// TestACLRules: the roles' names, and no rules for an unknown role or an
// invalid namespace, so that a mistake never grants anything; CLIENT
// TRACKING only with WithClientCache.
func TestACLRules(t *testing.T) {
	roles := []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator}
	names := map[kuis.Role]string{kuis.RoleApp: "app", kuis.RoleTeacher: "teacher", kuis.RoleOperator: "operator",
		kuis.Role(99): "Role(99)", 0: "Role(0)"}
	for r, want := range names {
		if got := r.String(); got != want {
			t.Errorf("Role(%d).String() = %q, want %q", int(r), got, want)
		}
	}
	for _, tc := range []struct {
		role kuis.Role
		ns   string
	}{{99, "kuis"}, {0, "kuis"}, {kuis.RoleApp, "a:b"}, {kuis.RoleTeacher, "*"}, {kuis.RoleOperator, ""}} {
		if got := kuis.ACLRules(tc.role, kuis.WithNamespace(tc.ns)); got != nil {
			t.Errorf("ACLRules(%v, WithNamespace(%q)) = %q, want nil", tc.role, tc.ns, got)
		}
	}
	for _, r := range roles {
		if diff := cmp.Diff(kuis.ACLRules(r, kuis.WithNamespace(kuis.DefaultNamespace)), kuis.ACLRules(r)); diff != "" {
			t.Errorf("ACLRules(%v) (-kuis namespace +default):\n%s", r, diff)
		}
		if rules := kuis.ACLRules(r); slices.Contains(rules, "+client|tracking") {
			t.Errorf("ACLRules(%v) allows CLIENT TRACKING without WithClientCache: %q", r, rules)
		}
		if rules := kuis.ACLRules(r, cacheMinute); !slices.Contains(rules, "+client|tracking") {
			t.Errorf("ACLRules(%v, WithClientCache) does not allow CLIENT TRACKING: %q", r, rules)
		}
	}
}

// TestACLNoBroadcastTracking: without WithClientCache no role may turn on
// CLIENT TRACKING ON BCAST, which on a server without redis/redis#15371
// delivers invalidations naming every key that changes on the server.
func TestACLNoBroadcastTracking(t *testing.T) {
	skipWithoutACL(t)
	e := newEnv(t)
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
		c := aclUser(t, e, kuis.ACLRules(role, kuis.WithNamespace(e.ns)))
		err := c.Do(e.ctx, c.B().Arbitrary("CLIENT", "TRACKING").Args("ON", "BCAST").Build()).Error()
		if !strings.Contains(fmt.Sprint(err), "NOPERM") {
			t.Errorf("CLIENT TRACKING ON BCAST as %v: %v; want NOPERM", role, err)
		}
	}
}

// TestACLWhatRolesCanStillDo: the README's "What ACL cannot close", each
// write sent raw as its role on a reference quiz (finished where it says), and
// what Audit reports of it afterwards; a finished quiz the teacher sets back
// to berjalan counts answers again.
func TestACLWhatRolesCanStillDo(t *testing.T) {
	skipWithoutACL(t)
	e := newEnv(t)
	users := map[kuis.Role]rueidis.Client{}
	for _, r := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
		users[r] = aclUser(t, e, kuis.ACLRules(r, kuis.WithNamespace(e.ns)))
	}
	tests := []struct {
		name     string
		role     kuis.Role
		finished bool
		cmd      []string // the command, then its arguments after the key
		target   string   // the kind of key it is sent to (keyKinds)
		key      string   // the kind of key of Audit's violation
		rule     string   // its rule
		detail   string   // and a part of its detail
	}{
		{"app sets a score", kuis.RoleApp, false, []string{"ZADD", "500", "Ali"}, "board",
			"board", "score", `"Ali" has 500 points for 3 counted answers`},
		{"app empties the log", kuis.RoleApp, false, []string{"XADD", "MAXLEN", "0", "*", "peserta", "Eka", "soal", "1", "skor", "10"}, "log",
			"log", "log", `answer "1:Ali" is counted but not logged`},
		{"teacher appends to the log", kuis.RoleTeacher, false, []string{"XADD", "*", "peserta", "Eka", "soal", "1", "skor", "10"}, "log",
			"log", "log", `logs answer "1:Eka", which the answers set does not hold`},
		{"teacher empties the log", kuis.RoleTeacher, false, []string{"XADD", "MAXLEN", "0", "*", "status", "selesai"}, "log",
			"log", "log", `answer "3:Dewi" is counted but not logged`},
		{"teacher reopens a finished quiz", kuis.RoleTeacher, true, []string{"HSET", "status", "berjalan"}, "meta",
			"log", "log", "while the status is berjalan"},
		{"operator deletes meta", kuis.RoleOperator, false, []string{"UNLINK"}, "meta",
			"meta", "exists", "missing while other keys of the quiz exist"},
		{"operator deletes the log", kuis.RoleOperator, false, []string{"UNLINK"}, "log",
			"log", "exists", "missing while 9 answers are counted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, _, _ := e.reference()
			if tc.finished {
				e.finish(id)
			}
			c, key := users[tc.role], kindKey(e, id, "", tc.target)
			if err := c.Do(e.ctx, c.B().Arbitrary(tc.cmd[0]).Keys(key).Args(tc.cmd[1:]...).Build()).Error(); err != nil {
				t.Fatalf("%s %s %v as %v: %v", tc.cmd[0], key, tc.cmd[1:], tc.role, err)
			}
			if tc.finished { // finished no more: it takes answers again
				if a, err := e.board(id).RecordAnswer(e.ctx, "Eka", 1); err != nil || a != (kuis.Answer{Score: 10}) {
					t.Errorf("RecordAnswer after %s = %+v, %v; want it counted", tc.cmd[0], a, err)
				}
			}
			v, err := e.store.Audit(e.ctx, id)
			if err != nil {
				t.Fatalf("Audit: %v", err)
			}
			want := kindKey(e, id, "", tc.key)
			if !slices.ContainsFunc(v, func(x kuis.Violation) bool {
				return x.Key == want && x.Rule == tc.rule && strings.Contains(x.Detail, tc.detail)
			}) {
				t.Errorf("Audit = %v; want a %s violation of %s saying %q", v, tc.rule, want, tc.detail)
			}
		})
	}
}

// caseKeys are the keys of one ID: a quiz's, a course's, a class's, a key of
// the namespace that is none of the contract's, and a board of another
// namespace.
// All hold the ID in braces on a cluster (WithHashTag), so they share a slot.
type caseKeys struct {
	quiz           kuis.Keys
	course         kuis.CourseKeys
	class          kuis.ClassKeys
	other, outside string
}

// keyKind is one kind of key of the write matrix: its name as the README's
// roles table says it, its key among a case's, and the command (after the
// key) that makes one holding a value of its type.
type keyKind struct {
	name  string
	key   func(caseKeys) string
	value []string
}

// keyKinds are every kind of key of a namespace, and a key of another.
var keyKinds = []keyKind{
	{"meta", func(c caseKeys) string { return c.quiz.Meta() }, []string{"HSET", "judul", "Kuis", "jumlah_soal", "3", "status", "selesai"}},
	{"board", func(c caseKeys) string { return c.quiz.Board() }, []string{"ZADD", "10", "Ali"}},
	{"answers", func(c caseKeys) string { return c.quiz.Answers() }, []string{"SADD", "1:Ali"}},
	{"log", func(c caseKeys) string { return c.quiz.Log() }, []string{"XADD", "1-1", "peserta", "Ali", "soal", "1", "skor", "10"}}, // the entry XDEL's form names
	{"order", func(c caseKeys) string { return c.quiz.Order() }, []string{"ZADD", "1", "Ali"}},
	{"repair board", func(c caseKeys) string { return c.quiz.RepairBoard() }, []string{"ZADD", "10", "Ali"}},
	{"repair order", func(c caseKeys) string { return c.quiz.RepairOrder() }, []string{"ZADD", "1", "Ali"}},
	{"course board", func(c caseKeys) string { return c.course.Board() }, []string{"ZADD", "10", "Ali"}},
	{"course index", func(c caseKeys) string { return c.course.Quizzes() }, []string{"HSET", "q@0-0", "30 1 10 00000000000000000000000000000000 1"}},
	{"course ledger", func(c caseKeys) string { return c.course.Ledger("q", "0-0") }, []string{"HSET", "Ali", "10"}},
	{"roster", func(c caseKeys) string { return c.class.Roster() }, []string{"HSET", "Ali", "Ali"}}, // a field HDEL's form names
	{"roster names", func(c caseKeys) string { return c.class.Names() }, []string{"HSET", "Ali", "S1"}},
	{"roster look-alikes", func(c caseKeys) string { return c.class.Lookalikes() }, []string{"HSET", "Ali", "S1"}},
	{"other", func(c caseKeys) string { return c.other }, []string{"SET", "x"}},
	{"outside", func(c caseKeys) string { return c.outside }, []string{"ZADD", "10", "Ali"}},
}

// kind is the kind of key of that name.
func kind(t testing.TB, name string) keyKind {
	t.Helper()
	i := slices.IndexFunc(keyKinds, func(k keyKind) bool { return k.name == name })
	if i < 0 {
		t.Fatalf("no kind of key %q", name)
	}
	return keyKinds[i]
}

// kindKey is the key of the named kind for ID id of e's namespace; outside
// is another namespace.
func kindKey(e *env, id, outside, name string) string {
	e.t.Helper()
	c := caseKeys{quiz: e.keys(id), course: kuis.CourseKeysOf(e.store, id), class: e.class(id).Keys(),
		other: e.ns + ":lain:{" + id + "}", outside: outside + ":papan:{" + id + "}"}
	return kind(e.t, name).key(c)
}

// writeForms is how the matrix sends each write command: how many keys it
// names first (each of every kind), then its other arguments. XADD's form is
// the one that empties a log.
var writeForms = map[string]struct {
	keys int
	args []string
}{
	"HDEL":   {1, []string{"status", "Ali", "q@0-0"}}, // a field of meta, of a course ledger or a roster hash, of the course index
	"HSET":   {1, []string{"status", "berjalan"}},
	"HSETNX": {1, []string{"warna", "merah"}},
	"RENAME": {2, nil},
	"SADD":   {1, []string{"9:Eka"}},
	"SREM":   {1, []string{"1:Ali"}},
	"UNLINK": {1, nil},
	"XADD":   {1, []string{"MAXLEN", "0", "*", "peserta", "Eka", "soal", "1", "skor", "10"}},
	"XDEL":   {1, []string{"1-1"}},
	"ZADD":   {1, []string{"20", "Eka"}},
	"ZREM":   {1, []string{"Ali"}},
}

// roleWrites is the README's roles table: the kinds of key each role's
// operations write. The operator also deletes every key of the namespace
// (Purge, PurgeQuiz: "What ACL cannot close").
var roleWrites = map[kuis.Role][]string{
	kuis.RoleApp:      {"board", "answers", "log", "order"},
	kuis.RoleTeacher:  {"meta", "log", "roster", "roster names", "roster look-alikes"},
	kuis.RoleOperator: {"board", "order", "repair board", "repair order", "course board", "course index", "course ledger"},
}

// erased are the kinds of key the operator may also remove members,
// entries and fields of, with SREM, XDEL and HDEL (Erase: "What ACL cannot
// close").
var erased = []string{"answers", "log", "roster", "roster names", "roster look-alikes"}

// mayWrite is the expected matrix: whether role may send cmd naming keys of
// these kinds.
func mayWrite(role kuis.Role, cmd string, kinds []string) bool {
	for _, k := range kinds {
		deletes := role == kuis.RoleOperator && cmd == "UNLINK" && k != "outside"
		erases := role == kuis.RoleOperator && slices.Contains([]string{"SREM", "XDEL", "HDEL"}, cmd) && slices.Contains(erased, k)
		if !deletes && !erases && !slices.Contains(roleWrites[role], k) {
			return false
		}
	}
	return true
}

// grantedWrites asks the server which commands the rules of user grant
// (ACL GETUSER: at top level and in every selector) and returns, sorted,
// those COMMAND INFO flags "write".
func grantedWrites(t *testing.T, e *env, user string) []string {
	t.Helper()
	node := e.client.Nodes()[redistest.Nodes()[0]]
	u, err := node.Do(e.ctx, node.B().AclGetuser().Username(user).Build()).AsMap()
	if err != nil {
		t.Fatalf("ACL GETUSER %s: %v", user, err)
	}
	rules, sel := []rueidis.RedisMessage{u["commands"]}, u["selectors"]
	selectors, err := sel.ToArray()
	if err != nil {
		t.Fatalf("ACL GETUSER %s selectors: %v", user, err)
	}
	for _, s := range selectors {
		m, err := s.AsMap()
		if err != nil {
			t.Fatalf("ACL GETUSER %s selector: %v", user, err)
		}
		rules = append(rules, m["commands"])
	}
	var granted []string
	for _, r := range rules {
		s, err := r.ToString()
		if err != nil {
			t.Fatalf("ACL GETUSER %s commands: %v", user, err)
		}
		var set []string // GETUSER writes the rules short, with categories: read them in order
		for _, tok := range strings.Fields(s) {
			names := []string{tok[1:]}
			switch cat, isCat := strings.CutPrefix(tok[1:], "@"); {
			case tok == "-@all":
				set = nil
				continue
			case isCat && cat != "all":
				if names, err = node.Do(e.ctx, node.B().AclCat().Categoryname(cat).Build()).AsStrSlice(); err != nil {
					t.Fatalf("ACL CAT %s: %v", cat, err)
				}
			case isCat:
				t.Fatalf("ACL GETUSER %s: %s", user, tok)
			}
			if tok[0] == '+' {
				set = append(set, names...)
			} else {
				set = slices.DeleteFunc(set, func(c string) bool { return slices.Contains(names, c) })
			}
		}
		granted = append(granted, set...)
	}
	slices.Sort(granted)
	granted = slices.Compact(granted)
	infos, err := node.Do(e.ctx, node.B().CommandInfo().CommandName(granted...).Build()).ToArray()
	if err != nil || len(infos) != len(granted) {
		t.Fatalf("COMMAND INFO %v: %d replies, %v", granted, len(infos), err)
	}
	var writes []string
	for i, info := range infos {
		fields, err := info.ToArray()
		if err != nil || len(fields) < 3 {
			t.Fatalf("COMMAND INFO %s: %v", granted[i], err)
		}
		flags, err := fields[2].AsStrSlice()
		if err != nil {
			t.Fatalf("COMMAND INFO %s flags: %v", granted[i], err)
		}
		if slices.Contains(flags, "write") {
			writes = append(writes, strings.ToUpper(granted[i]))
		}
	}
	slices.Sort(writes)
	return slices.Compact(writes)
}

// writeCase is one write of the matrix: a command naming keys of given kinds.
type writeCase struct {
	cmd   string
	kinds []string
}

// writeCases is every write command of cmds sent to every kind of key, each
// key position taking every kind.
func writeCases(t *testing.T, cmds []string) []writeCase {
	t.Helper()
	var out []writeCase
	for _, cmd := range cmds {
		form, ok := writeForms[cmd]
		if !ok {
			t.Fatalf("the rules grant the write command %s, which writeForms cannot send: add its form", cmd)
		}
		combos := [][]string{nil}
		for range form.keys {
			var next [][]string
			for _, c := range combos {
				for _, k := range keyKinds {
					next = append(next, append(slices.Clip(c), k.name))
				}
			}
			combos = next
		}
		for _, kinds := range combos {
			out = append(out, writeCase{cmd, kinds})
		}
	}
	return out
}

// TestACLWrites: every write command a role's rules grant, as the server
// reads them (ACL GETUSER, COMMAND INFO), sent as the role to every kind of
// key of the namespace and to another namespace's, at top level and inside
// EVAL with its keys declared, is allowed exactly where the README's roles
// table and its "What ACL cannot close" say (mayWrite); a refused write
// changes nothing, and an allowed one that answers no error changed a key
// (XADD MAXLEN 0 empties a log), unless it renames a key onto itself.
func TestACLWrites(t *testing.T) {
	skipWithoutACL(t)
	e := newEnv(t)
	outside := newEnv(t) // its cleanup deletes the outside keys
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
		t.Run(role.String(), func(t *testing.T) {
			name, password := setUser(t, e, kuis.ACLRules(role, kuis.WithNamespace(e.ns)))
			c := redistest.ClientAsUncached(t, name, password)
			cmds := grantedWrites(t, e, name)
			if len(cmds) == 0 {
				t.Fatalf("ACL GETUSER %s grants no write command: a role's scripts write", name)
			}
			t.Logf("%v writes with %v", role, cmds)
			for _, wc := range writeCases(t, cmds) {
				for _, inScript := range []bool{false, true} {
					checkWrite(t, e, outside.ns, c, role, wc, inScript)
				}
			}
		})
	}
}

// checkWrite makes wc's keys afresh, sends wc as client c of role, at top
// level or inside EVAL, and checks the reply and the keys against mayWrite.
func checkWrite(t *testing.T, e *env, outside string, c rueidis.Client, role kuis.Role, wc writeCase, inScript bool) {
	t.Helper()
	id := quizID()
	var keys []string
	for _, name := range wc.kinds {
		key := kindKey(e, id, outside, name)
		if !slices.Contains(keys, key) {
			v := kind(t, name).value
			e.mustRaw(v[0], key, v[1:]...)
		}
		keys = append(keys, key)
	}
	form := writeForms[wc.cmd]
	args := append(append([]string{wc.cmd}, keys...), form.args...)
	before := e.dump(keys...)
	var err error
	if inScript {
		err = c.Do(e.ctx, c.B().Eval().Script("return redis.call(unpack(ARGV))").Numkeys(int64(len(keys))).
			Key(keys...).Arg(args...).Build()).Error()
	} else {
		err = c.Do(e.ctx, c.B().Arbitrary(wc.cmd).Keys(keys...).Args(form.args...).Build()).Error()
	}
	after := e.dump(keys...)
	where := "at top level"
	if inScript {
		where = "inside EVAL"
	}
	about := fmt.Sprintf("%v %s %s %s", role, wc.cmd, strings.Join(wc.kinds, ", "), where)
	selfRename := len(keys) == 2 && keys[0] == keys[1] // RENAME k k: allowed, and changes nothing
	switch want := mayWrite(role, wc.cmd, wc.kinds); {
	case !want && !isRefusal(err):
		t.Errorf("%s: err = %v, want a refusal", about, err)
	case !want && !cmp.Equal(before, after):
		t.Errorf("%s: refused, and changed keys (-before +after):\n%s", about, cmp.Diff(before, after))
	case want && isRefusal(err):
		t.Errorf("%s: refused (%v), want allowed", about, err)
	case want && err != nil && !strings.Contains(err.Error(), "WRONGTYPE"):
		t.Errorf("%s: err = %v, want none or WRONGTYPE", about, err)
	case want && err == nil && !selfRename && cmp.Equal(before, after):
		t.Errorf("%s: allowed and wrote nothing to %v", about, keys)
	}
}

// A course's roles: what its readers may read and its operator may write.

// courseReadsOf runs every read of a course, and Board.Teams of the quiz,
// and returns the results by name (an error in place of a failed read's).
func courseReadsOf(ctx context.Context, c *kuis.Course, b *kuis.Board) map[string]any {
	out := readResults{}
	pick := out.pick
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

// classReadsOf runs every read of a class and returns the results by name
// (an error in place of a failed read's).
func classReadsOf(ctx context.Context, c *kuis.Class) map[string]any {
	out := readResults{}
	pick := out.pick
	v1, err := c.Students(ctx)
	pick("Students", v1, err)
	v2, err := c.Student(ctx, "S2")
	pick("Student", v2, err)
	v3, err := c.Lookup(ctx, "Budi")
	pick("Lookup", v3, err)
	v4, err := c.Lookup(ctx, "Zahra")
	pick("Lookup of nobody", v4, err)
	return out
}

// TestACLClassRoles: users made from ACLRules of each role, with and
// without the client-side cache, read a class's roster as the teacher
// keeps it; the teacher enrolls, withdraws and audits, the operator audits
// and deletes the roster with Purge; the app and the operator are refused,
// with nothing written, every Enroll and Withdraw (the app Audit too), and
// the server refuses them every write to the roster's keys, and the
// teacher their deletes.
func TestACLClassRoles(t *testing.T) {
	t.Parallel()
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
		t.Run(role.String(), func(t *testing.T) {
			eachCache(t, func(t *testing.T, cached bool) {
				e := newEnv(t)
				c := e.enrolled(kuis.Student{ID: "S1", Name: "Ali"}, kuis.Student{ID: "S2", Name: "Budi"})
				want := classReadsOf(e.ctx, c)
				rs, raw := roleStore(t, e, role, cached, kuis.Tuning{})
				rc, err := rs.Class(c.Keys().ClassID())
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, classReadsOf(e.ctx, rc)); diff != "" {
					t.Errorf("reads as %v (-admin +%v):\n%s", role, role, diff)
				}
				keys := rosterKeys(c)
				k := c.Keys()
				enroll := func() error { return rc.Enroll(e.ctx, kuis.Student{ID: "S3", Name: "Citra"}) }
				withdraw := func() error { return rc.Withdraw(e.ctx, "S1") }
				audit := func() error { _, err := rc.Audit(e.ctx); return err }
				if role == kuis.RoleTeacher {
					if err := enroll(); err != nil {
						t.Errorf("Enroll as teacher: %v", err)
					}
					if err := withdraw(); err != nil {
						t.Errorf("Withdraw as teacher: %v", err)
					}
					if got, err := c.Students(e.ctx); err != nil || !cmp.Equal(got, []kuis.Student{{"S2", "Budi"}, {"S3", "Citra"}}) {
						t.Errorf("Students after the teacher's Enroll and Withdraw = %v, %v", got, err)
					}
					e.mustRaw("HSET", k.Names(), "Zahra", "S9")
					wantAudit := []kuis.Violation{{Key: k.Names(), Rule: "names", Detail: `name "Zahra" names student "S9", who is not enrolled`}}
					if v, err := rc.Audit(e.ctx); err != nil || !cmp.Equal(wantAudit, v) {
						t.Errorf("Audit as teacher = %v, %v; want %v", v, err, wantAudit)
					}
					checkRefused(t, e, keys, isRefusal,
						rawAs(e.ctx, raw, "UNLINK", k.Roster()),
						rawAs(e.ctx, raw, "DEL", k.Names()),
						rawAs(e.ctx, raw, "RENAME", k.Roster(), k.Names()),
					)
					return
				}
				calls := []refusedCall{{"Enroll", enroll}}
				refusedRaw := []refusedCall{
					rawAs(e.ctx, raw, "HSET", k.Roster(), "S9", "Zahra"),
					rawAs(e.ctx, raw, "HSET", k.Names(), "Zahra", "S9"),
					evalAs(e.ctx, raw, "return redis.call('HSET', KEYS[1], 'S9', 'Zahra')", k.Roster()),
				}
				if role == kuis.RoleApp {
					calls = append(calls, refusedCall{"Audit", audit}, refusedCall{"Withdraw", withdraw})
					refusedRaw = append(refusedRaw, rawAs(e.ctx, raw, "HDEL", k.Roster(), "S1"), rawAs(e.ctx, raw, "HDEL", k.Lookalikes(), "ali"))
				} else if v, err := rc.Audit(e.ctx); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
					t.Errorf("Audit as operator = %v, %v; want no violations", v, err)
				}
				checkRefused(t, e, keys, isForbidden, calls...)
				checkRefused(t, e, keys, isRefusal, refusedRaw...)
				if role == kuis.RoleOperator {
					// Erasure's removals let the operator withdraw a student
					// (the README's "What ACL cannot close").
					if err := withdraw(); err != nil {
						t.Errorf("Withdraw as operator: %v", err)
					}
					if got, err := c.Students(e.ctx); err != nil || !cmp.Equal(got, []kuis.Student{{"S2", "Budi"}}) {
						t.Errorf("Students after the operator's Withdraw = %v, %v", got, err)
					}

					if n, err := rs.Purge(e.ctx); err != nil || n != 3 {
						t.Errorf("Purge as operator = %d, %v; want the roster's 3 keys", n, err)
					}
					if diff := cmp.Diff(gone(keys...), e.dump(keys...)); diff != "" {
						t.Errorf("after Purge (-want +got):\n%s", diff)
					}
				}
			})
		})
	}
}

// TestACLErase: users of ACLRules(RoleApp) and ACLRules(RoleTeacher) are
// refused Store.Erase and Class.Erase (ErrForbidden) with nothing written;
// the operator's erases the participant everywhere.
func TestACLErase(t *testing.T) {
	skipWithoutACL(t)
	tm := newTerm(t)
	e := tm.e
	before := tm.read()
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher} {
		rs, _ := roleStore(t, e, role, false, kuis.Tuning{})
		if got, err := rs.Erase(e.ctx, "Ali"); !isForbidden(err) || !got.Empty() {
			t.Errorf("Erase as %v = %+v, %v; want ErrForbidden, nothing erased", role, got, err)
		}
		class, err := rs.Class("8a")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := class.Erase(e.ctx, "S-ALI"); !isForbidden(err) || !got.Empty() {
			t.Errorf("Class.Erase as %v = %+v, %v; want ErrForbidden, nothing erased", role, got, err)
		}
	}
	if diff := cmp.Diff(before.contents, e.contents()); diff != "" {
		t.Errorf("refused erasures changed the namespace (-before +after):\n%s", diff)
	}
	rs, _ := roleStore(t, e, kuis.RoleOperator, false, kuis.Tuning{})
	if got, err := rs.Erase(e.ctx, "Ali"); err != nil || len(got.Quizzes) != 3 || len(got.Courses) != 2 || len(got.Classes) != 1 {
		t.Fatalf("Erase as operator = %+v, %v; want 3 quizzes, 2 courses, 1 class", got, err)
	}
	tm.checkErased(t, before)
}
