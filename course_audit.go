package kuis

import (
	"context"
	"slices"

	"github.com/redis/rueidis"
)

// Audit checks the course's keys against the contract and returns one
// Violation per problem, never nil (an empty slice when the course keeps it,
// or has nothing folded), in the order it checks: the type and TTL of the
// board and the quiz index ("type", "ttl"); each index field's form
// ("field": "<quiz>@<instance>") and marker ("marker": out of its form); the
// type and TTL of each ledger the index lists; each ledger entry ("entry": a
// stored name, and a multiple of 10 of at most the instance's possible
// points); each instance against its marker ("unfinished": its fold is in
// parts; "ledger": its ledger is missing; "marker": the marker's
// participants or points are not its entries'); each board member's name
// and score ("member", "score"); then "ledger" when the index is missing
// while the board has members, and otherwise each participant's total
// against the sum of their entries ("total": a member with no entry is a
// stranger, and a participant with entries, 0-point ones too, belongs on
// the board). Course.Repair corrects exactly the "total" violations, and
// refuses while any "field", "marker", "entry", "unfinished", "ledger" or
// "type" one stands. It reads as Recap does, one snapshot of one moment,
// and never writes: O(L + N). Errors: ErrBusy (the course changed each of
// three reads), ErrForbidden.
func (c *Course) Audit(ctx context.Context) ([]Violation, error) {
	k := c.keys
	keys := []string{k.board, k.quizzes}
	shapes, err := shapesOf(c.s.send(ctx, c.s.client, shapeReads(c.s.client.B(), keys)...), keys, c.about("", ""))
	if err != nil {
		return nil, err
	}
	found := violations{}
	shapes[0].audit(k.board, "zset", found.add)
	shapes[1].audit(k.quizzes, "hash", found.add)
	read := courseReads{shapes: true, board: shapes[0].fits("zset"), index: shapes[1].fits("hash")}
	shape := len(found)
	_, err = c.consistent(ctx, read, func(snap courseSnapshot) ([]rueidis.Completed, error) {
		found = found[:shape] // a snapshot read again starts over
		c.audit(snap, read, found.add)
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// audit adds the violations of a snapshot's contents.
func (c *Course) audit(snap courseSnapshot, read courseReads, add complain) {
	k := c.keys
	l := decodeIndex(k, snap.index, add)
	for _, in := range l.instances {
		snap.shapes[in.field].audit(k.Ledger(in.quiz.QuizID, in.quiz.Instance), "hash", add)
	}
	l.decodeLedgers(k, snap.ledgers, add)
	if !read.board {
		return // a board of the wrong type holds no totals to compare
	}
	scores := make(map[string]float64, len(snap.board))
	names := make([]string, 0, len(snap.board)+len(l.totals))
	for _, z := range snap.board {
		scores[z.Member] = z.Score
		names = append(names, z.Member)
	}
	slices.Sort(names)
	for _, p := range names {
		if problem := nameProblem(p); problem != "" {
			add(k.board, "member", "participant %s %s", quote(p), problem)
		}
		if _, err := decodeScore(k.board, p, scores[p]); err != nil {
			add(k.board, "score", "member %s has score %s, want a non-negative multiple of 10", quote(p), number(scores[p]))
		}
	}
	if !read.index {
		return // an index of the wrong type gives no totals to compare
	}
	if len(snap.index) == 0 && len(snap.board) > 0 {
		add(k.quizzes, "ledger", "is missing, and the board holds %d participants", len(snap.board))
		return
	}
	for _, fix := range totalFixes(scores, l.totals) {
		switch score, onBoard := scores[fix.Participant]; {
		case !onBoard:
			add(k.board, "total", "participant %s is not on the board, and the ledger gives %d points", quote(fix.Participant), fix.Now)
		case fix.stranger:
			add(k.board, "total", "member %s has %s points, and the ledger gives none", quote(fix.Participant), number(score))
		default:
			add(k.board, "total", "member %s has %s points, and the ledger gives %d", quote(fix.Participant), number(score), fix.Now)
		}
	}
}

// totalFix is a total of the board that is not the sum of the
// participant's ledger entries, as a Correction; a stranger has none.
type totalFix struct {
	Correction
	stranger bool
}

// totalFixes compares the board's scores with the ledger's totals, in
// participant order.
func totalFixes(scores map[string]float64, totals map[string]int64) []totalFix {
	names := make([]string, 0, len(scores)+len(totals))
	for p := range scores {
		names = append(names, p)
	}
	for p := range totals {
		if _, ok := scores[p]; !ok {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	var out []totalFix
	for _, p := range names {
		score, onBoard := scores[p]
		want, inLedger := totals[p]
		if onBoard && inLedger && score == float64(want) {
			continue
		}
		out = append(out, totalFix{Correction: Correction{Participant: p, Was: wasScore(score), Now: want}, stranger: !inLedger})
	}
	return out
}
