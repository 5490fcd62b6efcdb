package main

import (
	"fmt"
	"io"
	"time"

	"github.com/kuisboard/kuis"
)

// -replicas measures what WithReplicas(1, ...) costs the writes: RecordAnswer
// from 64 goroutines and from 1, and RecordAnswers in batches, each with and
// without it, interleaved, on a primary at -addr that has a replica (started
// by the user, like every server bench measures; New refuses a primary
// without one).

// Replicas is -replicas' result, the last line of its output.
type Replicas struct {
	Record64, Record64Waited float64 // record_answer_64, ops/s, without and with WithReplicas
	Record64Ratio            float64 // Waited / without
	RunSize64, RunSize64Wait float64 // mean answers per record run in those
	Record1, Record1Waited   float64 // record_answer_1, ops/s
	Record1Ratio             float64
	Batch, BatchWaited       float64 // record_batch, answers/s
	BatchRatio               float64
}

// replicaWait is the timeout of -replicas' WAITs: long enough that every
// write is acknowledged, so that the figures are those of a healthy replica.
const replicaWait = 5 * time.Second

func (r *runner) replicas(w io.Writer) error {
	waited, err := kuis.New(r.client, kuis.WithNamespace(r.ns), kuis.WithReplicas(1, replicaWait))
	if err != nil {
		return fmt.Errorf("-replicas needs a primary with a replica at %s: %w", r.addr, err)
	}
	plain, err := r.quiz("replicas-plain", answerQuestions)
	if err != nil {
		return err
	}
	if _, err := r.quiz("replicas-waited", answerQuestions); err != nil {
		return err
	}
	wb, err := waited.Board("replicas-waited")
	if err != nil {
		return err
	}
	var res Replicas
	runSize := func(s *kuis.Store, before kuis.Stats) float64 {
		st := s.Stats()
		return round(ratio(float64(st.RunAnswers-before.RunAnswers), float64(st.Runs-before.Runs)), 1)
	}
	plainBefore, waitedBefore := r.store.Stats(), waited.Stats()
	ops, err := r.compare(r.recordAnswer(plain, 64), named(r.recordAnswer(wb, 64), "record_answer_waited"))
	if err != nil {
		return err
	}
	res.Record64, res.Record64Waited = ops[0], ops[1]
	res.RunSize64, res.RunSize64Wait = runSize(r.store, plainBefore), runSize(waited, waitedBefore)
	if ops, err = r.compare(r.recordAnswer(plain, 1), named(r.recordAnswer(wb, 1), "record_answer_waited")); err != nil {
		return err
	}
	res.Record1, res.Record1Waited = ops[0], ops[1]
	if ops, err = r.compare(r.recordBatch(plain, batchWorkers), named(r.recordBatch(wb, batchWorkers), "record_batch_waited")); err != nil {
		return err
	}
	res.Batch, res.BatchWaited = ops[0], ops[1]
	res.Record64Ratio = round(ratio(res.Record64Waited, res.Record64), 3)
	res.Record1Ratio = round(ratio(res.Record1Waited, res.Record1), 3)
	res.BatchRatio = round(ratio(res.BatchWaited, res.Batch), 3)

	fmt.Fprintf(w, "WithReplicas(1, %v) against %s\n", replicaWait, r.addr)
	fmt.Fprintf(w, "record_answer_64  %8.0f ops/s, with %8.0f (ratio %.3f); answers per run %.1f, with %.1f\n",
		res.Record64, res.Record64Waited, res.Record64Ratio, res.RunSize64, res.RunSize64Wait)
	fmt.Fprintf(w, "record_answer_1   %8.0f ops/s, with %8.0f (ratio %.3f)\n", res.Record1, res.Record1Waited, res.Record1Ratio)
	fmt.Fprintf(w, "record_batch      %8.0f answers/s, with %8.0f (ratio %.3f)\n", res.Batch, res.BatchWaited, res.BatchRatio)
	return writeJSON(w, res)
}

// named is w under another name, for the progress lines.
func named(w workload, name string) workload {
	w.name = name
	return w
}
