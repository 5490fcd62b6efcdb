package kuis

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/rueidis"
)

// recapAttempts is how many times Recap reads a big finished quiz in parts
// before it gives up because the quiz kept changing.
const recapAttempts = 3

// recapInParts reads a quiz too big for one recap script: on one dedicated
// connection it WATCHes the quiz's keys, reads meta (HGETALL), the board or
// order set (ZSCAN, sorted here), the answers set (SSCAN) and the log (XRANGE
// ... COUNT 1000) in pages, then runs an empty MULTI/EXEC, which fails if any
// watched key changed meanwhile. A finished quiz that changed (only a Repair
// or a write behind the library's back can change it) is read again, up to
// recapAttempts times, then refused with ErrBusy. A running quiz is returned
// as read.
func (q quiz) recapInParts(ctx context.Context) (Recap, error) {
	for attempt := 1; ; attempt++ {
		var (
			r       Recap
			changed bool
		)
		err := q.client.Dedicated(func(c rueidis.DedicatedClient) error {
			var err error
			r, changed, err = q.on(c).readParts(ctx, c)
			return err
		})
		switch {
		case err != nil:
			return Recap{}, err
		case !changed || r.Info.Status == StatusRunning:
			return r, nil
		case attempt == recapAttempts:
			return Recap{}, fmt.Errorf("%w: %s: the finished quiz changed each of the %d times it was read in parts",
				ErrBusy, q.about(""), attempt)
		}
	}
}

// readParts is one WATCHed read of the quiz in pages; changed reports that
// a watched key changed while it ran.
func (q quiz) readParts(ctx context.Context, c rueidis.DedicatedClient) (r Recap, changed bool, err error) {
	k := q.keys
	if err := c.Do(ctx, c.B().Watch().Key(k.all()...).Build()).Error(); err != nil {
		return Recap{}, false, q.fail(err, "", k.meta)
	}
	defer func() {
		if err != nil { // leave the connection as it was found
			c.Do(context.WithoutCancel(ctx), c.B().Unwatch().Build())
		}
	}()
	fields, err := c.Do(ctx, c.B().Hgetall().Key(k.meta).Build()).AsStrMap()
	if err != nil {
		return Recap{}, false, q.fail(err, "", k.meta)
	}
	if len(fields) == 0 {
		return Recap{}, false, q.errNotFound()
	}
	info, err := decodeInfo(k.meta, fields)
	if err != nil {
		return Recap{}, false, err
	}
	rank := ranking{key: k.board}
	if q.opts.ties == TiesByTime {
		cards := c.DoMulti(ctx, c.B().Zcard().Key(k.board).Build(), c.B().Zcard().Key(k.order).Build())
		nb, err1 := cards[0].AsInt64()
		no, err2 := cards[1].AsInt64()
		if err := cmp.Or(err1, err2); err != nil {
			return Recap{}, false, q.fail(err, "", k.order)
		}
		if nb == no {
			rank = ranking{key: k.order, byTime: true}
		}
	}
	zs, err := q.scanSorted(ctx, rank.key)
	if err != nil {
		return Recap{}, false, err
	}
	slices.Reverse(zs) // ZRANGE ... REV's order
	var members []string
	seen := map[string]bool{}
	err = q.scan(ctx, k.answers, func(page []string) {
		for _, m := range page {
			if !seen[m] { // SSCAN may return a member twice
				seen[m] = true
				members = append(members, m)
			}
		}
	})
	if err != nil {
		return Recap{}, false, err
	}
	slices.Sort(members)
	var (
		logged []AnswerRecord
		bad    error
	)
	_, err = q.readLog(ctx, func(e rueidis.XRangeEntry, _ int64) {
		if _, ok := e.FieldValues[logParticipant]; !ok {
			return // not an answer: the finish entry
		}
		flat := make([]string, 0, 2*len(e.FieldValues))
		for f, v := range e.FieldValues {
			flat = append(flat, f, v)
		}
		a, err := logEntry(e.ID, flat)
		if err != nil && bad == nil {
			bad = corrupt(k.log, "entry %s: %v", e.ID, err)
		}
		logged = append(logged, a)
	})
	if err := cmp.Or(err, bad); err != nil {
		return Recap{}, false, err
	}
	exec := c.DoMulti(ctx, c.B().Multi().Build(), c.B().Exec().Build())
	if err := exec[1].Error(); err != nil && !rueidis.IsRedisNil(err) {
		return Recap{}, false, q.fail(err, "", k.meta)
	}
	if r, err = q.assemble(info, rank, zs, members, logged); err != nil {
		return Recap{}, false, err
	}
	return r, rueidis.IsRedisNil(exec[1].Error()), nil
}

// on is the quiz with its commands sent on the dedicated connection c.
func (q quiz) on(c rueidis.DedicatedClient) quiz {
	q.client = dedicated{Client: q.client, c: c}
	return q
}

// dedicated sends Do and DoMulti on one dedicated connection, so that the
// paged readers (scan, scanScores, readLog) run inside a WATCH.
type dedicated struct {
	rueidis.Client
	c rueidis.DedicatedClient
}

func (d dedicated) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	return d.c.Do(ctx, cmd)
}

func (d dedicated) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	return d.c.DoMulti(ctx, cmds...)
}

// scanSorted reads a sorted set whole with ZSCAN pages and returns it in
// ZRANGE's order: by score, then by name, both ascending.
func (q quiz) scanSorted(ctx context.Context, key string) ([]rueidis.ZScore, error) {
	scores, err := q.scanScores(ctx, key)
	if err != nil {
		return nil, err
	}
	zs := make([]rueidis.ZScore, 0, len(scores))
	for m, s := range scores {
		zs = append(zs, rueidis.ZScore{Member: m, Score: s})
	}
	slices.SortFunc(zs, func(a, b rueidis.ZScore) int {
		return cmp.Or(cmp.Compare(a.Score, b.Score), strings.Compare(a.Member, b.Member))
	})
	return zs, nil
}
