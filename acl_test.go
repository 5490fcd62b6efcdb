package kuis_test

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// aclUser creates, on every node of the target, a user of a unique name with
// `ACL SETUSER <name> reset on >pw` followed by kuis.ACLRules(role, opts...),
// and returns a client logged in as that user. The user is deleted at cleanup.
// On miniredis, which has no ACL, the test is skipped.
func aclUser(t *testing.T, e *env, role kuis.Role, opts ...kuis.Option) rueidis.Client {
	t.Helper()
	rules := kuis.ACLRules(role, opts...)
	if rules == nil {
		t.Fatalf("ACLRules(%v) = nil", role)
	}
	return aclUserWith(t, e, role.String(), rules)
}

// aclUserWith is aclUser with the rules given.
func aclUserWith(t *testing.T, e *env, kind string, rules []string) rueidis.Client {
	t.Helper()
	aclOnly(t)
	name := "kuis-" + kind + "-" + redistest.Namespace(t)
	password := redistest.Namespace(t)
	nodes := e.client.Nodes()
	for _, addr := range redistest.Nodes() {
		if _, ok := nodes[addr]; !ok {
			t.Fatalf("node %s is not among the client's nodes %v", addr, nodes)
		}
	}
	t.Cleanup(func() {
		for addr, node := range nodes {
			if err := node.Do(context.Background(), node.B().AclDeluser().Username(name).Build()).Error(); err != nil {
				t.Errorf("ACL DELUSER %s on %s: %v", name, addr, err)
			}
		}
	})
	for addr, node := range nodes {
		args := append([]string{"SETUSER", name, "reset", "on", ">" + password}, rules...)
		if err := node.Do(e.ctx, node.B().Arbitrary("ACL").Args(args...).Build()).Error(); err != nil {
			t.Fatalf("ACL SETUSER %s on %s: %v", name, addr, err)
		}
	}
	return redistest.ClientAs(t, name, password)
}

// aclOnly skips tests that need the server's ACL.
func aclOnly(t *testing.T) {
	t.Helper()
	if !redistest.Real() {
		t.Skip("ACL needs a real Redis: miniredis has no ACL")
	}
}

// snapshot returns every key of the env's namespace with its type and
// content, read by the env's (unrestricted) client, to prove refused calls
// wrote nothing.
func snapshot(t *testing.T, e *env) map[string]string {
	t.Helper()
	out := map[string]string{}
	for key := range keysByNode(t, e) {
		typ, err := e.mustRaw("TYPE", key).ToString()
		if err != nil {
			t.Fatal(err)
		}
		var content []string
		switch typ {
		case "hash":
			m, err := e.mustRaw("HGETALL", key).AsStrMap()
			if err != nil {
				t.Fatal(err)
			}
			for f, v := range m {
				content = append(content, f+"="+v)
			}
			sort.Strings(content)
		case "zset":
			zs, err := e.mustRaw("ZRANGE", key, "0", "-1", "WITHSCORES").AsZScores()
			if err != nil {
				t.Fatal(err)
			}
			for _, z := range zs {
				content = append(content, z.Member+"="+strconv.FormatFloat(z.Score, 'f', -1, 64))
			}
		case "set":
			if content, err = e.mustRaw("SMEMBERS", key).AsStrSlice(); err != nil {
				t.Fatal(err)
			}
			sort.Strings(content)
		}
		out[key] = typ + " " + strings.Join(content, ",")
	}
	return out
}

// isNoPerm reports whether err is the server's NOPERM refusal.
func isNoPerm(err error) bool {
	re, ok := rueidis.IsRedisErr(err)
	return ok && strings.HasPrefix(re.Error(), "NOPERM")
}

// readsMatch checks that every cached-or-plain read of the restricted
// handles answers what the unrestricted handles answer.
func readsMatch(t *testing.T, e *env, id string, c rueidis.Client, extra ...kuis.Option) {
	t.Helper()
	opts := append(append([]kuis.Option{}, e.opts...), extra...)
	m, err := kuis.NewMeta(c, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := kuis.NewBoard(c, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cachedReads {
		want, err := tc.read(e.ctx, e.meta(id), e.board(id))
		if err != nil {
			t.Fatalf("%s as admin: %v", tc.name, err)
		}
		for range 2 { // a miss, then a cache hit where caching is on
			got, err := tc.read(e.ctx, m, b)
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, diff)
			}
		}
	}
}

// finishedQuiz creates a quiz with one answer and finishes it.
func finishedQuiz(t *testing.T, e *env) string {
	t.Helper()
	id, m, b := e.running(3)
	if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	return id
}

// forbiddenCall is a call the ACL must refuse.
type forbiddenCall struct {
	name string
	call func() error
}

// isForbidden is the refusal of a library call.
func isForbidden(err error) bool { return errors.Is(err, kuis.ErrForbidden) }

// isRefusal reports whether err, from a raw command, is the server's ACL refusal: NOPERM, or the
// words Redis 7.0 uses for a command refused inside a script.
func isRefusal(err error) bool {
	re, ok := rueidis.IsRedisErr(err)
	if !ok {
		return false
	}
	msg := re.Error()
	return strings.HasPrefix(msg, "NOPERM") || strings.Contains(msg, "can't run this command") ||
		strings.Contains(msg, "can't access") || strings.Contains(msg, "no permissions")
}

// rawCalls sends the commands, each about its key, as c; the server must refuse each.
func rawCalls(ctx context.Context, c rueidis.Client, cmds ...[]string) []forbiddenCall {
	var out []forbiddenCall
	for _, cmd := range cmds {
		out = append(out, forbiddenCall{name: "raw " + strings.Join(cmd, " "), call: func() error {
			if cmd[0] == "EVAL" { // EVAL script 1 key: routed by its key on a cluster
				return c.Do(ctx, c.B().Eval().Script(cmd[1]).Numkeys(1).Key(cmd[2]).Build()).Error()
			}
			return c.Do(ctx, c.B().Arbitrary(cmd[0]).Keys(cmd[1]).Args(cmd[2:]...).Build()).Error()
		}})
	}
	return out
}

// checkForbidden runs each call, wants refused(err), and wants every env's
// namespace unchanged afterwards.
func checkForbidden(t *testing.T, refused func(error) bool, calls []forbiddenCall, envs ...*env) {
	t.Helper()
	before := make([]map[string]string, len(envs))
	for i, e := range envs {
		if before[i] = snapshot(t, e); len(before[i]) == 0 {
			t.Fatalf("namespace %s is empty: the refusals would have nothing to spare", e.ns)
		}
	}
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !refused(err) {
				t.Errorf("err = %v, want a refusal", err)
			}
		})
	}
	for i, e := range envs {
		if diff := cmp.Diff(before[i], snapshot(t, e)); diff != "" {
			t.Errorf("refused calls changed namespace %s (-before +after):\n%s", e.ns, diff)
		}
	}
}

// TestACLAppRoleRecordsAndReadsButWritesNoMeta: a user made from
// ACLRules(RoleApp) records answers by both paths and reads the board and meta
// (cached or not), and is refused, with nothing written, every meta write,
// Purge, PurgeQuiz and every key outside its namespace.
func TestACLAppRoleRecordsAndReadsButWritesNoMeta(t *testing.T) {
	aclOnly(t)
	e := newEnv(t)
	other := newEnv(t) // another namespace on the same server
	app := aclUser(t, e, kuis.RoleApp, kuis.WithNamespace(e.ns))
	id, _, _ := e.reference()
	done := finishedQuiz(t, e)
	otherID, _, _ := other.reference()

	board := func(c rueidis.Client, e *env, id string, extra ...kuis.Option) *kuis.Board {
		b, err := kuis.NewBoard(c, id, append(append([]kuis.Option{}, e.opts...), extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	meta := func(c rueidis.Client, e *env, id string, extra ...kuis.Option) *kuis.Meta {
		m, err := kuis.NewMeta(c, id, append(append([]kuis.Option{}, e.opts...), extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	t.Run("records", func(t *testing.T) {
		b := board(app, e, id)
		if s, err := b.RecordCorrect(e.ctx, "Ali"); err != nil || s != 40 {
			t.Errorf("RecordCorrect = %d, %v; want 40", s, err)
		}
		a, err := b.RecordAnswer(e.ctx, "Eka", 1)
		if diff := cmp.Diff(kuis.Answer{Score: 10}, a); err != nil || diff != "" {
			t.Errorf("RecordAnswer: %v (-want +got):\n%s", err, diff)
		}
		as, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Eka", 2}, {"Eka", 1}})
		if diff := cmp.Diff([]kuis.Answer{{Score: 20}, {Score: 20, Duplicate: true}}, as); err != nil || diff != "" {
			t.Errorf("RecordAnswers: %v (-want +got):\n%s", err, diff)
		}
		// The server holds what the app wrote.
		if s, err := e.board(id).Score(e.ctx, "Eka"); err != nil || s != 20 {
			t.Errorf("Score(Eka) as admin = %d, %v; want 20", s, err)
		}
	})
	t.Run("reads", func(t *testing.T) { readsMatch(t, e, id, app) })
	t.Run("cached reads", func(t *testing.T) { readsMatch(t, e, id, app, withCacheMinute) })

	var archived bool
	checkForbidden(t, isForbidden, []forbiddenCall{
		{"Create missing quiz", func() error { return meta(app, e, quizID()).Create(e.ctx, "Kuis baru", 3) }},
		{"Create existing quiz", func() error { return meta(app, e, id).Create(e.ctx, "Kuis lagi", 3) }},
		{"Finish running quiz", func() error { return meta(app, e, id).Finish(e.ctx) }},
		{"Finish finished quiz", func() error { return meta(app, e, done).Finish(e.ctx) }},
		{"Purge", func() error {
			_, err := kuis.Purge(e.ctx, app, e.opts...)
			return err
		}},
		{"Purge small pages", func() error {
			_, err := kuis.Purge(e.ctx, app, append(append([]kuis.Option{}, e.opts...), kuis.WithScanCount(1))...)
			return err
		}},
		{"PurgeQuiz", func() error {
			_, err := kuis.PurgeQuiz(e.ctx, app, done, func(context.Context, kuis.Recap) error {
				archived = true
				return nil
			}, e.opts...)
			return err
		}},
		{"other namespace RecordCorrect", func() error {
			_, err := board(app, other, otherID).RecordCorrect(e.ctx, "Ali")
			return err
		}},
		{"other namespace RecordAnswer", func() error {
			_, err := board(app, other, otherID).RecordAnswer(e.ctx, "Ali", 1)
			return err
		}},
		{"other namespace Standings", func() error {
			_, err := board(app, other, otherID).Standings(e.ctx)
			return err
		}},
		{"other namespace cached Standings", func() error {
			_, err := board(app, other, otherID, withCacheMinute).Standings(e.ctx)
			return err
		}},
		{"other namespace Get", func() error {
			_, err := meta(app, other, otherID).Get(e.ctx)
			return err
		}},
		{"other namespace Create", func() error { return meta(app, other, quizID()).Create(e.ctx, "Kuis", 3) }},
	}, e, other)
	// The server, not only the API, keeps the application off meta and off deletes.
	k := e.board(id).Keys()
	checkForbidden(t, isRefusal, rawCalls(e.ctx, app,
		[]string{"HSET", k.Meta(), "status", "selesai"},
		[]string{"DEL", k.Meta()},
		[]string{"UNLINK", k.Board()},
		[]string{"EVAL", "return redis.call('HSET', KEYS[1], 'status', 'selesai')", k.Meta()},
		[]string{"ZINCRBY", other.board(otherID).Keys().Board(), "10", "Ali"},
	), e, other)
	if archived {
		t.Error("PurgeQuiz archived a recap it was refused")
	}

	for _, key := range []string{other.ns + ":papan:x", "kuis:papan:kuis-01", "kuis:meta:kuis-01", e.ns + "x:papan:x"} {
		err := app.Do(e.ctx, app.B().Get().Key(key).Build()).Error()
		if !isNoPerm(err) {
			t.Errorf("GET %s as app: %v, want NOPERM", key, err)
		}
	}
}

// TestACLTeacherRoleManagesQuizzesButNeverScores: a user made from
// ACLRules(RoleTeacher) is refused every record path with nothing written, and
// creates, finishes, reads, audits, recaps, lists and purges its namespace,
// and nothing of another namespace.
func TestACLTeacherRoleManagesQuizzesButNeverScores(t *testing.T) {
	aclOnly(t)
	e := newEnv(t)
	other := newEnv(t)
	teacher := aclUser(t, e, kuis.RoleTeacher, kuis.WithNamespace(e.ns))
	id, _, b := e.reference()
	if _, err := b.RecordAnswer(e.ctx, "Eka", 1); err != nil { // so that the answers set exists
		t.Fatal(err)
	}
	otherID := finishedQuiz(t, other)
	opts := e.opts
	tb, err := kuis.NewBoard(teacher, id, opts...)
	if err != nil {
		t.Fatal(err)
	}

	checkForbidden(t, isForbidden, []forbiddenCall{
		{"RecordCorrect", func() error {
			_, err := tb.RecordCorrect(e.ctx, "Ali")
			return err
		}},
		{"RecordAnswer new pair", func() error {
			_, err := tb.RecordAnswer(e.ctx, "Fajar", 1)
			return err
		}},
		{"RecordAnswer answered pair", func() error {
			_, err := tb.RecordAnswer(e.ctx, "Eka", 1)
			return err
		}},
		{"RecordAnswers", func() error {
			_, err := tb.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Fajar", 2}, {"Ali", 3}})
			return err
		}},
		{"other namespace Create", func() error {
			m, err := kuis.NewMeta(teacher, quizID(), other.opts...)
			if err != nil {
				return err
			}
			return m.Create(e.ctx, "Kuis", 3)
		}},
		{"other namespace Get", func() error {
			m, err := kuis.NewMeta(teacher, otherID, other.opts...)
			if err != nil {
				return err
			}
			_, err = m.Get(e.ctx)
			return err
		}},
		{"other namespace TakeRecap", func() error {
			_, err := kuis.TakeRecap(e.ctx, teacher, otherID, other.opts...)
			return err
		}},
		{"other namespace PurgeQuiz", func() error {
			_, err := kuis.PurgeQuiz(e.ctx, teacher, otherID, func(context.Context, kuis.Recap) error { return nil }, other.opts...)
			return err
		}},
		{"other namespace Purge", func() error {
			_, err := kuis.Purge(e.ctx, teacher, other.opts...)
			return err
		}},
	}, e, other)
	// The server, not only the API, keeps the teacher off scores and answers.
	k := tb.Keys()
	checkForbidden(t, isRefusal, rawCalls(e.ctx, teacher,
		[]string{"ZINCRBY", k.Board(), "10", "Ali"},
		[]string{"ZADD", k.Board(), "100", "Ali"},
		[]string{"ZREM", k.Board(), "Ali"},
		[]string{"SADD", k.Answers(), "2:Ali"},
		[]string{"EVAL", "return redis.call('ZINCRBY', KEYS[1], 10, 'Ali')", k.Board()},
	), e, other)

	t.Run("reads", func(t *testing.T) { readsMatch(t, e, id, teacher) })
	t.Run("cached reads", func(t *testing.T) { readsMatch(t, e, id, teacher, withCacheMinute) })

	fresh := quizID()
	tm, err := kuis.NewMeta(teacher, fresh, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := tm.Create(e.ctx, "Kuis guru", 2); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if info, err := tm.Get(e.ctx); err != nil || info != (kuis.Info{Title: "Kuis guru", Questions: 2, Status: kuis.StatusRunning}) {
		t.Errorf("Get = %+v, %v", info, err)
	}
	tm, err = kuis.NewMeta(teacher, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := tm.Finish(e.ctx); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	if s, err := tm.Status(e.ctx); err != nil || s != kuis.StatusFinished {
		t.Errorf("Status after Finish = %q, %v", s, err)
	}
	if v, err := kuis.Audit(e.ctx, teacher, id, opts...); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
	standings, err := e.board(id).Standings(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	recap, err := kuis.TakeRecap(e.ctx, teacher, id, opts...)
	if err != nil {
		t.Fatalf("TakeRecap: %v", err)
	}
	if diff := cmp.Diff(standings, recap.Standings); diff != "" || recap.Info.Status != kuis.StatusFinished {
		t.Errorf("TakeRecap status %q, standings (-want +got):\n%s", recap.Info.Status, diff)
	}
	if ids, err := kuis.Quizzes(e.ctx, teacher, opts...); err != nil || !cmp.Equal(sortedIDs([]string{id, fresh}), ids) {
		t.Errorf("Quizzes = %v, %v; want %v", ids, err, sortedIDs([]string{id, fresh}))
	}
	var archived kuis.Recap
	n, err := kuis.PurgeQuiz(e.ctx, teacher, id, func(_ context.Context, r kuis.Recap) error {
		archived = r
		return nil
	}, opts...)
	if err != nil || n != 3 || len(archived.Standings) != len(standings) {
		t.Errorf("PurgeQuiz = %d, %v, archived %d standings; want 3, nil, %d", n, err, len(archived.Standings), len(standings))
	}
	// Only the fresh quiz's meta is left.
	if n, err := kuis.Purge(e.ctx, teacher, opts...); err != nil || n != 1 {
		t.Errorf("Purge = %d, %v; want 1", n, err)
	}
	if left := snapshot(t, e); len(left) != 0 {
		t.Errorf("keys left after Purge: %v", left)
	}
}

// TestRoleStringAndUnknownRoles: the roles' names, and no rules for an unknown
// role or an invalid namespace (a nil slice never grants anything by mistake).
func TestRoleStringAndUnknownRoles(t *testing.T) {
	names := map[kuis.Role]string{kuis.RoleApp: "app", kuis.RoleTeacher: "teacher", kuis.Role(99): "Role(99)", 0: "Role(0)"}
	for r, want := range names {
		if got := r.String(); got != want {
			t.Errorf("Role(%d).String() = %q, want %q", int(r), got, want)
		}
	}
	tests := []struct {
		name string
		role kuis.Role
		opts []kuis.Option
	}{
		{"unknown role", kuis.Role(99), nil},
		{"zero role", 0, nil},
		{"app, invalid namespace", kuis.RoleApp, []kuis.Option{kuis.WithNamespace("a:b")}},
		{"teacher, invalid namespace", kuis.RoleTeacher, []kuis.Option{kuis.WithNamespace("*")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := kuis.ACLRules(tc.role, tc.opts...); got != nil {
				t.Errorf("ACLRules = %q, want nil", got)
			}
		})
	}
	// The default namespace is the contract's.
	for _, r := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher} {
		if diff := cmp.Diff(kuis.ACLRules(r, kuis.WithNamespace(kuis.DefaultNamespace)), kuis.ACLRules(r)); diff != "" {
			t.Errorf("ACLRules(%v) (-kuis namespace +default):\n%s", r, diff)
		}
	}
}

// TestACLRefusalInsideAScriptIsErrForbidden: whatever words Redis 7 uses for a
// command refused inside a script (no command right, no key right), the
// library reports ErrForbidden, and the refused script writes nothing. The
// users here are hand-made, narrower than any ACLRules role, so that the
// refusal comes from inside a script rather than at EVALSHA.
func TestACLRefusalInsideAScriptIsErrForbidden(t *testing.T) {
	aclOnly(t)
	e := newEnv(t)
	id, _, _ := e.reference()
	base := []string{"resetkeys", "resetchannels", "-@all", "+hello", "+ping", "+client|setname",
		"+client|tracking", "+client|caching", "+multi", "+exec", "+pttl", "+cluster|slots", "+cluster|shards",
		"(~" + e.ns + ":* +evalsha +eval)"}
	record := func(b *kuis.Board, _ *kuis.Meta) error {
		_, err := b.RecordCorrect(e.ctx, "Ali")
		return err
	}
	create := func(_ *kuis.Board, m *kuis.Meta) error { return m.Create(e.ctx, "Kuis baru", 3) }
	ns := "~" + e.ns
	tests := []struct {
		name  string
		rules []string
		call  func(*kuis.Board, *kuis.Meta) error
	}{
		// HMGET of meta is the record script's first command after its ACL check.
		{"RecordCorrect without HMGET", []string{ns + ":*", "+zincrby", "+exists"}, record},
		{"RecordCorrect without meta", []string{ns + ":papan:*", "+zincrby", "+hmget", "+exists"}, record},
		// Create checks HSET only; its EXISTS calls are refused by the server.
		{"Create without EXISTS", []string{ns + ":*", "+hset"}, create},
		{"Create without the board key", []string{ns + ":meta:*", "+hset", "+exists"}, create},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := aclUserWith(t, e, "narrow", append(append([]string{}, base...), tc.rules...))
			b, err := kuis.NewBoard(c, id, e.opts...)
			if err != nil {
				t.Fatal(err)
			}
			m, err := kuis.NewMeta(c, quizID(), e.opts...)
			if err != nil {
				t.Fatal(err)
			}
			checkForbidden(t, isForbidden, []forbiddenCall{{tc.name, func() error { return tc.call(b, m) }}}, e)
		})
	}
}
