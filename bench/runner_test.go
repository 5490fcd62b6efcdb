package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPercentileNearestRank(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"no samples", nil, 50, 0},
		{"one sample", ms(7), 50, 7 * time.Millisecond},
		{"median of odd count, unsorted", ms(5, 1, 3), 50, 3 * time.Millisecond},
		{"median of even count is the lower middle", ms(4, 1, 3, 2), 50, 2 * time.Millisecond},
		{"p100 is the maximum", ms(4, 9, 1), 100, 9 * time.Millisecond},
		{"p99 of 100 samples is the 99th", ms(seq(100)...), 99, 99 * time.Millisecond},
		{"tiny p is the minimum", ms(3, 2, 8), 0.001, 2 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.in, tt.p); got != tt.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tt.in, tt.p, got, tt.want)
			}
		})
	}
}

// seq is 1..n.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestMicrosRoundsToTenthOfMicrosecond(t *testing.T) {
	if got, want := micros(12345*time.Nanosecond), 12.3; got != want {
		t.Errorf("micros(12.345µs) = %v, want %v", got, want)
	}
}

func TestTimedCountsReportedOpsAndStopsOnError(t *testing.T) {
	ops, err := timed(20*time.Millisecond, 3, func(int, int) (int, error) {
		time.Sleep(time.Millisecond)
		return 10, nil
	})
	if err != nil || ops <= 0 {
		t.Fatalf("timed = %v, %v; want > 0, nil", ops, err)
	}
	boom := errFake("boom")
	if _, err := timed(time.Second, 2, func(_, i int) (int, error) {
		if i == 3 {
			return 0, boom
		}
		return 1, nil
	}); err == nil {
		t.Error("timed ignored the workload's error")
	}
}

type errFake string

func (e errFake) Error() string { return string(e) }

func TestInterleavedTakesTurnsAndAverages(t *testing.T) {
	var calls []string
	mk := func(name string, ops float64) func(time.Duration) (float64, error) {
		return func(d time.Duration) (float64, error) {
			calls = append(calls, fmt.Sprintf("%s:%v", name, d))
			return ops, nil
		}
	}
	got, err := interleaved(time.Second, 6*time.Second, mk("a", 10), mk("b", 30))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{10, 30}, got); diff != "" {
		t.Errorf("means (-want +got):\n%s", diff)
	}
	want := []string{"a:1s", "b:1s"}
	for range rounds {
		want = append(want, "a:1s", "b:1s")
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
