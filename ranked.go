package kuis

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
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

// rankedBoard reads one sorted board, highest score first: a quiz's, behind
// HLEN of its meta (quiz.read) and in the Store's tie order (ranking.go), or
// a course's, which has no meta and keeps no times, so its equal scores come
// in Redis's own order. Board and Course read through it: each of their
// public reads is a few lines over one of its methods, which check their
// bounds before any I/O, decode every score (decodeScore) and name the quiz
// or course in their errors. With WithClientCache its reads go through the
// client-side cache.
type rankedBoard struct {
	s      *Store
	board  string
	q      *quiz  // the board's quiz; nil for a course's board
	course string // the board's course, for errors
}

// Bounds of the paged reads.
const (
	maxPageLimit = 1000
	maxRadius    = 500
)

// about is the subject of the board's errors.
func (r rankedBoard) about(participant string) string {
	if r.q != nil {
		return r.q.about(participant)
	}
	return about(r.course, "", participant)
}

// fail maps err (from a command on key) to the library's error about the
// board and participant.
func (r rankedBoard) fail(err error, participant, key string) error {
	return replyError(err, r.about(participant), key)
}

// read sends reads in one round trip, a quiz's behind HLEN of its meta
// (quiz.read), and returns the replies of cmds, whose errors are the
// caller's to map.
func (r rankedBoard) read(ctx context.Context, cmds ...rueidis.Cacheable) ([]rueidis.RedisResult, error) {
	if r.q != nil {
		return r.q.read(ctx, cmds...)
	}
	return r.s.sendReads(ctx, cmds...), nil
}

// byTime reports whether the reads may be ordered by the order set: a
// quiz's board with WithTies(TiesByTime).
func (r rankedBoard) byTime() bool { return r.q != nil && r.s.opts.ties == TiesByTime }

// page is Page: limit standings from position offset, ErrInvalidRange for a
// negative offset or a limit outside 1 to maxPageLimit.
func (r rankedBoard) page(ctx context.Context, offset, limit int) ([]Standing, error) {
	if offset < 0 || limit < 1 || limit > maxPageLimit {
		return nil, fmt.Errorf("%w: %s: offset %d, limit %d (want offset >= 0, limit 1 to %d)",
			ErrInvalidRange, r.about(""), offset, limit, maxPageLimit)
	}
	start := int64(offset)
	stop := int64(math.MaxInt64) // a page that would end past MaxInt64 ends at the board's end
	if start <= math.MaxInt64-int64(limit) {
		stop = start + int64(limit) - 1
	}
	return r.rangeByRank(ctx, start, stop)
}

// around is Around: the participant's position in the reads' order (with
// TiesByTime, the order set's when it orders the reads), then the window.
func (r rankedBoard) around(ctx context.Context, participant string, radius int) ([]Standing, error) {
	if err := checkParticipant(participant, r.about); err != nil {
		return nil, err
	}
	if radius < 0 || radius > maxRadius {
		return nil, fmt.Errorf("%w: %s: radius %d (want 0 to %d)", ErrInvalidRange, r.about(participant), radius, maxRadius)
	}
	c := r.s.client.B()
	cmds := []rueidis.Cacheable{c.Zrevrank().Key(r.board).Member(participant).Cache()}
	if r.byTime() {
		order := r.q.keys.order
		cmds = append(cmds, c.Zcard().Key(r.board).Cache(), c.Zcard().Key(order).Cache(),
			c.Zrevrank().Key(order).Member(participant).Cache())
	}
	res, err := r.read(ctx, cmds...)
	if err != nil {
		return nil, err
	}
	at := res[0]
	if len(res) > 1 {
		rk, err := r.q.rankingOf(res[1], res[2])
		if err != nil {
			return nil, err
		}
		if rk.byTime {
			at = res[3]
		}
	}
	pos, err := at.AsInt64()
	if err != nil {
		return nil, r.memberError(err, participant)
	}
	return r.rangeByRank(ctx, max(0, pos-int64(radius)), pos+int64(radius))
}

// standing is Standing: one read-only script, or with WithClientCache the
// reads through the cache.
func (r rankedBoard) standing(ctx context.Context, participant string) (Standing, error) {
	if err := checkParticipant(participant, r.about); err != nil {
		return Standing{}, err
	}
	if r.s.opts.cacheTTL > 0 {
		return r.cachedStanding(ctx, participant)
	}
	return r.scriptStanding(ctx, participant)
}

// scriptStanding is standing in one read-only script.
func (r rankedBoard) scriptStanding(ctx context.Context, participant string) (Standing, error) {
	keys, mode := []string{r.board}, ""
	if r.q != nil {
		keys = append(keys, r.q.keys.meta, r.q.keys.order)
	}
	if r.byTime() {
		mode = "time"
	}
	reply, err := r.s.run(ctx, script.Standing, keys, []string{participant, mode}).ToArray()
	if err != nil {
		return Standing{}, r.memberError(err, participant)
	}
	if len(reply) != 3 {
		return Standing{}, fmt.Errorf("kuis: %s: standing reply of %d elements, want 3", r.about(participant), len(reply))
	}
	score, err := reply[0].AsFloat64()
	if err != nil {
		return Standing{}, r.fail(err, participant, r.board)
	}
	var nums [2]int64 // position, higher
	for i := range nums {
		if nums[i], err = reply[i+1].AsInt64(); err != nil {
			return Standing{}, r.fail(err, participant, r.board)
		}
	}
	return r.standingOf(participant, score, nums[0], nums[1])
}

// cachedStanding is standing through the client-side cache: the score and
// the position (with TiesByTime, the place and position in the order set,
// which must agree with the score, else the script decides), then ZCOUNT.
func (r rankedBoard) cachedStanding(ctx context.Context, participant string) (Standing, error) {
	c := r.s.client.B()
	cmds := []rueidis.Cacheable{c.Zscore().Key(r.board).Member(participant).Cache(), c.Zrevrank().Key(r.board).Member(participant).Cache()}
	if r.byTime() {
		order := r.q.keys.order
		cmds = append(cmds, c.Zcard().Key(r.board).Cache(), c.Zcard().Key(order).Cache(),
			c.Zscore().Key(order).Member(participant).Cache(), c.Zrevrank().Key(order).Member(participant).Cache())
	}
	res, err := r.read(ctx, cmds...)
	if err != nil {
		return Standing{}, err
	}
	var rk ranking
	if len(res) > 2 {
		if rk, err = r.q.rankingOf(res[2], res[3]); err != nil {
			return Standing{}, err
		}
	}
	score, err := res[0].AsFloat64()
	if err != nil {
		return Standing{}, r.memberError(err, participant)
	}
	at := res[1]
	if rk.byTime {
		if place, err := res[4].AsFloat64(); err != nil || !wire.Agrees(place, score) {
			return r.scriptStanding(ctx, participant)
		}
		at = res[5]
	}
	pos, err := at.AsInt64()
	if err != nil {
		return Standing{}, r.memberError(err, participant)
	}
	points, err := decodeScore(r.board, participant, score)
	if err != nil {
		return Standing{}, err
	}
	higher, err := r.higher(ctx, points)
	if err != nil {
		return Standing{}, err
	}
	return r.standingOf(participant, score, pos, higher)
}

// standingOf decodes one participant's numbers. higher (the members with a
// higher score) is at most pos in one consistent view; cached entries of
// different moments could say otherwise, and the competition rank is then
// capped at the rank.
func (r rankedBoard) standingOf(participant string, score float64, pos, higher int64) (Standing, error) {
	s, err := decodeScore(r.board, participant, score)
	if err != nil {
		return Standing{}, err
	}
	return Standing{Rank: int(pos) + 1, CompetitionRank: int(min(higher, pos)) + 1, Participant: participant, Score: s}, nil
}

// length is Len: ZCARD of the board.
func (r rankedBoard) length(ctx context.Context) (int64, error) {
	res, err := r.read(ctx, r.s.client.B().Zcard().Key(r.board).Cache())
	if err != nil {
		return 0, err
	}
	n, err := res[0].AsInt64()
	if err != nil {
		return 0, r.fail(err, "", r.board)
	}
	return n, nil
}

// rangeByRank reads positions start..stop (inclusive, -1 = the end) with
// scores and both ranks. It reads one position more above start, to see
// whether the page starts inside a group of equal scores, whose competition
// rank it then reads (higher).
func (r rankedBoard) rangeByRank(ctx context.Context, start, stop int64) ([]Standing, error) {
	from := max(0, start-1)
	zs, err := r.ranged(ctx, from, stop)
	if err != nil {
		return nil, err
	}
	all, err := decodeStandings(r.board, zs, int(from)+1)
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
		n, err := r.higher(ctx, above.Score)
		if err != nil {
			return nil, err
		}
		// Cap at the rank above, as in standingOf: a write between the two
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

// ranged reads positions from..stop (inclusive, -1 = the end) in the reads'
// order, each with its board score: in time order as timeRanged says, else
// ZRANGE of the board.
func (r rankedBoard) ranged(ctx context.Context, from, stop int64) ([]rueidis.ZScore, error) {
	start, end := strconv.FormatInt(from, 10), strconv.FormatInt(stop, 10)
	if r.byTime() {
		return r.timeRanged(ctx, start, end)
	}
	return r.nameRanged(ctx, start, end)
}

// timeRanged is ranged on a quiz's board with TiesByTime. Uncached, one
// read-only script reads the order set's positions and their board scores at
// one moment (or the board's, when the order set does not order it);
// through the cache, the order set's positions, then their board scores,
// and should the two disagree (a corrupt order set, or cached entries of
// different moments) the script decides.
func (r rankedBoard) timeRanged(ctx context.Context, start, end string) ([]rueidis.ZScore, error) {
	q, order, c := r.q, r.q.keys.order, r.s.client.B()
	if r.s.opts.cacheTTL > 0 {
		res, err := r.read(ctx, c.Zcard().Key(r.board).Cache(), c.Zcard().Key(order).Cache(),
			c.Zrange().Key(order).Min(start).Max(end).Rev().Withscores().Cache())
		if err != nil {
			return nil, err
		}
		rk, err := q.rankingOf(res[0], res[1])
		switch {
		case err != nil:
			return nil, err
		case !rk.byTime:
			return r.nameRanged(ctx, start, end)
		}
		places, err := res[2].AsZScores()
		if err != nil {
			return nil, r.fail(err, "", order)
		}
		who := make([]string, len(places))
		for i, p := range places {
			who[i] = p.Member
		}
		board, err := r.scores(r.s.sendReads(ctx, zmscores(r.s.client, r.board, who)...), who)
		if err != nil {
			return nil, err
		}
		if zs, err := q.byPlace(places, board); err == nil {
			return zs, nil
		}
	}
	zs, err := r.s.run(ctx, script.Ranked, []string{q.keys.meta, r.board, order}, []string{start, end}).AsZScores()
	if err != nil {
		return nil, r.fail(err, "", order)
	}
	return zs, nil
}

// nameRanged is ranged in name order: ZRANGE of the board.
func (r rankedBoard) nameRanged(ctx context.Context, start, end string) ([]rueidis.ZScore, error) {
	res, err := r.read(ctx, r.s.client.B().Zrange().Key(r.board).Min(start).Max(end).Rev().Withscores().Cache())
	if err != nil {
		return nil, err
	}
	zs, err := res[0].AsZScores()
	if err != nil {
		return nil, r.fail(err, "", r.board)
	}
	return zs, nil
}

// higher counts the members of the board with more points than points
// (O(log N)).
func (r rankedBoard) higher(ctx context.Context, points int64) (int64, error) {
	n, err := r.s.sendReads(ctx, r.s.client.B().Zcount().Key(r.board).Min("("+strconv.FormatInt(points, 10)).Max("+inf").Cache())[0].AsInt64()
	if err != nil {
		return 0, r.fail(err, "", r.board)
	}
	return n, nil
}

// zmscoreMembers bounds the members of one ZMSCORE.
const zmscoreMembers = 1000

// zmscores reads the scores of members on key: ZMSCORE of up to 1,000
// members a command.
func zmscores(c rueidis.Client, key string, members []string) []rueidis.Cacheable {
	cmds := make([]rueidis.Cacheable, 0, (len(members)+zmscoreMembers-1)/zmscoreMembers)
	for part := range slices.Chunk(members, zmscoreMembers) {
		cmds = append(cmds, c.B().Zmscore().Key(key).Member(part...).Cache())
	}
	return cmds
}

// scores decodes the replies of zmscores' commands on the board: each
// member's score, members without one left out.
func (r rankedBoard) scores(res []rueidis.RedisResult, members []string) (map[string]float64, error) {
	out := make(map[string]float64, len(members))
	for i, reply := range res {
		values, err := reply.ToArray()
		if err != nil {
			return nil, r.fail(err, "", r.board)
		}
		part := members[i*zmscoreMembers : min((i+1)*zmscoreMembers, len(members))]
		if len(values) != len(part) {
			return nil, fmt.Errorf("kuis: %s: ZMSCORE reply of %d scores, want %d", r.about(""), len(values), len(part))
		}
		for j, v := range values {
			f, err := v.AsFloat64()
			switch {
			case rueidis.IsRedisNil(err):
				continue // no score
			case err != nil:
				return nil, r.fail(err, "", r.board)
			}
			out[part[j]] = f
		}
	}
	return out, nil
}

// memberError maps a nil reply to ErrNotOnBoard, and any other error as fail.
func (r rankedBoard) memberError(err error, participant string) error {
	if rueidis.IsRedisNil(err) {
		return fmt.Errorf("%w: %s", ErrNotOnBoard, r.about(participant))
	}
	return r.fail(err, participant, r.board)
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
// group corrects them (rangeByRank).
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
