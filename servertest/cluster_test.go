package servertest_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// node sends one command to one node and returns the reply.
func node(ctx context.Context, c rueidis.Client, cmd ...string) rueidis.RedisResult {
	return c.Do(ctx, c.B().Arbitrary(cmd...).Build())
}

// startReplica starts a redis-server in cluster mode on a free port of the
// fault tests' range, joins it to the target cluster as a replica of the
// primary at primaryAddr, and waits until every primary knows it. At cleanup
// it kills the server and makes every primary forget it, so that the
// target's cluster is left with its own nodes only.
func startReplica(t *testing.T, ctx context.Context, primaries map[string]rueidis.Client, primaryAddr string) (*redistest.Server, string) {
	t.Helper()
	s := redistest.NewServers(t, faultPortLo, faultPortHi).ClusterNode("--appendonly", "no")
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{s.Addr()}, ForceSingleClient: true, DisableCache: true})
	if err != nil {
		s.Kill()
		t.Fatal(err)
	}
	id := redistest.NodeID(t, ctx, rc)
	t.Cleanup(func() {
		rc.Close()
		s.Kill()
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
	primaryID := redistest.NodeID(t, ctx, primaries[primaryAddr])
	waitFor(t, 20*time.Second, "the replica to replicate "+primaryAddr+" and every primary to know it", func() bool {
		if err := node(ctx, rc, "CLUSTER", "REPLICATE", primaryID).Error(); err != nil {
			return false // it does not know the primary yet
		}
		for _, p := range primaries {
			nodes, err := node(ctx, p, "CLUSTER", "NODES").ToString()
			if err != nil || !strings.Contains(nodes, id+" "+s.Addr()) || !strings.Contains(nodes, "slave "+primaryID) {
				return false
			}
		}
		return true
	})
	return s, id
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
	t.Parallel()
	redistest.NeedCluster(t)
	ctx := context.Background()
	e := newEnv(t)
	primaries := redistest.Primaries(t, ctx, e.client)
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
		if _, ok := c.Nodes()[replica.Addr()]; ok {
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
	replica.Kill()

	got, err := s.Quizzes(ctx)
	if diff := cmp.Diff(ids, got); err != nil || diff != "" {
		t.Errorf("Quizzes with a dead replica: %v (-want +got):\n%s", err, diff)
	}
	if n, err := s.Purge(ctx); err != nil || n != int64(2*len(ids)) { // each quiz's meta and log
		t.Errorf("Purge with a dead replica = %d, %v; want %d, nil", n, err, 2*len(ids))
	}
	if left := redistest.KeysByNode(t, ctx, primaries, e.ns+":*"); len(left) != 0 {
		t.Errorf("keys left after Purge: %v", left)
	}
}
