package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// pingWhile runs work while a second client, on its own connection, PINGs
// every millisecond, and returns work's duration, the worst PING round trip
// and the number of PINGs.
func pingWhile(pinger rueidis.Client, work func() error) (took, worst time.Duration, pings int, err error) {
	var (
		stop atomic.Bool
		perr error
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for !stop.Load() {
			<-tick.C
			t0 := time.Now()
			if err := pinger.Do(context.Background(), pinger.B().Ping().Build()).Error(); err != nil {
				perr = err
				return
			}
			worst = max(worst, time.Since(t0))
			pings++
		}
	})
	start := time.Now()
	err = work()
	took = time.Since(start)
	stop.Store(true)
	wg.Wait()
	if err == nil {
		err = perr
	}
	return took, worst, pings, err
}

// repair measures Store.Repair on a quiz of cfg.bigMembers participants (one
// answer each, recorded through RecordAnswers), cfg.repairTampered of whose
// scores were raised by 5 behind the library's back: more than one repair
// script corrects, so Repair rebuilds the board. It prints Repair's time, the
// worst PING of another client meanwhile, and the slowest command the server
// logged (SLOWLOG, threshold 1 ms, restored afterwards).
func (r *runner) repair(w io.Writer, cfg config) error {
	id := "repair"
	meta, err := r.store.Meta(id)
	if err != nil {
		return err
	}
	board, err := r.store.Board(id)
	if err != nil {
		return err
	}
	if err := meta.Create(r.ctx, "Repair", 1); err != nil {
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
	cfgGet := r.client.Do(r.ctx, r.client.B().ConfigGet().Parameter("slowlog-log-slower-than").Build())
	old, err := cfgGet.AsStrMap()
	if err != nil {
		return err
	}
	for _, c := range []rueidis.Completed{
		r.client.B().ConfigSet().ParameterValue().ParameterValue("slowlog-log-slower-than", "1000").Build(),
		r.client.B().SlowlogReset().Build(),
	} {
		if err := r.client.Do(r.ctx, c).Error(); err != nil {
			return err
		}
	}
	defer r.client.Do(r.ctx, r.client.B().ConfigSet().ParameterValue().ParameterValue("slowlog-log-slower-than", old["slowlog-log-slower-than"]).Build())
	pinger, err := rueidis.NewClient(r.opt)
	if err != nil {
		return err
	}
	defer pinger.Close()
	var fixes []kuis.Correction
	r.logf("repairing ...")
	took, worst, pings, err := pingWhile(pinger, func() (err error) {
		fixes, err = r.store.Repair(r.ctx, id)
		return err
	})
	if err != nil {
		return err
	}
	if len(fixes) != cfg.repairTampered {
		return fmt.Errorf("repair made %d corrections, want %d", len(fixes), cfg.repairTampered)
	}
	slow, err := r.client.Do(r.ctx, r.client.B().SlowlogGet().Count(-1).Build()).ToArray()
	if err != nil {
		return err
	}
	var slowest int64
	for _, e := range slow {
		f, err := e.ToArray()
		if err != nil || len(f) < 3 {
			continue
		}
		if us, err := f[2].AsInt64(); err == nil {
			slowest = max(slowest, us)
		}
	}
	fmt.Fprintf(w, "repair_1m_s            %8.2f  s   Store.Repair of %d participants, %d tampered with (a rebuild)\n", took.Seconds(), cfg.bigMembers, cfg.repairTampered)
	fmt.Fprintf(w, "repair_max_ping_ms     %8.1f  ms  worst PING of another client meanwhile (%d PINGs)\n", micros(worst)/1000, pings)
	fmt.Fprintf(w, "repair_slowest_cmd_ms  %8.1f  ms  slowest command in SLOWLOG meanwhile (%d logged over 1 ms)\n", float64(slowest)/1000, len(slow))
	return nil
}
