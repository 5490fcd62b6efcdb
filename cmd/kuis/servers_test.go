package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

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
