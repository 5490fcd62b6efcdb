package kuis

import (
	"context"
	"fmt"

	"github.com/redis/rueidis"
)

// Purge deletes the course's keys, and only after its standings are safe:
// it takes the recap (as Recap), calls archive with it, and only if archive
// returns nil deletes the board, the quiz index and every ledger the index
// lists in one transaction that the server refuses if the course changed
// since the recap was taken (a quiz folded meanwhile would be lost with no
// archive of it): then nothing is deleted, and it returns ErrBusy; purge
// again. It returns the number of keys deleted (0 for a course with nothing
// folded). O(L + N), L the ledgers' entries.
//
// Nothing is deleted, and archive is not called, when the ACL user may not
// delete the keys (ErrForbidden, checked first), the recap fails
// (ErrCorrupt, ErrBusy) or archive fails (its error, wrapped). Errors
// before any I/O: ErrNoArchive (a nil archive). With WithReplicas,
// ErrNotReplicated: the keys were deleted on the primary, after archive.
func (c *Course) Purge(ctx context.Context, archive func(context.Context, CourseRecap) error) (int64, error) {
	if archive == nil {
		return 0, ErrNoArchive
	}
	if err := c.check(ctx, "purge", "", ""); err != nil {
		return 0, err
	}
	replies, changed, err := c.snapshot(ctx, courseReads{index: true, board: true}, func(snap courseSnapshot) ([]rueidis.Completed, error) {
		r, err := c.recapOf(snap)
		if err != nil {
			return nil, err
		}
		if err := archive(ctx, r); err != nil {
			return nil, archiveFailed(c.about("", ""), err)
		}
		// The ledgers share the course's hash slot: one UNLINK takes them all.
		keys := []string{c.keys.board, c.keys.quizzes}
		for _, q := range decodeIndex(c.keys, snap.index, func(string, string, string, ...any) {}).instances {
			keys = append(keys, c.keys.Ledger(q.quiz.QuizID, q.quiz.Instance))
		}
		return []rueidis.Completed{c.s.client.B().Unlink().Key(keys...).Build()}, nil
	})
	switch {
	case err != nil:
		return 0, err
	case changed:
		return 0, fmt.Errorf("%w: %s: the course changed while it was read and archived; nothing deleted, purge again", ErrBusy, c.about("", ""))
	}
	if len(replies) != 1 {
		return 0, fmt.Errorf("kuis: %s: purge reply of %d elements, want 1", c.about("", ""), len(replies))
	}
	n, err := replies[0].AsInt64()
	if err != nil {
		return 0, c.fail(err, "", "", c.keys.board)
	}
	return n, nil
}
