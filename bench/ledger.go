package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// -ledger measures what one quiz costs a course whose ledger is big: a
// course is built through Course.Fold of recaps made by hand (Fold reads
// nothing else) of ledgerQuizSize participants each, the same students in
// every quiz, until the ledger holds -ledger-fields entries; then a quiz of
// one participant is folded into it, and ledgerRuns times by turns it is
// folded again (nothing written: AlreadyFolded) and unfolded (then folded
// back, untimed). For each call: its wall time, the server's CPU time (INFO
// cpu, the whole process: exact only on a server of the run's own, and
// including the INFO call after it) and the HSCAN commands the server ran
// (INFO commandstats, those in scripts included).

const (
	ledgerQuizSize = 2500 // participants of each quiz that fills the ledger
	ledgerRuns     = 7    // timed calls of each kind, odd so that the median is one of them
)

// ledgerQuizSizes is the participant counts of the quizzes that fill a ledger
// of fields entries: whole quizzes of per, then what is left.
func ledgerQuizSizes(fields, per int) []int {
	var sizes []int
	for left := fields; left > 0; left -= per {
		sizes = append(sizes, min(per, left))
	}
	return sizes
}

// ledgerInstance is the made-up instance of the hand-made quiz i: quizzes an
// hour apart, as if created at their start.
func ledgerInstance(i int) string {
	return strconv.FormatInt(1764835200000+int64(i)*3_600_000, 10) + "-0"
}

// callCost is what one timed call cost.
type callCost struct {
	took   time.Duration
	cpuSec float64 // the server's, INFO cpu
	hscans int64   // HSCAN commands the server ran, INFO commandstats
}

// ledgerRow sums up the runs of one kind of call.
type ledgerRow struct {
	name, what         string
	median, max        time.Duration
	cpuMedian, cpuMax  float64 // seconds
	hscanMin, hscanMax int64
}

// summarize sums up costs, one per run.
func summarize(name, what string, costs []callCost) ledgerRow {
	row := ledgerRow{name: name, what: what}
	if len(costs) == 0 {
		return row
	}
	took := make([]time.Duration, len(costs))
	cpu := make([]float64, len(costs))
	hscans := make([]int64, len(costs))
	for i, c := range costs {
		took[i], cpu[i], hscans[i] = c.took, c.cpuSec, c.hscans
	}
	slices.Sort(cpu)
	row.median, row.max = percentile(took, 50), slices.Max(took)
	row.cpuMedian, row.cpuMax = cpu[(len(cpu)-1)/2], cpu[len(cpu)-1]
	row.hscanMin, row.hscanMax = slices.Min(hscans), slices.Max(hscans)
	return row
}

// writeLedgerTable writes the -ledger rows for a human reader.
func writeLedgerTable(w io.Writer, rows []ledgerRow) {
	fmt.Fprintf(w, "%-16s %10s %10s %21s %8s  %s\n", "", "median", "max", "server CPU p50 / max", "HSCANs", "what")
	for _, r := range rows {
		hscans := strconv.FormatInt(r.hscanMin, 10)
		if r.hscanMax != r.hscanMin {
			hscans += "–" + strconv.FormatInt(r.hscanMax, 10)
		}
		fmt.Fprintf(w, "%-16s %7.1f ms %7.1f ms %21s %8s  %s\n", r.name, ms(r.median), ms(r.max),
			fmt.Sprintf("%.1f / %.1f ms", r.cpuMedian*1000, r.cpuMax*1000), hscans, r.what)
	}
}

// timedCall runs call and returns its cost.
func (r *runner) timedCall(call func() error) (callCost, error) {
	before, err := r.serverStats("hscan")
	if err != nil {
		return callCost{}, err
	}
	start := time.Now()
	err = call()
	took := time.Since(start)
	if err != nil {
		return callCost{}, err
	}
	after, err := r.serverStats("hscan")
	if err != nil {
		return callCost{}, err
	}
	return callCost{took: took, cpuSec: after.cpuSec - before.cpuSec, hscans: after.calls - before.calls}, nil
}

// ledger builds a course whose ledger holds fields entries and measures a
// fold again and an Unfold of a quiz of one participant in it.
func (r *runner) ledger(w io.Writer, fields int) error {
	if fields < 1 {
		return fmt.Errorf("-ledger-fields %d: want at least 1", fields)
	}
	c, err := r.store.Course("ledger")
	if err != nil {
		return err
	}
	sizes := ledgerQuizSizes(fields, ledgerQuizSize)
	r.logf("ledger: folding %d quizzes of up to %d participants (%d ledger entries) ...", len(sizes), ledgerQuizSize, fields)
	start := time.Now()
	for i, n := range sizes {
		recap := handRecap(fmt.Sprintf("ledger-%04d", i), n)
		recap.Instance = ledgerInstance(i)
		f, err := c.Fold(r.ctx, recap)
		if err != nil {
			return err
		}
		if f.Participants != n || f.AlreadyFolded {
			return fmt.Errorf("fold of quiz %s of %d participants: %+v", recap.QuizID, n, f)
		}
	}
	built := time.Since(start)
	one := handRecap("ledger-one", 1)
	one.Instance = ledgerInstance(len(sizes))
	foldBack := func() error {
		f, err := c.Fold(r.ctx, one)
		if err == nil && (f.Participants != 1 || f.AlreadyFolded) {
			err = fmt.Errorf("fold of quiz %s of 1 participant: %+v, want it added", one.QuizID, f)
		}
		return err
	}
	if err := foldBack(); err != nil {
		return err
	}
	var again, unfold []callCost
	for range ledgerRuns {
		cost, err := r.timedCall(func() error {
			f, err := c.Fold(r.ctx, one)
			if err == nil && !f.AlreadyFolded {
				err = fmt.Errorf("fold again of quiz %s: %+v, want AlreadyFolded", one.QuizID, f)
			}
			return err
		})
		if err != nil {
			return err
		}
		again = append(again, cost)
		if cost, err = r.timedCall(func() error { _, err := c.Unfold(r.ctx, one.QuizID); return err }); err != nil {
			return err
		}
		unfold = append(unfold, cost)
		// The fold back adds the participant again only if Unfold took it out.
		if err := foldBack(); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "a course's ledger of %d entries (%d quizzes of up to %d participants), built with Course.Fold in %.2f s\n",
		fields, len(sizes), ledgerQuizSize, built.Seconds())
	writeLedgerTable(w, []ledgerRow{
		summarize("fold_again_1", "Course.Fold again of a quiz of 1 participant (AlreadyFolded), "+strconv.Itoa(ledgerRuns)+" runs", again),
		summarize("unfold_1", "Course.Unfold of a quiz of 1 participant, "+strconv.Itoa(ledgerRuns)+" runs", unfold),
	})
	return nil
}
