package kuis_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// needCluster skips a test unless the target is a Redis Cluster.
func needCluster(t *testing.T) {
	t.Helper()
	if !redistest.Cluster() {
		t.Skipf("needs a Redis Cluster (REDIS_CLUSTER_ADDRS); target is %s", redistest.Target())
	}
}

// node sends one command to one node and returns the reply.
func node(ctx context.Context, c rueidis.Client, cmd ...string) rueidis.RedisResult {
	return c.Do(ctx, c.B().Arbitrary(cmd...).Build())
}

// nodeID is the cluster node ID of the node c talks to.
func nodeID(t *testing.T, ctx context.Context, c rueidis.Client) string {
	t.Helper()
	id, err := node(ctx, c, "CLUSTER", "MYID").ToString()
	if err != nil {
		t.Fatalf("CLUSTER MYID: %v", err)
	}
	return id
}

// startReplica starts a redis-server in cluster mode on a free port of the
// fault tests' range, joins it to the target cluster as a replica of the
// primary at primaryAddr, and waits until every primary knows it. At cleanup
// it kills the server and makes every primary forget it, so that the
// target's cluster is left with its own nodes only.
func startReplica(t *testing.T, ctx context.Context, primaries map[string]rueidis.Client, primaryAddr string) (*faultServer, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a redis-server process; skipped in -short mode")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		msg := "needs the redis-server binary on PATH (apt-get install redis-server): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	port := 0
	for p := faultPortLo; p <= faultPortHi && port == 0; p++ {
		if portFree(p) && portFree(p+10000) { // the node's port and its cluster bus
			port = p
		}
	}
	if port == 0 {
		t.Fatalf("no free port pair in %d-%d", faultPortLo, faultPortHi)
	}
	s := &faultServer{port: port, dir: t.TempDir()}
	s.args = []string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log"),
		"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(s.dir, "nodes.conf"),
	}
	if err := s.start(); err != nil {
		s.kill()
		t.Fatal(err)
	}
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{s.addr()}, ForceSingleClient: true, DisableCache: true})
	if err != nil {
		s.kill()
		t.Fatal(err)
	}
	id := nodeID(t, ctx, rc)
	t.Cleanup(func() {
		rc.Close()
		s.kill()
		for addr, p := range primaries {
			if err := node(ctx, p, "CLUSTER", "FORGET", id).Error(); err != nil {
				t.Errorf("CLUSTER FORGET the replica on %s: %v", addr, err)
			}
		}
	})
	host, pport, _ := net.SplitHostPort(primaryAddr)
	if err := node(ctx, rc, "CLUSTER", "MEET", host, pport).Error(); err != nil {
		t.Fatalf("CLUSTER MEET: %v", err)
	}
	primaryID := nodeID(t, ctx, primaries[primaryAddr])
	waitFor(t, 20*time.Second, "the replica to replicate "+primaryAddr+" and every primary to know it", func() bool {
		if err := node(ctx, rc, "CLUSTER", "REPLICATE", primaryID).Error(); err != nil {
			return false // it does not know the primary yet
		}
		for _, p := range primaries {
			nodes, err := node(ctx, p, "CLUSTER", "NODES").ToString()
			if err != nil || !strings.Contains(nodes, id+" "+s.addr()) || !strings.Contains(nodes, "slave "+primaryID) {
				return false
			}
		}
		return true
	})
	return s, id
}

// portFree reports whether nothing listens on the loopback port.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// waitFor polls cond every 50 ms until it holds, or fails the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up after %v waiting for %s", d, what)
		}
	}
}

// TestClusterDeadReplica: a replica that is down, and that the client knows,
// fails neither Quizzes nor Purge: only the primaries hold what they need.
func TestClusterDeadReplica(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	e := newEnv(t)
	primaries := primaryNodes(t, e)
	addrs := slices.Sorted(func(yield func(string) bool) {
		for a := range primaries {
			if !yield(a) {
				return
			}
		}
	})
	replica, _ := startReplica(t, ctx, primaries, addrs[0])
	// A client that met the replica when it connected, as a long-running one has.
	var client rueidis.Client
	waitFor(t, 20*time.Second, "a client that knows the replica", func() bool {
		c := redistest.Client(t)
		if _, ok := c.Nodes()[replica.addr()]; ok {
			client = c
			return true
		}
		c.Close()
		return false
	})
	s := e.storeOn(client)
	var ids []string
	for range 6 {
		id := quizID()
		ids = append(ids, id)
		if err := e.meta(id).Create(ctx, "Kuis "+id, 3); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(ids)
	replica.kill()

	got, err := s.Quizzes(ctx)
	if diff := cmp.Diff(ids, got); err != nil || diff != "" {
		t.Errorf("Quizzes with a dead replica: %v (-want +got):\n%s", err, diff)
	}
	if n, err := s.Purge(ctx); err != nil || n != int64(len(ids)) {
		t.Errorf("Purge with a dead replica = %d, %v; want %d, nil", n, err, len(ids))
	}
	if left := keysByNode(t, e, primaries); len(left) != 0 {
		t.Errorf("keys left after Purge: %v", left)
	}
}
