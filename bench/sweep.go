package main

import (
	"fmt"
	"io"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// sweep compares rueidis client options for RecordAnswer beside go-redis,
// from 64 goroutines and then from 1 on the same clients (a lone caller on a
// client that has served concurrent ones, as in any server), interleaved:
// the evidence behind clientOption and the README's recommendation.
func (r *runner) sweep(w io.Writer) error {
	type variant struct {
		name       string
		set        func(*rueidis.ClientOption)
		fn         op
		ops64, op1 float64
	}
	vs := []*variant{
		{name: "default (auto-pipelining)", set: func(*rueidis.ClientOption) {}},
		{name: "DisableAutoPipelining", set: func(o *rueidis.ClientOption) { o.DisableAutoPipelining = true }},
		{name: "AlwaysPipelining", set: func(o *rueidis.ClientOption) { o.AlwaysPipelining = true }},
		{name: "PipelineMultiplex -1 (1 conn)", set: func(o *rueidis.ClientOption) { o.PipelineMultiplex = -1 }},
		{name: "MaxFlushDelay 20µs", set: func(o *rueidis.ClientOption) { o.MaxFlushDelay = 20 * time.Microsecond }},
		{name: "go-redis v9, same script"},
	}
	if _, err := r.quiz("sweep", answerQuestions); err != nil {
		return err
	}
	keys, err := r.store.Keys("sweep")
	if err != nil {
		return err
	}
	// The clients live until the sweep ends: close them all then.
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for _, v := range vs {
		if v.set == nil {
			rdb := newGoredis(r.addr)
			closers = append(closers, func() { rdb.Close() })
			v.fn = r.goredisScript(rdb, keys, 0).fn
			continue
		}
		opt := r.opt
		v.set(&opt)
		c, err := rueidis.NewClient(opt)
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		closers = append(closers, c.Close)
		store, err := kuis.New(c, kuis.WithNamespace(r.ns))
		if err != nil {
			return err
		}
		b, err := store.Board("sweep")
		if err != nil {
			return err
		}
		v.fn = r.recordAnswer(b, 0).fn
	}
	var w64, w1 []workload
	for _, v := range vs {
		w64 = append(w64, workload{v.name, 64, v.fn, nil})
		w1 = append(w1, workload{v.name, 1, v.fn, nil})
	}
	ops64, err := r.compare(w64...)
	if err != nil {
		return err
	}
	op1, err := r.compare(w1...)
	if err != nil {
		return err
	}
	for i, v := range vs {
		v.ops64, v.op1 = ops64[i], op1[i]
	}
	g := vs[len(vs)-1]
	fmt.Fprintf(w, "%-32s %14s %14s %10s %10s\n", "RecordAnswer via", "64 goroutines", "1 goroutine", "64 / g-r", "1 / g-r")
	for _, v := range vs {
		fmt.Fprintf(w, "%-32s %14.0f %14.0f %10.2f %10.2f\n", v.name, v.ops64, v.op1, v.ops64/g.ops64, v.op1/g.op1)
	}
	return nil
}
