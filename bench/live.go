package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis"
)

// -live measures the feed (Board.Events) and the live board (Board.Live)
// while 64 goroutines record answers: how long an answer takes to reach a
// reader, what watching costs the writers, and how many board reads Live
// costs the server.

// Live is -live's result, the last line of its output.
type Live struct {
	// Feed latency: from RecordAnswer's reply to the event reaching a reader.
	FeedP50us1, FeedP99us1       float64 // 1 reader
	FeedP50us100, FeedP99us100   float64 // 100 readers
	FeedSamples1, FeedSamples100 int
	// record_answer_64 with 100 Events readers attached, and with none.
	Record64Watched, Record64Alone float64
	WatchRatio                     float64 // Watched / Alone; target >= 0.8
	// Live: 100 readers of one board for LiveSeconds at every LiveEveryMs.
	LiveReaders              int
	LiveSeconds              float64
	LiveEveryMs              int64
	LiveAnswers              int64 // answers counted meanwhile
	LiveBoards               int64 // boards the readers got
	LiveBoardReads           int64 // ZRANGE calls (commandstats)
	LiveProbes               int64 // XREVRANGE calls (commandstats)
	LiveBoardReadsMax        int64 // readers x (ceil(duration/every) + 1)
	LiveWithinOneReadPerTick bool  // LiveBoardReads <= LiveBoardReadsMax
}

// sampleEvery: the latency is measured on one answer in sampleEvery (its
// pair number a multiple of it), so that 100 readers keep few timestamps.
const sampleEvery = 16

func (r *runner) live(w io.Writer) error {
	var res Live
	for _, readers := range []int{1, 100} {
		p50, p99, n, err := r.feedLatency(readers)
		if err != nil {
			return err
		}
		if readers == 1 {
			res.FeedP50us1, res.FeedP99us1, res.FeedSamples1 = p50, p99, n
		} else {
			res.FeedP50us100, res.FeedP99us100, res.FeedSamples100 = p50, p99, n
		}
	}

	alone, err := r.quiz("alone", answerQuestions)
	if err != nil {
		return err
	}
	watched, err := r.quiz("watched", answerQuestions)
	if err != nil {
		return err
	}
	// The readers follow the watched quiz for the whole comparison: blocked,
	// they cost nothing while the other quiz is written.
	stop := r.follow(watched, 100)
	ops, err := r.compareFns([]string{"record_answer/64 (100 readers)", "record_answer/64"},
		[]func(time.Duration) (float64, error){r.recordAnswer(watched, 64).slice, r.recordAnswer(alone, 64).slice})
	if err := errors.Join(err, stop()); err != nil {
		return err
	}
	res.Record64Watched, res.Record64Alone = ops[0], ops[1]
	res.WatchRatio = round(ratio(ops[0], ops[1]), 3)

	if err := r.liveCost(&res, 100, 250*time.Millisecond, r.dur); err != nil {
		return err
	}

	fmt.Fprintf(w, "feed latency, 1 reader        p50 %8.1f µs  p99 %8.1f µs  (%d samples)\n", res.FeedP50us1, res.FeedP99us1, res.FeedSamples1)
	fmt.Fprintf(w, "feed latency, 100 readers     p50 %8.1f µs  p99 %8.1f µs  (%d samples)\n", res.FeedP50us100, res.FeedP99us100, res.FeedSamples100)
	fmt.Fprintf(w, "record_answer_64, 100 readers %8.0f ops/s\n", res.Record64Watched)
	fmt.Fprintf(w, "record_answer_64, no reader   %8.0f ops/s  (ratio %.3f, target >= 0.8)\n", res.Record64Alone, res.WatchRatio)
	fmt.Fprintf(w, "Live, %d readers, every %d ms, %.1f s, %d answers: %d boards, %d ZRANGE (at most %d), %d XREVRANGE\n",
		res.LiveReaders, res.LiveEveryMs, res.LiveSeconds, res.LiveAnswers, res.LiveBoards, res.LiveBoardReads,
		res.LiveBoardReadsMax, res.LiveProbes)
	return writeJSON(w, res)
}

// feedLatency runs 64 writers for r.dur (after r.warm) while readers follow
// the quiz's feed, and returns the p50 and p99 in µs of the sampled answers'
// delay from RecordAnswer's reply to their event at each reader.
func (r *runner) feedLatency(readers int) (p50, p99 float64, samples int, err error) {
	id := "feed" + strconv.Itoa(readers)
	b, err := r.quiz(id, answerQuestions)
	if err != nil {
		return 0, 0, 0, err
	}
	var replied sync.Map // "<q>:<participant>" of sampled answers -> reply time
	var measuring atomic.Bool
	type arrival struct {
		key string
		at  time.Time
	}
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	arrivals := make([][]arrival, readers)
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev, err := range b.Events(ctx, "") {
				if err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					return
				}
				if measuring.Load() && sampled(ev.Participant, ev.Question) {
					arrivals[i] = append(arrivals[i], arrival{strconv.Itoa(ev.Question) + ":" + ev.Participant, time.Now()})
				}
			}
		}()
	}
	write := func(int, int) (int, error) {
		p, q := r.freshPair()
		if _, err := b.RecordAnswer(context.Background(), p, q); err != nil {
			return 0, err
		}
		if measuring.Load() && sampled(p, q) {
			replied.Store(strconv.Itoa(q)+":"+p, time.Now())
		}
		return 1, nil
	}
	r.logf("feed latency, %d reader(s): %v warm-up, then %v ...", readers, r.warm, r.dur)
	if _, err := timed(r.warm, 64, write); err != nil {
		return 0, 0, 0, err
	}
	measuring.Store(true)
	if _, err := timed(r.dur, 64, write); err != nil {
		return 0, 0, 0, err
	}
	time.Sleep(500 * time.Millisecond) // the readers catch up
	measuring.Store(false)
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		return 0, 0, 0, err
	}
	var ds []time.Duration
	for _, as := range arrivals {
		for _, a := range as {
			t, ok := replied.Load(a.key)
			if !ok {
				continue // counted during the warm-up or after the last measured reply
			}
			ds = append(ds, max(0, a.at.Sub(t.(time.Time)))) // an event may beat its own reply
		}
	}
	if len(ds) == 0 {
		return 0, 0, 0, errors.New("feed latency: no sample")
	}
	p50, p99 = micros(percentile(ds, 50)), micros(percentile(ds, 99))
	r.logf("feed latency, %d reader(s): p50 %.1f µs, p99 %.1f µs over %d samples", readers, p50, p99, len(ds))
	return p50, p99, len(ds), nil
}

// sampled picks about one fresh pair (freshPair) in sampleEvery, by participant
// and question.
func sampled(participant string, question int) bool {
	n, err := strconv.Atoi(participant[1:])
	return err == nil && (n*answerQuestions+question-1)%sampleEvery == 0
}

// follow starts readers Events readers of b's feed and returns the function
// that stops them and reports the first error one of them met.
func (r *runner) follow(b *kuis.Board, readers int) func() error {
	ctx, cancel := context.WithCancel(r.ctx)
	var wg sync.WaitGroup
	var failed atomic.Value
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, err := range b.Events(ctx, "") {
				if err != nil && ctx.Err() == nil {
					failed.Store(err)
				}
			}
		}()
	}
	return func() error {
		cancel()
		wg.Wait()
		if err, ok := failed.Load().(error); ok {
			return err
		}
		return nil
	}
}

// calls sums INFO commandstats' calls of each named command.
func (r *runner) calls(commands ...string) (map[string]int64, error) {
	text, err := r.client.Do(r.ctx, r.client.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		return nil, err
	}
	info := parseInfo(text)
	out := make(map[string]int64, len(commands))
	for _, c := range commands {
		out[c], _ = strconv.ParseInt(parseFields(info["cmdstat_"+c])["calls"], 10, 64)
	}
	return out, nil
}

// liveCost runs readers Live readers of one board for d at every while 64
// goroutines record answers, and counts the server's board reads and probes.
func (r *runner) liveCost(res *Live, readers int, every, d time.Duration) error {
	b, err := r.quiz("live", answerQuestions)
	if err != nil {
		return err
	}
	before, err := r.calls("zrange", "xrevrange")
	if err != nil {
		return err
	}
	r.logf("live: %d readers, every %v, %v of answers ...", readers, every, d)
	ctx, cancel := context.WithCancel(r.ctx)
	var wg sync.WaitGroup
	var boards atomic.Int64
	var failed atomic.Value
	start := time.Now()
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, err := range b.Live(ctx, 10, every) {
				if err != nil {
					if ctx.Err() == nil {
						failed.Store(err)
					}
					return
				}
				boards.Add(1)
			}
		}()
	}
	counted, err := timed(d, 64, r.recordAnswer(b, 64).fn)
	cancel()
	wg.Wait()
	elapsed := time.Since(start)
	if err != nil {
		return err
	}
	if e, ok := failed.Load().(error); ok {
		return e
	}
	after, err := r.calls("zrange", "xrevrange")
	if err != nil {
		return err
	}
	res.LiveReaders, res.LiveEveryMs = readers, every.Milliseconds()
	res.LiveSeconds = round(elapsed.Seconds(), 2)
	res.LiveAnswers = int64(counted * d.Seconds())
	res.LiveBoards = boards.Load()
	res.LiveBoardReads = after["zrange"] - before["zrange"]
	res.LiveProbes = after["xrevrange"] - before["xrevrange"]
	res.LiveBoardReadsMax = int64(readers) * (int64(math.Ceil(float64(elapsed)/float64(every))) + 1)
	res.LiveWithinOneReadPerTick = res.LiveBoardReads <= res.LiveBoardReadsMax
	return nil
}
