// Package cluster scans every key of a pattern on a Redis server or a
// Redis Cluster: SCAN ... MATCH on the one server of a standalone client, or
// on every primary of a cluster (replicas hold copies and are never asked).
// It knows nothing of what the keys are.
//
// A cluster is scanned one primary after another, so a key could move from
// one not scanned yet to one already scanned. None that the cluster serves
// for the whole call is missed, because:
//   - A key moves only by MIGRATE, from the source of a slot migration to
//     its target, and only while the own CLUSTER NODES line of one end or
//     both shows the migration ("[slot->-target]", "[slot-<-source]").
//     Scan reads every primary's own line before and after a pass,
//     and a pass whose two readings differ is made again after a pause.
//   - Equal readings mean that a key served throughout moved only along a
//     migration open at both: one ended in between either moved its slot,
//     or was abandoned (SETSLOT STABLE), leaving what it moved on a node that
//     does not serve it. A slot moved away and back changes a config epoch:
//     the importing node takes a new one unless it holds the greatest, and
//     then the node taking the slot back does not.
//   - A key of a slot that does not migrate stays on one primary and is seen
//     there. One of a migrating slot moves once at most: it is on the source
//     when the source is scanned, or on the target before the pass ends, and
//     a pass scans every target again after all primaries.
//   - No primary is left out: each one's own line must claim exactly the
//     slots CLUSTER SHARDS gives it, and each migration's far end be scanned.
//
// A layout that is not settled (views that disagree, a primary the client
// does not know yet) or keeps changing makes the call wait, with a growing
// pause; only ctx ends it. A dead replica fails nothing; a dead primary does.
package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// Scanner pages through SCAN ... MATCH on every primary of Client.
type Scanner struct {
	Client rueidis.Client // the caller's client, standalone or cluster
	Count  int64          // COUNT of every SCAN page
	// Send sends one command to one node; nil sends it with the node's Do.
	Send func(ctx context.Context, node rueidis.Client, cmd rueidis.Completed) rueidis.RedisResult
}

// send is sc.Send, or node.Do.
func (sc Scanner) send(ctx context.Context, node rueidis.Client, cmd rueidis.Completed) rueidis.RedisResult {
	if sc.Send != nil {
		return sc.Send(ctx, node, cmd)
	}
	return node.Do(ctx, cmd)
}

// Scan calls page with every page of SCAN ... MATCH pattern, a key possibly
// more than once, as the package doc says. An error of page ends it.
func (sc Scanner) Scan(ctx context.Context, pattern string, page func([]string) error) error {
	client := sc.Client
	if client.Mode() != rueidis.ClientModeCluster {
		return sc.scanNode(ctx, client, "", pattern, page)
	}
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		order, before, err := sc.layout(ctx)
		if err == nil {
			for _, p := range order {
				if err := sc.scanNode(ctx, p.client, p.addr, pattern, page); err != nil {
					return err
				}
			}
			var after string
			if _, after, err = sc.layout(ctx); err == nil && after == before {
				return nil
			}
		}
		if err != nil && !errors.Is(err, errUnsettled) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster layout kept changing during the scan: %w", errors.Join(ctx.Err(), err))
		case <-time.After(pause):
		}
	}
}

// errUnsettled marks a layout that cannot be scanned as it stands.
var errUnsettled = errors.New("cluster layout unsettled")

// primary is one primary of a cluster: address, health and slots as CLUSTER
// SHARDS gives them, node ID as its own line does.
type primary struct {
	id, addr, health string
	slots            string // the bounds of its slot ranges: "0 5460 5461 5461"
	client           rueidis.Client
}

// layout returns the primaries in scan order, the migration targets
// once more at the end, and the layout: their addresses and own lines (ID,
// config epoch, slots, migrations), sorted.
func (sc Scanner) layout(ctx context.Context) ([]primary, string, error) {
	nodes := sc.Client.Nodes()
	view, err := sc.shards(ctx, nodes)
	if err != nil {
		return nil, "", err
	}
	var order []primary
	var lines, ends, bounds []string
	targets := map[string]bool{}
	for _, p := range view {
		var known bool
		switch p.client, known = nodes[p.addr]; {
		case p.slots == "" && (!known || p.health == "fail"):
			continue // it holds no key the cluster serves, unless a migration names it
		case !known && p.health == "fail":
			return nil, "", fmt.Errorf("primary %s is down", p.addr)
		case !known:
			return nil, "", fmt.Errorf("%w: primary %s is unknown to the client", errUnsettled, p.addr)
		}
		f, err := sc.ownLine(ctx, p.client)
		if err != nil {
			return nil, "", fmt.Errorf("CLUSTER NODES on primary %s: %w", p.addr, err)
		}
		bounds = bounds[:0]
		for _, s := range f[8:] {
			if !strings.HasPrefix(s, "[") {
				start, end, _ := strings.Cut(s, "-")
				bounds = append(bounds, start, cmp.Or(end, start))
				continue
			}
			_, to, out := strings.Cut(strings.Trim(s, "[]"), "->-")
			_, from, in := strings.Cut(strings.Trim(s, "[]"), "-<-")
			switch {
			case out:
				targets[to], ends = true, append(ends, to)
			case in:
				targets[f[0]], ends = true, append(ends, from)
			default:
				return nil, "", fmt.Errorf("CLUSTER NODES on primary %s: slot field %q", p.addr, s)
			}
		}
		if strings.Join(bounds, " ") != p.slots {
			return nil, "", fmt.Errorf("%w: %s does not serve the slots CLUSTER SHARDS gives it", errUnsettled, p.addr)
		}
		p.id = f[0]
		order = append(order, p)
		lines = append(lines, p.addr+" "+f[0]+" "+f[6]+" "+strings.Join(f[8:], " "))
	}
	if len(order) == 0 {
		return nil, "", errors.New("no primary among the cluster's nodes")
	}
	for _, id := range ends {
		if !slices.ContainsFunc(order, func(p primary) bool { return p.id == id }) {
			return nil, "", fmt.Errorf("%w: a slot migrates to or from %s, which is not scanned", errUnsettled, id)
		}
	}
	for _, p := range order {
		if targets[p.id] {
			order = append(order, p)
		}
	}
	slices.Sort(lines)
	return order, strings.Join(lines, "\n"), nil
}

// shards reads CLUSTER SHARDS from the first node of the client's
// topology that answers, so that a replica that is down fails nothing.
func (sc Scanner) shards(ctx context.Context, nodes map[string]rueidis.Client) ([]primary, error) {
	var err error
	for _, addr := range slices.Sorted(maps.Keys(nodes)) {
		var shards []rueidis.RedisMessage
		if shards, err = sc.send(ctx, nodes[addr], nodes[addr].B().ClusterShards().Build()).ToArray(); err == nil {
			host, _, _ := net.SplitHostPort(addr)
			view, err := shardPrimaries(shards, host, nodes)
			if err != nil {
				return nil, fmt.Errorf("CLUSTER SHARDS on %s: %w", addr, err)
			}
			return view, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errors.New("CLUSTER SHARDS: no node of the cluster answered"), err)
}

// shardPrimaries decodes the primary of each shard. Its address is the one
// the client knows, by its port or its TLS port; one that does not know its
// own IP yet (an empty endpoint) is at host, the node that answered, as
// rueidis reads it.
func shardPrimaries(shards []rueidis.RedisMessage, host string, nodes map[string]rueidis.Client) ([]primary, error) {
	var out []primary
	for i, shard := range shards {
		m, err := shard.AsMap()
		slots, members := m["slots"], m["nodes"]
		bounds, err1 := slots.AsIntSlice()
		list, err2 := members.ToArray()
		if len(bounds)%2 != 0 {
			err1 = errors.New("slot bounds not in pairs")
		}
		if err := errors.Join(err, err1, err2); err != nil {
			return nil, fmt.Errorf("shard %d: %w", i, err)
		}
		p := primary{slots: strings.Trim(fmt.Sprint(bounds), "[]")}
		for _, n := range list {
			node, err := n.AsMap()
			if err != nil {
				return nil, fmt.Errorf("shard %d: %w", i, err)
			}
			str := func(k string) string { v := node[k]; s, _ := v.ToString(); return s }
			if str("role") != "master" || p.addr != "" && str("health") == "fail" {
				continue // a replica, or a failed primary beside the shard's live one
			}
			p.health, p.addr = str("health"), ""
			for _, k := range []string{"port", "tls-port"} {
				v := node[k]
				if port, err := v.AsInt64(); err == nil && port > 0 && nodes[p.addr] == nil {
					p.addr = net.JoinHostPort(cmp.Or(str("endpoint"), host), strconv.FormatInt(port, 10))
				}
			}
		}
		if p.addr == "" {
			return nil, fmt.Errorf("shard %d: no primary with a port", i)
		}
		out = append(out, p)
	}
	return out, nil
}

// ownLine returns the fields of the line of CLUSTER NODES in which node
// describes itself: <id> <ip:port@cport> <flags> <master> <ping-sent>
// <pong-recv> <config-epoch> <link-state> <slot>.... Only that line shows
// the node's open migrations.
func (sc Scanner) ownLine(ctx context.Context, node rueidis.Client) ([]string, error) {
	text, err := sc.send(ctx, node, node.B().ClusterNodes().Build()).ToString()
	if err != nil {
		return nil, err
	}
	// RESP3 sends a verbatim string, which ToString leaves behind its format prefix.
	for _, line := range strings.Split(strings.TrimPrefix(text, "txt:"), "\n") {
		if f := strings.Fields(line); len(f) >= 8 && slices.Contains(strings.Split(f[2], ","), "myself") {
			return f, nil
		}
	}
	return nil, errors.New("no line flagged myself")
}

// scanNode pages through one node's SCAN, cursor to 0.
func (sc Scanner) scanNode(ctx context.Context, node rueidis.Client, addr, pattern string, page func([]string) error) error {
	var cursor uint64
	for {
		entry, err := sc.send(ctx, node, node.B().Scan().Cursor(cursor).Match(pattern).Count(sc.Count).Build()).AsScanEntry()
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
		if cursor = entry.Cursor; cursor == 0 {
			return nil
		}
	}
}
