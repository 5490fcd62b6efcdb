package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// Big boards are written with raw pipelined commands (recording a million
// answers through the gate would measure the writes, not the reads), then read
// through the library.
const (
	perCommand = 100 // members per ZADD, keys per MSET
	perBatch   = 100 // commands per DoMulti: 10,000 members or keys per round trip
)

// bigMember names member i of a big board.
func bigMember(i int) string { return "m" + strconv.Itoa(i) }

// orderUnit is 2^42: an order set score is answers * 2^42 + (2^42 - 1 - ms of
// the latest answer), as record_answer.lua writes it.
const orderUnit = 1 << 42

// buildBoard creates quiz id (every board read checks its meta) and writes n
// members with random scores (multiples of 10, as the contract allows) to its
// board and order set (latest answers at random times of one hour), 10,000
// per round trip. It returns the quiz's board handle in name order and in
// time order.
func (r *runner) buildBoard(id string, n int) (byName, byTime *kuis.Board, err error) {
	if byName, err = r.quiz(id, 1); err != nil {
		return nil, nil, err
	}
	if byTime, err = r.byTime.Board(id); err != nil {
		return nil, nil, err
	}
	keys, err := r.store.Keys(id)
	if err != nil {
		return nil, nil, err
	}
	r.logf("building a board and order set of %d members ...", n)
	start := time.Now()
	answers := make([]int64, n)
	for i := range answers {
		answers[i] = int64(rand.IntN(1000))
	}
	hour := time.Now().Add(-time.Hour).UnixMilli()
	for _, set := range []struct {
		key   string
		score func(i int) int64
	}{
		{keys.Board(), func(i int) int64 { return 10 * answers[i] }},
		{keys.Order(), func(i int) int64 { return answers[i]*orderUnit + orderUnit - 1 - (hour + rand.Int64N(3_600_000)) }},
	} {
		err = batched(r.ctx, r.client, n, func(lo, hi int) rueidis.Completed {
			z := r.client.B().Zadd().Key(set.key).ScoreMember()
			for i := lo; i < hi; i++ {
				z = z.ScoreMember(float64(set.score(i)), bigMember(i))
			}
			return z.Build()
		})
		if err != nil {
			return nil, nil, fmt.Errorf("build %s of %d: %w", set.key, n, err)
		}
	}
	r.logf("built in %v", time.Since(start).Round(time.Millisecond))
	return byName, byTime, nil
}

// batched sends the commands made by mk for [0, n) in slices of perCommand,
// perBatch commands per pipelined round trip.
func batched(ctx context.Context, c rueidis.Client, n int, mk func(lo, hi int) rueidis.Completed) error {
	cmds := make(rueidis.Commands, 0, perBatch)
	flush := func() error {
		for _, res := range c.DoMulti(ctx, cmds...) {
			if err := res.Error(); err != nil {
				return err
			}
		}
		cmds = cmds[:0]
		return nil
	}
	for lo := 0; lo < n; lo += perCommand {
		cmds = append(cmds, mk(lo, min(lo+perCommand, n)))
		if len(cmds) == perBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if len(cmds) > 0 {
		return flush()
	}
	return nil
}

// p50 measures one goroutine's median latency of fn over the run's duration.
func (r *runner) p50(name string, fn func(i int) error) (float64, error) {
	r.logf("%-22s 1 goroutine, %v warm-up + %v ...", name, r.warm, r.dur)
	ds, err := latencies(r.warm, r.dur, fn)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	us := micros(percentile(ds, 50))
	r.logf("%-22s p50 %.1f µs over %d calls", name, us, len(ds))
	return us, nil
}

// p50s measures several single-goroutine reads by turns, as interleaved does
// for throughput: one warm-up of r.warm each, then rounds slices of
// r.dur/rounds each, pooling each read's samples. It returns each p50 in µs.
func (r *runner) p50s(names []string, fns ...func(i int) error) ([]float64, error) {
	r.logf("%v: 1 goroutine, %v warm-up each, then %d interleaved rounds, %v each in all ...", names, r.warm, rounds, r.dur)
	samples := make([][]time.Duration, len(fns))
	for _, fn := range fns {
		if _, err := latencies(0, r.warm, fn); err != nil {
			return nil, err
		}
	}
	for range rounds {
		for i, fn := range fns {
			ds, err := latencies(0, r.dur/rounds, fn)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", names[i], err)
			}
			samples[i] = append(samples[i], ds...)
		}
	}
	out := make([]float64, len(fns))
	for i := range fns {
		out[i] = micros(percentile(samples[i], 50))
		r.logf("%-22s p50 %.1f µs over %d calls", names[i], out[i], len(samples[i]))
	}
	return out, nil
}

// standingRead is Board.Standing of a random member of a board of n.
func (r *runner) standingRead(b *kuis.Board, n int) func(int) error {
	return func(int) error {
		_, err := b.Standing(context.Background(), bigMember(rand.IntN(n)))
		return err
	}
}

// pageLimit is one screen of a leaderboard.
const pageLimit = 20

// page is Board.Page of pageLimit standings at a random offset of a board of n.
func (r *runner) page(name string, b *kuis.Board, n int) (float64, error) {
	return r.p50(name, func(int) error {
		s, err := b.Page(context.Background(), rand.IntN(n-pageLimit), pageLimit)
		if err == nil && len(s) != pageLimit {
			err = fmt.Errorf("page of %d standings, want %d", len(s), pageLimit)
		}
		return err
	})
}

// aroundRadius gives 11 lines: a participant's own and 5 either side.
const aroundRadius = 5

// around is Board.Around of a random member of a board of n.
func (r *runner) around(name string, b *kuis.Board, n int) (float64, error) {
	return r.p50(name, func(int) error {
		_, err := b.Around(context.Background(), bigMember(rand.IntN(n)), aroundRadius)
		return err
	})
}

// fillKeys writes n small string keys into the namespace, 10,000 per round trip.
func (r *runner) fillKeys(n int) error {
	r.logf("writing %d keys ...", n)
	start := time.Now()
	prefix := r.ns + ":purge:"
	err := batched(r.ctx, r.client, n, func(lo, hi int) rueidis.Completed {
		m := r.client.B().Mset().KeyValue()
		for i := lo; i < hi; i++ {
			m = m.KeyValue(prefix+strconv.Itoa(i), "x")
		}
		return m.Build()
	})
	r.logf("written in %v", time.Since(start).Round(time.Millisecond))
	return err
}

// purge times Store.Purge of the whole namespace while another process
// PINGs every millisecond (pingWhile); it returns the purge's seconds, the
// worst PING round trip in milliseconds and the number of keys deleted.
func (r *runner) purge() (secs, worstMs float64, deleted int64, err error) {
	r.logf("purging the namespace %s ...", r.ns)
	took, worst, pings, err := pingWhile(r.addr, func() (err error) {
		deleted, err = r.store.Purge(r.ctx)
		return err
	})
	secs = took.Seconds()
	r.logf("purged %d keys in %.2f s; worst of %d PINGs meanwhile: %v", deleted, secs, pings, worst)
	return round(secs, 3), round(micros(worst)/1000, 2), deleted, err
}
