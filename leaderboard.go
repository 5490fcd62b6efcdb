package kuis

import "context"

// Board is the quiz application's handle on one quiz, from [Store.Board]: it
// records answers and reads the board, and never writes meta. It is safe for
// concurrent use.
//
// Every read tells a quiz that does not exist (no meta: ErrQuizNotFound,
// whatever the board holds) from an empty one, in the same round trip as the
// read; a board of the wrong type, or a score that is not sound (a
// non-negative multiple of 10, at most 2^53 - 2), is ErrCorrupt. With
// WithClientCache the reads are served from the client-side cache. Equal
// scores come in Redis's own order, reverse byte order of names (Citra
// before Ali), or with WithTies(TiesByTime) earliest latest answer first.
// Every Standing carries both ranks. Participant names are compared byte for
// byte. A read the ACL user may not make is ErrForbidden.
type Board struct {
	q quiz
}

// ranked is the reader of the quiz's board.
func (b *Board) ranked() rankedBoard { return rankedBoard{s: b.q.s, board: b.q.keys.board, q: &b.q} }

// Board returns the quiz application's handle on quiz quizID: it records
// answers and reads the board, and never writes meta. It does no I/O.
// Error: ErrInvalidQuizID.
func (s *Store) Board(quizID string) (*Board, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return nil, err
	}
	return &Board{q: q}, nil
}

// Standings reads the whole board, highest score first: O(log N + M). A
// quiz without answers yet is an empty slice. Errors: ErrQuizNotFound,
// ErrCorrupt, ErrForbidden.
func (b *Board) Standings(ctx context.Context) ([]Standing, error) {
	return b.ranked().rangeByRank(ctx, 0, -1)
}

// Page reads limit standings starting at position offset (0 is the top):
// O(log N + M). Ranks are global: a page that starts inside a group of equal
// scores gives them the group's competition rank (one more O(log N) read, only
// then). A page past the end is empty, not an error. Errors: ErrInvalidRange
// (a negative offset, or a limit outside 1 to 1000) before any I/O,
// ErrQuizNotFound, ErrCorrupt, ErrForbidden.
func (b *Board) Page(ctx context.Context, offset, limit int) ([]Standing, error) {
	return b.ranked().page(ctx, offset, limit)
}

// Around reads the participant's standing with up to radius neighbours above
// and below, clipped at the ends of the board: O(log N + M). It finds the
// participant's place, then reads the window as Page does: the two steps are
// not one atomic read, so a write between them can shift the window by a
// place. Errors: ErrInvalidParticipant and ErrInvalidRange (a radius outside 0
// to 500) before any I/O, ErrQuizNotFound, ErrNotOnBoard, ErrCorrupt,
// ErrForbidden.
func (b *Board) Around(ctx context.Context, participant string, radius int) ([]Standing, error) {
	return b.ranked().around(ctx, participant, radius)
}

// Standing returns one participant's Rank, CompetitionRank and Score, all
// three of one moment, in one round trip (one read-only script): O(log N).
// With WithClientCache it reads through the cache instead, in two round trips
// when nothing is cached and none when all is; the competition rank is then
// capped at the rank, should the cached entries be of different moments.
// Errors: ErrInvalidParticipant before any I/O, ErrQuizNotFound,
// ErrNotOnBoard, ErrCorrupt, ErrForbidden.
func (b *Board) Standing(ctx context.Context, participant string) (Standing, error) {
	return b.ranked().standing(ctx, participant)
}

// Len returns the number of participants on the board: O(1). A quiz without
// answers yet is 0. Errors: ErrQuizNotFound, ErrCorrupt, ErrForbidden.
func (b *Board) Len(ctx context.Context) (int64, error) {
	return b.ranked().length(ctx)
}
