package kuis

import (
	"context"
	"fmt"
	"strconv"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// The order of the reads. Scores always come from the board, the contract's
// key; with TiesByTime the order set only orders it, and a read that finds
// the two disagreeing answers ErrCorrupt, naming the order set.

// ranking is the sorted set a read orders the board by.
type ranking struct {
	key    string
	byTime bool // key is the order set
}

// rankingOf is the set that orders the reads of the quiz, from the ZCARD
// replies of its board and order set: the order set with TiesByTime when it
// holds as many members as the board, else the board (a quiz written before
// the order set existed, or one changed behind the library's back, until
// Repair). This is the one place Go decides it; prelude.lua's ranking
// decides it the same way inside the scripts.
func (q quiz) rankingOf(boardCard, orderCard rueidis.RedisResult) (ranking, error) {
	k := q.keys
	if q.s.opts.ties != TiesByTime {
		return ranking{key: k.board}, nil
	}
	nb, err := boardCard.AsInt64()
	if err != nil {
		return ranking{}, q.fail(err, "", k.board)
	}
	no, err := orderCard.AsInt64()
	if err != nil {
		return ranking{}, q.fail(err, "", k.order)
	}
	if nb == no {
		return ranking{key: k.order, byTime: true}, nil
	}
	return ranking{key: k.board}, nil
}

// byPlace gives each member of places (the order set, or positions of it,
// in ZRANGE ... REV's order) its board score, in the same order, from
// board, which must hold each with a score its place agrees with.
func (q quiz) byPlace(places []rueidis.ZScore, board map[string]float64) ([]rueidis.ZScore, error) {
	out := make([]rueidis.ZScore, len(places))
	for i, p := range places {
		score, ok := board[p.Member]
		if !ok || !wire.Agrees(p.Score, score) {
			return nil, q.misplaced(p.Member, p.Score, score, ok)
		}
		out[i] = rueidis.ZScore{Member: p.Member, Score: score}
	}
	return out, nil
}

// misplaced is the error of a place that disagrees with the board.
func (q quiz) misplaced(member string, place, score float64, onBoard bool) error {
	has := "no score"
	if onBoard {
		has = number(score)
	}
	count := "no"
	if n, ok := wire.PlaceCount(place); ok {
		count = strconv.FormatInt(n, 10)
	}
	return corrupt(q.keys.order, "member %s is placed for %s answers, and the board has %s", quote(member), count, has)
}

// ranged reads positions from..stop (inclusive, -1 = the end) of the board
// in the Store's tie order, each with its board score, behind HLEN meta. By
// name it is ZRANGE of the board; by time, uncached, one read-only script
// reads the order set's positions and their board scores at one moment;
// through the cache, the order set's positions, then their board scores, and
// should the two disagree (a corrupt order set, or cached entries of
// different moments) the script decides.
func (b *Board) ranged(ctx context.Context, from, stop int64) (ranking, []rueidis.ZScore, error) {
	q, k, c := b.q, b.q.keys, b.q.s.client.B()
	start, end := strconv.FormatInt(from, 10), strconv.FormatInt(stop, 10)
	if q.s.opts.ties == TiesByTime && q.s.opts.cacheTTL > 0 {
		res, err := q.read(ctx, c.Zcard().Key(k.board).Cache(), c.Zcard().Key(k.order).Cache(),
			c.Zrange().Key(k.order).Min(start).Max(end).Rev().Withscores().Cache())
		if err != nil {
			return ranking{}, nil, err
		}
		r, err := q.rankingOf(res[0], res[1])
		if err != nil || !r.byTime {
			return b.nameRanged(ctx, r, err, start, end)
		}
		places, err := res[2].AsZScores()
		if err != nil {
			return ranking{}, nil, q.fail(err, "", k.order)
		}
		board, err := b.boardScores(ctx, places)
		if err != nil {
			return ranking{}, nil, err
		}
		if zs, err := q.byPlace(places, board); err == nil {
			return r, zs, nil
		}
	}
	if q.s.opts.ties == TiesByTime {
		reply, err := q.s.run(ctx, script.Ranked, []string{k.meta, k.board, k.order}, []string{start, end}).ToArray()
		if err != nil {
			return ranking{}, nil, q.fail(err, "", k.order)
		}
		if len(reply) != 2 {
			return ranking{}, nil, fmt.Errorf("kuis: %s: ranked reply of %d elements, want 2", q.about(""), len(reply))
		}
		byTime, err := reply[0].AsInt64()
		if err != nil {
			return ranking{}, nil, q.fail(err, "", k.order)
		}
		r := ranking{key: k.board}
		if byTime == 1 {
			r = ranking{key: k.order, byTime: true}
		}
		zs, err := reply[1].AsZScores()
		if err != nil {
			return ranking{}, nil, q.fail(err, "", k.board)
		}
		return r, zs, nil
	}
	return b.nameRanged(ctx, ranking{key: k.board}, nil, start, end)
}

// nameRanged is ranged in name order: ZRANGE of the board behind HLEN meta.
func (b *Board) nameRanged(ctx context.Context, r ranking, err error, start, end string) (ranking, []rueidis.ZScore, error) {
	if err != nil {
		return ranking{}, nil, err
	}
	k := b.q.keys
	res, err := b.q.read(ctx, b.q.s.client.B().Zrange().Key(k.board).Min(start).Max(end).Rev().Withscores().Cache())
	if err != nil {
		return ranking{}, nil, err
	}
	zs, err := res[0].AsZScores()
	if err != nil {
		return ranking{}, nil, b.q.fail(err, "", k.board)
	}
	return r, zs, nil
}

// boardScores reads the board scores of the members of places, through the
// cache: ZMSCORE of up to 1,000 members at a time, in one round trip.
func (b *Board) boardScores(ctx context.Context, places []rueidis.ZScore) (map[string]float64, error) {
	k, c := b.q.keys, b.q.s.client.B()
	var cmds []rueidis.Cacheable
	for lo := 0; lo < len(places); lo += 1000 {
		who := make([]string, 0, min(1000, len(places)-lo))
		for _, p := range places[lo:min(lo+1000, len(places))] {
			who = append(who, p.Member)
		}
		cmds = append(cmds, c.Zmscore().Key(k.board).Member(who...).Cache())
	}
	board := make(map[string]float64, len(places))
	for i, res := range b.q.s.sendReads(ctx, cmds...) {
		scores, err := res.ToArray()
		if err != nil {
			return nil, b.q.fail(err, "", k.board)
		}
		for j, s := range scores {
			if f, err := s.AsFloat64(); err == nil {
				board[places[1000*i+j].Member] = f
			} else if !rueidis.IsRedisNil(err) {
				return nil, b.q.fail(err, "", k.board)
			}
		}
	}
	return board, nil
}
