package kuis_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
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
func startReplica(t *testing.T, ctx context.Context, primaries map[string]rueidis.Client, primaryAddr string) (*redistest.Server, string) {
	t.Helper()
	s := redistest.NewServers(t, faultPortLo, faultPortHi).ClusterNode("--appendonly", "no")
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{s.Addr()}, ForceSingleClient: true, DisableCache: true})
	if err != nil {
		s.Kill()
		t.Fatal(err)
	}
	id := nodeID(t, ctx, rc)
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
	primaryID := nodeID(t, ctx, primaries[primaryAddr])
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
	if left := keysByNode(t, e, primaries); len(left) != 0 {
		t.Errorf("keys left after Purge: %v", left)
	}
}

// TestClusterSlotMovesMidScan: a slot that moves while Purge or Quizzes scans
// the primaries one by one, from a primary not yet scanned to one already
// scanned, is still seen. The move is real (CLUSTER SETSLOT, MIGRATE), made
// between two SCAN pages; "moved" finishes it there, "open" leaves the slot
// migrating until the call returned.
func TestClusterSlotMovesMidScan(t *testing.T) {
	needCluster(t)
	for _, mode := range []string{"moved", "open"} {
		for _, op := range []string{"Quizzes", "Purge"} {
			t.Run(op+"/"+mode, func(t *testing.T) { slotMoveCase(t, op, mode == "open") })
		}
	}
}

func slotMoveCase(t *testing.T, op string, leaveOpen bool) {
	e := newEnv(t)
	primaries := primaryNodes(t, e)
	if len(primaries) != 3 {
		t.Fatalf("%d primaries; the test needs three", len(primaries))
	}
	ids := map[string]string{} // primary address -> node ID
	for addr, p := range primaries {
		ids[addr] = nodeID(t, e.ctx, p)
	}
	// Three quizzes, two keys each, on every primary.
	byOwner := map[string][]string{}
	var all []string
	for len(all) < 9 {
		id := quizID()
		k := e.keys(id)
		owner := ownerOf(t, e, k.Meta())
		if len(byOwner[owner]) == 3 {
			continue
		}
		if err := e.meta(id).Create(e.ctx, "Kuis "+id, 3); err != nil {
			t.Fatal(err)
		}
		e.mustRaw("ZINCRBY", k.Board(), "10", "Ali")
		byOwner[owner] = append(byOwner[owner], id)
		all = append(all, id)
	}
	slices.Sort(all)

	// When the second primary's scan begins, the third one's quizzes move to
	// the first, which will not be scanned again.
	var first string
	moved := 0
	hook := func(addr string) {
		switch {
		case moved > 0 || addr == "" || addr == first:
		case first == "":
			first = addr
		default:
			for third := range primaries {
				if third == first || third == addr {
					continue
				}
				for _, id := range byOwner[third] {
					slot, err := e.client.Do(e.ctx, e.client.B().ClusterKeyslot().Key(e.keys(id).Meta()).Build()).AsInt64()
					if err != nil {
						t.Errorf("CLUSTER KEYSLOT: %v", err)
						return
					}
					if err := moveSlot(t, e.ctx, primaries, ids, slot, third, first, !leaveOpen); err != nil {
						t.Errorf("moving slot %d of %s from %s to %s: %v", slot, id, third, first, err)
						return
					}
					moved++
				}
			}
		}
	}
	s := e.tunedOn(e.client, kuis.Tuning{ScanCount: 2, ScanHook: hook})
	switch op {
	case "Quizzes":
		got, err := s.Quizzes(e.ctx)
		if diff := cmp.Diff(all, got); err != nil || diff != "" {
			t.Errorf("Quizzes: %v (-want +got):\n%s", err, diff)
		}
	case "Purge":
		if n, err := s.Purge(e.ctx); err != nil || n != int64(3*len(all)) { // meta, log and board of each quiz
			t.Errorf("Purge = %d, %v; want %d, nil", n, err, 3*len(all))
		}
		if left := keysByNode(t, e, primaries); len(left) != 0 {
			t.Errorf("keys left after Purge: %v", left)
		}
	}
	if moved != 3 {
		t.Errorf("%d slots moved during the scan, want 3", moved)
	}
}

// moveSlot migrates slot from primary from to primary to as redis-cli
// --cluster reshard does: IMPORTING on the target, MIGRATING on the source,
// MIGRATE of its keys, then (with finish) the new owner on every primary.
// An unfinished move is finished at cleanup.
func moveSlot(t *testing.T, ctx context.Context, primaries map[string]rueidis.Client, ids map[string]string, slot int64, from, to string, finish bool) error {
	src, dst, n := primaries[from], primaries[to], strconv.FormatInt(slot, 10)
	if err := node(ctx, dst, "CLUSTER", "SETSLOT", n, "IMPORTING", ids[from]).Error(); err != nil {
		return err
	}
	if err := node(ctx, src, "CLUSTER", "SETSLOT", n, "MIGRATING", ids[to]).Error(); err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(to)
	for {
		keys, err := node(ctx, src, "CLUSTER", "GETKEYSINSLOT", n, "100").AsStrSlice()
		if err != nil || len(keys) == 0 {
			if err != nil {
				return err
			}
			break
		}
		args := append([]string{"MIGRATE", host, port, "", "0", "5000", "KEYS"}, keys...)
		if err := node(ctx, src, args...).Error(); err != nil {
			return err
		}
	}
	assign := func() error {
		// The target first, as redis-cli does: it then owns the slot whatever
		// the source says meanwhile.
		for _, addr := range append([]string{to, from}, otherThan(primaries, to, from)...) {
			if err := node(ctx, primaries[addr], "CLUSTER", "SETSLOT", n, "NODE", ids[to]).Error(); err != nil {
				return err
			}
		}
		return nil
	}
	if finish {
		return assign()
	}
	t.Cleanup(func() {
		if err := assign(); err != nil {
			t.Errorf("finishing the move of slot %s: %v", n, err)
		}
	})
	return nil
}

// otherThan lists the addresses of primaries other than the ones given.
func otherThan(primaries map[string]rueidis.Client, not ...string) []string {
	var out []string
	for addr := range primaries {
		if !slices.Contains(not, addr) {
			out = append(out, addr)
		}
	}
	return out
}

// TestClusterMigrationOpenThroughout: slots that migrate from before the call
// until after it, and whose keys move between two SCAN pages from a primary
// not scanned yet to one already scanned, are still seen, although the
// layout reads the same before and after the scan.
func TestClusterMigrationOpenThroughout(t *testing.T) {
	needCluster(t)
	for _, op := range []string{"Quizzes", "Purge"} {
		t.Run(op, func(t *testing.T) { openMigrationCase(t, op) })
	}
}

func openMigrationCase(t *testing.T, op string) {
	e := newEnv(t)
	primaries := primaryNodes(t, e)
	if len(primaries) != 3 {
		t.Fatalf("%d primaries; the test needs three", len(primaries))
	}
	ids := map[string]string{} // primary address -> node ID
	for addr, p := range primaries {
		ids[addr] = nodeID(t, e.ctx, p)
	}
	// The scan order is not known in advance: one quiz, in a slot of its
	// own, migrating between every ordered pair of primaries.
	type move struct{ from, to string }
	type quiz struct {
		id   string
		slot int64
	}
	quizzes, taken := map[move]quiz{}, map[int64]bool{}
	var all []string
	var movedKeys move
	// Only the migration whose keys moved is finished: Redis 7.0 can lose a
	// slot (no node claims it) when several finish in every direction at once.
	t.Cleanup(func() {
		for m, q := range quizzes {
			if m == movedKeys {
				if err := moveSlot(t, e.ctx, primaries, ids, q.slot, m.from, m.to, true); err != nil {
					t.Errorf("finishing the move of slot %d: %v", q.slot, err)
				}
				continue
			}
			for _, addr := range []string{m.to, m.from} {
				if err := node(e.ctx, primaries[addr], "CLUSTER", "SETSLOT", strconv.FormatInt(q.slot, 10), "STABLE").Error(); err != nil {
					t.Errorf("CLUSTER SETSLOT %d STABLE on %s: %v", q.slot, addr, err)
				}
			}
		}
	})
	for len(quizzes) < len(primaries)*(len(primaries)-1) {
		id := quizID()
		k := e.keys(id)
		slot, err := e.client.Do(e.ctx, e.client.B().ClusterKeyslot().Key(k.Meta()).Build()).AsInt64()
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT: %v", err)
		}
		from := ownerOf(t, e, k.Meta())
		var m move
		for to := range primaries {
			if _, ok := quizzes[move{from, to}]; to != from && !ok && !taken[slot] {
				m = move{from, to}
			}
		}
		if m.to == "" {
			continue
		}
		if err := e.meta(id).Create(e.ctx, "Kuis "+id, 3); err != nil {
			t.Fatal(err)
		}
		e.mustRaw("ZINCRBY", k.Board(), "10", "Ali")
		quizzes[m], taken[slot] = quiz{id, slot}, true
		all = append(all, id)
		n := strconv.FormatInt(slot, 10)
		if err := node(e.ctx, primaries[m.to], "CLUSTER", "SETSLOT", n, "IMPORTING", ids[m.from]).Error(); err != nil {
			t.Fatal(err)
		}
		if err := node(e.ctx, primaries[m.from], "CLUSTER", "SETSLOT", n, "MIGRATING", ids[m.to]).Error(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(all)

	// When the second primary's scan begins, the keys of the quiz migrating
	// from the third to the first move there.
	var first string
	moved := 0
	hook := func(addr string) {
		switch {
		case moved > 0 || addr == first:
		case first == "":
			first = addr
		default:
			third := otherThan(primaries, first, addr)[0]
			k := e.keys(quizzes[move{third, first}].id)
			host, port, _ := net.SplitHostPort(first)
			if err := node(e.ctx, primaries[third], "MIGRATE", host, port, "", "0", "5000", "KEYS", k.Meta(), k.Board()).Error(); err != nil {
				t.Errorf("MIGRATE from %s to %s: %v", third, first, err)
			}
			movedKeys = move{third, first}
			moved++
		}
	}
	s := e.tunedOn(e.client, kuis.Tuning{ScanCount: 2, ScanHook: hook})
	switch op {
	case "Quizzes":
		got, err := s.Quizzes(e.ctx)
		if diff := cmp.Diff(all, got); err != nil || diff != "" {
			t.Errorf("Quizzes: %v (-want +got):\n%s", err, diff)
		}
	case "Purge":
		if n, err := s.Purge(e.ctx); err != nil || n != int64(3*len(all)) { // meta, log and board of each quiz
			t.Errorf("Purge = %d, %v; want %d, nil", n, err, 3*len(all))
		}
		if left := keysByNode(t, e, primaries); len(left) != 0 {
			t.Errorf("keys left after Purge: %v", left)
		}
	}
	if moved != 1 {
		t.Errorf("keys moved %d times during the scan, want 1", moved)
	}
}

// TestClusterTryAgainIsSentAgain: while the quiz's slot migrates with some of
// its keys moved and some not, a Redis Cluster answers TRYAGAIN to a script
// on the quiz's keys without running it. The library sends it again after a
// short pause, while the caller's context lives: once the migration is done
// the answer counts, and the recap reads, with no error.
func TestClusterTryAgainIsSentAgain(t *testing.T) {
	needCluster(t)
	e := newEnv(t)
	primaries := primaryNodes(t, e)
	ids := map[string]string{}
	for addr, p := range primaries {
		ids[addr] = nodeID(t, e.ctx, p)
	}
	id, _, _ := e.reference()
	k := e.keys(id)
	slot, err := e.client.Do(e.ctx, e.client.B().ClusterKeyslot().Key(k.Meta()).Build()).AsInt64()
	if err != nil {
		t.Fatal(err)
	}
	from := ownerOf(t, e, k.Meta())
	to := otherThan(primaries, from)[0]
	src, dst, n := primaries[from], primaries[to], strconv.FormatInt(slot, 10)
	for _, c := range []struct {
		node rueidis.Client
		cmd  []string
	}{{dst, []string{"CLUSTER", "SETSLOT", n, "IMPORTING", ids[from]}}, {src, []string{"CLUSTER", "SETSLOT", n, "MIGRATING", ids[to]}}} {
		if err := node(e.ctx, c.node, c.cmd...).Error(); err != nil {
			t.Fatal(err)
		}
	}
	host, port, _ := net.SplitHostPort(to)
	if err := node(e.ctx, src, "MIGRATE", host, port, "", "0", "5000", "KEYS", k.Board()).Error(); err != nil {
		t.Fatal(err) // the board moves, meta and the rest stay: half migrated
	}
	watch := &tryAgainWatch{Client: e.client, seen: make(chan struct{})}
	s := e.storeOn(watch)
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	type result struct {
		name string
		err  error
	}
	results := make(chan result, 2)
	b, _ := handles(t, s, id)
	go func() {
		a, err := b.RecordAnswer(ctx, "Eka", 1)
		if err == nil && a != (kuis.Answer{Score: 10}) {
			err = fmt.Errorf("answer %+v, want 10 points", a)
		}
		results <- result{"RecordAnswer", err}
	}()
	go func() { _, err := s.Recap(ctx, id); results <- result{"Recap", err} }()
	select {
	case <-watch.seen:
	case <-ctx.Done():
		t.Fatal("no call was answered TRYAGAIN")
	}
	if err := moveSlot(t, e.ctx, primaries, ids, slot, from, to, true); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if r := <-results; r.err != nil {
			t.Errorf("%s while the slot migrated: %v", r.name, r.err)
		}
	}
}

// tryAgainWatch closes seen when a command is first answered TRYAGAIN.
type tryAgainWatch struct {
	rueidis.Client
	seen chan struct{}
	once sync.Once
}

func (c *tryAgainWatch) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	res := c.Client.Do(ctx, cmd)
	if re, ok := rueidis.IsRedisErr(res.Error()); ok && re.IsTryAgain() {
		c.once.Do(func() { close(c.seen) })
	}
	return res
}
