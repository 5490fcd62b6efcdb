package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis/internal/cluster"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// targets are the clients a test scans through: on miniredis a standalone
// client and a cluster client (miniredis answers as a one-node cluster, so
// the cluster path runs there too); on a real server or cluster, the
// target's client.
func targets(t *testing.T) map[string]rueidis.Client {
	t.Helper()
	if redistest.Real() {
		return map[string]rueidis.Client{redistest.Target(): redistest.Client(t)}
	}
	m, single := redistest.Miniredis(t)
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{m.Addr()}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if c.Mode() != rueidis.ClientModeCluster {
		t.Fatalf("a client of miniredis without ForceSingleClient: mode %q, want %q", c.Mode(), rueidis.ClientModeCluster)
	}
	return map[string]rueidis.Client{"standalone": single, "cluster": c}
}

// writeKeys sets n keys "<ns>:k:000"... with no hash tag, so that on a
// cluster they spread over every primary, and a few "<ns>:other:..." beside
// them; it returns the first ones' names and deletes all at cleanup.
func writeKeys(t *testing.T, c rueidis.Client, n int) []string {
	t.Helper()
	ctx := context.Background()
	ns := redistest.Namespace(t)
	var want, all []string
	for i := range n {
		want = append(want, fmt.Sprintf("%s:k:%03d", ns, i))
	}
	all = append(all, want...)
	for i := range 5 {
		all = append(all, fmt.Sprintf("%s:other:%d", ns, i))
	}
	for _, k := range all {
		if err := c.Do(ctx, c.B().Set().Key(k).Value("x").Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, k := range all {
			c.Do(context.Background(), c.B().Del().Key(k).Build())
		}
	})
	return want
}

// tagged is a client whose nodes say their address to a Scanner's Send.
type tagged struct{ rueidis.Client }

type taggedNode struct {
	rueidis.Client
	addr string
}

func (c tagged) Nodes() map[string]rueidis.Client {
	out := map[string]rueidis.Client{}
	for addr, n := range c.Client.Nodes() {
		out[addr] = taggedNode{n, addr}
	}
	return out
}

// sends records what a Scanner sends: each node's SCANs from cursor 0 (one
// per pass), and each SCAN's COUNT.
type sends struct {
	mu     sync.Mutex
	starts map[string]int // node address ("" for a standalone client) -> SCANs from cursor 0
	counts []string
}

func (s *sends) note(node rueidis.Client, cmd rueidis.Completed) {
	args := cmd.Commands()
	if args[0] != "SCAN" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if args[1] == "0" {
		tn, _ := node.(taggedNode)
		s.starts[tn.addr]++
	}
	s.counts = append(s.counts, args[slices.Index(args, "COUNT")+1])
}

// primaries are the addresses of c's primaries: every node of a miniredis
// (which has no ROLE), those whose ROLE says so on a real cluster, and ""
// for a standalone client.
func primaries(t *testing.T, c rueidis.Client) []string {
	t.Helper()
	switch {
	case c.Mode() != rueidis.ClientModeCluster:
		return []string{""}
	case !redistest.Real():
		return slices.Sorted(maps.Keys(c.Nodes()))
	}
	return slices.Sorted(maps.Keys(redistest.Primaries(t, context.Background(), c)))
}

// TestScanEveryKey: whatever the page size, Scan gives every key of the
// pattern and none other, in pages none empty, each SCAN with the
// Scanner's COUNT; on a cluster whose layout holds, every primary is
// scanned once, from cursor 0 to 0.
func TestScanEveryKey(t *testing.T) {
	ctx := context.Background()
	for name, c := range targets(t) {
		want := writeKeys(t, c, 60)
		ns, _, _ := strings.Cut(want[0], ":")
		for _, count := range []int64{1, 7, 1000} {
			t.Run(fmt.Sprintf("%s, COUNT %d", name, count), func(t *testing.T) {
				s := &sends{starts: map[string]int{}}
				sc := cluster.Scanner{Client: tagged{c}, Count: count, Send: func(ctx context.Context, node rueidis.Client, cmd rueidis.Completed) rueidis.RedisResult {
					s.note(node, cmd)
					return node.Do(ctx, cmd)
				}}
				seen := map[string]bool{}
				err := sc.Scan(ctx, ns+":k:*", func(page []string) error {
					if len(page) == 0 {
						t.Error("an empty page")
					}
					for _, k := range page {
						seen[k] = true
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, slices.Sorted(maps.Keys(seen))); diff != "" {
					t.Errorf("keys (-want +got):\n%s", diff)
				}
				wantStarts := map[string]int{}
				for _, p := range primaries(t, c) {
					wantStarts[p] = 1
				}
				if diff := cmp.Diff(wantStarts, s.starts); diff != "" {
					t.Errorf("SCANs from cursor 0 by node (-want +got):\n%s", diff)
				}
				if i := slices.IndexFunc(s.counts, func(n string) bool { return n != fmt.Sprint(count) }); i >= 0 {
					t.Errorf("SCAN %d sent COUNT %s; want %d", i, s.counts[i], count)
				}
			})
		}
	}
}

// TestScanPageErrorEndsIt: an error of page is Scan's, and no page follows.
func TestScanPageErrorEndsIt(t *testing.T) {
	stop := errors.New("stop")
	for name, c := range targets(t) {
		t.Run(name, func(t *testing.T) {
			want := writeKeys(t, c, 20)
			ns, _, _ := strings.Cut(want[0], ":")
			pages := 0
			err := cluster.Scanner{Client: c, Count: 1}.Scan(context.Background(), ns+":*", func([]string) error { pages++; return stop })
			if !errors.Is(err, stop) || pages != 1 {
				t.Errorf("Scan: %v after %d pages; want the page's error after 1", err, pages)
			}
		})
	}
}

// ownLines answers CLUSTER NODES with the node's own line's fields changed
// by edit when it returns them (nil: unchanged), as an ECHO of the reply so
// that the Scanner reads it as the node's; it sends any other command as it
// is.
func ownLines(edit func(fields []string) []string) func(context.Context, rueidis.Client, rueidis.Completed) rueidis.RedisResult {
	return func(ctx context.Context, node rueidis.Client, cmd rueidis.Completed) rueidis.RedisResult {
		if args := cmd.Commands(); len(args) != 2 || args[0] != "CLUSTER" || args[1] != "NODES" {
			return node.Do(ctx, cmd)
		}
		res := node.Do(ctx, cmd)
		text, err := res.ToString()
		if err != nil {
			return res
		}
		lines := strings.Split(strings.TrimPrefix(text, "txt:"), "\n")
		changed := false
		for i, line := range lines {
			if f := strings.Fields(line); len(f) >= 8 && strings.Contains(f[2], "myself") {
				if f = edit(f); f != nil {
					lines[i], changed = strings.Join(f, " "), true
				}
			}
		}
		if !changed {
			return res
		}
		return node.Do(ctx, node.B().Echo().Message(strings.Join(lines, "\n")).Build())
	}
}

// needClusterMode skips the test unless the target can answer a cluster
// client: miniredis (a one-node cluster) or a Redis Cluster.
func needClusterMode(t *testing.T) rueidis.Client {
	t.Helper()
	c, ok := targets(t)["cluster"]
	if !ok {
		t.Skipf("needs a cluster client: miniredis or a Redis Cluster; target is %s", redistest.Target())
	}
	return c
}

// TestScanAgainWhenTheLayoutChanged: a pass after which a primary's own
// CLUSTER NODES line reads otherwise than before it (its config epoch
// changed) is made again, every primary scanned once more, and every key
// given; a layout that settles returns then.
func TestScanAgainWhenTheLayoutChanged(t *testing.T) {
	c := needClusterMode(t)
	want := writeKeys(t, c, 30)
	ns, _, _ := strings.Cut(want[0], ":")
	s := &sends{starts: map[string]int{}}
	var mu sync.Mutex
	reads, first := 0, len(primaries(t, c)) // the first pass's own lines before it
	edit := ownLines(func(f []string) []string {
		mu.Lock()
		defer mu.Unlock()
		reads++
		if reads != first+1 { // the first line read after the first pass
			return nil
		}
		f[6] += "0"
		return f
	})
	sc := cluster.Scanner{Client: tagged{c}, Count: 5, Send: func(ctx context.Context, node rueidis.Client, cmd rueidis.Completed) rueidis.RedisResult {
		s.note(node, cmd)
		return edit(ctx, node, cmd)
	}}
	seen := map[string]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sc.Scan(ctx, ns+":k:*", func(page []string) error {
		for _, k := range page {
			seen[k] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(seen))); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	wantStarts := map[string]int{}
	for _, p := range primaries(t, c) {
		wantStarts[p] = 2
	}
	if diff := cmp.Diff(wantStarts, s.starts); diff != "" {
		t.Errorf("SCANs from cursor 0 by node (-want +got):\n%s", diff)
	}
}

// TestScanWaitsWhileUnsettled: while a primary's own line claims other
// slots than CLUSTER SHARDS gives it, Scan scans nothing and waits; only ctx
// ends it, with ctx's error.
func TestScanWaitsWhileUnsettled(t *testing.T) {
	c := needClusterMode(t)
	want := writeKeys(t, c, 5)
	ns, _, _ := strings.Cut(want[0], ":")
	sc := cluster.Scanner{Client: c, Count: 5, Send: ownLines(func(f []string) []string { return append(f[:8], "0-1") })}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	pages := 0
	err := sc.Scan(ctx, ns+":*", func([]string) error { pages++; return nil })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "does not serve the slots CLUSTER SHARDS gives it") || pages != 0 {
		t.Errorf("Scan: %v after %d pages; want context.DeadlineExceeded beside the unsettled layout, and no page", err, pages)
	}
}
