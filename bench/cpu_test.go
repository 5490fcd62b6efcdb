package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseInfoAndCommandstats(t *testing.T) {
	text := "# Commandstats\r\ncmdstat_evalsha:calls=3000,usec=27000,usec_per_call=9.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_info:calls=4,usec=80,usec_per_call=20.00\r\n\r\n# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\n"
	info := parseInfo(text)
	if got, want := info["used_cpu_sys"], "1.250000"; got != want {
		t.Errorf("used_cpu_sys = %q, want %q", got, want)
	}
	if _, ok := info["# CPU"]; ok {
		t.Error("a section header was read as a field")
	}
	want := map[string]string{"calls": "3000", "usec": "27000", "usec_per_call": "9.00", "rejected_calls": "0", "failed_calls": "0"}
	if diff := cmp.Diff(want, parseFields(info["cmdstat_evalsha"])); diff != "" {
		t.Errorf("cmdstat_evalsha (-want +got):\n%s", diff)
	}
}

func TestServerCostPerAnswer(t *testing.T) {
	var c serverCost
	c.add(serverCost{answers: 32000, calls: 1000, usec: 200000, cpuSec: 0.24})
	c.add(serverCost{answers: 32000, calls: 1000, usec: 240000, cpuSec: 0.24})
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		{"answersPerRun", c.answersPerRun(), 32},
		{"cpuPerAnswer", c.cpuPerAnswer(), 7.5},
		{"usecPerAnswer", c.usecPerAnswer(), 6.88},
		{"usecPerCall", c.usecPerCall(), 220},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestTripAnswers: a round trip carries whole runs, about answersPerTrip
// answers, so that the runs of a variant hold what its name says.
func TestTripAnswers(t *testing.T) {
	for per, want := range map[int]int{1: 1000, 32: 992, 64: 960, 1000: 1000, 2000: 2000} {
		if got := tripAnswers(per); got != want || got%per != 0 {
			t.Errorf("tripAnswers(%d) = %d, want %d", per, got, want)
		}
	}
}
