package kuis_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestReferenceSession replays the contract's reference session and checks
// every reply the contract lists.
func TestReferenceSession(t *testing.T) {
	e := newEnv(t)
	_, m, b := e.running(3)
	var scores []int64
	for _, name := range []string{"Ali", "Citra", "Ali", "Budi", "Citra", "Ali", "Budi", "Citra", "Dewi"} {
		s, err := b.RecordCorrect(e.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, s)
	}
	if diff := cmp.Diff([]int64{10, 10, 20, 10, 20, 30, 20, 30, 10}, scores); diff != "" {
		t.Errorf("ZINCRBY replies (-want +got):\n%s", diff)
	}
	standings, err := b.Standings(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []kuis.Standing{{1, "Citra", 30}, {2, "Ali", 30}, {3, "Budi", 20}, {4, "Dewi", 10}}
	if diff := cmp.Diff(want, standings); diff != "" {
		t.Errorf("Standings (-want +got):\n%s", diff)
	}
	for name, want := range map[string]int{"Ali": 2, "Dewi": 4} {
		if got, err := b.Rank(e.ctx, name); err != nil || got != want {
			t.Errorf("Rank(%s) = %d, %v; want %d", name, got, err, want)
		}
	}
	info, err := m.Get(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(kuis.Info{Title: info.Title, Questions: 3, Status: kuis.StatusRunning}, info); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	for _, key := range []string{b.Keys().Board(), m.Keys().Meta()} {
		if ttl, err := e.mustRaw("TTL", key).AsInt64(); err != nil || ttl != -1 {
			t.Errorf("TTL %s = %d, %v; want -1", key, ttl, err)
		}
	}
	violations, err := kuis.Audit(e.ctx, e.client, b.Keys().QuizID(), e.opts...)
	if err != nil || len(violations) != 0 {
		t.Errorf("Audit = %v, %v; want none", violations, err)
	}
}
