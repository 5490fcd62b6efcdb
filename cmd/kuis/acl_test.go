package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestACLRules prints exactly ACLRules' arguments, one a line, for the
// namespace and the options the flags name: the cache's rules only with
// -client-cache, ROLE (and the app's XSETID and XINFO STREAM) only with
// -replicas; it needs no server.
func TestACLRules(t *testing.T) {
	ns := redistest.Namespace(t)
	for _, role := range roles {
		for _, f := range []aclFlags{{}, {replicas: true}, {cache: true}, {replicas: true, cache: true}} {
			args := []string{"-addr", unreachable, "-namespace", ns, "acl", "rules", role.String()}
			opts := []kuis.Option{kuis.WithNamespace(ns)}
			if f.replicas {
				args = append(args, "-replicas")
				opts = append(opts, kuis.WithReplicas(2, time.Minute))
			}
			if f.cache {
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
			if got := strings.Contains(r.stdout, "+client|tracking\n"); got != f.cache {
				t.Errorf("%v: CLIENT TRACKING allowed: %v", args, got)
			}
			if got := strings.Contains(r.stdout, "+role\n"); got != f.replicas {
				t.Errorf("%v: ROLE allowed: %v", args, got)
			}
			if got := strings.Contains(r.stdout, "+xsetid\n"); got != (f.replicas && role == kuis.RoleApp) {
				t.Errorf("%v: XSETID allowed: %v", args, got)
			}
		}
	}
}

// TestACLUsage: acl apply and check refuse what they cannot run with
// before any connection: exit 2, one line naming what is wrong.
func TestACLUsage(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"rules", "app", "-name", "u"}, "-name"},
		{[]string{"apply"}, "one ROLE"},
		{[]string{"apply", "admin", "-name", "u"}, `role "admin"`},
		{[]string{"apply", "app"}, `-name ""`},
		{[]string{"apply", "app", "-name", "a b"}, `-name "a b"`},
		{[]string{"apply", "app", "-name", "u"}, `no password for user "u"`},
		{[]string{"apply", "app", "-name", "u", "-new-password-file", empty}, "is empty"},
		{[]string{"apply", "app", "-name", "u", "-timeout", "0s"}, "-timeout 0s"},
		{[]string{"apply", "app", "-user", "u"}, "-user"},
		{[]string{"apply", "app", "-name", "u", "-password-file", empty}, "-password-file"},
		{[]string{"apply", "app", "-name", "u", "-new-password", "secret"}, "-new-password"},
		{[]string{"check", "app"}, `-name ""`},
		{[]string{"check", "app", "teacher", "-name", "u"}, "one ROLE"},
		{[]string{"check", "app", "-name", "u", "-timeout", "-1s"}, "-timeout -1s"},
		{[]string{"check", "app", "-name", "u", "-no-save-ok"}, "-no-save-ok"},
	} {
		args := append([]string{"-addr", unreachable, "acl"}, tt.args...)
		r := runKuis(nil, args...)
		what := "kuis acl " + strings.Join(tt.args, " ")
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want 2 and nothing", what, r.code, r.stdout)
		}
		oneLine(t, what, r.stderr, "kuis", tt.says)
		if strings.Contains(r.stderr, "secret") {
			t.Errorf("%s: stderr shows the password: %q", what, r.stderr)
		}
	}
}

// TestACLUnreachable: a node that cannot be reached is waited for until
// -timeout has passed, then named, with why, on a line of its own: exit 1.
func TestACLUnreachable(t *testing.T) {
	pw := passwordFile(t, "secret")
	for _, args := range [][]string{
		{"apply", "app", "-name", "u", "-new-password-file", pw, "-timeout", "300ms"},
		{"check", "app", "-name", "u", "-timeout", "300ms"},
	} {
		start := time.Now()
		r := runKuis(nil, append([]string{"-addr", unreachable, "acl"}, args...)...)
		took := time.Since(start)
		if r.code != 1 || r.stdout != "" {
			t.Errorf("acl %s: exit %d, stdout %q; want 1 and nothing", args[0], r.code, r.stdout)
		}
		oneLine(t, "acl "+args[0], r.stderr, "kuis: acl "+args[0]+" "+unreachable+": ",
			"not done in 300ms (-timeout)", "cannot reach Redis at "+unreachable, "connection refused")
		if took < 300*time.Millisecond || took > 20*time.Second {
			t.Errorf("acl %s gave up after %v; want about 300ms", args[0], took)
		}
	}
}

// replyServer is a server that answers every command with one error reply
// until ready, and then passes each new connection through to a real one.
type replyServer struct {
	ln       net.Listener
	reply    string // "LOADING Redis is loading the dataset in memory"
	to       string
	ready    atomic.Bool
	answered chan struct{} // a reply sent
}

func newReplyServer(t *testing.T, reply, to string) *replyServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &replyServer{ln: ln, reply: reply, to: to, answered: make(chan struct{}, 100)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(conn)
		}
	}()
	return s
}

func (s *replyServer) serve(conn net.Conn) {
	defer conn.Close()
	if s.ready.Load() {
		up, err := net.Dial("tcp", s.to)
		if err != nil {
			return
		}
		defer up.Close()
		go func() { _, _ = io.Copy(up, conn) }()
		_, _ = io.Copy(conn, up)
		return
	}
	r := bufio.NewReader(conn)
	for {
		// A command: *N, then N bulk strings ($len, the bytes).
		line, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "*") {
			return
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		for range 2 * n {
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
		}
		if _, err := io.WriteString(conn, "-"+s.reply+"\r\n"); err != nil {
			return
		}
		select {
		case s.answered <- struct{}{}:
		default:
		}
	}
}

// TestACLWaitsForLoading: acl apply waits for a node that answers LOADING,
// and goes on once it serves: miniredis then refuses ACL SETUSER, which is
// named, not LOADING nor a timeout.
func TestACLWaitsForLoading(t *testing.T) {
	m, _ := redistest.Miniredis(t)
	s := newReplyServer(t, "LOADING Redis is loading the dataset in memory", m.Addr())
	addr := s.ln.Addr().String()
	done := make(chan result, 1)
	go func() {
		done <- runKuis(nil, "-addr", addr, "acl", "apply", "app", "-name", "u", "-new-password-file", passwordFile(t, "secret"))
	}()
	for range 2 { // two tries, each refused with LOADING
		select {
		case <-s.answered:
		case r := <-done:
			t.Fatalf("acl apply ended while the node was loading: exit %d, stderr %q", r.code, r.stderr)
		case <-time.After(20 * time.Second):
			t.Fatal("acl apply did not try the loading node twice in 20s")
		}
	}
	s.ready.Store(true)
	r := <-done
	if r.code != 1 || r.stdout != "" {
		t.Errorf("acl apply: exit %d, stdout %q; want 1 and nothing", r.code, r.stdout)
	}
	oneLine(t, "acl apply once the node serves", r.stderr, "kuis: acl apply "+addr+": ", "ACL SETUSER u")
	if strings.Contains(r.stderr, "LOADING") || strings.Contains(r.stderr, "-timeout") {
		t.Errorf("acl apply once the node serves: %q", r.stderr)
	}
}

// passwordFile writes pw to a file of the test's own.
func passwordFile(t *testing.T, pw string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(path, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// aclUserOf is an ACL user of a test: a unique name, its password in a
// file, deleted from every node at cleanup.
type aclUserOf struct {
	name, password, file string
}

func newACLUser(t *testing.T, nodes []string) aclUserOf {
	t.Helper()
	u := aclUserOf{name: redistest.Namespace(t), password: redistest.Namespace(t)}
	u.file = passwordFile(t, u.password)
	t.Cleanup(func() {
		for _, addr := range nodes {
			admin, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true, DisableCache: true})
			if err != nil {
				continue // a node the test stopped
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
func (tg *target) as(u aclUserOf) *target {
	as := *tg
	as.flags = append(append([]string{}, tg.flags...), "-user", u.name)
	as.env = map[string]string{"REDIS_PASSWORD": u.password}
	return &as
}

// nodeClient is a client of the one node at addr (ForceSingleClient),
// closed at cleanup.
func nodeClient(t *testing.T, addr string) rueidis.Client {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// targetNode is a node of the target, as acl apply must name it.
type targetNode struct {
	role, aclfile string
}

// targetNodes are the nodes of the real target: the standalone server, or
// every node of the cluster as its seeds' CLUSTER NODES lists them, each
// with its role and aclfile.
func targetNodes(t *testing.T) map[string]targetNode {
	t.Helper()
	ctx := context.Background()
	nodes := map[string]targetNode{}
	ask := func(addr string, cmd ...string) rueidis.RedisResult {
		c := nodeClient(t, addr)
		return c.Do(ctx, c.B().Arbitrary(cmd...).Build())
	}
	addrs := redistest.Nodes()
	if redistest.Cluster() {
		for _, seed := range redistest.Nodes() {
			view, err := ask(seed, "CLUSTER", "NODES").ToString()
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(strings.TrimSpace(view), "\n") {
				if f := strings.Fields(l); len(f) > 1 {
					addr, _, _ := strings.Cut(f[1], "@")
					if !slices.Contains(addrs, addr) {
						addrs = append(addrs, addr)
					}
				}
			}
		}
	}
	for _, addr := range addrs {
		n := targetNode{role: "server"}
		if redistest.Cluster() {
			role, err := ask(addr, "ROLE").ToArray()
			if err != nil {
				t.Fatal(err)
			}
			kind, err := role[0].ToString()
			if err != nil {
				t.Fatal(err)
			}
			n.role = map[string]string{"master": "primary", "slave": "replica"}[kind]
		}
		cfg, err := ask(addr, "CONFIG", "GET", "aclfile").AsStrMap()
		if err != nil {
			t.Fatal(err)
		}
		n.aclfile = cfg["aclfile"]
		nodes[addr] = n
	}
	return nodes
}

// applied checks acl apply's report: one line per node, each saying where
// the user went.
func applied(t *testing.T, r result, user string, nodes map[string]targetNode) {
	t.Helper()
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("acl apply: exit %d, stderr %q", r.code, r.stderr)
	}
	var want []string
	for _, addr := range slices.Sorted(maps.Keys(nodes)) {
		line := fmt.Sprintf("%s (%s): user %q set, ", addr, nodes[addr].role, user)
		if f := nodes[addr].aclfile; f != "" {
			line += "saved to " + f
		} else {
			line += "NOT saved: the server has no aclfile, so the user is lost when it restarts"
		}
		want = append(want, line)
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" {
		t.Errorf("acl apply (-want +got):\n%s", diff)
	}
}

// checkRoles runs kuis as users of the three roles on tg: the operator
// lists, purges and folds into a course, the teacher audits but may not
// purge or fold, the app may not list but reads the course and ranks teams;
// each refusal in its own words, and nothing deleted or folded.
func checkRoles(t *testing.T, tg *target, operator, teacher, app aclUserOf) {
	t.Helper()
	tg.reference("kuis-01", true)
	tg.reference("kuis-02", true)
	dir := t.TempDir()
	if got := words(tg.as(teacher).must("audit", "kuis-01")); len(got) != 0 {
		t.Errorf("audit as the teacher: %q", got)
	}
	for _, who := range []struct {
		u    aclUserOf
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
}

// TestACLApply makes the three roles' users on every node of the target
// (with kuis logged in as the default user), checks them, and runs kuis as
// each; on miniredis, which has no ACL, acl apply and check fail in one
// line naming the server.
func TestACLApply(t *testing.T) {
	tg := newTarget(t)
	if !redistest.Real() {
		addr := tg.flags[1]
		r := tg.kuis("acl", "apply", "app", "-name", "app", "-new-password-file", passwordFile(t, "secret"))
		if r.code != 1 || r.stdout != "" {
			t.Errorf("acl apply on miniredis: exit %d, stdout %q", r.code, r.stdout)
		}
		oneLine(t, "acl apply on miniredis", r.stderr, "kuis: acl apply "+addr+": ", "ACL SETUSER app")
		r = tg.kuis("acl", "check", "app", "-name", "app")
		if r.code != 1 || r.stdout != "" {
			t.Errorf("acl check on miniredis: exit %d, stdout %q", r.code, r.stdout)
		}
		oneLine(t, "acl check on miniredis", r.stderr, "kuis: acl check "+addr+": ", "ACL GETUSER app")
		return
	}
	nodes := targetNodes(t)
	addrs := slices.Sorted(maps.Keys(nodes))
	users := map[string]aclUserOf{}
	for _, role := range roles {
		u := newACLUser(t, addrs)
		users[role.String()] = u
		applied(t, tg.kuis("acl", "apply", role.String(), "-name", u.name, "-new-password-file", u.file, "-no-save-ok"), u.name, nodes)
		if r := tg.kuis("acl", "check", role.String(), "-name", u.name, "-new-password-file", u.file); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("acl check %s: exit %d, stdout %q, stderr %q", role, r.code, r.stdout, r.stderr)
		}
	}

	app := users["app"]
	var want []string
	for _, addr := range addrs {
		want = append(want, fmt.Sprintf("%s (%s): user %q lacks what WithReplicas needs: +role +xinfo|stream +xsetid (kuis acl apply app -replicas gives it)", addr, nodes[addr].role, app.name))
	}
	r := tg.kuis("acl", "check", "app", "-name", app.name, "-replicas")
	if diff := cmp.Diff(want, lines(r.stdout)); r.code != 1 || r.stderr != "" || diff != "" {
		t.Errorf("acl check -replicas of a user made without: exit %d, stderr %q (-want +got):\n%s", r.code, r.stderr, diff)
	}
	r = tg.kuis("acl", "check", "app", "-name", app.name+"-none")
	if r.code != 1 || len(lines(r.stdout)) != len(addrs) || !strings.Contains(r.stdout, fmt.Sprintf("%s (%s): no user %q\n", addrs[0], nodes[addrs[0]].role, app.name+"-none")) {
		t.Errorf("acl check of no user: exit %d, stdout %q", r.code, r.stdout)
	}
	if nodes[addrs[0]].aclfile == "" {
		r := tg.kuis("acl", "apply", "app", "-name", app.name, "-new-password-file", app.file)
		if r.code != 1 {
			t.Errorf("acl apply without -no-save-ok, nodes without an aclfile: exit %d", r.code)
		}
		if !strings.Contains(r.stderr, "kuis: acl apply "+addrs[0]+": user "+strconv.Quote(app.name)+" set, but NOT saved: the server has no aclfile") {
			t.Errorf("acl apply without -no-save-ok, nodes without an aclfile: stderr %q", r.stderr)
		}
	}
	checkRoles(t, tg, users["operator"], users["teacher"], app)

	// acl apply resets: the old password no longer logs in, and check says so.
	op := users["operator"]
	renewed := op
	renewed.password = op.password + "-new"
	if err := os.WriteFile(renewed.file, []byte(renewed.password), 0o600); err != nil {
		t.Fatal(err)
	}
	applied(t, tg.kuis("acl", "apply", "operator", "-name", op.name, "-new-password-file", renewed.file, "-no-save-ok"), op.name, nodes)
	if r := tg.as(op).kuis("quizzes"); r.code != 1 || !strings.Contains(r.stderr, "WRONGPASS") {
		t.Errorf("the old password after a reset: exit %d, stderr %q", r.code, r.stderr)
	}
	tg.as(renewed).must("quizzes")
	old := passwordFile(t, op.password)
	if r := tg.kuis("acl", "check", "operator", "-name", op.name, "-new-password-file", old); r.code != 1 || !strings.Contains(r.stdout, "has another password than the one given") {
		t.Errorf("acl check with the old password: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestACLLoginRefused: a refused login names the node that refused it: the
// server (miniredis with a user of its own, or the target), and on a
// cluster the one node without the user, not the seeds; a server that
// refuses HELLO, the handshake rueidis sends first, refuses the login.
func TestACLLoginRefused(t *testing.T) {
	hello := newReplyServer(t, "NOPERM this user has no permissions to run the 'hello' command", unreachable)
	for _, args := range [][]string{{"quizzes"}, {"acl", "check", "app", "-name", "app"}} {
		r := runKuis(nil, append([]string{"-addr", hello.ln.Addr().String()}, args...)...)
		if r.code != 1 || r.stdout != "" {
			t.Errorf("%v, HELLO refused: exit %d, stdout %q", args, r.code, r.stdout)
		}
		oneLine(t, fmt.Sprint(args, ", HELLO refused"), r.stderr, "kuis: ",
			"Redis at "+hello.ln.Addr().String()+` refused the login of user "default": NOPERM this user has no permissions to run the 'hello' command`)
	}
	if !redistest.Real() {
		m, _ := redistest.Miniredis(t)
		m.RequireUserAuth("u", "pw")
		r := runKuis(map[string]string{"REDIS_PASSWORD": "wrong"}, "-addr", m.Addr(), "-user", "u", "quizzes")
		if r.code != 1 || r.stdout != "" {
			t.Errorf("a wrong password: exit %d, stdout %q", r.code, r.stdout)
		}
		oneLine(t, "a wrong password", r.stderr, "kuis: ", "Redis at "+m.Addr()+" refused the login of user \"u\": WRONGPASS")
		return
	}
	tg := newTarget(t)
	nodes := targetNodes(t)
	addrs := slices.Sorted(maps.Keys(nodes))
	u := newACLUser(t, addrs)
	applied(t, tg.kuis("acl", "apply", "operator", "-name", u.name, "-new-password-file", u.file, "-no-save-ok"), u.name, nodes)
	tg.reference("kuis-01", true)

	refuser := addrs[0] // a primary, which quizzes reads
	if redistest.Cluster() {
		for _, addr := range addrs {
			if nodes[addr].role == "primary" {
				refuser = addr // the last primary
			}
		}
		c := nodeClient(t, refuser)
		if err := c.Do(tg.ctx, c.B().AclDeluser().Username(u.name).Build()).Error(); err != nil {
			t.Fatal(err)
		}
		r := tg.as(u).kuis("quizzes")
		if r.code != 1 || r.stdout != "" {
			t.Errorf("quizzes as a user one node lacks: exit %d, stdout %q", r.code, r.stdout)
		}
		oneLine(t, "quizzes as a user one node lacks", r.stderr, "kuis: ", fmt.Sprintf("Redis at %s refused the login of user %q: WRONGPASS", refuser, u.name))
		if r := tg.kuis("acl", "check", "operator", "-name", u.name); r.code != 1 || r.stdout != fmt.Sprintf("%s (primary): no user %q\n", refuser, u.name) {
			t.Errorf("acl check of a user one node lacks: exit %d, stdout %q", r.code, r.stdout)
		}
	}

	wrong := tg.as(u)
	wrong.env = map[string]string{"REDIS_PASSWORD": "wrong"}
	r := wrong.kuis("quizzes")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("a wrong password: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "a wrong password", r.stderr, "kuis: ", "refused the login of user "+strconv.Quote(u.name), "WRONGPASS")
	if !redistest.Cluster() && !strings.Contains(r.stderr, "Redis at "+refuser+" refused") {
		t.Errorf("a wrong password: stderr %q does not name %s", r.stderr, refuser)
	}

}
