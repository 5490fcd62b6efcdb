package redistest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/rueidis"
)

// Ports of this package's own servers.
const serversLo, serversHi = 30900, 30999

// ownServers starts a test's servers once across the suite's three runs.
func ownServers(t *testing.T) *Servers {
	t.Helper()
	return StandaloneServers(t, serversLo, serversHi)
}

// TestStandaloneRestartKeepsAOF: a server started with an append-only file
// comes back from kill -9 on the same port with what it acknowledged; Kill
// takes it down, and a replica follows it.
func TestStandaloneRestartKeepsAOF(t *testing.T) {
	s := ownServers(t)
	srv := s.Standalone("--appendonly", "yes", "--appendfsync", "always")
	if srv.Port < serversLo || srv.Port > serversHi {
		t.Errorf("port %d outside %d-%d", srv.Port, serversLo, serversHi)
	}
	if got, err := srv.Do("SET", "k", "a value with spaces"); err != nil || got != "OK" {
		t.Fatalf("SET = %q, %v", got, err)
	}
	pid := srv.PID()
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if srv.PID() == pid || srv.PID() == 0 {
		t.Errorf("PID %d before the restart, %d after", pid, srv.PID())
	}
	if got, err := srv.Do("GET", "k"); err != nil || got != "a value with spaces" {
		t.Errorf("GET after kill -9 and restart = %q, %v", got, err)
	}
	if _, err := srv.Do("NOSUCHCOMMAND"); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("an error reply = %v, want an error naming it", err)
	}

	r := s.Replica(srv)
	if got, err := r.Do("GET", "k"); err != nil || got != "a value with spaces" {
		t.Errorf("GET on the replica = %q, %v", got, err)
	}
	srv.Kill()
	if srv.PID() != 0 {
		t.Errorf("PID after Kill = %d, want 0", srv.PID())
	}
	if _, err := srv.Do("PING"); err == nil {
		t.Error("PING after Kill answered")
	}
}

// TestServersNeverShareAPort: a port that a test's Servers hold stays
// theirs while its server is down, so that Servers of another test on the
// same range take another one, and the first server restarts on its own.
func TestServersNeverShareAPort(t *testing.T) {
	const lo, hi = serversHi - 1, serversHi
	first := StandaloneServers(t, lo, hi).Standalone()
	first.Kill()
	second := StandaloneServers(t, lo, hi).Standalone()
	if second.Port == first.Port {
		t.Errorf("a second Servers took port %d, held by a server that is down", first.Port)
	}
	if err := first.Start(); err != nil {
		t.Errorf("the first server, started again on its port %d: %v", first.Port, err)
	}
}

// TestClusterFailover: a cluster of 3 primaries with a replica each forms,
// a rueidis client seeded with its addresses sees all 6 nodes, and after
// kill -9 of a primary its replica takes over and the cluster serves again.
func TestClusterFailover(t *testing.T) {
	s := ownServers(t)
	c := s.Cluster(3, 1, "--cluster-node-timeout", "1000")
	if len(c.Nodes()) != 6 || len(c.Addrs()) != 6 {
		t.Fatalf("%d nodes, %d addresses; want 6", len(c.Nodes()), len(c.Addrs()))
	}
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: c.Addrs(), DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if client.Mode() != rueidis.ClientModeCluster {
		t.Fatalf("client mode %q", client.Mode())
	}
	if nodes := client.Nodes(); len(nodes) != 6 {
		t.Errorf("client.Nodes() has %d nodes, want the 3 primaries and 3 replicas", len(nodes))
	}
	ctx := context.Background()
	for i := range 100 {
		k := "k" + strconv.Itoa(i)
		if err := client.Do(ctx, client.B().Set().Key(k).Value(k).Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	// Wait until the first primary's replica holds what it acknowledged,
	// so that the failover loses nothing.
	p := c.Primaries[0]
	want, err := p.Do("DBSIZE")
	if err != nil {
		t.Fatal(err)
	}
	if err := waitFor(clusterWait, func() error {
		acks, err := p.Do("WAIT", "1", "1000")
		if err == nil && acks != "1" {
			err = errors.New("WAIT: " + acks + " replicas acknowledged")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	p.Kill()
	if err := c.WaitOK(); err != nil {
		t.Fatal(err)
	}
	r := c.Replicas[0][0]
	role, err := r.Do("ROLE")
	if err != nil || !strings.HasPrefix(role, "master\n") {
		t.Fatalf("ROLE of the killed primary's replica = %q, %v; want master", role, err)
	}
	if got, err := r.Do("DBSIZE"); err != nil || got != want {
		t.Errorf("DBSIZE of the promoted replica = %s, %v; want %s", got, err, want)
	}
	for i := range 100 {
		k := "k" + strconv.Itoa(i)
		got, err := client.Do(ctx, client.B().Get().Key(k).Build()).ToString()
		if err != nil || got != k {
			t.Errorf("GET %s after the failover = %q, %v", k, got, err)
		}
	}
}
