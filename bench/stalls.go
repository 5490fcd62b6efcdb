package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// stalls measures the whole-quiz operations on a quiz of cfg.bigMembers
// participants (one answer each, recorded through RecordAnswers): Repair of
// cfg.repairTampered scores raised by 5 behind the library's back (more than
// one repair script corrects, so Repair rebuilds the board), then, once the
// quiz is finished, Audit, Recap and PurgeQuiz. For each it prints the time,
// the worst PING of another client meanwhile, and the slowest command the
// server logged (SLOWLOG, threshold 1 ms, restored afterwards).
func (r *runner) stalls(w io.Writer, cfg config) error {
	id := "stalls"
	meta, err := r.store.Meta(id)
	if err != nil {
		return err
	}
	board, err := r.store.Board(id)
	if err != nil {
		return err
	}
	if err := meta.Create(r.ctx, "Stalls", 1); err != nil {
		return err
	}
	r.logf("recording %d answers ...", cfg.bigMembers)
	const batch = 1000
	for start := 0; start < cfg.bigMembers; start += batch {
		in := make([]kuis.AnswerInput, 0, batch)
		for i := start; i < min(start+batch, cfg.bigMembers); i++ {
			in = append(in, kuis.AnswerInput{Participant: "p" + strconv.Itoa(i), Question: 1})
		}
		if _, err := board.RecordAnswers(r.ctx, in); err != nil {
			return err
		}
	}
	keys, err := r.store.Keys(id)
	if err != nil {
		return err
	}
	r.logf("tampering with %d scores ...", cfg.repairTampered)
	cmds := make(rueidis.Commands, 0, cfg.repairTampered)
	for i := range cfg.repairTampered {
		cmds = append(cmds, r.client.B().Zincrby().Key(keys.Board()).Increment(5).Member("p"+strconv.Itoa(i*(cfg.bigMembers/cfg.repairTampered))).Build())
	}
	for _, res := range r.client.DoMulti(r.ctx, cmds...) {
		if err := res.Error(); err != nil {
			return err
		}
	}
	old, err := r.client.Do(r.ctx, r.client.B().ConfigGet().Parameter("slowlog-log-slower-than").Build()).AsStrMap()
	if err != nil {
		return err
	}
	if err := r.client.Do(r.ctx, r.client.B().ConfigSet().ParameterValue().ParameterValue("slowlog-log-slower-than", "1000").Build()).Error(); err != nil {
		return err
	}
	defer r.client.Do(r.ctx, r.client.B().ConfigSet().ParameterValue().ParameterValue("slowlog-log-slower-than", old["slowlog-log-slower-than"]).Build())
	ops := []struct {
		name, what string
		run        func() error
	}{
		{"repair", "Store.Repair, %d scores tampered with (a rebuild)", func() error {
			fixes, err := r.store.Repair(r.ctx, id)
			if err == nil && len(fixes) != cfg.repairTampered {
				err = fmt.Errorf("repair made %d corrections, want %d", len(fixes), cfg.repairTampered)
			}
			return err
		}},
		{"audit", "Store.Audit of the running quiz", func() error {
			v, err := r.store.Audit(r.ctx, id)
			if err == nil && len(v) != 0 {
				err = fmt.Errorf("audit after repair: %d violations, first %v", len(v), v[0])
			}
			if err == nil {
				err = meta.Finish(r.ctx)
			}
			return err
		}},
		{"recap", "Store.Recap of the finished quiz", func() error {
			rc, err := r.store.Recap(r.ctx, id)
			if err == nil && len(rc.Standings) != cfg.bigMembers {
				err = fmt.Errorf("recap of %d standings, want %d", len(rc.Standings), cfg.bigMembers)
			}
			return err
		}},
		{"purge_quiz", "Store.PurgeQuiz (its recap included)", func() error {
			_, err := r.store.PurgeQuiz(r.ctx, id, func(context.Context, kuis.Recap) error { return nil })
			return err
		}},
	}
	for _, op := range ops {
		if err := r.client.Do(r.ctx, r.client.B().SlowlogReset().Build()).Error(); err != nil {
			return err
		}
		r.logf("%s ...", op.name)
		took, worst, pings, err := pingWhile(r.addr, op.run)
		if err != nil {
			return fmt.Errorf("%s: %w", op.name, err)
		}
		slowest, logged, err := r.slowest()
		if err != nil {
			return err
		}
		what := op.what
		if op.name == "repair" {
			what = fmt.Sprintf(what, cfg.repairTampered)
		}
		fmt.Fprintf(w, "%-12s %7.2f s  worst PING %6.1f ms (%d PINGs)  slowest command %5.1f ms (%d over 1 ms)  %s of %d participants\n",
			op.name, took.Seconds(), micros(worst)/1000, pings, float64(slowest)/1000, logged, what, cfg.bigMembers)
	}
	return nil
}

// slowest returns the longest duration in SLOWLOG, in µs, and its length.
func (r *runner) slowest() (int64, int, error) {
	slow, err := r.client.Do(r.ctx, r.client.B().SlowlogGet().Count(-1).Build()).ToArray()
	if err != nil {
		return 0, 0, err
	}
	var most int64
	for _, e := range slow {
		if f, err := e.ToArray(); err == nil && len(f) >= 3 {
			if us, err := f[2].AsInt64(); err == nil {
				most = max(most, us)
			}
		}
	}
	return most, len(slow), nil
}
