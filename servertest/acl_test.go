package servertest_test

// kuis acl apply and check on servers of their own: a cluster whose
// replicas are still loading, a node that does not answer, nodes with and
// without an aclfile, and the Store each role's user may build.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// Ports of the ACL tests' servers (their cluster buses: + 10000).
const aclPortLo, aclPortHi = 34000, 34099

// kuisCmd is the kuis command, built for the test.
type kuisCmd struct {
	t    *testing.T
	path string
}

// buildKuis builds cmd/kuis into the test's temporary directory.
func buildKuis(t *testing.T) kuisCmd {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("building kuis needs the go command: %v", err)
	}
	path := filepath.Join(t.TempDir(), "kuis")
	out, err := exec.Command(gobin, "build", "-o", path, "github.com/kuisboard/kuis/cmd/kuis").CombinedOutput()
	if err != nil {
		t.Fatalf("go build cmd/kuis: %v\n%s", err, out)
	}
	return kuisCmd{t, path}
}

// kuisRun is what one run of kuis did.
type kuisRun struct {
	code           int
	stdout, stderr string
}

// run runs kuis with args and the environment variables env only (none of
// the test's REDIS_ variables), for at most two minutes.
func (k kuisCmd) run(env []string, args ...string) kuisRun {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.path, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		k.t.Fatalf("kuis %v: %v", args, err)
	}
	return kuisRun{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}

// lines splits output into its lines, without the last line end.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// aclUser is a user a test makes: a unique name and its password, in a
// file.
type aclUser struct {
	name, password, file string
}

func newACLUser(t *testing.T) aclUser {
	t.Helper()
	u := aclUser{name: redistest.Namespace(t), password: redistest.Namespace(t)}
	u.file = filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(u.file, []byte(u.password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return u
}

// roleNames are the roles as kuis names them.
var roleNames = map[kuis.Role]string{kuis.RoleApp: "app", kuis.RoleTeacher: "teacher", kuis.RoleOperator: "operator"}

// nodeLine is acl apply's line for node n, of role, whose user was saved
// to its aclfile, users.acl in its directory.
func nodeLine(n *redistest.Server, role, user string) string {
	return fmt.Sprintf("%s (%s): user %q set, saved to %s", n.Addr(), role, user, filepath.Join(n.Dir, "users.acl"))
}

// fillSlots writes n keys into the slots of primary i of a cluster of
// primaries, for its replicas to load.
func fillSlots(primaries, n int) func(int, *redistest.Server) error {
	return func(i int, p *redistest.Server) error {
		lo, hi := i*16384/primaries, (i+1)*16384/primaries-1
		for tag := 0; ; tag++ {
			reply, err := p.Do("CLUSTER", "KEYSLOT", "{"+strconv.Itoa(tag)+"}")
			if err != nil {
				return err
			}
			if slot, _ := strconv.Atoi(reply); slot < lo || slot > hi {
				continue
			}
			_, err = p.Do("EVAL", "for i = 1, tonumber(ARGV[1]) do redis.call('SET', KEYS[1] .. i, 'x') end", "1",
				"{"+strconv.Itoa(tag)+"}:", strconv.Itoa(n))
			return err
		}
	}
}

// syncing reports whether a replica of c has not finished its first sync:
// its link to its primary is not up, or it is loading.
func syncing(t *testing.T, c *redistest.OwnCluster) bool {
	t.Helper()
	for _, rs := range c.Replicas {
		for _, r := range rs {
			role, errRole := r.Do("ROLE")
			info, errInfo := r.Do("INFO", "persistence")
			if errRole != nil || errInfo != nil || !strings.Contains(role, "\nconnected\n") || strings.Contains(info, "loading:1") {
				return true
			}
		}
	}
	return false
}

// TestACLCluster: on a cluster of 3 primaries with a replica each, kuis
// acl apply run the moment the replicas are told to follow, while they
// sync and load, sets each role's user on all six nodes and saves it to
// each aclfile, and acl check finds it on each, seeded with one primary;
// the users that apply makes for each role and option set build the
// Store of those options (WithReplicas, WithClientCache, neither), and a
// user made without -replicas does not build one WithReplicas
// (ErrForbidden), which acl check -replicas names on each node. A replica
// that does not answer makes apply and check exit 1 naming it, once
// -timeout has passed, the other nodes done.
func TestACLCluster(t *testing.T) {
	t.Parallel()
	s := redistest.StandaloneServers(t, aclPortLo, aclPortHi)
	kuisBin := buildKuis(t)
	// key-load-delay (microseconds a key) makes each replica load its
	// primary's 20,000 keys for about six seconds: long enough that a
	// loaded machine, slow to form the cluster, still finds them loading.
	c := s.ClusterUnsettled(3, 1, fillSlots(3, 20000), "--cluster-node-timeout", "5000", "--aclfile", "users.acl", "--key-load-delay", "300")
	seeds := strings.Join(c.Addrs(), ",")
	if !syncing(t, c) {
		t.Fatal("every replica had synced before acl apply ran: the test would prove nothing")
	}
	roleOf, nodeAt := map[string]string{}, map[string]*redistest.Server{}
	for _, n := range c.Nodes() {
		roleOf[n.Addr()], nodeAt[n.Addr()] = "primary", n
	}
	for _, rs := range c.Replicas {
		for _, r := range rs {
			roleOf[r.Addr()] = "replica"
		}
	}
	addrs := slices.Sorted(slices.Values(c.Addrs())) // as acl apply prints them

	t.Run("apply while the replicas load", func(t *testing.T) {
		users := map[kuis.Role]aclUser{}
		for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
			u := newACLUser(t)
			users[role] = u
			r := kuisBin.run(nil, "-cluster", seeds, "acl", "apply", roleNames[role], "-name", u.name, "-new-password-file", u.file)
			var want []string
			for _, addr := range addrs {
				want = append(want, nodeLine(nodeAt[addr], roleOf[addr], u.name))
			}
			if diff := cmp.Diff(want, lines(r.stdout)); r.code != 0 || r.stderr != "" || diff != "" {
				t.Errorf("acl apply %s: exit %d, stderr %q (-want +got):\n%s", roleNames[role], r.code, r.stderr, diff)
			}
		}
		for _, n := range c.Nodes() {
			saved, err := os.ReadFile(filepath.Join(n.Dir, "users.acl"))
			if err != nil {
				t.Fatal(err)
			}
			for role, u := range users {
				if got, err := n.Do("ACL", "GETUSER", u.name); err != nil || !strings.HasPrefix(got, "flags\non\n") {
					t.Errorf("ACL GETUSER %s (%s) on %s = %q, %v", u.name, roleNames[role], n.Addr(), got, err)
				}
				if !bytes.Contains(saved, []byte("user "+u.name+" on ")) {
					t.Errorf("%s's aclfile lacks user %s:\n%s", n.Addr(), u.name, saved)
				}
			}
		}
		for role, u := range users {
			r := kuisBin.run([]string{"REDIS_PASSWORD=" + u.password}, "-cluster", c.Primaries[0].Addr(), "acl", "check", roleNames[role], "-name", u.name)
			if r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Errorf("acl check %s seeded with one primary: exit %d, stdout %q, stderr %q", roleNames[role], r.code, r.stdout, r.stderr)
			}
		}
	})
	if err := c.WaitOK(); err != nil {
		t.Fatal(err)
	}

	t.Run("a Store of each role and options", func(t *testing.T) {
		ns := redistest.Namespace(t)
		for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
			for _, set := range []struct {
				flags []string
				cache bool
				opts  []kuis.Option
			}{
				{nil, false, nil},
				{[]string{"-replicas"}, false, []kuis.Option{kuis.WithReplicas(1, time.Second)}},
				{[]string{"-client-cache"}, true, []kuis.Option{kuis.WithClientCache(time.Minute)}},
			} {
				what := strings.TrimSpace(roleNames[role] + " " + strings.Join(set.flags, " "))
				u := newACLUser(t)
				args := append([]string{"-cluster", seeds, "-namespace", ns, "acl", "apply", roleNames[role], "-name", u.name, "-new-password-file", u.file}, set.flags...)
				if r := kuisBin.run(nil, args...); r.code != 0 || len(lines(r.stdout)) != len(addrs) {
					t.Errorf("acl apply %s: exit %d, stdout %q, stderr %q", what, r.code, r.stdout, r.stderr)
					continue
				}
				client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: c.Addrs(), Username: u.name, Password: u.password, DisableCache: !set.cache})
				if err != nil {
					t.Errorf("a client as the user of %s: %v", what, err)
					continue
				}
				t.Cleanup(client.Close)
				opts := append([]kuis.Option{kuis.WithNamespace(ns), kuis.WithHashTag()}, set.opts...)
				if _, err := kuis.New(client, opts...); err != nil {
					t.Errorf("New as the user of acl apply %s: %v", what, err)
				}
				if set.flags != nil {
					continue
				}
				if _, err := kuis.New(client, append(opts, kuis.WithReplicas(1, time.Second))...); !errors.Is(err, kuis.ErrForbidden) {
					t.Errorf("New WithReplicas as the user of acl apply %s: %v; want ErrForbidden", what, err)
				}
				r := kuisBin.run(nil, "-cluster", seeds, "-namespace", ns, "acl", "check", roleNames[role], "-name", u.name, "-replicas")
				var want []string
				for _, addr := range addrs {
					want = append(want, fmt.Sprintf("%s (%s): user %q lacks what WithReplicas needs: ", addr, roleOf[addr], u.name))
				}
				got := lines(r.stdout)
				for i := range got {
					got[i], _, _ = strings.Cut(got[i], "+role")
				}
				if diff := cmp.Diff(want, got); r.code != 1 || diff != "" {
					t.Errorf("acl check %s -replicas: exit %d, stderr %q (-want +got):\n%s", what, r.code, r.stderr, diff)
				}
			}
		}
	})

	t.Run("a replica that does not answer", func(t *testing.T) {
		stalled := c.Replicas[2][0]
		stall(t, stalled)
		u := newACLUser(t)
		seed := c.Primaries[0].Addr() // the others are found in its CLUSTER SHARDS
		for _, args := range [][]string{
			{"apply", "app", "-name", u.name, "-new-password-file", u.file, "-timeout", "2s"},
			{"check", "app", "-name", u.name, "-new-password-file", u.file, "-timeout", "2s"},
		} {
			start := time.Now()
			r := kuisBin.run(nil, append([]string{"-cluster", seed, "acl"}, args...)...)
			took := time.Since(start)
			if r.code != 1 {
				t.Errorf("acl %s: exit %d; want 1", args[0], r.code)
			}
			want := fmt.Sprintf("kuis: acl %s %s: not done in 2s (-timeout): no answer", args[0], stalled.Addr())
			if diff := cmp.Diff([]string{want}, lines(r.stderr)); diff != "" {
				t.Errorf("acl %s's errors (-want +got):\n%s", args[0], diff)
			}
			if took < 2*time.Second || took > 60*time.Second {
				t.Errorf("acl %s took %v; want about 2s", args[0], took)
			}
			if args[0] == "apply" {
				var want []string
				for _, addr := range addrs {
					if addr != stalled.Addr() {
						want = append(want, nodeLine(nodeAt[addr], roleOf[addr], u.name))
					}
				}
				if diff := cmp.Diff(want, lines(r.stdout)); diff != "" {
					t.Errorf("acl apply with a replica stalled (-want +got):\n%s", diff)
				}
			} else if r.stdout != "" {
				t.Errorf("acl check with a replica stalled: stdout %q", r.stdout)
			}
		}
	})
}

// TestACLStandalone: a server without an aclfile fails acl apply, named,
// unless -no-save-ok; one with an aclfile keeps the user over kill -9 and a
// restart, and acl check finds it there; a server whose default user is
// off refuses kuis logged in as it, and the node is named.
func TestACLStandalone(t *testing.T) {
	t.Parallel()
	s := redistest.StandaloneServers(t, aclPortLo, aclPortHi)
	kuisBin := buildKuis(t)
	u := newACLUser(t)
	apply := func(addr string, extra ...string) kuisRun {
		return kuisBin.run(nil, append([]string{"-addr", addr, "acl", "apply", "teacher", "-name", u.name, "-new-password-file", u.file}, extra...)...)
	}

	plain := s.Standalone()
	r := apply(plain.Addr())
	want := fmt.Sprintf("kuis: acl apply %s: user %q set, but NOT saved: the server has no aclfile (CONFIG GET aclfile is empty), so the user is lost when it restarts; -no-save-ok accepts that", plain.Addr(), u.name)
	if diff := cmp.Diff([]string{want}, lines(r.stderr)); r.code != 1 || r.stdout != "" || diff != "" {
		t.Errorf("acl apply without an aclfile: exit %d, stdout %q (-want +got):\n%s", r.code, r.stdout, diff)
	}
	r = apply(plain.Addr(), "-no-save-ok")
	want = fmt.Sprintf("%s (server): user %q set, NOT saved: the server has no aclfile, so the user is lost when it restarts", plain.Addr(), u.name)
	if diff := cmp.Diff([]string{want}, lines(r.stdout)); r.code != 0 || r.stderr != "" || diff != "" {
		t.Errorf("acl apply -no-save-ok without an aclfile: exit %d, stderr %q (-want +got):\n%s", r.code, r.stderr, diff)
	}

	saving := s.Standalone("--aclfile", "users.acl")
	r = apply(saving.Addr())
	want = nodeLine(saving, "server", u.name)
	if diff := cmp.Diff([]string{want}, lines(r.stdout)); r.code != 0 || r.stderr != "" || diff != "" {
		t.Errorf("acl apply with an aclfile: exit %d, stderr %q (-want +got):\n%s", r.code, r.stderr, diff)
	}
	if err := saving.Restart(); err != nil {
		t.Fatal(err)
	}
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{saving.Addr()}, Username: u.name, Password: u.password, ForceSingleClient: true, DisableCache: true})
	if err != nil {
		t.Fatalf("the user after a restart: %v", err)
	}
	client.Close()
	if r := kuisBin.run(nil, "-addr", saving.Addr(), "acl", "check", "teacher", "-name", u.name, "-new-password-file", u.file); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("acl check after a restart: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// kuis logs in as the default user, which is off: its commands are
	// refused (NOAUTH), which is a refused login, of the node.
	if _, err := saving.Do("ACL", "SETUSER", "default", "off"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"quizzes"}, {"acl", "check", "teacher", "-name", u.name}} {
		r := kuisBin.run(nil, append([]string{"-addr", saving.Addr()}, args...)...)
		prefix := "kuis: "
		if args[0] == "acl" {
			prefix = "kuis: acl check " + saving.Addr() + ": "
		}
		want := prefix + fmt.Sprintf("Redis at %s refused the login of user \"default\": NOAUTH ", saving.Addr())
		if got := lines(r.stderr); r.code != 1 || r.stdout != "" || len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("kuis %v as the default user, off: exit %d, stdout %q, stderr %q; want one line starting %q", args, r.code, r.stdout, r.stderr, want)
		}
	}
}
