package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"

	"github.com/kuisboard/kuis"
)

// finding is one Violation of a quiz, as audit -json prints it.
type finding struct {
	QuizID string `json:"quiz_id"`
	kuis.Violation
}

var cmdAudit = &command{
	usageLine: "audit QUIZ... | -all [-json]",
	short:     "check quizzes against the data contract; exit status 1 when anything is found",
	long: `
Checks each quiz's keys against the contract (Store.Audit: types, TTLs, meta,
every score against the counted answers, the answer log, the order set) and
prints each violation found, one a line: key: rule: detail. Nothing when all
is well. With -json, one JSON array of {"quiz_id", "key", "rule", "detail"}.
Exit status 1 when a violation is found or a quiz could not be audited (each
such quiz has its line on stderr); kuis repair mends the scores and the order.`,
	flag: func(fs *flag.FlagSet) runFunc {
		all := fs.Bool("all", false, "every quiz of the namespace")
		asJSON := fs.Bool("json", false, "print one JSON array")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := needQuizzes("audit", args, *all, "-all"); err != nil {
				return err
			}
			if err := c.connect(ctx); err != nil {
				return err
			}
			ids, _, err := c.quizArgs(ctx, "audit", args, *all, nil)
			if err != nil {
				return err
			}
			found, failed, err := c.audit(ctx, "audit", ids, func(kuis.Keys, kuis.Violation) bool { return true })
			if err != nil {
				return err
			}
			return c.printFindings("audit", found, failed, *asJSON, "%d violation(s) in %d quiz(zes)")
		}
	},
}

// needQuizzes checks, before connecting, that a command has quiz IDs or its
// flag for all of them, not both.
func needQuizzes(name string, args []string, all bool, allFlag string) error {
	switch {
	case all && len(args) > 0:
		return usagef("kuis %s: quiz IDs and %s: give one of them", name, allFlag)
	case !all && len(args) == 0:
		return usagef("kuis %s: no quiz: give QUIZ... or %s", name, allFlag)
	}
	return nil
}

// audit audits each quiz and returns the violations that keep accepts, and
// how many quizzes failed (each reported); an interrupt ends it early.
func (c *cli) audit(ctx context.Context, name string, ids []string, keep func(kuis.Keys, kuis.Violation) bool) ([]finding, int, error) {
	found := []finding{}
	failed, err := c.each(ctx, name, name, ids, func(ctx context.Context, id string) error {
		keys, err := c.store.Keys(id)
		if err != nil {
			return err
		}
		vs, err := c.store.Audit(ctx, id)
		if err != nil {
			return err
		}
		for _, v := range vs {
			if keep(keys, v) {
				found = append(found, finding{QuizID: id, Violation: v})
			}
		}
		return nil
	})
	return found, failed, err
}

// printFindings prints what audit or repair -dry-run found and returns the
// exit: 1, and a line on stderr saying how much was found (summary, with the
// findings and the quizzes), when anything was found or a quiz failed.
func (c *cli) printFindings(name string, found []finding, failed int, asJSON bool, summary string) error {
	if asJSON {
		if err := c.printJSON(found); err != nil {
			return err
		}
	} else {
		for _, f := range found {
			fmt.Fprintln(c.stdout, visibleWords(f.String()))
		}
	}
	quizzes := map[string]bool{}
	for _, f := range found {
		quizzes[f.QuizID] = true
	}
	switch {
	case len(found) > 0:
		c.errorLine("kuis: " + name + ": " + fmt.Sprintf(summary, len(found), len(quizzes)))
		return errReported
	case failed > 0:
		return errReported
	}
	return nil
}

var cmdRepair = &command{
	usageLine: "repair QUIZ... [-dry-run] [-json]",
	short:     "set each score back to 10 x its counted answers, and mend the order set",
	long: `
Repairs each quiz (Store.Repair): every score becomes 10 x the participant's
counted answers, members without any are removed, the order set is mended,
and repair keys left by a stopped Repair are deleted. Prints each score
changed, one a line: quiz: participant: was -> now (now 0: removed; 0 -> 0
(joined: put back on the board): a participant who joined and was missing). With
-json, one JSON array of {"quiz_id", "participant", "was", "now"}.

-dry-run writes nothing: it audits the quizzes (Store.Audit) and prints what
Repair would mend, as audit prints it: the scores that are not 10 x the
counted answers, the order set's findings, leftover repair keys. Its exit
status is 1 when there is something to mend, as audit's.`,
	flag: func(fs *flag.FlagSet) runFunc {
		dry := fs.Bool("dry-run", false, "write nothing: print what Repair would mend")
		asJSON := fs.Bool("json", false, "print one JSON array")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) == 0 {
				return usagef("kuis repair: no QUIZ (kuis repair -h)")
			}
			if err := c.connect(ctx); err != nil {
				return err
			}
			args, _, err := c.quizArgs(ctx, "repair", args, false, nil)
			if err != nil {
				return err
			}
			if *dry {
				found, failed, err := c.audit(ctx, "repair", args, repairMends)
				if err != nil {
					return err
				}
				return c.printFindings("repair -dry-run", found, failed, *asJSON, "%d finding(s) for Repair to mend in %d quiz(zes)")
			}
			return c.repair(ctx, args, *asJSON)
		}
	},
}

// repairMends reports whether Repair mends what v found: a score that is
// not 10 x the counted answers, anything of the order set, a repair key left
// behind.
func repairMends(k kuis.Keys, v kuis.Violation) bool {
	switch v.Key {
	case k.Board():
		return v.Rule == "score"
	case k.Order():
		return true
	case k.RepairBoard(), k.RepairOrder():
		return v.Rule == "exists"
	}
	return false
}

// repair repairs each quiz and prints the corrections made, those of the
// quizzes done when an interrupt ends it too.
func (c *cli) repair(ctx context.Context, ids []string, asJSON bool) error {
	out := []correction{}
	failed, err := c.each(ctx, "repair", "repair", ids, func(ctx context.Context, id string) error {
		fixes, err := c.store.Repair(ctx, id)
		for _, f := range fixes {
			out = append(out, correction{QuizID: id, Correction: f})
		}
		return err
	})
	if perr := c.printCorrections(out, asJSON); perr != nil {
		return perr
	}
	if err == nil && failed > 0 {
		return errReported
	}
	return err
}

// correction is one Correction of a quiz or a course, as repair -json,
// course repair -json and course unfold -json print it.
type correction struct {
	QuizID   string `json:"quiz_id,omitempty"`
	CourseID string `json:"course_id,omitempty"`
	kuis.Correction
}

// printCorrections prints corrections as one JSON array, or one a line:
// quiz or course: participant: was -> now, and for a quiz's 0 -> 0 (a
// participant who joined, put back on the board) what it means.
func (c *cli) printCorrections(out []correction, asJSON bool) error {
	if asJSON {
		return c.printJSON(out)
	}
	for _, r := range out {
		fmt.Fprintf(c.stdout, "%s: %s: %d -> %d", visible(cmp.Or(r.QuizID, r.CourseID)), visible(r.Participant), r.Was, r.Now)
		if r.QuizID != "" && r.Was == 0 && r.Now == 0 {
			fmt.Fprint(c.stdout, " (joined: put back on the board)")
		}
		fmt.Fprintln(c.stdout)
	}
	return nil
}
