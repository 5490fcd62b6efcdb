package redistest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/rueidis"
)

// ClientAt is a client of the servers at addrs (a server of the test's own,
// or a cluster's seed list), with client-side caching off, closed at cleanup.
func ClientAt(t testing.TB, addrs ...string) rueidis.Client {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: addrs, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// DumpKeys describes each key's type, whether it has a TTL, and its whole
// content in a comparable form ("none" for a missing key), so a test can prove
// that a call changed nothing and created nothing, not even an empty key.
func DumpKeys(t testing.TB, ctx context.Context, client rueidis.Client, keys ...string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(keys))
	for _, key := range keys {
		typ, err := client.Do(ctx, client.B().Type().Key(key).Build()).ToString()
		if err != nil {
			t.Fatalf("TYPE %s: %v", key, err)
		}
		var content []string
		switch typ {
		case "none":
			out[key] = typ
			continue
		case "string":
			var s string
			s, err = client.Do(ctx, client.B().Get().Key(key).Build()).ToString()
			content = []string{s}
		case "list":
			content, err = client.Do(ctx, client.B().Lrange().Key(key).Start(0).Stop(-1).Build()).AsStrSlice()
		case "set":
			content, err = client.Do(ctx, client.B().Smembers().Key(key).Build()).AsStrSlice()
			sort.Strings(content)
		case "hash":
			var m map[string]string
			m, err = client.Do(ctx, client.B().Hgetall().Key(key).Build()).AsStrMap()
			for f, v := range m {
				content = append(content, strconv.Quote(f)+"="+strconv.Quote(v))
			}
			sort.Strings(content)
		case "stream":
			var entries []rueidis.XRangeEntry
			entries, err = client.Do(ctx, client.B().Xrange().Key(key).Start("-").End("+").Build()).AsXRange()
			for _, x := range entries {
				fields := make([]string, 0, len(x.FieldValues))
				for f, v := range x.FieldValues {
					fields = append(fields, strconv.Quote(f)+"="+strconv.Quote(v))
				}
				sort.Strings(fields)
				content = append(content, x.ID+"{"+strings.Join(fields, ",")+"}")
			}
		case "zset":
			var zs []rueidis.ZScore
			zs, err = client.Do(ctx, client.B().Zrange().Key(key).Min("0").Max("-1").Withscores().Build()).AsZScores()
			for _, z := range zs {
				content = append(content, strconv.Quote(z.Member)+"="+strconv.FormatFloat(z.Score, 'f', -1, 64))
			}
		default:
			t.Fatalf("TYPE %s = %s: not a type these tests write", key, typ)
		}
		if err != nil {
			t.Fatalf("reading %s %s: %v", typ, key, err)
		}
		ttl, err := client.Do(ctx, client.B().Pttl().Key(key).Build()).AsInt64()
		if err != nil {
			t.Fatalf("PTTL %s: %v", key, err)
		}
		expiry := "no TTL"
		if ttl != -1 {
			expiry = "a TTL" // not its value: it counts down between two reads
		}
		out[key] = fmt.Sprintf("%s, %s: [%s]", typ, expiry, strings.Join(content, " "))
	}
	return out
}

// CommandCalls sums, over every node of client, the calls= count of each
// named command in INFO commandstats (0 for a command never run). Only a real
// server keeps these statistics.
func CommandCalls(t testing.TB, ctx context.Context, client rueidis.Client, commands ...string) map[string]int64 {
	t.Helper()
	out := make(map[string]int64, len(commands))
	for _, c := range commands {
		out[c] = 0
	}
	for addr, node := range client.Nodes() {
		info, err := node.Do(ctx, node.B().Info().Section("commandstats").Build()).ToString()
		if err != nil {
			t.Fatalf("INFO commandstats on %s: %v", addr, err)
		}
		for _, line := range strings.Split(info, "\n") {
			name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
			cmd, isStat := strings.CutPrefix(name, "cmdstat_")
			if _, want := out[cmd]; !ok || !isStat || !want {
				continue
			}
			calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
			n, err := strconv.ParseInt(calls, 10, 64)
			if err != nil {
				t.Fatalf("INFO commandstats on %s, line %q: %v", addr, line, err)
			}
			out[cmd] += n
		}
	}
	return out
}

// Primaries returns the client of each primary among client's nodes, by ROLE.
func Primaries(t testing.TB, ctx context.Context, client rueidis.Client) map[string]rueidis.Client {
	t.Helper()
	out := map[string]rueidis.Client{}
	for addr, node := range client.Nodes() {
		role, err := node.Do(ctx, node.B().Role().Build()).ToArray()
		if err != nil || len(role) == 0 {
			t.Fatalf("ROLE on %s: %v", addr, err)
		}
		if name, _ := role[0].ToString(); name == "master" {
			out[addr] = node
		}
	}
	return out
}

// KeysByNode asks each primary alone (SCAN on that node) which keys matching
// pattern it holds, and returns key -> primary address; a key found on two
// fails the test.
func KeysByNode(t testing.TB, ctx context.Context, primaries map[string]rueidis.Client, pattern string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for addr, node := range primaries {
		var cursor uint64
		for {
			entry, err := node.Do(ctx, node.B().Scan().Cursor(cursor).Match(pattern).Count(100).Build()).AsScanEntry()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range entry.Elements {
				if prev, ok := out[k]; ok && prev != addr {
					t.Errorf("key %s on %s and %s", k, prev, addr)
				}
				out[k] = addr
			}
			if cursor = entry.Cursor; cursor == 0 {
				break
			}
		}
	}
	return out
}

// NeedCluster skips the test unless the target is a Redis Cluster.
func NeedCluster(t testing.TB) {
	t.Helper()
	if !Cluster() {
		t.Skipf("needs a Redis Cluster (REDIS_CLUSTER_ADDRS); target is %s", Target())
	}
}

// NodeID is the cluster node ID of the node c talks to (CLUSTER MYID).
func NodeID(t testing.TB, ctx context.Context, c rueidis.Client) string {
	t.Helper()
	id, err := c.Do(ctx, c.B().ClusterMyid().Build()).ToString()
	if err != nil {
		t.Fatalf("CLUSTER MYID: %v", err)
	}
	return id
}
