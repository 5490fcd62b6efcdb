package kuis

import (
	"context"
	"slices"

	"github.com/redis/rueidis"
)

// Repair sets every total of the course board back to the sum of the
// participant's ledger entries, from a sound ledger: it adds missing
// members (a deleted board comes back whole, 0-point participants
// included), removes strangers (members no ledger holds) and corrects the
// others: exactly the "total" violations Audit reports. It reads as Recap
// does, one snapshot of one moment, and writes the corrections in one
// transaction that the server refuses if a fold changed the course
// meanwhile (then it reads again): O(L + N). It returns what it changed, in
// participant order (Now 0 for a stranger removed), and an empty slice when
// nothing needed it. It is the operator's operation (ACLRules(RoleOperator)).
//
// Where the ledger itself is wrong it changes nothing and returns ErrCorrupt
// naming what: a key of the wrong type, a missing ledger (the index gone
// while the board has members, or an instance's ledger gone while its
// marker counts participants), an index field, marker or entry out of its
// form (an entry above its instance's possible points), a marker that
// disagrees with its entries, or an instance folded in parts: mend the
// ledger, or fold or unfold the instance, first. Errors: ErrForbidden
// (checked first; nothing written), ErrCorrupt, ErrBusy (the course changed
// each of three reads; nothing written); with WithReplicas,
// ErrNotReplicated (the corrections were applied on the primary).
func (c *Course) Repair(ctx context.Context) ([]Correction, error) {
	if err := c.check(ctx, "repair", "", ""); err != nil {
		return nil, err
	}
	var out []Correction
	_, err := c.consistent(ctx, courseReads{index: true, board: true}, func(snap courseSnapshot) ([]rueidis.Completed, error) {
		l, err := c.strict(snap, true)
		if err != nil {
			return nil, err
		}
		if len(snap.index) == 0 && len(snap.board) > 0 {
			return nil, corrupt(c.keys.quizzes, "is missing, and the board holds %d participants: nothing to set their totals from", len(snap.board))
		}
		scores := make(map[string]float64, len(snap.board))
		for _, z := range snap.board {
			scores[z.Member] = z.Score
		}
		out = []Correction{}
		var set []rueidis.ZScore
		var drop []string
		for _, fix := range totalFixes(scores, l.totals) {
			out = append(out, fix.Correction)
			if fix.stranger {
				drop = append(drop, fix.Participant)
			} else {
				set = append(set, rueidis.ZScore{Member: fix.Participant, Score: float64(fix.Now)})
			}
		}
		b := c.s.client.B()
		var writes []rueidis.Completed
		for part := range slices.Chunk(set, c.s.tune.foldStep) {
			z := b.Zadd().Key(c.keys.board).ScoreMember()
			for _, s := range part {
				z = z.ScoreMember(s.Score, s.Member)
			}
			writes = append(writes, z.Build())
		}
		for part := range slices.Chunk(drop, c.s.tune.foldStep) {
			writes = append(writes, b.Zrem().Key(c.keys.board).Member(part...).Build())
		}
		return writes, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
