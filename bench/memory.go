package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis"
)

// -memory measures what a counted answer costs the server in memory: one quiz
// of -mem-participants x -mem-questions answers recorded through
// RecordAnswers, then MEMORY USAGE of each of its keys.

// keyMemory is MEMORY USAGE ... SAMPLES 0 (every element counted) of each key of a quiz.
type keyMemory struct {
	meta, board, answers, log, order int64
}

// fillAnswers records participants x questions answers to quiz id through
// RecordAnswers, question by question, 1000 per batch from 4 goroutines, and
// returns the MEMORY USAGE of each of its keys.
func (r *runner) fillAnswers(id string, participants, questions int) (keyMemory, error) {
	board, err := r.quiz(id, questions)
	if err != nil {
		return keyMemory{}, err
	}
	total := participants * questions
	r.logf("recording %d answers (%d participants x %d questions) ...", total, participants, questions)
	start := time.Now()
	const perBatch = 1000
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, batchWorkers)
	for range batchWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := make([]kuis.AnswerInput, 0, perBatch)
			for {
				lo := int(next.Add(perBatch)) - perBatch
				if lo >= total {
					return
				}
				in = in[:0]
				for n := lo; n < min(lo+perBatch, total); n++ {
					in = append(in, kuis.AnswerInput{Participant: fmt.Sprintf("peserta-%05d", n%participants), Question: n/participants + 1})
				}
				out, err := board.RecordAnswers(context.Background(), in)
				for _, res := range out {
					if err == nil && (res.Err != nil || res.Duplicate) {
						err = fmt.Errorf("answer %+v: %+v, %w", in[0], res.Answer, res.Err)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return keyMemory{}, err
	}
	r.logf("recorded in %v", time.Since(start).Round(time.Millisecond))
	k, err := r.store.Keys(id)
	if err != nil {
		return keyMemory{}, err
	}
	var m keyMemory
	for _, f := range []struct {
		dst *int64
		key string
	}{{&m.meta, k.Meta()}, {&m.board, k.Board()}, {&m.answers, k.Answers()}, {&m.log, k.Log()}, {&m.order, k.Order()}} {
		if *f.dst, err = r.client.Do(r.ctx, r.client.B().MemoryUsage().Key(f.key).Samples(0).Build()).AsInt64(); err != nil {
			return m, fmt.Errorf("MEMORY USAGE %s: %w", f.key, err)
		}
	}
	return m, nil
}

// Memory is the -memory run's measurements, the shape of its JSON line:
// MEMORY USAGE of each key of the quiz, in bytes, and their sum per answer.
type Memory struct {
	Answers      int     `json:"answers"`
	Participants int     `json:"participants"`
	MetaB        int64   `json:"mem_meta_b"`
	BoardB       int64   `json:"mem_board_b"`
	AnswersB     int64   `json:"mem_answers_b"`
	LogB         int64   `json:"mem_log_b"`
	OrderB       int64   `json:"mem_order_b"`
	PerAnswerB   float64 `json:"mem_per_answer_b"`
}

// memory records the quiz, measures its keys and prints a table and a JSON line.
func (r *runner) memory(w io.Writer, participants, questions int) error {
	m, err := r.fillAnswers("memory", participants, questions)
	if err != nil {
		return err
	}
	res := Memory{Answers: participants * questions, Participants: participants,
		MetaB: m.meta, BoardB: m.board, AnswersB: m.answers, LogB: m.log, OrderB: m.order}
	res.PerAnswerB = round(float64(m.meta+m.board+m.answers+m.log+m.order)/float64(max(res.Answers, 1)), 1)
	fmt.Fprintf(w, "memory of one quiz: %d answers of %d participants (MEMORY USAGE ... SAMPLES 0)\n", res.Answers, participants)
	fmt.Fprintf(w, "%-8s %14s %12s\n", "key", "bytes", "per answer")
	fmt.Fprintln(w, strings.Repeat("-", 36))
	for _, k := range []struct {
		name string
		b    int64
	}{{"meta", res.MetaB}, {"board", res.BoardB}, {"answers", res.AnswersB}, {"log", res.LogB}, {"order", res.OrderB}} {
		fmt.Fprintf(w, "%-8s %14d %12s\n", k.name, k.b, format(float64(k.b)/float64(max(res.Answers, 1))))
	}
	fmt.Fprintf(w, "%-8s %14d %12s\n\n", "all", res.MetaB+res.BoardB+res.AnswersB+res.LogB+res.OrderB, format(res.PerAnswerB))
	return writeJSON(w, res)
}
