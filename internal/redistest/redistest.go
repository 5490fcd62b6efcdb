// Package redistest is the one place tests and examples get a Redis client.
//
// The environment picks the target: REDIS_CLUSTER_ADDRS (a comma-separated host:port list)
// for a Redis Cluster, else REDIS_ADDR for a standalone server, else an in-process miniredis.
// Nothing here ever runs FLUSHALL or FLUSHDB: tests share real servers and keep apart by
// using a [Namespace] of their own.
//
// It also holds what tests of several packages share and what knows nothing of quizzes: the
// servers of a test's own ([Servers]), a client that records what it sends ([Recorder]), and
// reads of a server behind the library's back ([DumpKeys], [CommandCalls], [Primaries],
// [KeysByNode]).
package redistest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/rueidis"
)

// Environment variables that choose the target.
const (
	envCluster = "REDIS_CLUSTER_ADDRS"
	envAddr    = "REDIS_ADDR"
)

// Target reports where clients point: "cluster" when REDIS_CLUSTER_ADDRS is set
// (comma-separated host:port list), else "standalone" when REDIS_ADDR is set, else "miniredis".
// An empty variable counts as unset.
func Target() string {
	switch {
	case os.Getenv(envCluster) != "":
		return "cluster"
	case os.Getenv(envAddr) != "":
		return "standalone"
	default:
		return "miniredis"
	}
}

// Cluster reports whether the target is a Redis Cluster (Target() == "cluster").
func Cluster() bool { return Target() == "cluster" }

// Real reports whether the target is a real server (standalone or cluster), so tests of
// features miniredis lacks (ACL, CLIENT TRACKING, OBJECT ENCODING, SCAN paging) can run.
func Real() bool { return Target() != "miniredis" }

// Nodes returns the addresses to talk to directly: REDIS_ADDR, or each REDIS_CLUSTER_ADDRS
// entry. It returns nil for miniredis. Per-node state such as ACL users must be set on each.
func Nodes() []string {
	switch Target() {
	case "cluster":
		var nodes []string
		for _, a := range strings.Split(os.Getenv(envCluster), ",") {
			if a = strings.TrimSpace(a); a != "" {
				nodes = append(nodes, a)
			}
		}
		return nodes
	case "standalone":
		return []string{os.Getenv(envAddr)}
	default:
		return nil
	}
}

// realOption is the client option for a real target; the caller adds credentials.
//
// Standalone forces a single client: rueidis would otherwise probe CLUSTER SLOTS, and a
// restricted ACL user refused that probe must still get a plain client. Client-side caching
// stays on because real Redis supports RESP3 tracking. A cluster lets rueidis discover the
// topology from the seed list.
func realOption() rueidis.ClientOption {
	if Cluster() {
		return rueidis.ClientOption{InitAddress: Nodes()}
	}
	return rueidis.ClientOption{InitAddress: Nodes(), ForceSingleClient: true}
}

// miniOption is the client option for a miniredis at addr. miniredis has no CLIENT TRACKING
// (so the cache must be off) and answers CLUSTER SLOTS with a fake one-node cluster (so
// rueidis must not be left to guess the mode: it would refuse multi-key scripts).
func miniOption(addr string) rueidis.ClientOption {
	return rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true, ForceSingleClient: true}
}

// newClient connects with opt and, on a cluster target, makes sure rueidis really runs in
// cluster mode: rueidis picks the mode from the CLUSTER SLOTS reply, and a single-node client
// on a cluster would only fail later, with MOVED errors, far from the cause.
func newClient(opt rueidis.ClientOption) (rueidis.Client, error) {
	c, err := rueidis.NewClient(opt)
	if err != nil {
		return nil, fmt.Errorf("redistest: connect to %s %v: %w", Target(), opt.InitAddress, err)
	}
	if Cluster() && c.Mode() != rueidis.ClientModeCluster {
		c.Close()
		return nil, fmt.Errorf("redistest: %s %v: client mode is %q, want %q",
			envCluster, opt.InitAddress, c.Mode(), rueidis.ClientModeCluster)
	}
	return c, nil
}

// Open returns a new client for the target and a func that closes it (and stops the
// in-process miniredis if one was started). It is for code without a testing.TB, such as
// examples; tests use [Client].
func Open() (rueidis.Client, func(), error) {
	if Real() {
		c, err := newClient(realOption())
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
	m, err := miniredis.Run()
	if err != nil {
		return nil, nil, fmt.Errorf("redistest: start miniredis: %w", err)
	}
	c, err := newClient(miniOption(m.Addr()))
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return c, func() { c.Close(); m.Close() }, nil
}

// Client is [Open] for tests: it calls t.Fatal on error and closes the client (and any
// miniredis) at cleanup.
func Client(t testing.TB) rueidis.Client {
	t.Helper()
	c, closeFn, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeFn)
	return c
}

// Miniredis starts an in-process miniredis regardless of the environment, for tests that need
// to poke the fake directly (corrupt data, fast-forward time), and returns it with a client
// (DisableCache, ForceSingleClient). Both are closed at cleanup.
func Miniredis(t testing.TB) (*miniredis.Miniredis, rueidis.Client) {
	t.Helper()
	m := miniredis.RunT(t)
	c, err := rueidis.NewClient(miniOption(m.Addr()))
	if err != nil {
		t.Fatalf("redistest: connect to miniredis %s: %v", m.Addr(), err)
	}
	// Cleanups run last-in first-out: the client closes before miniredis stops.
	t.Cleanup(c.Close)
	return m, c
}

// ClientAs opens a client to the same target that authenticates as the ACL user with the
// given password, closed at cleanup. It calls t.Skip on miniredis, which has no ACL. On a
// cluster the user must exist on every node (see [Nodes]) and be allowed CLUSTER SLOTS, which
// rueidis sends on connect; otherwise ClientAs fails the test.
func ClientAs(t testing.TB, user, password string) rueidis.Client {
	t.Helper()
	return clientAs(t, user, password, false)
}

// ClientAsUncached is [ClientAs] with client-side caching off (DisableCache), for a user
// the server refuses CLIENT TRACKING, which rueidis otherwise sends as it connects.
func ClientAsUncached(t testing.TB, user, password string) rueidis.Client {
	t.Helper()
	return clientAs(t, user, password, true)
}

func clientAs(t testing.TB, user, password string, uncached bool) rueidis.Client {
	t.Helper()
	if !Real() {
		t.Skip("ACL needs a real Redis")
	}
	opt := realOption()
	opt.Username, opt.Password, opt.DisableCache = user, password, uncached
	c, err := newClient(opt)
	if err != nil {
		t.Fatalf("redistest: as user %q: %v", user, err)
	}
	t.Cleanup(c.Close)
	return c
}

// Namespace returns a namespace unique to this test and process: "kt" followed by 12 random
// lowercase hex characters (48 random bits), so only ASCII letters and digits, 14 bytes.
func Namespace(t testing.TB) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("redistest: random namespace: %v", err)
	}
	return "kt" + hex.EncodeToString(b[:])
}

// ClientWith is a second client of the real target (standalone or cluster),
// with the option changed by tweak first: for example DisableRetry, so that a
// test sees the errors rueidis would otherwise hide by resending. It is closed
// at cleanup. On miniredis, where a new client would need a new server, it
// fails the test: call it only when [Real].
func ClientWith(t testing.TB, tweak func(*rueidis.ClientOption)) rueidis.Client {
	t.Helper()
	if !Real() {
		t.Fatal("redistest: ClientWith needs a real Redis")
	}
	opt := realOption()
	tweak(&opt)
	c, err := newClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
