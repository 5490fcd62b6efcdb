package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLedgerQuizSizes(t *testing.T) {
	tests := []struct {
		name        string
		fields, per int
		want        []int
	}{
		{"none", 0, 2500, nil},
		{"fewer than a quiz", 10, 2500, []int{10}},
		{"whole quizzes", 7500, 2500, []int{2500, 2500, 2500}},
		{"what is left last", 6000, 2500, []int{2500, 2500, 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ledgerQuizSizes(tt.fields, tt.per)); diff != "" {
				t.Errorf("ledgerQuizSizes(%d, %d) (-want +got):\n%s", tt.fields, tt.per, diff)
			}
		})
	}
}

// TestLedgerInstance: every hand-made quiz has an instance of its own, in
// the order of the quizzes, in the form of a stream entry ID.
func TestLedgerInstance(t *testing.T) {
	if got, want := ledgerInstance(0), "1764835200000-0"; got != want {
		t.Errorf("ledgerInstance(0) = %q, want %q", got, want)
	}
	if got, want := ledgerInstance(2), "1764842400000-0"; got != want {
		t.Errorf("ledgerInstance(2) = %q, want %q", got, want)
	}
}

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		costs []callCost
		want  ledgerRow
	}{
		{"no runs", nil, ledgerRow{name: "x", what: "y"}},
		{"unsorted runs", []callCost{
			{took: 30 * ms, cpuSec: 0.020, hscans: 500},
			{took: 10 * ms, cpuSec: 0.030, hscans: 501},
			{took: 20 * ms, cpuSec: 0.010, hscans: 500},
		}, ledgerRow{name: "x", what: "y", median: 20 * ms, max: 30 * ms, cpuMedian: 0.020, cpuMax: 0.030,
			hscanMin: 500, hscanMax: 501}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summarize("x", "y", tt.costs), cmp.AllowUnexported(ledgerRow{})); diff != "" {
				t.Errorf("summarize (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteLedgerTable(t *testing.T) {
	var b strings.Builder
	writeLedgerTable(&b, []ledgerRow{
		{name: "same", what: "w1", median: 2 * time.Millisecond, max: 3 * time.Millisecond, cpuMedian: 0.0015, cpuMax: 0.002, hscanMin: 1, hscanMax: 1},
		{name: "apart", what: "w2", hscanMin: 0, hscanMax: 2},
	})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want a header and 2 rows:\n%s", len(lines), b.String())
	}
	for i, want := range [][]string{
		{"same", "2.0 ms", "3.0 ms", "1.5 / 2.0 ms", " 1  w1"},
		{"apart", "0.0 / 0.0 ms", " 0–2  w2"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("row %d %q lacks %q", i, lines[i+1], w)
			}
		}
	}
}
