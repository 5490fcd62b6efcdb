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
// rules allow CLIENT TRACKING. It skips the test on miniredis.
func aclUser(t *testing.T, e *env, rules []string) rueidis.Client {
	t.Helper()
	skipWithoutACL(t)
	if len(rules) == 0 {
		t.Fatal("no ACL rules")
	}
	name, password := "kuis-"+redistest.Namespace(t), redistest.Namespace(t)
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
	if !slices.Contains(rules, "+client|tracking") {
		return redistest.ClientAsUncached(t, name, password)
	}
	return redistest.ClientAs(t, name, password)
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
// operator may do, and any other namespace.
func TestACLAppRole(t *testing.T) {
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
			"Len": int64(3), "Get": kuis.Info{Title: "Kuis " + timed, Questions: 3, Status: kuis.StatusRunning}, "Status": kuis.StatusRunning}
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
			rawAs(e.ctx, app, "UNLINK", k.Board()),
			rawAs(e.ctx, app, "SCAN", "0"),
			evalAs(e.ctx, app, "return redis.call('HSET', KEYS[1], 'status', 'selesai')", k.Meta()),
			rawAs(e.ctx, app, "ZINCRBY", other.keys(otherID).Board(), "10", "Ali"),
			rawAs(e.ctx, app, "HGETALL", "kuis:meta:kuis-01"),
		)
	})
}

// TestACLTeacherRole: a user made from ACLRules(RoleTeacher), with and
// without the client-side cache, runs every read, creates, finishes, audits
// and recaps; it is refused, with nothing written, every answer, everything
// only the operator may do, and any other namespace, and the server refuses
// it every write to board, answers and order set, UNLINK, RENAME and SCAN.
func TestACLTeacherRole(t *testing.T) {
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
			rawAs(e.ctx, teacher, "XADD", ko.Log(), "*", "status", "selesai"),
			rawAs(e.ctx, teacher, "HSET", ko.Meta(), "status", "selesai"),
			evalAs(e.ctx, teacher, "return redis.call('ZINCRBY', KEYS[1], 10, 'Ali')", k.Board()),
		)
		e.mustRaw("ZINCRBY", k.Board(), "-10", "Dewi") // as the answers made it again

		_, fm := handles(t, ts, fresh)
		if err := fm.Create(e.ctx, "Kuis guru", 2); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if info, err := fm.Get(e.ctx); err != nil || info != (kuis.Info{Title: "Kuis guru", Questions: 2, Status: kuis.StatusRunning}) {
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
// server refuses it HSET on meta, XADD to the log and SADD to the answers.
func TestACLOperatorRole(t *testing.T) {
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
		checkRefused(t, e, keys, isRefusal,
			rawAs(e.ctx, operator, "HSET", k.Meta(), "status", "selesai"),
			rawAs(e.ctx, operator, "XADD", k.Log(), "*", "status", "selesai"),
			rawAs(e.ctx, operator, "SADD", k.Answers(), "3:Eka"),
			evalAs(e.ctx, operator, "return redis.call('HSET', KEYS[1], 'status', 'selesai')", k.Meta()),
		)

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

// TestACLWhatRolesCanStillDo: what ACL cannot close, and what Audit reports
// of it. Scripts run with their caller's rights, so the app can ZADD its
// board directly, with any score, and the teacher, who writes the log's
// finish entry, can append any entry to the log.
func TestACLWhatRolesCanStillDo(t *testing.T) {
	skipWithoutACL(t)
	e := newEnv(t)
	id, _, _ := e.reference()
	k := e.keys(id)
	app := aclUser(t, e, kuis.ACLRules(kuis.RoleApp, kuis.WithNamespace(e.ns)))
	teacher := aclUser(t, e, kuis.ACLRules(kuis.RoleTeacher, kuis.WithNamespace(e.ns)))
	if err := app.Do(e.ctx, app.B().Zadd().Key(k.Board()).ScoreMember().ScoreMember(500, "Ali").Build()).Error(); err != nil {
		t.Fatalf("ZADD of the board as the app: %v", err)
	}
	if err := teacher.Do(e.ctx, teacher.B().Xadd().Key(k.Log()).Id("*").FieldValue().
		FieldValue("peserta", "Eka").FieldValue("soal", "1").FieldValue("skor", "10").Build()).Error(); err != nil {
		t.Fatalf("XADD to the log as the teacher: %v", err)
	}
	v, err := e.store.Audit(e.ctx, id)
	if err != nil || !hasViolation(v, k.Board(), "score") || !hasViolation(v, k.Log(), "log") {
		t.Errorf("Audit = %+v, %v; want a score violation on %s and a log violation on %s", v, err, k.Board(), k.Log())
	}
}
