package kuis

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// shard is one primary of a cluster as it describes itself (the "myself"
// line of its own CLUSTER NODES): the only node whose word counts for the
// slots it serves and the migrations it has open.
type shard struct {
	id     string
	addr   string
	client rueidis.Client
	// state is the line's node ID, config epoch and slot fields, migrations
	// ("[slot->-id]" migrating out, "[slot-<-id]" importing) included: two
	// equal states mean no slot moved and no migration opened or closed.
	state string
	// before lists the node IDs that must be scanned before this one: the
	// sources of the slots it imports. A key of a migrating slot only moves
	// from the source to the target, so scanning the source first sees it
	// on one of the two, whenever it moves.
	before []string
}

// layout is what scanKeys scans: every primary, in an order that respects
// the open migrations, and a fingerprint of the whole layout.
type layout struct {
	shards      []shard
	fingerprint string
}

// errUnsettled marks a layout that cannot be scanned as it is (a cycle of
// migrations, or a primary the client does not know yet): wait and look again.
var errUnsettled = errors.New("cluster layout unsettled")

// clusterLayout reads the layout in two steps. First CLUSTER NODES of any one
// node the client knows (replicas included: each one that does not answer is
// skipped) names the primaries; then each primary's own CLUSTER NODES gives
// its slots, epoch and open migrations. Only primaries must answer: a dead
// replica never fails the call. Every slot the first view assigns must be
// claimed by a primary that says it serves it, or the view is stale
// (errUnsettled).
func clusterLayout(ctx context.Context, client rueidis.Client) (layout, error) {
	nodes := client.Nodes()
	addrs := make([]string, 0, len(nodes))
	for addr := range nodes {
		addrs = append(addrs, addr)
	}
	sort.Strings(addrs)
	var view []nodeLine
	var errs []error
	for _, addr := range addrs {
		lines, err := clusterNodes(ctx, nodes[addr])
		if err == nil {
			view = lines
			break
		}
		if ctx.Err() != nil {
			return layout{}, err
		}
		errs = append(errs, fmt.Errorf("CLUSTER NODES on %s: %w", addr, err))
	}
	if view == nil {
		return layout{}, errors.Join(append(errs, errors.New("no node of the cluster answered"))...)
	}
	want := map[string]string{} // slot field -> node ID, as the first view assigns them
	var l layout
	for _, v := range view {
		if !v.primary() {
			continue
		}
		node, ok := nodes[v.addr]
		if !ok {
			if len(v.slots) == 0 {
				continue // a primary without slots that the client never met holds no key it must see
			}
			return layout{}, fmt.Errorf("%w: primary %s is unknown to the client", errUnsettled, v.addr)
		}
		for _, s := range v.slots {
			if !strings.HasPrefix(s, "[") {
				want[s] = v.id
			}
		}
		lines, err := clusterNodes(ctx, node)
		if err != nil {
			return layout{}, fmt.Errorf("CLUSTER NODES on primary %s: %w", v.addr, err)
		}
		self, ok := myself(lines)
		if !ok || self.id != v.id {
			return layout{}, fmt.Errorf("%w: %s is no longer node %s", errUnsettled, v.addr, v.id)
		}
		sh := shard{id: self.id, addr: v.addr, client: node,
			state: self.id + " " + self.epoch + " " + strings.Join(self.slots, " ")}
		for _, s := range self.slots {
			if _, from, ok := strings.Cut(s, "-<-"); ok {
				sh.before = append(sh.before, strings.TrimSuffix(from, "]"))
			}
		}
		l.shards = append(l.shards, sh)
	}
	claimed := map[string]string{}
	for _, sh := range l.shards {
		for _, s := range strings.Fields(sh.state)[2:] {
			claimed[s] = sh.id
		}
	}
	for s, id := range want {
		if claimed[s] != id {
			return layout{}, fmt.Errorf("%w: slots %s of node %s", errUnsettled, s, id)
		}
	}
	if len(l.shards) == 0 {
		return layout{}, errors.New("no primary among the cluster's nodes")
	}
	for _, sh := range l.shards {
		for _, s := range strings.Fields(sh.state)[2:] {
			if _, to, ok := strings.Cut(s, "->-"); ok && !l.has(strings.TrimSuffix(to, "]")) {
				return layout{}, fmt.Errorf("%w: slot %s migrates to a node that is not a known primary", errUnsettled, s)
			}
		}
	}
	if err := l.order(); err != nil {
		return layout{}, err
	}
	states := make([]string, len(l.shards))
	for i, sh := range l.shards {
		states[i] = sh.state
	}
	sort.Strings(states)
	l.fingerprint = strings.Join(states, "\n")
	return l, nil
}

// order sorts the shards so that the source of every open migration comes
// before its target, or reports errUnsettled for a cycle.
func (l *layout) order() error {
	pending := l.shards
	var done []shard
	placed := map[string]bool{}
	for len(pending) > 0 {
		var rest []shard
		for _, sh := range pending {
			ready := true
			for _, id := range sh.before {
				if !placed[id] && id != sh.id && l.has(id) {
					ready = false
				}
			}
			if ready {
				done = append(done, sh)
				placed[sh.id] = true
			} else {
				rest = append(rest, sh)
			}
		}
		if len(rest) == len(pending) {
			return fmt.Errorf("%w: migrations in a cycle", errUnsettled)
		}
		pending = rest
	}
	l.shards = done
	return nil
}

func (l *layout) has(id string) bool {
	for _, sh := range l.shards {
		if sh.id == id {
			return true
		}
	}
	return false
}

// nodeLine is one line of CLUSTER NODES: <id> <ip:port@cport[,hostname]>
// <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link-state> <slot>...
type nodeLine struct {
	id, addr, epoch string
	flags           []string
	slots           []string
}

func (n nodeLine) flag(f string) bool {
	for _, x := range n.flags {
		if x == f {
			return true
		}
	}
	return false
}

// primary: a primary that may hold keys. A failed primary without slots
// (its replica took over) holds none the cluster serves.
func (n nodeLine) primary() bool {
	return n.flag("master") && !n.flag("handshake") && !n.flag("noaddr") &&
		(!n.flag("fail") || len(n.slots) > 0)
}

func myself(lines []nodeLine) (nodeLine, bool) {
	for _, n := range lines {
		if n.flag("myself") {
			return n, true
		}
	}
	return nodeLine{}, false
}

// clusterNodes sends CLUSTER NODES to one node and parses the reply.
func clusterNodes(ctx context.Context, node rueidis.Client) ([]nodeLine, error) {
	text, err := node.Do(ctx, node.B().ClusterNodes().Build()).ToString()
	if err != nil {
		return nil, err
	}
	// RESP3 sends the reply as a verbatim string, which ToString leaves
	// behind its format prefix; a node line starts with a hex node ID.
	text = strings.TrimPrefix(text, "txt:")
	var out []nodeLine
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 8 {
			return nil, fmt.Errorf("CLUSTER NODES line %q: %d fields, want 8 or more", line, len(f))
		}
		addr, _, _ := strings.Cut(f[1], "@")
		addr, _, _ = strings.Cut(addr, ",")
		out = append(out, nodeLine{id: f[0], addr: addr, flags: strings.Split(f[2], ","), epoch: f[6], slots: f[8:]})
	}
	return out, nil
}

// scanKeys calls page with every page of SCAN ... MATCH pattern, on the one
// server of a standalone client or on each primary of a cluster (replicas hold
// copies of the same keys and are never asked; SCAN itself may still repeat a
// key). On a cluster it reads the layout before and after scanning every
// primary (clusterLayout) and scans everything again, after a pause, until
// the two readings agree: a key that moved to another primary while the
// primaries were scanned one after the other would otherwise be missed, and
// a migration that stays open throughout is safe because its source is
// scanned before its target. Each page is then seen in every attempt; page
// must tolerate that. Only ctx ends a resharding that never settles.
func scanKeys(ctx context.Context, client rueidis.Client, o options, pattern string, page func([]string) error) error {
	if client.Mode() != rueidis.ClientModeCluster {
		return scanNode(ctx, client, "", o, pattern, page)
	}
	pause := 10 * time.Millisecond
	for {
		before, err := clusterLayout(ctx, client)
		if err == nil {
			for _, sh := range before.shards {
				if err := scanNode(ctx, sh.client, sh.addr, o, pattern, page); err != nil {
					return err
				}
			}
			var after layout
			after, err = clusterLayout(ctx, client)
			if err == nil && after.fingerprint == before.fingerprint {
				return nil
			}
		}
		if err != nil && !errors.Is(err, errUnsettled) {
			return err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("cluster layout kept changing during the scan: %w", ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, 500*time.Millisecond)
	}
}

// scanNode pages through one node's SCAN, cursor to 0.
func scanNode(ctx context.Context, node rueidis.Client, addr string, o options, pattern string, page func([]string) error) error {
	var cursor uint64
	for {
		entry, err := node.Do(ctx, node.B().Scan().Cursor(cursor).Match(pattern).Count(o.scanCount).Build()).AsScanEntry()
		if err != nil {
			if addr != "" {
				return fmt.Errorf("SCAN on %s: %w", addr, err)
			}
			return err
		}
		if len(entry.Elements) > 0 {
			if err := page(entry.Elements); err != nil {
				return err
			}
		}
		if o.scanHook != nil {
			o.scanHook(addr)
		}
		if cursor = entry.Cursor; cursor == 0 {
			return nil
		}
	}
}
