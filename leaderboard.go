package kuis

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/rueidis"
)

// Standing is one line of the board as a student's screen shows it.
type Standing struct {
	Rank        int    `json:"rank"`        // 1-based display rank: position on the board + 1
	Participant string `json:"participant"` // the sorted set member
	Score       int64  `json:"score"`       // a non-negative multiple of 10
}

// Board is the quiz application's handle on one quiz: it records correct
// answers and reads the board, and never writes meta. It is safe for
// concurrent use.
type Board struct {
	q quiz
}

// Bounds of the paged reads.
const (
	maxPageLimit = 1000
	maxRadius    = 500
)

// NewBoard validates quizID and opts and returns the application's handle. It
// does no I/O. Errors: ErrInvalidQuizID, ErrInvalidNamespace, ErrNoClient, and
// ErrNeedsHashTag for a cluster client without WithHashTag.
func NewBoard(client rueidis.Client, quizID string, opts ...Option) (*Board, error) {
	q, err := newQuiz(client, quizID, opts)
	if err != nil {
		return nil, err
	}
	return &Board{q: q}, nil
}

// Keys returns the quiz's key names.
func (b *Board) Keys() Keys { return b.q.keys }

// Standings reads the whole board, highest score first, with ZREVRANGE 0 -1
// WITHSCORES (O(log N + M)). Equal scores come in Redis's own order: reverse
// byte order of names (Citra before Ali). Rank is the position + 1. A board of
// the wrong type, or holding a score that is not a non-negative multiple of 10,
// is ErrCorrupt. No board yet is an empty slice. Cached with WithClientCache.
func (b *Board) Standings(ctx context.Context) ([]Standing, error) {
	return b.rangeByRank(ctx, 0, -1)
}

// Page reads limit standings starting at position offset (0 is the top) with
// ZREVRANGE offset offset+limit-1 WITHSCORES (O(log N + M)); Rank stays the
// global display rank. A page past the end is empty, not an error. A negative
// offset or a limit outside 1 to 1000 is ErrInvalidRange. Cached with
// WithClientCache.
func (b *Board) Page(ctx context.Context, offset, limit int) ([]Standing, error) {
	if offset < 0 || limit < 1 || limit > maxPageLimit {
		return nil, fmt.Errorf("%w: offset %d, limit %d (want offset >= 0, limit 1 to %d)",
			ErrInvalidRange, offset, limit, maxPageLimit)
	}
	return b.rangeByRank(ctx, int64(offset), int64(offset)+int64(limit)-1)
}

// Around reads the participant's standing with up to radius neighbours above
// and below (clipped at the ends of the board), with global display ranks:
// ZREVRANK, then ZREVRANGE ... WITHSCORES (O(log N + M)). The two commands are
// not one atomic step: a write between them can shift the window by a place.
// Errors: ErrInvalidParticipant, ErrInvalidRange for a radius outside 0 to
// 500, ErrNotOnBoard, ErrCorrupt (a board of the wrong type, or a score in the
// window that is not a non-negative multiple of 10). Cached with WithClientCache.
func (b *Board) Around(ctx context.Context, participant string, radius int) ([]Standing, error) {
	if radius < 0 || radius > maxRadius {
		return nil, fmt.Errorf("%w: radius %d (want 0 to %d)", ErrInvalidRange, radius, maxRadius)
	}
	pos, err := b.position(ctx, participant)
	if err != nil {
		return nil, err
	}
	return b.rangeByRank(ctx, max(0, pos-int64(radius)), pos+int64(radius))
}

// Rank returns the participant's 1-based display rank: ZREVRANK + 1 (O(log N)),
// so equal scores get distinct ranks in Redis's tie order (Ali 2 behind Citra
// on the reference board). Errors: ErrInvalidParticipant, ErrNotOnBoard,
// ErrCorrupt (a board of the wrong type). Cached with WithClientCache.
func (b *Board) Rank(ctx context.Context, participant string) (int, error) {
	pos, err := b.position(ctx, participant)
	if err != nil {
		return 0, err
	}
	return int(pos) + 1, nil
}

// CompetitionRank returns the participant's rank where equal scores share a
// rank and the next rank skips ("1224": Citra 1, Ali 1, Budi 3, Dewi 4 on the
// reference board): ZSCORE, then ZCOUNT of strictly higher scores, + 1
// (O(log N) each; the board is never read). Errors: ErrInvalidParticipant,
// ErrNotOnBoard, ErrCorrupt. Cached with WithClientCache.
func (b *Board) CompetitionRank(ctx context.Context, participant string) (int, error) {
	score, err := b.Score(ctx, participant)
	if err != nil {
		return 0, err
	}
	k := b.q.keys.board
	higher, err := b.q.read(ctx, b.q.client.B().Zcount().Key(k).Min("("+strconv.FormatInt(score, 10)).Max("+inf").Cache()).AsInt64()
	if err != nil {
		return 0, replyError(err, k)
	}
	return int(higher) + 1, nil
}

// Score returns the participant's score with ZSCORE (O(1)). Errors:
// ErrInvalidParticipant, ErrNotOnBoard, ErrCorrupt. Cached with WithClientCache.
func (b *Board) Score(ctx context.Context, participant string) (int64, error) {
	if err := checkParticipant(participant); err != nil {
		return 0, err
	}
	k := b.q.keys.board
	f, err := b.q.read(ctx, b.q.client.B().Zscore().Key(k).Member(participant).Cache()).AsFloat64()
	if err != nil {
		return 0, b.memberError(err, participant)
	}
	return decodeScore(k, participant, f)
}

// Len returns the number of participants on the board with ZCARD (O(1)).
// No board yet is 0. Errors: ErrCorrupt (a board of the wrong type). Cached
// with WithClientCache.
func (b *Board) Len(ctx context.Context) (int64, error) {
	k := b.q.keys.board
	n, err := b.q.read(ctx, b.q.client.B().Zcard().Key(k).Cache()).AsInt64()
	if err != nil {
		return 0, replyError(err, k)
	}
	return n, nil
}

// position is the participant's zero-based ZREVRANK.
func (b *Board) position(ctx context.Context, participant string) (int64, error) {
	if err := checkParticipant(participant); err != nil {
		return 0, err
	}
	pos, err := b.q.read(ctx, b.q.client.B().Zrevrank().Key(b.q.keys.board).Member(participant).Cache()).AsInt64()
	if err != nil {
		return 0, b.memberError(err, participant)
	}
	return pos, nil
}

// rangeByRank reads positions start..stop (inclusive, -1 = the end) with scores.
func (b *Board) rangeByRank(ctx context.Context, start, stop int64) ([]Standing, error) {
	k := b.q.keys.board
	zs, err := b.q.read(ctx, b.q.client.B().Zrevrange().Key(k).Start(start).Stop(stop).Withscores().Cache()).AsZScores()
	if err != nil {
		return nil, replyError(err, k)
	}
	return decodeStandings(k, zs, int(start)+1)
}

// memberError maps a nil reply to ErrNotOnBoard.
func (b *Board) memberError(err error, participant string) error {
	if rueidis.IsRedisNil(err) {
		return fmt.Errorf("%w: %q on %s", ErrNotOnBoard, participant, b.q.keys.board)
	}
	return replyError(err, fmt.Sprintf("%s, participant %q", b.q.keys.board, participant))
}
