package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestACLRules prints exactly ACLRules' arguments, one a line, for the
// namespace, with the cache's rules only with -client-cache, and needs no
// server.
func TestACLRules(t *testing.T) {
	ns := redistest.Namespace(t)
	for _, role := range roles {
		for _, cache := range []bool{false, true} {
			args := []string{"-addr", unreachable, "-namespace", ns, "acl", "rules", role.String()}
			opts := []kuis.Option{kuis.WithNamespace(ns)}
			if cache {
				args = append(args, "-client-cache")
				opts = append(opts, kuis.WithClientCache(time.Second))
			}
			r := runKuis(nil, args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
			}
			want := kuis.ACLRules(role, opts...)
			if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || len(want) == 0 {
				t.Errorf("%v (-want +got):\n%s", args, diff)
			}
			if got := strings.Contains(r.stdout, "+client|tracking\n"); got != cache {
				t.Errorf("%v: CLIENT TRACKING allowed: %v", args, got)
			}
		}
	}
}

// aclUser is an ACL user of a test: a unique name, its password in a file,
// deleted from every node at cleanup.
type aclUser struct {
	name, password, file string
}

func newACLUser(t *testing.T, nodes []string) aclUser {
	t.Helper()
	u := aclUser{name: redistest.Namespace(t), password: redistest.Namespace(t)}
	u.file = filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(u.file, []byte(u.password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, addr := range nodes {
			admin, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true, DisableCache: true})
			if err != nil {
				continue // a node the test killed
			}
			if err := admin.Do(context.Background(), admin.B().AclDeluser().Username(u.name).Build()).Error(); err != nil {
				t.Errorf("ACL DELUSER %s on %s: %v", u.name, addr, err)
			}
			admin.Close()
		}
	})
	return u
}

// as is the target seen by kuis logged in as u.
func (tg *target) as(u aclUser) *target {
	as := *tg
	as.flags = append(append([]string{}, tg.flags...), "-user", u.name)
	as.env = map[string]string{"REDIS_PASSWORD": u.password}
	return &as
}

// applied checks acl apply's report: one line per node, each saying where
// the user went, and on stderr the nodes without an aclfile.
func applied(t *testing.T, r result, user string, nodes map[string]string, saved string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("acl apply: exit %d, stderr %q", r.code, r.stderr)
	}
	var want []string
	for _, addr := range slices.Sorted(maps.Keys(nodes)) {
		line := fmt.Sprintf("%s (%s): user %q set, ", addr, nodes[addr], user)
		if saved != "" {
			line += "saved to " + saved
		} else {
			line += "NOT saved: the server has no aclfile, so the user is lost when it restarts"
		}
		want = append(want, line)
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" {
		t.Errorf("acl apply (-want +got):\n%s", diff)
	}
	if saved != "" {
		if r.stderr != "" {
			t.Errorf("acl apply with an aclfile: stderr %q", r.stderr)
		}
		return
	}
	oneLine(t, "acl apply without an aclfile", r.stderr, "kuis: acl apply: ", fmt.Sprintf("%d of %d nodes have no aclfile", len(nodes), len(nodes)), "lost when they restart")
}

// checkRoles runs kuis as users of the three roles on tg: the operator
// lists, purges and folds into a course, the teacher audits but may not
// purge or fold, the app may not list but reads the course and ranks teams;
// each refusal in its own words, and nothing deleted or folded.
func checkRoles(t *testing.T, tg *target, operator, teacher, app aclUser) {
	t.Helper()
	tg.reference("kuis-01", true)
	tg.reference("kuis-02", true)
	dir := t.TempDir()
	if got := words(tg.as(teacher).must("audit", "kuis-01")); len(got) != 0 {
		t.Errorf("audit as the teacher: %q", got)
	}
	for _, who := range []struct {
		u    aclUser
		args []string
		what string
	}{
		{teacher, []string{"purge", "kuis-01", "-archive", dir}, "purge kuis-01"},
		{teacher, []string{"course", "fold", "kelas", "kuis-01"}, "course fold kelas kuis-01"},
		{app, []string{"quizzes"}, "quizzes"},
		{app, []string{"course", "audit", "kelas"}, "course audit kelas"},
	} {
		r := tg.as(who.u).kuis(who.args...)
		if r.code != 1 || r.stdout != "" {
			t.Errorf("%v as %s: exit %d, stdout %q", who.args, who.u.name, r.code, r.stdout)
		}
		oneLine(t, fmt.Sprint(who.args), r.stderr, "kuis: "+who.what+": ", "refused by the server's ACL", fmt.Sprintf("user %q", who.u.name))
	}
	if !tg.exists("kuis-01") {
		t.Fatal("a refused purge deleted the quiz")
	}
	if got := tg.courseBoard("kelas"); len(got) != 0 {
		t.Fatalf("a refused fold folded: %v", got)
	}
	want := []string{"kuis-01 selesai 3 4 9 Kuis Matematika Kelas 8", "kuis-02 selesai 3 4 9 Kuis Matematika Kelas 8"}
	if diff := cmp.Diff(want, words(tg.as(operator).must("quizzes"))); diff != "" {
		t.Errorf("quizzes as the operator (-want +got):\n%s", diff)
	}
	recap, err := tg.store.Recap(tg.ctx, "kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	out := lines(tg.as(operator).must("purge", "-finished", "-archive", dir, "-course", "kelas"))
	if len(out) != 2 || !strings.Contains(out[1], "folded into kelas, ") {
		t.Errorf("purge -finished -course as the operator: %q", out)
	}
	checkArchive(t, dir, recap)
	if tg.exists("kuis-01") || tg.exists("kuis-02") {
		t.Error("purge -finished as the operator left a quiz")
	}
	if got := words(tg.as(app).must("course", "show", "kelas", "-top", "1")); len(got) != 2 || got[1] != "1 Citra 60" {
		t.Errorf("course show as the app: %q", got)
	}
	roster := rosterFile(t, "A,Ali\nA,Budi\nB,Citra\n")
	if got := words(tg.as(app).must("teams", "-course", "kelas", "-roster", roster)); len(got) != 2 || got[0] != "1 A 2 100 50.00" {
		t.Errorf("teams -course as the app: %q", got)
	}
	if got := tg.as(teacher).must("course", "audit", "kelas"); got != "" {
		t.Errorf("course audit as the teacher: %q", got)
	}

	wrong := tg.as(operator)
	wrong.env = map[string]string{"REDIS_PASSWORD": "wrong"}
	r := wrong.kuis("quizzes")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("a wrong password: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "a wrong password", r.stderr, "kuis: ", "refused the login of user "+fmt.Sprintf("%q", operator.name), "WRONGPASS")
}

// TestACLApply makes the three roles' users on every node of the target
// (with kuis logged in as the default user) and runs kuis as each; on
// miniredis, which has no ACL, acl apply fails in one line.
func TestACLApply(t *testing.T) {
	tg := newTarget(t)
	if !redistest.Real() {
		pw := filepath.Join(t.TempDir(), "pw")
		if err := os.WriteFile(pw, []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := tg.kuis("acl", "apply", "app", "-user", "app", "-password-file", pw)
		if r.code != 1 || r.stdout != "" {
			t.Errorf("acl apply on miniredis: exit %d, stdout %q", r.code, r.stdout)
		}
		oneLine(t, "acl apply on miniredis", r.stderr, "kuis: acl apply ", "ACL SETUSER")
		return
	}
	nodes := map[string]string{}
	for _, addr := range redistest.Nodes() {
		nodes[addr] = map[bool]string{true: "primary", false: "server"}[redistest.Cluster()]
	}
	users := map[string]aclUser{}
	for _, role := range roles {
		u := newACLUser(t, redistest.Nodes())
		users[role.String()] = u
		applied(t, tg.kuis("acl", "apply", role.String(), "-user", u.name, "-password-file", u.file), u.name, nodes, "")
	}
	checkRoles(t, tg, users["operator"], users["teacher"], users["app"])

	// acl apply resets: the old password no longer logs in.
	op := users["operator"]
	renewed := op
	renewed.password = op.password + "-new"
	if err := os.WriteFile(renewed.file, []byte(renewed.password), 0o600); err != nil {
		t.Fatal(err)
	}
	applied(t, tg.kuis("acl", "apply", "operator", "-user", op.name, "-password-file", renewed.file), op.name, nodes, "")
	if r := tg.as(op).kuis("quizzes"); r.code != 1 || !strings.Contains(r.stderr, "WRONGPASS") {
		t.Errorf("the old password after a reset: exit %d, stderr %q", r.code, r.stderr)
	}
	tg.as(renewed).must("quizzes")
}

// Ports of the servers these tests start (their cluster buses: + 10000).
const serversLo, serversHi = 30100, 30499

// ownServers starts the servers of a test of its own, once across the
// suite's three runs: in the standalone target's.
func ownServers(t *testing.T) *redistest.Servers {
	t.Helper()
	if target := redistest.Target(); target != "standalone" {
		t.Skipf("starts redis-server processes of its own: runs only when the target is standalone (REDIS_ADDR), not %s", target)
	}
	return redistest.NewServers(t, serversLo, serversHi)
}

// ownTarget is a target on a server or cluster the test started.
func ownTarget(t *testing.T, addrs []string, cluster bool) *target {
	t.Helper()
	ns := redistest.Namespace(t)
	tg := &target{t: t, ctx: context.Background(), ns: ns, env: map[string]string{}}
	opt := rueidis.ClientOption{InitAddress: addrs, DisableCache: true, ForceSingleClient: !cluster}
	client, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	flags := []string{"-addr", addrs[0], "-namespace", ns}
	opts := []kuis.Option{kuis.WithNamespace(ns)}
	if cluster {
		flags = []string{"-cluster", strings.Join(addrs, ","), "-namespace", ns}
		opts = append(opts, kuis.WithHashTag())
	}
	return tg.on(client, flags, opts...)
}

// TestOwnStandalone: on a standalone server with an aclfile, acl apply
// saves the users, which log in again after kill -9 and a restart, and the
// operator archives and purges the finished quizzes.
func TestOwnStandalone(t *testing.T) {
	s := ownServers(t)
	aclfile := filepath.Join(t.TempDir(), "users.acl")
	if err := os.WriteFile(aclfile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := s.Standalone("--aclfile", aclfile)
	tg := ownTarget(t, []string{srv.Addr()}, false)
	nodes := map[string]string{srv.Addr(): "server"}
	users := map[string]aclUser{}
	for _, role := range roles {
		u := newACLUser(t, []string{srv.Addr()})
		users[role.String()] = u
		applied(t, tg.kuis("acl", "apply", role.String(), "-user", u.name, "-password-file", u.file), u.name, nodes, aclfile)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the test's client to reconnect", func() bool {
		return tg.client.Do(tg.ctx, tg.client.B().Ping().Build()).Error() == nil
	})
	checkRoles(t, tg, users["operator"], users["teacher"], users["app"])
}

// TestOwnCluster: on a cluster of 3 primaries with a replica each, acl apply
// sets the user on all six nodes (each says it has no aclfile), the user
// logs in on a replica, and the operator archives and purges the finished
// quizzes across the primaries.
func TestOwnCluster(t *testing.T) {
	s := ownServers(t)
	c := s.Cluster(3, 1, "--cluster-node-timeout", "5000") // gossip, and so the nodes' views, settle sooner
	tg := ownTarget(t, c.Addrs(), true)
	nodes := map[string]string{}
	for _, p := range c.Primaries {
		nodes[p.Addr()] = "primary"
	}
	for _, rs := range c.Replicas {
		for _, r := range rs {
			nodes[r.Addr()] = "replica"
		}
	}
	users := map[string]aclUser{}
	for _, role := range roles {
		u := newACLUser(t, c.Addrs())
		users[role.String()] = u
		applied(t, tg.kuis("acl", "apply", role.String(), "-user", u.name, "-password-file", u.file), u.name, nodes, "")
	}
	op := users["operator"]
	replica := c.Replicas[2][0].Addr()
	if err := login(tg.ctx, replica, op.name, op.password); err != nil {
		t.Errorf("the operator on replica %s: %v", replica, err)
	}
	checkRoles(t, tg, op, users["teacher"], users["app"])
}
