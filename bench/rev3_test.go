package main

import (
	"strings"
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
	c.add(serverCost{answers: 1000, calls: 1000, usec: 9000, cpuSec: 0.012})
	c.add(serverCost{answers: 1000, calls: 1000, usec: 11000, cpuSec: 0.014})
	if got, want := c.usecPerCall(), 10.0; got != want {
		t.Errorf("usecPerCall = %v, want %v", got, want)
	}
	if got, want := c.cpuPerAnswer(), 13.0; got != want {
		t.Errorf("cpuPerAnswer = %v, want %v", got, want)
	}
}

// TestRev2ScriptIsRevisionTwo pins what the embedded script is: revision 2's
// record script, which takes three keys and writes no answer log.
func TestRev2ScriptIsRevisionTwo(t *testing.T) {
	for _, want := range []string{"KEYS[1] meta, KEYS[2] board, KEYS[3] answers\n", "local function gate()"} {
		if !strings.Contains(rev2Source, want) {
			t.Errorf("rev2 source lacks %q", want)
		}
	}
	for _, absent := range []string{"XADD", "KEYS[4]"} {
		if strings.Contains(rev2Source, absent) {
			t.Errorf("rev2 source has %q: not revision 2", absent)
		}
	}
}
