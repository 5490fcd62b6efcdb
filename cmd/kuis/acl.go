package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// cmdACL is the group of the commands that make and check the Redis ACL
// users of the library's roles.
var cmdACL = &command{
	usageLine: "acl <command> [arguments]",
	commands:  []*command{cmdACLRules, cmdACLApply, cmdACLCheck},
}

// roles are the library's roles by the names kuis takes.
var roles = []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator}

// role is the role that args, the command's one argument, names.
func role(cmd string, args []string) (kuis.Role, error) {
	if len(args) != 1 {
		return 0, usagef("kuis %s: want one ROLE: app, teacher or operator", cmd)
	}
	for _, r := range roles {
		if r.String() == args[0] {
			return r, nil
		}
	}
	return 0, usagef("kuis %s: role %q: want app, teacher or operator", cmd, args[0])
}

// aclFlags are the options of the Store a role's user runs, as the flags
// of acl rules, apply and check give them.
type aclFlags struct {
	replicas, cache bool
}

func (f *aclFlags) declare(fs *flag.FlagSet) {
	fs.BoolVar(&f.replicas, "replicas", false, "the rules for a Store built WithReplicas: they also allow ROLE (and the app's XSETID and XINFO STREAM)")
	fs.BoolVar(&f.cache, "client-cache", false, "the rules for a client built WithClientCache: they also allow client-side caching")
}

// options are ACLRules' options for the flags in namespace ns.
func (f aclFlags) options(ns string) []kuis.Option {
	opts := []kuis.Option{kuis.WithNamespace(ns)}
	if f.replicas {
		opts = append(opts, kuis.WithReplicas(1, time.Second)) // only its presence matters to ACLRules
	}
	if f.cache {
		opts = append(opts, kuis.WithClientCache(time.Minute)) // only "on" matters to ACLRules
	}
	return opts
}

// String is the flags as a command line writes them.
func (f aclFlags) String() string {
	var s []string
	if f.replicas {
		s = append(s, "-replicas")
	}
	if f.cache {
		s = append(s, "-client-cache")
	}
	return strings.Join(s, " ")
}

// userFlags name the user acl apply makes and acl check reads, and how
// long they wait for the nodes.
type userFlags struct {
	name, passwordFile string
	wait               time.Duration
}

func (u *userFlags) declare(fs *flag.FlagSet, pwUse string) {
	fs.StringVar(&u.name, "name", "", "the ACL user `NAME` the role's rules are for")
	fs.StringVar(&u.passwordFile, "new-password-file", "", pwUse)
	fs.DurationVar(&u.wait, "timeout", 30*time.Second, "wait at most `D` in all for nodes that are loading or cannot be reached yet")
}

// check checks the flags before any I/O, for command cmd.
func (u *userFlags) check(cmd string) error {
	if u.name == "" || strings.ContainsAny(u.name, " \t\r\n") {
		return usagef("kuis %s: -name %q: want the user's name, without spaces", cmd, u.name)
	}
	if u.wait <= 0 {
		return usagef("kuis %s: -timeout %v: want more than 0", cmd, u.wait)
	}
	return nil
}

// password is the user's password: the first line of -new-password-file,
// else $REDIS_PASSWORD, else "".
func (u *userFlags) password(c *cli) (string, error) {
	if u.passwordFile != "" {
		return readPassword(u.passwordFile)
	}
	return c.getenv("REDIS_PASSWORD"), nil
}

var cmdACLRules = &command{
	usageLine: "rules ROLE [-replicas] [-client-cache]",
	short:     "the ACL SETUSER arguments of a role: app, teacher or operator",
	long: `
Prints ACLRules(ROLE) for the namespace, exactly: one argument of ACL SETUSER
a line, to put after ACL SETUSER NAME reset on >PASSWORD. A line may hold
spaces (a selector, in parentheses) and glob characters: keep each line one
argument, e.g. in bash
  mapfile -t rules < <(kuis acl rules app)
  redis-cli ACL SETUSER app reset on ">$PASSWORD" "${rules[@]}"
or let kuis acl apply do it on every node. Without -client-cache the rules do
not allow client-side caching: build the user's client with DisableCache.
Without -replicas they do not allow what a Store built WithReplicas sends:
New refuses such a Store (ErrForbidden). Needs no server.`,
	flag: func(fs *flag.FlagSet) runFunc {
		var f aclFlags
		f.declare(fs)
		return func(_ context.Context, c *cli, args []string) error {
			r, err := role("acl rules", args)
			if err != nil {
				return err
			}
			for _, rule := range kuis.ACLRules(r, f.options(c.g.namespace)...) {
				fmt.Fprintln(c.stdout, rule)
			}
			return nil
		}
	},
}

var cmdACLApply = &command{
	usageLine: "apply ROLE -name NAME [-new-password-file FILE] [-replicas] [-client-cache] [-no-save-ok] [-timeout D]",
	short:     "create or reset a role's ACL user on every node, and save it in each node's aclfile",
	long: `
Sends ACL SETUSER NAME reset on >PASSWORD and the role's rules (kuis acl rules
ROLE, with the same -replicas and -client-cache) to every node: the standalone
server (-addr), or every node of the cluster (-cluster): the seeds, and each
primary and replica that a node reached lists in CLUSTER SHARDS, whatever its
health, loading or failed included (ACL users are per node: a node without
the user refuses its login, maybe long after start-up). Each node gets a
connection of its own. Then, on each node, ACL SAVE to its aclfile (CONFIG
GET aclfile), and a login as the user.

A node that is loading, or cannot be reached yet, is tried again until this
command's -timeout (not the one before the command) has passed since the
start. A node that could not be updated by then, or that has no aclfile (the user would be lost when it restarts), is
a failure; -no-save-ok accepts a node without an aclfile.

The new user's password is the first line of -new-password-file, else
$REDIS_PASSWORD. kuis itself logs in with the flags before the command
(-user, -password-file, else $REDIS_PASSWORD) as a user allowed ACL, CONFIG
GET, ROLE and CLUSTER SHARDS, such as the default user.

Prints one line per node updated: its address and role, and where the user
was saved. Exit status 1 when a node failed, each failure on a line of its
own naming the node; the others are still updated.`,
	flag: func(fs *flag.FlagSet) runFunc {
		var f aclFlags
		var u userFlags
		f.declare(fs)
		u.declare(fs, "read the new user's password from `FILE` (default $REDIS_PASSWORD)")
		noSaveOK := fs.Bool("no-save-ok", false, "accept nodes without an aclfile, where the user is lost when they restart")
		return func(ctx context.Context, c *cli, args []string) error {
			r, err := role("acl apply", args)
			if err != nil {
				return err
			}
			if err := u.check("acl apply"); err != nil {
				return err
			}
			pw, err := u.password(c)
			if err != nil {
				return err
			}
			if pw == "" {
				return usagef("kuis acl apply: no password for user %q: give -new-password-file FILE or set $REDIS_PASSWORD", u.name)
			}
			setuser := append([]string{"reset", "on", ">" + pw}, kuis.ACLRules(r, f.options(c.g.namespace)...)...)
			failed := 0
			for _, o := range c.onEveryNode(ctx, u.wait, func(ctx context.Context, n node) (string, error) {
				return applyOn(ctx, n, u.name, pw, setuser, f.cache, *noSaveOK)
			}) {
				if o.err != nil {
					c.report("acl apply "+o.addr, o.err)
					failed++
					continue
				}
				fmt.Fprintln(c.stdout, o.line)
			}
			if failed > 0 {
				return errReported
			}
			return nil
		}
	},
}

var cmdACLCheck = &command{
	usageLine: "check ROLE -name NAME [-new-password-file FILE] [-replicas] [-client-cache] [-timeout D]",
	short:     "check that every node has a role's ACL user, with exactly the role's rules",
	long: `
Reads ACL GETUSER NAME on every node, as kuis acl apply reaches and waits for
them (-timeout), and compares the user's rules with the role's (kuis acl
rules ROLE, with the same -replicas and -client-cache) as the server applies
them: the commands each allows, whatever categories the server prints them
in, and the key patterns, channels and selectors. The user must be on, and when a password
is given (the first line of -new-password-file, else $REDIS_PASSWORD), its
one password.

Prints nothing when every node has the user as the role makes it, and one
line per node that lacks it or has it otherwise, naming the node and what
differs. When the user has the rules of the role for other options, the line
says which: a user without what WithReplicas needs makes New refuse a Store
built WithReplicas (ErrForbidden), and one without what WithClientCache
needs refuses a client that caches. Exit status 1 when a node differs, or
could not be read (a line on stderr naming it).`,
	flag: func(fs *flag.FlagSet) runFunc {
		var f aclFlags
		var u userFlags
		f.declare(fs)
		u.declare(fs, "check that the user's password is the first line of `FILE` (default $REDIS_PASSWORD; neither: not checked)")
		return func(ctx context.Context, c *cli, args []string) error {
			r, err := role("acl check", args)
			if err != nil {
				return err
			}
			if err := u.check("acl check"); err != nil {
				return err
			}
			pw, err := u.password(c)
			if err != nil {
				return err
			}
			want := aclWant{role: r, flags: f, namespace: c.g.namespace, password: pw}
			failed := 0
			for _, o := range c.onEveryNode(ctx, u.wait, func(ctx context.Context, n node) (string, error) {
				return checkOn(ctx, n, u.name, want)
			}) {
				switch {
				case o.err != nil:
					c.report("acl check "+o.addr, o.err)
					failed++
				case o.line != "":
					fmt.Fprintln(c.stdout, o.line)
					failed++
				}
			}
			if failed > 0 {
				return errReported
			}
			return nil
		}
	},
}

// node is one node acl apply or check reaches: its address, its role in
// an operator's words, and a client of its own to it.
type node struct {
	addr, role string
	client     rueidis.Client
}

// nodeOutcome is what came of one node: work's line, or an error.
type nodeOutcome struct {
	addr, line string
	err        error
}

// retryEvery is how often a node that is loading or cannot be reached is
// tried again.
const retryEvery = 100 * time.Millisecond

// onEveryNode runs work on every node, all at once, and returns each node's
// outcome in the order of their addresses. The nodes are the standalone
// server (-addr), or, on a cluster (-cluster), the seeds and every node that
// a node reached lists in CLUSTER SHARDS: primaries and replicas, whatever
// their health. Each node gets a client of its own (ForceSingleClient),
// logged in as kuis. A node that answers LOADING or cannot be reached is
// tried again every retryEvery until wait has passed since the start; its
// outcome is then an error saying so.
func (c *cli) onEveryNode(ctx context.Context, wait time.Duration, work func(context.Context, node) (string, error)) []nodeOutcome {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
		out  []nodeOutcome
		wg   sync.WaitGroup
	)
	var visit func(addr string)
	found := func(addrs ...string) {
		mu.Lock()
		defer mu.Unlock()
		for _, a := range addrs {
			if !seen[a] {
				seen[a] = true
				wg.Go(func() { visit(a) })
			}
		}
	}
	visit = func(addr string) {
		line, err := c.onNode(ctx, addr, wait, found, work)
		if err != nil {
			err = &nodeError{addr, err}
		}
		mu.Lock()
		out = append(out, nodeOutcome{addr, line, err})
		mu.Unlock()
	}
	found(c.addrs...)
	wg.Wait()
	slices.SortFunc(out, func(a, b nodeOutcome) int { return strings.Compare(a.addr, b.addr) })
	return out
}

// onNode runs work on the node at addr, again while the node is not ready,
// until ctx ends.
func (c *cli) onNode(ctx context.Context, addr string, wait time.Duration, found func(...string), work func(context.Context, node) (string, error)) (string, error) {
	var last error
	for {
		line, err := c.tryNode(ctx, addr, found, work)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			// An attempt the wait's end cut short says no more than
			// "no answer": the attempt before it, if any, says why.
			if last == nil || (notReady(err) && !errors.Is(err, context.DeadlineExceeded)) {
				last = err
			}
			return "", gaveUp(c, addr, wait, last)
		case !notReady(err):
			return "", err
		}
		last = err
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", gaveUp(c, addr, wait, last)
			}
			return "", ctx.Err()
		case <-time.After(retryEvery):
		}
	}
}

// gaveUp is the error of a node not ready in time: it says so, and what
// the node last answered.
func gaveUp(c *cli, addr string, wait time.Duration, last error) error {
	why := "no answer"
	if last != nil && !errors.Is(last, context.DeadlineExceeded) {
		why = c.words(&nodeError{addr, last})
	}
	return fmt.Errorf("not done in %v (-timeout): %s", wait, why)
}

// notReady reports whether err says the node may answer later: it is
// loading its data (LOADING, or so slow to answer while it loads that a
// dial or a command of rueidis timed out), or cannot be reached (yet). The
// wait's own end and an interrupt are onNode's to tell: it asks its ctx
// first.
func notReady(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false // an interrupt
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true // not the wait's end, which onNode checks first: a timeout of rueidis's own
	}
	if re, ok := rueidis.IsRedisErr(err); ok {
		return re.IsLoading()
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// tryNode connects to the node at addr, passes on the nodes it lists when
// it is a cluster node, and runs work there.
func (c *cli) tryNode(ctx context.Context, addr string, found func(...string), work func(context.Context, node) (string, error)) (string, error) {
	client, err := newClient(ctx, rueidis.ClientOption{
		InitAddress: []string{addr}, Username: c.g.user, Password: c.password,
		ForceSingleClient: true, DisableCache: true,
	})
	if err != nil {
		return "", err
	}
	defer client.Close()
	n := node{addr: addr, role: "server", client: client}
	if c.g.cluster != "" {
		peers, err := clusterShards(ctx, client)
		if err != nil {
			return "", err
		}
		found(peers...)
		if n.role, err = nodeRole(ctx, client); err != nil {
			return "", err
		}
	}
	return work(ctx, n)
}

// errNotCluster is the answer of a server without cluster support to
// CLUSTER SHARDS, in kuis's words.
var errNotCluster = errors.New("not a Redis Cluster node (use -addr for a standalone server)")

// clusterShards is the address of every node of the cluster that the node
// of client knows (CLUSTER SHARDS), whatever its role and health.
func clusterShards(ctx context.Context, client rueidis.Client) ([]string, error) {
	shards, err := client.Do(ctx, client.B().ClusterShards().Build()).ToArray()
	if re, ok := rueidis.IsRedisErr(err); ok && strings.Contains(re.Error(), "cluster support disabled") {
		return nil, errNotCluster
	}
	if err != nil {
		return nil, fmt.Errorf("CLUSTER SHARDS: %w", err)
	}
	var addrs []string
	for _, shard := range shards {
		s, err := shard.AsMap()
		if err != nil {
			return nil, fmt.Errorf("CLUSTER SHARDS: %w", err)
		}
		field := s["nodes"]
		nodes, err := field.ToArray()
		if err != nil {
			return nil, fmt.Errorf("CLUSTER SHARDS: nodes: %w", err)
		}
		for _, n := range nodes {
			m, err := n.AsMap()
			if err != nil {
				return nil, fmt.Errorf("CLUSTER SHARDS: a node: %w", err)
			}
			str := func(k string) string { v := m[k]; s, _ := v.ToString(); return s }
			num := func(k string) int64 { v := m[k]; n, _ := v.AsInt64(); return n }
			host, port := str("endpoint"), num("port")
			if host == "" || host == "?" {
				host = str("ip")
			}
			if port == 0 {
				port = num("tls-port")
			}
			if host != "" && port > 0 {
				addrs = append(addrs, net.JoinHostPort(host, strconv.FormatInt(port, 10)))
			}
		}
	}
	return addrs, nil
}

// nodeRole is the role the node of client says it has (ROLE): primary,
// replica, or the server's word.
func nodeRole(ctx context.Context, client rueidis.Client) (string, error) {
	r, err := client.Do(ctx, client.B().Role().Build()).ToArray()
	if err != nil {
		return "", fmt.Errorf("ROLE: %w", err)
	}
	if len(r) == 0 {
		return "", errors.New("ROLE: an empty reply")
	}
	s, err := r[0].ToString()
	if err != nil {
		return "", fmt.Errorf("ROLE: %w", err)
	}
	if named, ok := map[string]string{"master": "primary", "slave": "replica"}[s]; ok {
		return named, nil
	}
	return s, nil
}

// applyOn sets user on node n, saves it where n has an aclfile, logs in as
// it, and says what became of it.
func applyOn(ctx context.Context, n node, user, pw string, setuser []string, cache, noSaveOK bool) (string, error) {
	if err := n.client.Do(ctx, n.client.B().AclSetuser().Username(user).Rule(setuser...).Build()).Error(); err != nil {
		return "", fmt.Errorf("ACL SETUSER %s: %w", user, err)
	}
	cfg, err := n.client.Do(ctx, n.client.B().ConfigGet().Parameter("aclfile").Build()).AsStrMap()
	if err != nil {
		return "", fmt.Errorf("user %q set, but CONFIG GET aclfile failed, so whether it is saved is unknown: %w", user, err)
	}
	aclfile := cfg["aclfile"]
	if aclfile != "" {
		if err := n.client.Do(ctx, n.client.B().AclSave().Build()).Error(); err != nil {
			return "", fmt.Errorf("user %q set, but ACL SAVE to %s failed: %w", user, aclfile, err)
		}
	}
	if err := login(ctx, n.addr, user, pw, cache); err != nil {
		if notReady(err) || ctx.Err() != nil {
			return "", err
		}
		// Not wrapped: the words of kuis's own login do not fit the user's.
		return "", fmt.Errorf("user %q set, but it cannot log in: %s", user, err.Error())
	}
	line := fmt.Sprintf("%s (%s): user %q set, ", n.addr, n.role, user)
	switch {
	case aclfile != "":
		return line + "saved to " + aclfile, nil
	case noSaveOK:
		return line + "NOT saved: the server has no aclfile, so the user is lost when it restarts", nil
	}
	return "", fmt.Errorf("user %q set, but NOT saved: the server has no aclfile (CONFIG GET aclfile is empty), so the user is lost when it restarts; -no-save-ok accepts that", user)
}

// login logs in to the node at addr as user, as the user's client will:
// with client-side caching when cache is set (rueidis then sends CLIENT
// TRACKING as it connects).
func login(ctx context.Context, addr, user, pw string, cache bool) error {
	client, err := newClient(ctx, rueidis.ClientOption{
		InitAddress: []string{addr}, Username: user, Password: pw,
		ForceSingleClient: true, DisableCache: !cache,
	})
	if err != nil {
		return err
	}
	client.Close()
	return nil
}

// checkOn reads user on node n and says how it differs from want, "" when
// it does not.
func checkOn(ctx context.Context, n node, user string, want aclWant) (string, error) {
	got, err := n.client.Do(ctx, n.client.B().AclGetuser().Username(user).Build()).ToMessage()
	if rueidis.IsRedisNil(err) {
		return fmt.Sprintf("%s (%s): no user %q", n.addr, n.role, user), nil
	}
	if err != nil {
		return "", fmt.Errorf("ACL GETUSER %s: %w", user, err)
	}
	u, err := parseGetuser(got)
	if err != nil {
		return "", fmt.Errorf("ACL GETUSER %s: %w", user, err)
	}
	cats := map[string][]string{}
	category := func(name string) ([]string, error) {
		if cmds, ok := cats[name]; ok {
			return cmds, nil
		}
		cmds, err := n.client.Do(ctx, n.client.B().AclCat().Categoryname(name).Build()).AsStrSlice()
		if err != nil {
			return nil, fmt.Errorf("ACL CAT %s: %w", name, err)
		}
		cats[name] = cmds
		return cmds, nil
	}
	diff, err := want.diff(u, category)
	if err != nil || diff == "" {
		return "", err
	}
	return fmt.Sprintf("%s (%s): user %q %s", n.addr, n.role, user, diff), nil
}
