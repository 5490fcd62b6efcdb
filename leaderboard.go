package kuis

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Standing is one line of the board as a student's screen shows it.
type Standing struct {
	Rank            int    `json:"rank"`             // ZREVRANK + 1: 1-based, Redis's tie order
	CompetitionRank int    `json:"competition_rank"` // equal scores share a rank ("1224")
	Participant     string `json:"participant"`      // the sorted set member
	Score           int64  `json:"score"`            // a non-negative multiple of 10
}

// Board is the quiz application's handle on one quiz, from [Store.Board]: it
// records answers and reads the board, and never writes meta. It is safe for
// concurrent use.
//
// Every read checks in the same round trip that the quiz exists (HLEN of the
// meta hash, O(1)) and returns ErrQuizNotFound when it does not, whatever the
// board holds; a board of the wrong type, or a score that is not a
// non-negative multiple of 10, is ErrCorrupt. Reads are served from the
// client-side cache with WithClientCache. Equal scores come in Redis's own
// order, reverse byte order of names (Citra before Ali), and every Standing
// carries both ranks.
type Board struct {
	q quiz
}

// Bounds of the paged reads.
const (
	maxPageLimit = 1000
	maxRadius    = 500
)

// Standings reads the whole board, highest score first, with ZRANGE board 0 -1
// REV WITHSCORES (O(log N + M)). A quiz without answers yet is an empty slice.
func (b *Board) Standings(ctx context.Context) ([]Standing, error) {
	return b.rangeByRank(ctx, 0, -1)
}

// Page reads limit standings starting at position offset (0 is the top) with
// ZRANGE board offset-1 offset+limit-1 REV WITHSCORES (O(log N + M)); the one
// standing above the page tells whether the page starts inside a group of
// equal scores, and only then ZCOUNT (O(log N)) finds the group's competition
// rank. Ranks are global. A page past the end is empty, not an error. A
// negative offset or a limit outside 1 to 1000 is ErrInvalidRange.
func (b *Board) Page(ctx context.Context, offset, limit int) ([]Standing, error) {
	if offset < 0 || limit < 1 || limit > maxPageLimit {
		return nil, fmt.Errorf("%w: %s: offset %d, limit %d (want offset >= 0, limit 1 to %d)",
			ErrInvalidRange, b.q.about(""), offset, limit, maxPageLimit)
	}
	start := int64(offset)
	stop := int64(math.MaxInt64) // a page that would end past MaxInt64 ends at the board's end
	if start <= math.MaxInt64-int64(limit) {
		stop = start + int64(limit) - 1
	}
	return b.rangeByRank(ctx, start, stop)
}

// Around reads the participant's standing with up to radius neighbours above
// and below (clipped at the ends of the board): ZREVRANK, then the range as
// Page reads it (O(log N + M)). The two steps are not one atomic read: a write
// between them can shift the window by a place. Errors: ErrInvalidParticipant
// and ErrInvalidRange (a radius outside 0 to 500) before any I/O,
// ErrQuizNotFound, ErrNotOnBoard, ErrCorrupt.
func (b *Board) Around(ctx context.Context, participant string, radius int) ([]Standing, error) {
	if err := b.q.checkParticipant(participant); err != nil {
		return nil, err
	}
	if radius < 0 || radius > maxRadius {
		return nil, fmt.Errorf("%w: %s: radius %d (want 0 to %d)", ErrInvalidRange, b.q.about(participant), radius, maxRadius)
	}
	res, err := b.q.read(ctx, b.q.client.B().Zrevrank().Key(b.q.keys.board).Member(participant).Cache())
	if err != nil {
		return nil, err
	}
	pos, err := res[0].AsInt64()
	if err != nil {
		return nil, b.memberError(err, participant)
	}
	return b.rangeByRank(ctx, max(0, pos-int64(radius)), pos+int64(radius))
}

// Standing returns one participant's Rank, CompetitionRank and Score, in one
// round trip: a read-only script (EVALSHA_RO) runs HLEN meta, ZSCORE, ZREVRANK
// and ZCOUNT of the higher scores (O(log N)), so the three numbers are of one
// moment. With WithClientCache it reads HLEN, ZSCORE and ZREVRANK through the
// cache, then ZCOUNT (two round trips when nothing is cached, none when all
// is). Errors: ErrInvalidParticipant before any I/O, ErrQuizNotFound,
// ErrNotOnBoard, ErrCorrupt.
func (b *Board) Standing(ctx context.Context, participant string) (Standing, error) {
	if err := b.q.checkParticipant(participant); err != nil {
		return Standing{}, err
	}
	if b.q.opts.cacheTTL > 0 {
		return b.cachedStanding(ctx, participant)
	}
	k := b.q.keys
	reply, err := script.Standing.Exec(ctx, b.q.client, []string{k.meta, k.board}, []string{participant}).ToArray()
	if err != nil {
		return Standing{}, b.memberError(err, participant)
	}
	if len(reply) != 3 {
		return Standing{}, fmt.Errorf("kuis: %s: standing reply of %d elements, want 3", b.q.about(participant), len(reply))
	}
	score, err := reply[0].AsFloat64()
	if err != nil {
		return Standing{}, b.q.fail(err, participant, k.board)
	}
	pos, err := reply[1].AsInt64()
	if err != nil {
		return Standing{}, b.q.fail(err, participant, k.board)
	}
	higher, err := reply[2].AsInt64()
	if err != nil {
		return Standing{}, b.q.fail(err, participant, k.board)
	}
	return b.standing(participant, score, pos, higher)
}

// cachedStanding is Standing through the client-side cache.
func (b *Board) cachedStanding(ctx context.Context, participant string) (Standing, error) {
	k := b.q.keys.board
	res, err := b.q.read(ctx,
		b.q.client.B().Zscore().Key(k).Member(participant).Cache(),
		b.q.client.B().Zrevrank().Key(k).Member(participant).Cache())
	if err != nil {
		return Standing{}, err
	}
	score, err := res[0].AsFloat64()
	if err != nil {
		return Standing{}, b.memberError(err, participant)
	}
	pos, err := res[1].AsInt64()
	if err != nil {
		return Standing{}, b.memberError(err, participant)
	}
	higher, err := b.higher(ctx, score)
	if err != nil {
		return Standing{}, err
	}
	return b.standing(participant, score, pos, higher)
}

// standing decodes one participant's numbers. higher (the members with a
// higher score) is at most pos in one consistent view; cached entries of
// different moments could say otherwise, and the competition rank is then
// capped at the rank.
func (b *Board) standing(participant string, score float64, pos, higher int64) (Standing, error) {
	s, err := decodeScore(b.q.keys.board, participant, score)
	if err != nil {
		return Standing{}, err
	}
	return Standing{
		Rank:            int(pos) + 1,
		CompetitionRank: int(min(higher, pos)) + 1,
		Participant:     participant,
		Score:           s,
	}, nil
}

// Len returns the number of participants on the board with ZCARD (O(1)).
// A quiz without answers yet is 0.
func (b *Board) Len(ctx context.Context) (int64, error) {
	res, err := b.q.read(ctx, b.q.client.B().Zcard().Key(b.q.keys.board).Cache())
	if err != nil {
		return 0, err
	}
	n, err := res[0].AsInt64()
	if err != nil {
		return 0, b.q.fail(err, "", b.q.keys.board)
	}
	return n, nil
}

// rangeByRank reads positions start..stop (inclusive, -1 = the end) with
// scores and both ranks. It reads one position more above start, to see
// whether the page starts inside a group of equal scores.
func (b *Board) rangeByRank(ctx context.Context, start, stop int64) ([]Standing, error) {
	k := b.q.keys.board
	from := max(0, start-1)
	res, err := b.q.read(ctx, b.q.client.B().Zrange().Key(k).
		Min(strconv.FormatInt(from, 10)).Max(strconv.FormatInt(stop, 10)).Rev().Withscores().Cache())
	if err != nil {
		return nil, err
	}
	zs, err := res[0].AsZScores()
	if err != nil {
		return nil, b.q.fail(err, "", k)
	}
	all, err := decodeStandings(k, zs, int(from)+1)
	if err != nil {
		return nil, err
	}
	if from == start {
		return all, nil
	}
	if len(all) < 2 {
		return []Standing{}, nil // the page is past the end
	}
	page := all[1:]
	if above := all[0]; above.Score == page[0].Score {
		higher, err := b.higher(ctx, zs[1].Score)
		if err != nil {
			return nil, err
		}
		// Cap at the rank above, as in standing: a write between the two
		// round trips must not make a rank smaller than its competition rank.
		first := int(min(higher, int64(above.Rank-1))) + 1
		for i := range page {
			if page[i].CompetitionRank != above.CompetitionRank {
				break
			}
			page[i].CompetitionRank = first
		}
	}
	return page, nil
}

// higher counts the members whose score is above score: ZCOUNT board (score
// +inf (O(log N)).
func (b *Board) higher(ctx context.Context, score float64) (int64, error) {
	k := b.q.keys.board
	above := "(" + strconv.FormatFloat(score, 'f', -1, 64)
	n, err := b.q.readOne(ctx, b.q.client.B().Zcount().Key(k).Min(above).Max("+inf").Cache()).AsInt64()
	if err != nil {
		return 0, b.q.fail(err, "", k)
	}
	return n, nil
}

// memberError maps a nil reply to ErrNotOnBoard, and any other error as fail.
func (b *Board) memberError(err error, participant string) error {
	if rueidis.IsRedisNil(err) {
		return fmt.Errorf("%w: %s", ErrNotOnBoard, b.q.about(participant))
	}
	return b.q.fail(err, participant, b.q.keys.board)
}
