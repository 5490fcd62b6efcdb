package main

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// op is one unit of a throughput workload: worker is the goroutine's index and
// i counts that goroutine's calls from 0. It reports how many operations it did
// (1 for a single command, the batch size for a batch).
type op func(worker, i int) (int, error)

// timed runs fn from the given number of goroutines for dur and returns
// operations per second. The goroutines stop on a flag rather than on a
// cancelled context, so the calls themselves use context.Background() as a
// lone caller's code would, and the client's fast paths are not disturbed by
// the harness.
func timed(dur time.Duration, workers int, fn op) (float64, error) {
	var (
		stop  atomic.Bool
		total atomic.Int64
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int64
			for i := 0; !stop.Load(); i++ {
				k, err := fn(w, i)
				if err != nil {
					errMu.Lock()
					first = errors.Join(first, err)
					errMu.Unlock()
					stop.Store(true)
					break
				}
				n += int64(k)
			}
			total.Add(n)
		}()
	}
	time.Sleep(dur)
	stop.Store(true)
	wg.Wait()
	if first != nil {
		return 0, first
	}
	return float64(total.Load()) / time.Since(start).Seconds(), nil
}

// latencies calls fn from one goroutine, first for warm (discarded), then for
// dur, and returns every call's duration.
func latencies(warm, dur time.Duration, fn func(i int) error) ([]time.Duration, error) {
	var out []time.Duration
	for _, phase := range []time.Duration{warm, dur} {
		out = out[:0]
		end := time.Now().Add(phase)
		for i := 0; time.Now().Before(end); i++ {
			t0 := time.Now()
			if err := fn(i); err != nil {
				return nil, err
			}
			out = append(out, time.Since(t0))
		}
	}
	return out, nil
}

// percentile returns the p-th percentile (0 < p <= 100) of ds by the
// nearest-rank method, or 0 for no samples. ds is sorted in place.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	rank := int(math.Ceil(p/100*float64(len(ds)))) - 1
	return ds[min(max(rank, 0), len(ds)-1)]
}

// micros is d in microseconds, rounded to 0.1 µs.
func micros(d time.Duration) float64 {
	return float64(d.Round(100*time.Nanosecond)) / float64(time.Microsecond)
}

// rounds is how many slices interleaved measurements are cut into.
const rounds = 6

// interleaved measures several workloads whose ratios matter by turns, in
// rounds slices of dur/rounds each after one warm-up each, so that a change in
// the machine's load during the run hits them all alike. It returns each
// workload's mean ops/s.
func interleaved(warm, dur time.Duration, fns ...func(time.Duration) (float64, error)) ([]float64, error) {
	out := make([]float64, len(fns))
	for _, fn := range fns {
		if _, err := fn(warm); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	for range rounds {
		for i, fn := range fns {
			ops, err := fn(dur / rounds)
			if err != nil {
				return nil, err
			}
			out[i] += ops / rounds
		}
	}
	return out, nil
}
