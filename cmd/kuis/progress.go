package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// plainEvery is how often progress prints a plain line where stderr is not
// a terminal: a log of long work shows it goes on, and short work prints
// none.
const plainEvery = 5 * time.Second

// progress shows how far long work over many quizzes is, on stderr: on a
// terminal one line redrawn in place (done/total, rate, time left), and
// otherwise the same as a plain line every 5 s, so that a log keeps it. Work
// on one quiz shows none. Its lines start with the command's name, never
// with "kuis: ", which starts the lines of errors.
type progress struct {
	w       io.Writer
	tty     bool
	label   string // the command: "purge"
	total   int
	done    int
	start   time.Time
	every   time.Duration // plainEvery
	printed time.Time     // when the last plain line was printed
	drawn   int           // the width of the line drawn on the terminal, 0 when none
	latest  string
}

// startProgress starts the progress of label over total quizzes, or returns
// nil when there is only one.
func (c *cli) startProgress(label string, total int) *progress {
	if total < 2 {
		return nil
	}
	now := time.Now()
	p := &progress{w: c.stderr, tty: isTerminal(c.stderr), label: label, total: total, start: now, every: plainEvery, printed: now}
	c.progress = p
	p.draw()
	return p
}

// each does do for each quiz of ids, with a step's context (-timeout),
// showing the progress of name; a failure is reported as subject's and the
// quiz's ("course fold ipa-8a kuis-01"), and the rest is still done. It
// returns how many failed; an interrupt ends it early, with its error.
func (c *cli) each(ctx context.Context, name, subject string, ids []string, do func(ctx context.Context, id string) error) (int, error) {
	prog := c.startProgress(name, len(ids))
	defer c.endProgress()
	failed := 0
	for i, id := range ids {
		if ctx.Err() != nil {
			return failed, &exitError{code: 1, msg: fmt.Sprintf("kuis: %s: interrupted, %d quiz(zes) not done", name, len(ids)-i)}
		}
		sctx, cancel := c.step(ctx)
		err := do(sctx, id)
		cancel()
		if err != nil {
			c.report(subject+" "+id, err)
			failed++
		}
		prog.step(id)
	}
	return failed, nil
}

// step counts one more quiz done (whether it failed or not).
func (p *progress) step(quiz string) {
	if p == nil {
		return
	}
	p.done++
	p.latest = quiz
	if p.tty {
		p.draw()
		return
	}
	if now := time.Now(); now.Sub(p.printed) >= p.every {
		p.printed = now
		fmt.Fprintf(p.w, "%s: %s\n", p.label, p.line())
	}
}

// end removes the line from the terminal.
func (c *cli) endProgress() {
	if c.progress != nil {
		c.progress.clear()
		c.progress = nil
	}
}

// line is the progress in words: "12/40 quizzes, 3.1/s, about 9s left (kuis-12)".
func (p *progress) line() string {
	s := fmt.Sprintf("%d/%d quizzes", p.done, p.total)
	if elapsed := time.Since(p.start); p.done > 0 && elapsed > 0 {
		rate := float64(p.done) / elapsed.Seconds()
		left := time.Duration(float64(p.total-p.done) / rate * float64(time.Second))
		s += fmt.Sprintf(", %.1f/s, about %v left", rate, left.Round(time.Second))
	}
	if p.latest != "" {
		s += " (" + visible(p.latest) + ")"
	}
	return s
}

// draw redraws the line on a terminal.
func (p *progress) draw() {
	if p == nil || !p.tty {
		return
	}
	line := p.label + ": " + p.line()
	pad := max(0, p.drawn-len(line))
	fmt.Fprint(p.w, "\r"+line+strings.Repeat(" ", pad))
	p.drawn = len(line)
}

// clear blanks the line on a terminal, so that another line can be printed.
func (p *progress) clear() {
	if p == nil || !p.tty || p.drawn == 0 {
		return
	}
	fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.drawn)+"\r")
	p.drawn = 0
}
