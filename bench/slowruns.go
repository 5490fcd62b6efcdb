package main

import (
	"errors"
	"strconv"
)

// slowRuns has the server log every command slower than floorUs from now on
// (SLOWLOG cleared, room for 100,000 entries) and returns a function that
// returns the longest run of the record script logged since, in µs (0 when
// none took floorUs), how many runs took over a millisecond, and restores
// both settings. SLOWLOG times a command's wall time, so a run the kernel
// preempted counts its wait too.
func (r *runner) slowRuns(floorUs int) (func() (float64, int, error), error) {
	old, err := r.client.Do(r.ctx, r.client.B().ConfigGet().Parameter("slowlog-*").Build()).AsStrMap()
	if err != nil {
		return nil, err
	}
	set := func(name, value string) error {
		return r.client.Do(r.ctx, r.client.B().ConfigSet().ParameterValue().ParameterValue(name, value).Build()).Error()
	}
	if err := set("slowlog-max-len", "100000"); err != nil {
		return nil, err
	}
	if err := set("slowlog-log-slower-than", strconv.Itoa(floorUs)); err != nil {
		return nil, err
	}
	if err := r.client.Do(r.ctx, r.client.B().SlowlogReset().Build()).Error(); err != nil {
		return nil, err
	}
	return func() (float64, int, error) {
		slow, err := r.client.Do(r.ctx, r.client.B().SlowlogGet().Count(-1).Build()).ToArray()
		err = errors.Join(err, set("slowlog-log-slower-than", old["slowlog-log-slower-than"]),
			set("slowlog-max-len", old["slowlog-max-len"]))
		if err != nil {
			return 0, 0, err
		}
		var most int64
		over := 0
		for _, e := range slow {
			f, err := e.ToArray()
			if err != nil || len(f) < 4 {
				continue
			}
			args, err := f[3].AsStrSlice()
			if err != nil || len(args) < 2 || args[0] != "EVALSHA" || args[1] != recordSHA {
				continue
			}
			if us, err := f[2].AsInt64(); err == nil {
				most = max(most, us)
				if us > 1000 {
					over++
				}
			}
		}
		return float64(most), over, nil
	}, nil
}
