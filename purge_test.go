package kuis_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// lookAlikes writes keys that share text with the namespace ns but are not
// under "<ns>:", each of a different type, and deletes them at cleanup (the
// env's own cleanup purges only the namespace). It returns their names.
func lookAlikes(e *env) []string {
	e.t.Helper()
	ns := e.ns
	keys := []string{
		ns,                               // the bare namespace
		ns + "x:1",                       // a longer namespace
		ns + "2:papan:a",                 // a longer namespace, contract shape
		"other:" + ns + ":papan:x",       // the namespace inside another
		strings.ToUpper(ns) + ":papan:a", // another case: Redis keys are case-sensitive
		"x" + ns + ":meta:a",             // a prefix before the namespace
		ns + "-:papan:a",                 // a separator-like byte that is not ':'
		ns + ";papan:a",                  // a byte next to ':' in ASCII
		strings.TrimSuffix(ns, ns[len(ns)-1:]) + ":papan:a", // a shorter namespace
	}
	e.t.Cleanup(func() {
		for _, k := range keys {
			e.client.Do(context.Background(), e.client.B().Del().Key(k).Build())
		}
	})
	for i, k := range keys {
		switch i % 4 {
		case 0:
			e.mustRaw("SET", k, "nilai "+k)
		case 1:
			e.mustRaw("HSET", k, "judul", k, "status", "berjalan")
		case 2:
			e.mustRaw("ZADD", k, "30", "Ali", "10", k)
		case 3:
			e.mustRaw("SADD", k, "1:Ali", k)
		}
	}
	return keys
}

// TestPurgeDeletesTheNamespaceOnly fills a namespace with quizzes and other
// keys, surrounded by look-alikes, and expects Purge to delete exactly the
// namespace's keys, say how many, and leave every look-alike as it was.
func TestPurgeDeletesTheNamespaceOnly(t *testing.T) {
	e := newEnv(t)
	var inside []string
	for i := 0; i < 3; i++ {
		_, _, b := e.reference()
		inside = append(inside, b.Keys().Meta(), b.Keys().Board())
		if i == 0 {
			if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
				t.Fatal(err)
			}
			inside = append(inside, b.Keys().Answers())
		}
	}
	// Keys the library never writes still belong to the namespace; their names
	// differ so that on a cluster they spread over many slots.
	for i := 0; i < 40; i++ {
		k := e.ns + ":lain:" + strconv.Itoa(i)
		e.mustRaw("SET", k, "x")
		inside = append(inside, k)
	}
	for _, k := range []string{e.ns + ":", e.ns + "::", e.ns + ":*", e.ns + ":papan:{x}"} {
		e.mustRaw("SET", k, "x")
		inside = append(inside, k)
	}
	outside := lookAlikes(e)
	before := rawState(e, outside...)
	for _, k := range inside {
		if !e.exists(k) {
			t.Fatalf("setup: %s missing", k)
		}
	}

	n, err := kuis.Purge(e.ctx, e.client, e.opts...)
	if err != nil || n != int64(len(inside)) {
		t.Errorf("Purge = %d, %v; want %d", n, err, len(inside))
	}
	for _, k := range inside {
		if e.exists(k) {
			t.Errorf("%s survived Purge", k)
		}
	}
	if diff := cmp.Diff(before, rawState(e, outside...)); diff != "" {
		t.Errorf("Purge touched keys outside %s:* (-before +after):\n%s", e.ns, diff)
	}
	if n, err := kuis.Purge(e.ctx, e.client, e.opts...); err != nil || n != 0 {
		t.Errorf("second Purge = %d, %v; want 0", n, err)
	}
}

// TestPurgeOfAnEmptyNamespace: nothing to delete is 0, not an error, even
// when look-alikes exist.
func TestPurgeOfAnEmptyNamespace(t *testing.T) {
	e := newEnv(t)
	outside := lookAlikes(e)
	before := rawState(e, outside...)
	if n, err := kuis.Purge(e.ctx, e.client, e.opts...); err != nil || n != 0 {
		t.Errorf("Purge = %d, %v; want 0", n, err)
	}
	if diff := cmp.Diff(before, rawState(e, outside...)); diff != "" {
		t.Errorf("Purge touched keys outside %s:* (-before +after):\n%s", e.ns, diff)
	}
}

// TestPurgePagesThroughManyKeys: tens of thousands of keys, deleted through
// many SCAN pages (the default page and a tiny one), exactly once each.
func TestPurgePagesThroughManyKeys(t *testing.T) {
	if !redistest.Real() {
		t.Skip("miniredis ignores SCAN COUNT and returns every key in one page, so paging is only exercised on a real server")
	}
	const total = 30000
	tests := []struct {
		name string
		opts []kuis.Option
	}{
		{"default page size", nil},
		{"page size 7", []kuis.Option{kuis.WithScanCount(7)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			outside := lookAlikes(e)
			before := rawState(e, outside...)
			// One SET per key, pipelined: on a cluster each goes to its own slot.
			for start := 0; start < total; start += 1000 {
				cmds := make(rueidis.Commands, 0, 1000)
				for i := start; i < start+1000; i++ {
					cmds = append(cmds, e.client.B().Set().Key(fmt.Sprintf("%s:massal:%d", e.ns, i)).Value("x").Build())
				}
				for _, res := range e.client.DoMulti(e.ctx, cmds...) {
					if err := res.Error(); err != nil {
						t.Fatalf("SET: %v", err)
					}
				}
			}
			opts := append(append([]kuis.Option{}, e.opts...), tt.opts...)
			n, err := kuis.Purge(e.ctx, e.client, opts...)
			if err != nil || n != total {
				t.Errorf("Purge = %d, %v; want %d", n, err, total)
			}
			// A full second pass finds nothing: no key was skipped between pages.
			if n, err := kuis.Purge(e.ctx, e.client, opts...); err != nil || n != 0 {
				t.Errorf("second Purge = %d, %v; want 0", n, err)
			}
			if diff := cmp.Diff(before, rawState(e, outside...)); diff != "" {
				t.Errorf("Purge touched keys outside %s:* (-before +after):\n%s", e.ns, diff)
			}
		})
	}
}
