package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// archiveSize is the one line whose bytes may differ between runs: the
// archive's size depends on how many digits TakenAt's nanoseconds need.
var archiveSize = regexp.MustCompile(`\(\d+ bytes,`)

// TestStoryDependsOnlyOnSeed tells the story twice with one seed: the
// goroutines interleave differently, the output may not. Other seeds must
// hold the invariant too.
func TestStoryDependsOnlyOnSeed(t *testing.T) {
	dir := t.TempDir()
	tell := func(seed uint64) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(context.Background(), &out, seed, dir); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, out.String())
		}
		return archiveSize.ReplaceAllString(out.String(), "(N bytes,")
	}
	first := tell(8)
	if diff := cmp.Diff(first, tell(8)); diff != "" {
		t.Errorf("two runs with seed 8 differ (-first +second):\n%s", diff)
	}
	for _, seed := range []uint64{1, 2, 3} {
		if got := tell(seed); got == first {
			t.Errorf("seed %d told the story of seed 8", seed)
		}
	}
}

// TestCheckInvariantCatchesAnExtraAnswer proves the final check can fail: a
// board with one answer counted twice breaks it.
func TestCheckInvariantCatchesAnExtraAnswer(t *testing.T) {
	plans := []plan{
		{student: "Ayu Lestari", submissions: []submission{{question: 1}, {question: 2, how: doubleTap}}},
		{student: "Bagus Pratama", submissions: []submission{{question: 1, how: lostReply}}},
	}
	counted := func(n int64) *tally {
		tl := &tally{}
		tl.counted.Store(n)
		return tl
	}
	tests := []struct {
		name    string
		scores  map[string]int64
		tally   *tally
		wantErr bool
	}{
		{name: "exactly once", scores: map[string]int64{"Ayu Lestari": 20, "Bagus Pratama": 10}, tally: counted(3)},
		{name: "a double tap counted twice", scores: map[string]int64{"Ayu Lestari": 30, "Bagus Pratama": 10}, tally: counted(4), wantErr: true},
		{name: "right total, wrong student", scores: map[string]int64{"Ayu Lestari": 10, "Bagus Pratama": 20}, tally: counted(3), wantErr: true},
		{name: "right board, a reply counted twice", scores: map[string]int64{"Ayu Lestari": 20, "Bagus Pratama": 10}, tally: counted(4), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r kuis.Recap
			for _, name := range sortedNames(tt.scores) {
				r.Standings = append(r.Standings, kuis.Standing{Participant: name, Score: tt.scores[name]})
			}
			err := checkInvariant(&bytes.Buffer{}, r, plans, tt.tally)
			if (err != nil) != tt.wantErr {
				t.Errorf("checkInvariant = %v; want error: %v", err, tt.wantErr)
			}
		})
	}
}
