package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestProgress: where stderr is not a terminal, a plain line per interval
// says done/total, the rate and the time left; on a terminal the line is
// redrawn in place and cleared at the end; one quiz shows no progress.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	c := &cli{stderr: &buf}
	if p := c.startProgress("purge", 1); p != nil || buf.Len() > 0 {
		t.Errorf("progress of one quiz: %v, %q", p, buf.String())
	}

	p := c.startProgress("purge", 3)
	p.every = 0
	for _, id := range []string{"kuis-01", "kuis-02", "kuis-03"} {
		p.step(id)
	}
	c.endProgress()
	plain := regexp.MustCompile(`^purge: [123]/3 quizzes, [0-9.]+/s, about [0-9a-z.]+ left \(kuis-0[123]\)$`)
	ls := lines(buf.String())
	if len(ls) != 3 {
		t.Fatalf("plain progress: %q, want 3 lines", buf.String())
	}
	for i, l := range ls {
		if !plain.MatchString(l) || !strings.Contains(l, " "+string(rune('1'+i))+"/3 ") {
			t.Errorf("plain progress line %d: %q", i+1, l)
		}
		if !progressLine.MatchString(l) {
			t.Errorf("tests do not see %q as progress", l)
		}
	}

	buf.Reset()
	p = c.startProgress("audit", 2)
	p.tty = true
	p.draw()
	p.step("kuis-01")
	c.errorLine("kuis: audit kuis-01: quiz is still running")
	p.step("kuis-02")
	c.endProgress()
	out := buf.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "\rkuis: audit kuis-01: quiz is still running\n") || !strings.Contains(out, "audit: 2/2 quizzes") {
		t.Errorf("terminal progress: %q, want the line redrawn, the error on a line of its own", out)
	}
	if !regexp.MustCompile(`\r +\r$`).MatchString(out) {
		t.Errorf("terminal progress not cleared at the end: %q", out)
	}
}
