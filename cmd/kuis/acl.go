package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// cmdACL is the group of the commands that make the Redis ACL users of the
// library's roles.
var cmdACL = &command{
	usageLine: "acl <command> [arguments]",
	commands:  []*command{cmdACLRules, cmdACLApply},
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

// aclOptions are the options ACLRules takes from the flags: the namespace,
// and the client-side cache when the user's client uses it.
func (c *cli) aclOptions(cache bool) []kuis.Option {
	opts := []kuis.Option{kuis.WithNamespace(c.g.namespace)}
	if cache {
		opts = append(opts, kuis.WithClientCache(time.Minute)) // only "on" matters to ACLRules
	}
	return opts
}

var cmdACLRules = &command{
	usageLine: "rules ROLE [-client-cache]",
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
Needs no server.`,
	flag: func(fs *flag.FlagSet) runFunc {
		cache := fs.Bool("client-cache", false, "allow client-side caching, for a client built WithClientCache")
		return func(_ context.Context, c *cli, args []string) error {
			r, err := role("acl rules", args)
			if err != nil {
				return err
			}
			for _, rule := range kuis.ACLRules(r, c.aclOptions(*cache)...) {
				fmt.Fprintln(c.stdout, rule)
			}
			return nil
		}
	},
}

var cmdACLApply = &command{
	usageLine: "apply ROLE -user NAME [-password-file FILE] [-client-cache]",
	short:     "create or reset a role's ACL user on every node, and save it where the server has an aclfile",
	long: `
Sends ACL SETUSER NAME reset on >PASSWORD and the role's rules (kuis acl rules
ROLE) to every node: the standalone server, or each primary and each replica
of the cluster (ACL users are per node: a node without the user refuses its
login long after start-up). Then, on each node, ACL SAVE when it has an
aclfile (CONFIG GET aclfile); a node without one keeps the user only until it
restarts, which kuis says plainly. Last, it logs in as the user on each node.

The new user's password is the first line of this command's -password-file,
else $REDIS_PASSWORD. kuis itself logs in with the flags before the command
(-user, -password-file, else $REDIS_PASSWORD) as a user allowed ACL, CONFIG
GET and ROLE, such as the default user.

Prints one line per node: its address and role, and whether the user was
saved. Exit status 1 when a node failed; the others are still set.`,
	flag: func(fs *flag.FlagSet) runFunc {
		user := fs.String("user", "", "create or reset the ACL user `NAME`")
		pwFile := fs.String("password-file", "", "read the new user's password from `FILE` (default $REDIS_PASSWORD)")
		cache := fs.Bool("client-cache", false, "allow client-side caching, for a client built WithClientCache")
		return func(ctx context.Context, c *cli, args []string) error {
			r, err := role("acl apply", args)
			if err != nil {
				return err
			}
			if *user == "" || strings.ContainsAny(*user, " \t\r\n") {
				return usagef("kuis acl apply: -user %q: want the user's name, without spaces", *user)
			}
			pw := c.getenv("REDIS_PASSWORD")
			if *pwFile != "" {
				if pw, err = readPassword(*pwFile); err != nil {
					return err
				}
			}
			if pw == "" {
				return usagef("kuis acl apply: no password for user %q: give -password-file FILE or set $REDIS_PASSWORD", *user)
			}
			if err := c.connect(ctx); err != nil {
				return err
			}
			setuser := append([]string{"reset", "on", ">" + pw}, kuis.ACLRules(r, c.aclOptions(*cache)...)...)
			return c.aclApply(ctx, *user, pw, setuser)
		}
	},
}

// aclApply sets the user on every node, saves it where a node has an
// aclfile, and logs in as it.
func (c *cli) aclApply(ctx context.Context, user, pw string, setuser []string) error {
	nodes := map[string]rueidis.Client{c.addrs[0]: c.client}
	if c.client.Mode() == rueidis.ClientModeCluster {
		nodes = c.client.Nodes()
	}
	addrs := make([]string, 0, len(nodes))
	for a := range nodes {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	failed, unsaved := 0, 0
	for _, addr := range addrs {
		line, saved, err := c.applyNode(ctx, nodes[addr], addr, user, pw, setuser)
		if err != nil {
			c.report("acl apply "+addr, err)
			failed++
			continue
		}
		if !saved {
			unsaved++
		}
		fmt.Fprintln(c.stdout, line)
	}
	if unsaved > 0 {
		c.errorLine(fmt.Sprintf("kuis: acl apply: %d of %d nodes have no aclfile: user %q is lost when they restart", unsaved, len(addrs), user))
	}
	if failed > 0 {
		return errReported
	}
	return nil
}

// applyNode sets the user on one node and says what became of it.
func (c *cli) applyNode(ctx context.Context, node rueidis.Client, addr, user, pw string, setuser []string) (string, bool, error) {
	sctx, cancel := c.step(ctx)
	defer cancel()
	role := "server"
	if c.client.Mode() == rueidis.ClientModeCluster {
		r, err := node.Do(sctx, node.B().Role().Build()).ToArray()
		if err != nil {
			return "", false, fmt.Errorf("ROLE: %w", err)
		}
		if len(r) > 0 {
			if s, err := r[0].ToString(); err == nil {
				role = s
				if named, ok := map[string]string{"master": "primary", "slave": "replica"}[s]; ok {
					role = named
				}
			}
		}
	}
	if err := node.Do(sctx, node.B().AclSetuser().Username(user).Rule(setuser...).Build()).Error(); err != nil {
		return "", false, fmt.Errorf("ACL SETUSER %s: %w", user, err)
	}
	cfg, err := node.Do(sctx, node.B().ConfigGet().Parameter("aclfile").Build()).AsStrMap()
	if err != nil {
		return "", false, fmt.Errorf("user %q set, but CONFIG GET aclfile failed, so whether it is saved is unknown: %w", user, err)
	}
	line := fmt.Sprintf("%s (%s): user %q set", addr, role, user)
	saved := cfg["aclfile"] != ""
	if saved {
		if err := node.Do(sctx, node.B().AclSave().Build()).Error(); err != nil {
			return "", false, fmt.Errorf("user %q set, but ACL SAVE to %s failed: %w", user, cfg["aclfile"], err)
		}
		line += ", saved to " + cfg["aclfile"]
	} else {
		line += ", NOT saved: the server has no aclfile, so the user is lost when it restarts"
	}
	if err := login(sctx, addr, user, pw); err != nil { // not wrapped: the words of kuis's own login do not fit
		return "", false, fmt.Errorf("user %q set, but it cannot log in: %s", user, err.Error())
	}
	return line, saved, nil
}

// login logs in to the node at addr as user, as the user's client will.
func login(ctx context.Context, addr, user, pw string) error {
	client, err := newClient(ctx, rueidis.ClientOption{
		InitAddress: []string{addr}, Username: user, Password: pw,
		ForceSingleClient: true, DisableCache: true,
	})
	if err != nil {
		return err
	}
	client.Close()
	return nil
}
