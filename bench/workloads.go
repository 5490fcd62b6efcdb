package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// members is the participant pool of the write workloads: 1,000 names, so the
// boards stay the size of a big school rather than growing without bound.
var members = func() []string {
	m := make([]string, 1000)
	for i := range m {
		m[i] = fmt.Sprintf("p%04d", i)
	}
	return m
}()

// member picks a participant for a worker's i-th call, spreading the workers
// over the pool.
func member(worker, i int) string { return members[(worker*7919+i)%len(members)] }

// runner holds what every workload needs: the server, the client the library
// uses, the run's namespace, Stores and timings, and where progress goes.
type runner struct {
	ctx      context.Context
	addr     string
	client   rueidis.Client
	opt      rueidis.ClientOption // the options client was made with
	ns       string
	store    *kuis.Store // the run's namespace, every read to the server
	cached   *kuis.Store // the same with WithClientCache
	byTime   *kuis.Store // the same with WithTies(TiesByTime)
	warm     time.Duration
	dur      time.Duration
	progress io.Writer
	rawKeys  []string     // keys written outside the library, deleted at the end
	pairs    atomic.Int64 // the last fresh answer handed out by freshPair
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.progress, format+"\n", args...)
}

// rawKey names a key of the run's namespace written without the library.
func (r *runner) rawKey(name string) string {
	k := r.ns + ":raw:" + name
	r.rawKeys = append(r.rawKeys, k)
	return k
}

// answerQuestions is jumlah_soal of the quizzes the record workloads write to.
const answerQuestions = 1000

// quiz creates a running quiz and returns its board handle.
func (r *runner) quiz(id string, questions int) (*kuis.Board, error) {
	m, err := r.store.Meta(id)
	if err != nil {
		return nil, err
	}
	if err := m.Create(r.ctx, "bench "+id, questions); err != nil {
		return nil, err
	}
	return r.store.Board(id)
}

// freshPair hands out a (participant, question) pair never handed out before
// in this run, so that every record workload, whatever its client, takes the
// writing path and never answers Duplicate. As in a class, consecutive pairs
// are different participants: each of 1,000 answers a question in turn, then
// all answer the next one; after 1,000 questions, 1,000 new participants
// start. So the concurrent calls a run coalesces are, as in a class, answers
// of different participants, and the board, like raw_zincrby's, holds 1,000
// members per million answers.
func (r *runner) freshPair() (participant string, question int) {
	n := r.pairs.Add(1) - 1
	class, seat := n/(classSize*answerQuestions), n%classSize
	return "a" + strconv.FormatInt(class*classSize+seat, 10), int(n/classSize%answerQuestions) + 1
}

// classSize is how many participants freshPair's pairs go round.
const classSize = 1000

// workload is one throughput measurement: a name, a concurrency, a body, and
// optionally lat, where every call's duration is kept.
type workload struct {
	name    string
	workers int
	fn      op
	lat     *callTimes
}

// callTimes pools the durations of a workload's calls over its slices; each
// goroutine appends to its own slice, so timing a call costs two clock reads.
type callTimes struct {
	per [][]time.Duration
}

// timedCalls returns w with every call's duration kept.
func (w workload) timedCalls() workload {
	w.lat = &callTimes{per: make([][]time.Duration, w.workers)}
	fn := w.fn
	w.fn = func(worker, i int) (int, error) {
		t0 := time.Now()
		n, err := fn(worker, i)
		w.lat.per[worker] = append(w.lat.per[worker], time.Since(t0))
		return n, err
	}
	return w
}

// percentileUs is the p-th percentile of the kept durations, in µs, and
// forgets them.
func (c *callTimes) percentileUs(p float64) float64 {
	var all []time.Duration
	for i, ds := range c.per {
		all = append(all, ds...)
		c.per[i] = nil
	}
	return micros(percentile(all, p))
}

// slice runs w for d and returns its ops/s.
func (w workload) slice(d time.Duration) (float64, error) {
	ops, err := timed(d, w.workers, w.fn)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", w.name, err)
	}
	return ops, nil
}

// compare measures workloads whose ratio is a target by turns (interleaved),
// so that drift in the machine's load cancels out of the ratio.
func (r *runner) compare(ws ...workload) ([]float64, error) {
	var names []string
	fns := make([]func(time.Duration) (float64, error), len(ws))
	for i, w := range ws {
		names = append(names, fmt.Sprintf("%s/%d", w.name, w.workers))
		fns[i] = w.slice
	}
	return r.compareFns(names, fns)
}

// compareFns is compare for measurements that are not workloads (redis-benchmark).
func (r *runner) compareFns(names []string, fns []func(time.Duration) (float64, error)) ([]float64, error) {
	if len(fns) == 1 {
		r.logf("%s: %v warm-up, then %v in %d slices ...", names[0], r.warm, r.dur, rounds)
	} else {
		r.logf("%v: %v warm-up each, then %d interleaved rounds, %v each in all ...", names, r.warm, rounds, r.dur)
	}
	ops, err := interleaved(r.warm, r.dur, fns...)
	if err != nil {
		return nil, err
	}
	for i := range ops {
		ops[i] = round(ops[i], 0)
		r.logf("%-22s %.0f ops/s", names[i], ops[i])
	}
	return ops, nil
}

// rawZincrby is the floor under the library: bare rueidis ZINCRBY, no gate.
func (r *runner) rawZincrby(client rueidis.Client, workers int) workload {
	key := r.rawKey("zincrby")
	return workload{"raw_zincrby", workers, func(w, i int) (int, error) {
		return 1, client.Do(context.Background(), client.B().Zincrby().Key(key).Increment(10).Member(member(w, i)).Build()).Error()
	}, nil}
}

// recordAnswer is Board.RecordAnswer with a fresh (participant, question)
// pair each call, so every call writes: the exactly-once path at full cost.
func (r *runner) recordAnswer(b *kuis.Board, workers int) workload {
	return workload{"record_answer", workers, func(int, int) (int, error) {
		p, q := r.freshPair()
		a, err := b.RecordAnswer(context.Background(), p, q)
		if err == nil && a.Duplicate {
			err = fmt.Errorf("answer (%s, %d) counted as a duplicate", p, q)
		}
		return 1, err
	}, nil}
}

// recordAnswerQuizzes is recordAnswer spread over several quizzes: goroutine
// w answers to boards[w % len(boards)].
func (r *runner) recordAnswerQuizzes(boards []*kuis.Board, workers int) workload {
	return workload{"record_answer_quizzes", workers, func(w, _ int) (int, error) {
		p, q := r.freshPair()
		a, err := boards[w%len(boards)].RecordAnswer(context.Background(), p, q)
		if err == nil && a.Duplicate {
			err = fmt.Errorf("answer (%s, %d) counted as a duplicate", p, q)
		}
		return 1, err
	}, nil}
}

// recordAnswerClasses is a school: each call answers to a quiz drawn at
// random among boards, a new pair of that quiz's class of classSeats
// participants.
func (r *runner) recordAnswerClasses(boards []*kuis.Board, workers int) workload {
	next := make([]atomic.Int64, len(boards))
	return workload{"record_answer_classes", workers, func(int, int) (int, error) {
		i := rand.IntN(len(boards))
		n := next[i].Add(1) - 1
		p, q := "c"+strconv.FormatInt(n%classSeats, 10), int(n/classSeats)+1
		a, err := boards[i].RecordAnswer(context.Background(), p, q)
		if err == nil && a.Duplicate {
			err = fmt.Errorf("answer (%s, %d) counted as a duplicate", p, q)
		}
		return 1, err
	}, nil}
}

// The school of record_answer_classes: classes of classSeats participants,
// each class a quiz of its own.
const (
	schoolClasses = 300
	classSeats    = 30
)

// batchSize is the RecordAnswers batch of record_batch.
const batchSize = 1000

// recordBatch is Board.RecordAnswers in batches of 1000 fresh answers (50
// participants x 20 questions each), from workers goroutines; it counts answers.
func (r *runner) recordBatch(b *kuis.Board, workers int) workload {
	var seq atomic.Int64 // across warm-up and measurement: no pair repeats
	return workload{"record_batch", workers, func(int, int) (int, error) {
		n := strconv.FormatInt(seq.Add(1), 10)
		in := make([]kuis.AnswerInput, batchSize)
		for j := range in {
			in[j] = kuis.AnswerInput{Participant: "b" + n + "-" + strconv.Itoa(j%50), Question: j/50 + 1}
		}
		out, err := b.RecordAnswers(context.Background(), in)
		if err == nil && out[batchSize-1].Duplicate {
			err = fmt.Errorf("batch %s counted as a duplicate", n)
		}
		return batchSize, err
	}, nil}
}

// standings reads a whole board with Board.Standings.
func (r *runner) standings(name string, b *kuis.Board, workers, want int) workload {
	return workload{name, workers, func(w, i int) (int, error) {
		s, err := b.Standings(context.Background())
		if err == nil && len(s) != want {
			err = fmt.Errorf("standings have %d lines, want %d", len(s), want)
		}
		return 1, err
	}, nil}
}

// fillBoard records one correct answer for each of n participants, in one
// RecordAnswers batch.
func fillBoard(ctx context.Context, b *kuis.Board, n int) error {
	in := make([]kuis.AnswerInput, n)
	for i := range in {
		in[i] = kuis.AnswerInput{Participant: members[i], Question: 1}
	}
	_, err := b.RecordAnswers(ctx, in)
	return err
}
