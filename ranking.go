package kuis

import (
	"strconv"

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
