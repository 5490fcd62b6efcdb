package kuis_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// purgeSeed fixes the property test's random key sets so a failure can be
// replayed; KUIS_PURGE_SEED overrides it to explore other sets.
const purgeSeed = 20261130

// TestPurgePropertyDeletesExactlyTheNamespace: for many random key sets, in and
// out of the namespace (look-alike prefixes included), of every type, and
// random SCAN page sizes, Purge deletes exactly the keys that start with
// "<ns>:", reports that count, and leaves every other key as it was. On
// miniredis SCAN returns everything at once; on a real server the pages are
// real, which is the actual proof.
func TestPurgePropertyDeletesExactlyTheNamespace(t *testing.T) {
	seed := int64(purgeSeed)
	if s := os.Getenv("KUIS_PURGE_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("KUIS_PURGE_SEED=%q: %v", s, err)
		}
	}
	rounds := 40
	if testing.Short() {
		rounds = 5
	}
	t.Logf("seed %d (set KUIS_PURGE_SEED to replay another), %d rounds, target %s", seed, rounds, redistest.Target())
	rng := rand.New(rand.NewSource(seed))
	client := redistest.Client(t)
	ctx := context.Background()
	for round := 0; round < rounds; round++ {
		ns := redistest.Namespace(t)
		inside, outside := purgeKeySet(rng, ns)
		count := int64(1 + rng.Intn(64))
		all := append(append([]string{}, inside...), outside...)
		t.Cleanup(func() { unlinkAll(client, outside) })
		writeRandomKeys(t, ctx, client, rng, all)
		outsideBefore := dumpKeys(t, ctx, client, outside)

		n, err := kuis.Purge(ctx, client, kuis.WithNamespace(ns), kuis.WithScanCount(count))
		if err != nil {
			t.Fatalf("round %d (ns %s, COUNT %d): Purge: %v", round, ns, count, err)
		}
		if n != int64(len(inside)) {
			t.Errorf("round %d (ns %s, COUNT %d): Purge deleted %d, want %d", round, ns, count, n, len(inside))
		}
		var left []string
		for _, k := range inside {
			if dumpKey(t, ctx, client, k) != "none" {
				left = append(left, k)
			}
		}
		if len(left) != 0 {
			t.Errorf("round %d (ns %s, COUNT %d): %d namespace keys survived: %q", round, ns, count, len(left), left)
		}
		if diff := cmp.Diff(outsideBefore, dumpKeys(t, ctx, client, outside)); diff != "" {
			t.Errorf("round %d (ns %s, COUNT %d): keys outside the namespace changed (-before +after):\n%s", round, ns, count, diff)
		}
		unlinkAll(client, outside)
	}
}

// keyBytes are the bytes random key suffixes are made of: glob, hash-tag and
// separator characters among plain ones.
const keyBytes = " *?[]\\:{}-_.aZ09\x00\xff"

// purgeKeySet returns random keys that start with ns+":" and random keys that
// only look like it. Every outside key contains ns (random per round), so it can
// never belong to anyone else on a shared server.
func purgeKeySet(rng *rand.Rand, ns string) (inside, outside []string) {
	suffixes := []string{"", "papan:kuis-01", "meta:{kuis-01}", "jawaban:x", ":", "::", "*", "?", "[a-z]", `\*`,
		"{", "}", " ", "é", "\x00", "\n", "papan:*", ns, ns + ":"}
	suffix := func() string {
		if rng.Intn(3) == 0 {
			return suffixes[rng.Intn(len(suffixes))]
		}
		var b strings.Builder
		for i, n := 0, rng.Intn(12); i < n; i++ {
			b.WriteByte(keyBytes[rng.Intn(len(keyBytes))])
		}
		return b.String()
	}
	lookAlikes := []func() string{
		func() string { return ns },                   // the namespace itself, no colon
		func() string { return ns + "x:" + suffix() }, // a longer namespace
		func() string { return ns + "_" + suffix() },  // no separator
		func() string { return ns + ";" + suffix() },  // another separator
		func() string { return strings.ToUpper(ns) + ":" + suffix() },
		func() string { return ns[:len(ns)-1] + ":" + ns + suffix() }, // a prefix of ns
		func() string { return "other:" + ns + ":" + suffix() },
		func() string { return "x" + ns + ":" + suffix() },
		func() string { return " " + ns + ":" + suffix() },
		func() string { return "*" + ns + ":" + suffix() },
		func() string { return ns + "*:" + suffix() },
		func() string { return ns + "?" + suffix() },
		func() string { return ns + "[:]" + suffix() },
		func() string { return ns + "\\:" + suffix() },
		func() string { return "{" + ns + "}:" + suffix() },
	}
	seen := map[string]bool{}
	for i, n := 0, rng.Intn(150); i < n; i++ {
		if k := ns + ":" + suffix(); !seen[k] {
			seen[k] = true
			inside = append(inside, k)
		}
	}
	for i, n := 0, rng.Intn(80); i < n; i++ {
		if k := lookAlikes[rng.Intn(len(lookAlikes))](); !seen[k] {
			seen[k] = true
			outside = append(outside, k)
		}
	}
	return inside, outside
}

// writeRandomKeys writes each key as a random type, one command per key so
// that each is routed by its own slot on a cluster.
func writeRandomKeys(t *testing.T, ctx context.Context, client rueidis.Client, rng *rand.Rand, keys []string) {
	t.Helper()
	cmds := make(rueidis.Commands, 0, len(keys))
	for _, k := range keys {
		switch rng.Intn(5) {
		case 0:
			cmds = append(cmds, client.B().Set().Key(k).Value("v").Build())
		case 1:
			cmds = append(cmds, client.B().Hset().Key(k).FieldValue().FieldValue("f", "v").Build())
		case 2:
			cmds = append(cmds, client.B().Zadd().Key(k).ScoreMember().ScoreMember(10, "m").Build())
		case 3:
			cmds = append(cmds, client.B().Sadd().Key(k).Member("m").Build())
		default:
			cmds = append(cmds, client.B().Rpush().Key(k).Element("e").Build())
		}
	}
	for i, res := range client.DoMulti(ctx, cmds...) {
		if err := res.Error(); err != nil {
			t.Fatalf("writing %q: %v", keys[i], err)
		}
	}
}

// dumpKeys is dumpKey of every key, sorted by key.
func dumpKeys(t *testing.T, ctx context.Context, client rueidis.Client, keys []string) []string {
	t.Helper()
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%q = %s", k, dumpKey(t, ctx, client, k)))
	}
	sort.Strings(out)
	return out
}

// unlinkAll deletes keys outside any namespace a test owns, which Purge never will.
func unlinkAll(client rueidis.Client, keys []string) {
	cmds := make(rueidis.Commands, 0, len(keys))
	for _, k := range keys {
		cmds = append(cmds, client.B().Unlink().Key(k).Build())
	}
	if len(cmds) > 0 {
		client.DoMulti(context.Background(), cmds...)
	}
}
