package kuis

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// Standing is one line of the board as a student's screen shows it.
type Standing struct {
	Rank            int    `json:"rank"`             // ZREVRANK + 1: 1-based, in the Store's tie order (WithTies)
	CompetitionRank int    `json:"competition_rank"` // equal scores share a rank ("1224")
	Participant     string `json:"participant"`      // the sorted set member
	Score           int64  `json:"score"`            // a non-negative multiple of 10
}

// Top reports whether the standing is in the top percent % of a board of
// of participants (Board.Len, Course.Len): whether fewer than percent % of
// them score more, (CompetitionRank - 1) x 100 < percent x of, computed
// without overflow. It goes by CompetitionRank, never Rank, so that equal
// scores are all in or all out: of 28, the top 10 % is every standing of
// competition rank 1 to 3, however many share them. A percent below 0 counts
// as 0 and one above 100 as 100: the top 0 % holds nobody, the top 100 %
// everybody on the board. A board of no participants (of <= 0) and a
// standing without a competition rank (below 1, as the zero Standing's) hold
// nobody: Top reports false. It does no I/O.
func (s Standing) Top(percent int, of int64) bool {
	if s.CompetitionRank < 1 || of <= 0 || percent <= 0 {
		return false
	}
	percent = min(percent, 100)
	aboveHi, aboveLo := bits.Mul64(uint64(s.CompetitionRank-1), 100)
	capHi, capLo := bits.Mul64(uint64(percent), uint64(of))
	return aboveHi < capHi || aboveHi == capHi && aboveLo < capLo
}

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

// Bounds of the paged reads.
const (
	maxPageLimit = 1000
	maxRadius    = 500
)

// Standings reads the whole board, highest score first: O(log N + M). A
// quiz without answers yet is an empty slice. Errors: ErrQuizNotFound,
// ErrCorrupt, ErrForbidden.
func (b *Board) Standings(ctx context.Context) ([]Standing, error) {
	return b.rangeByRank(ctx, 0, -1)
}

// Page reads limit standings starting at position offset (0 is the top):
// O(log N + M). Ranks are global: a page that starts inside a group of equal
// scores gives them the group's competition rank (one more O(log N) read, only
// then). A page past the end is empty, not an error. Errors: ErrInvalidRange
// (a negative offset, or a limit outside 1 to 1000) before any I/O,
// ErrQuizNotFound, ErrCorrupt, ErrForbidden.
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
// and below, clipped at the ends of the board: O(log N + M). It finds the
// participant's place, then reads the window as Page does: the two steps are
// not one atomic read, so a write between them can shift the window by a
// place. Errors: ErrInvalidParticipant and ErrInvalidRange (a radius outside 0
// to 500) before any I/O, ErrQuizNotFound, ErrNotOnBoard, ErrCorrupt,
// ErrForbidden.
func (b *Board) Around(ctx context.Context, participant string, radius int) ([]Standing, error) {
	if err := b.q.checkParticipant(participant); err != nil {
		return nil, err
	}
	if radius < 0 || radius > maxRadius {
		return nil, fmt.Errorf("%w: %s: radius %d (want 0 to %d)", ErrInvalidRange, b.q.about(participant), radius, maxRadius)
	}
	k, c := b.q.keys, b.q.s.client.B()
	cmds := []rueidis.Cacheable{c.Zrevrank().Key(k.board).Member(participant).Cache()}
	if b.q.s.opts.ties == TiesByTime {
		cmds = append(cmds, c.Zcard().Key(k.board).Cache(), c.Zcard().Key(k.order).Cache(),
			c.Zrevrank().Key(k.order).Member(participant).Cache())
	}
	res, err := b.q.read(ctx, cmds...)
	if err != nil {
		return nil, err
	}
	at := res[0]
	if len(res) > 1 {
		r, err := b.q.rankingOf(res[1], res[2])
		if err != nil {
			return nil, err
		}
		if r.byTime {
			at = res[3]
		}
	}
	pos, err := at.AsInt64()
	if err != nil {
		return nil, b.memberError(err, participant)
	}
	return b.rangeByRank(ctx, max(0, pos-int64(radius)), pos+int64(radius))
}

// Standing returns one participant's Rank, CompetitionRank and Score, all
// three of one moment, in one round trip (one read-only script): O(log N).
// With WithClientCache it reads through the cache instead, in two round trips
// when nothing is cached and none when all is; the competition rank is then
// capped at the rank, should the cached entries be of different moments.
// Errors: ErrInvalidParticipant before any I/O, ErrQuizNotFound,
// ErrNotOnBoard, ErrCorrupt, ErrForbidden.
func (b *Board) Standing(ctx context.Context, participant string) (Standing, error) {
	if err := b.q.checkParticipant(participant); err != nil {
		return Standing{}, err
	}
	if b.q.s.opts.cacheTTL > 0 {
		return b.cachedStanding(ctx, participant)
	}
	return b.scriptStanding(ctx, participant)
}

// scriptStanding is Standing in one read-only script.
func (b *Board) scriptStanding(ctx context.Context, participant string) (Standing, error) {
	k := b.q.keys
	mode := ""
	if b.q.s.opts.ties == TiesByTime {
		mode = "time"
	}
	reply, err := b.q.s.run(ctx, script.Standing, []string{k.meta, k.board, k.order}, []string{participant, mode}).ToArray()
	if err != nil {
		return Standing{}, b.memberError(err, participant)
	}
	if len(reply) != 4 {
		return Standing{}, fmt.Errorf("kuis: %s: standing reply of %d elements, want 4", b.q.about(participant), len(reply))
	}
	score, err := reply[0].AsFloat64()
	if err != nil {
		return Standing{}, b.q.fail(err, participant, k.board)
	}
	var nums [2]int64 // position, higher
	for i := range nums {
		if nums[i], err = reply[i+1].AsInt64(); err != nil {
			return Standing{}, b.q.fail(err, participant, k.board)
		}
	}
	return b.standing(participant, score, nums[0], nums[1])
}

// cachedStanding is Standing through the client-side cache: the score and
// the position (with TiesByTime, the place and position in the order set,
// which must agree with the score, else the script decides), then ZCOUNT.
func (b *Board) cachedStanding(ctx context.Context, participant string) (Standing, error) {
	k, c := b.q.keys, b.q.s.client.B()
	res, err := b.q.read(ctx, c.Zcard().Key(k.board).Cache(), c.Zcard().Key(k.order).Cache(),
		c.Zscore().Key(k.board).Member(participant).Cache(), c.Zscore().Key(k.order).Member(participant).Cache(),
		c.Zrevrank().Key(k.order).Member(participant).Cache(), c.Zrevrank().Key(k.board).Member(participant).Cache())
	if err != nil {
		return Standing{}, err
	}
	r, err := b.q.rankingOf(res[0], res[1])
	if err != nil {
		return Standing{}, err
	}
	score, err := res[2].AsFloat64()
	if err != nil {
		return Standing{}, b.memberError(err, participant)
	}
	at := res[5]
	if r.byTime {
		if place, err := res[3].AsFloat64(); err != nil || !wire.Agrees(place, score) {
			return b.scriptStanding(ctx, participant)
		}
		at = res[4]
	}
	pos, err := at.AsInt64()
	if err != nil {
		return Standing{}, b.memberError(err, participant)
	}
	points, err := decodeScore(k.board, participant, score)
	if err != nil {
		return Standing{}, err
	}
	higher, err := b.higher(ctx, points)
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

// Len returns the number of participants on the board: O(1). A quiz without
// answers yet is 0. Errors: ErrQuizNotFound, ErrCorrupt, ErrForbidden.
func (b *Board) Len(ctx context.Context) (int64, error) {
	res, err := b.q.read(ctx, b.q.s.client.B().Zcard().Key(b.q.keys.board).Cache())
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
// scores and both ranks.
func (b *Board) rangeByRank(ctx context.Context, start, stop int64) ([]Standing, error) {
	return rangeByRank(ctx, b.q.keys.board, start, stop, func(from, stop int64) ([]rueidis.ZScore, error) {
		_, zs, err := b.ranged(ctx, from, stop)
		return zs, err
	}, b.higher)
}

// rangeByRank reads positions start..stop (inclusive, -1 = the end) of the
// sorted set key with scores and both ranks, through read (the positions
// from..stop in the reads' order) and higher (how many members have more
// points), for a quiz's board and a course's alike. It reads one position
// more above start, to see whether the page starts inside a group of equal
// scores.
func rangeByRank(ctx context.Context, key string, start, stop int64, read func(from, stop int64) ([]rueidis.ZScore, error),
	higher func(context.Context, int64) (int64, error)) ([]Standing, error) {
	from := max(0, start-1)
	zs, err := read(from, stop)
	if err != nil {
		return nil, err
	}
	all, err := decodeStandings(key, zs, int(from)+1)
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
		n, err := higher(ctx, above.Score)
		if err != nil {
			return nil, err
		}
		// Cap at the rank above, as in standing: a write between the two
		// round trips must not make a rank smaller than its competition rank.
		first := int(min(n, int64(above.Rank-1))) + 1
		for i := range page {
			if page[i].CompetitionRank != above.CompetitionRank {
				break
			}
			page[i].CompetitionRank = first
		}
	}
	return page, nil
}

// higher counts the members of the board with more points than points
// (O(log N)).
func (b *Board) higher(ctx context.Context, points int64) (int64, error) {
	k := b.q.keys.board
	n, err := b.q.s.sendReads(ctx, b.q.s.client.B().Zcount().Key(k).Min("("+strconv.FormatInt(points, 10)).Max("+inf").Cache())[0].AsInt64()
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

// decodeScore accepts a board score only if it is sound: a non-negative
// multiple of 10 of at most 2^53 - 2 (wire.Score).
func decodeScore(key, member string, f float64) (int64, error) {
	score, ok := wire.Score(f)
	if !ok {
		return 0, corrupt(key, "member %s has score %s, want a non-negative multiple of 10 of at most %d",
			quote(member), number(f), int64(wire.MaxScore))
	}
	return score, nil
}

// decodeStandings turns board scores in the reads' order (ZRANGE ... REV
// WITHSCORES of the board, or byPlace's) into standings whose display rank
// starts at first. Competition ranks are counted from the first standing, as
// if it began a group of equal scores: a caller whose range starts inside a
// group corrects them (Board.rangeByRank).
func decodeStandings(board string, zs []rueidis.ZScore, first int) ([]Standing, error) {
	out := make([]Standing, len(zs))
	for i, z := range zs {
		score, err := decodeScore(board, z.Member, z.Score)
		if err != nil {
			return nil, err
		}
		comp := first + i
		if i > 0 && score == out[i-1].Score {
			comp = out[i-1].CompetitionRank
		}
		out[i] = Standing{Rank: first + i, CompetitionRank: comp, Participant: z.Member, Score: score}
	}
	return out, nil
}
