package main

import (
	"context"
	"errors"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/go-redis/v9"
)

// The go-redis baselines: what an application would write without the library.
// The client gets one pooled connection per goroutine (PoolSize 64), go-redis's
// best case for 64 callers, so the baselines are not weakened by pool waits.

// newGoredis connects go-redis v9 with default options but the pool size.
func newGoredis(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, PoolSize: 64})
}

// errNotRunning is the naive workload's refusal; the bench quiz always runs.
var errNotRunning = errors.New("quiz is not running")

// goredisNaive is the tutorial way: HGET the status, then ZINCRBY if the quiz
// runs. Two round trips, and not atomic: a Finish between them is ignored.
func (r *runner) goredisNaive(rdb *redis.Client, k kuis.Keys, workers int) workload {
	return workload{"goredis_naive", workers, func(w, i int) (int, error) {
		ctx := context.Background()
		status, err := rdb.HGet(ctx, k.Meta(), "status").Result()
		if err != nil {
			return 1, err
		}
		if status != string(kuis.StatusRunning) {
			return 1, errNotRunning
		}
		return 1, rdb.ZIncrBy(ctx, k.Board(), 10, member(w, i)).Err()
	}}
}

// recordScript is the library's own record script (gate + ZINCRBY), byte for
// byte, for go-redis to run: the comparison is of clients and code paths, not
// of scripts.
var recordScript = redis.NewScript(script.RecordSource)

// goredisScript runs the same atomic gate through go-redis (EVALSHA, EVAL on
// NOSCRIPT) and decodes the new score as the library does.
func (r *runner) goredisScript(rdb *redis.Client, k kuis.Keys, workers int) workload {
	keys := []string{k.Meta(), k.Board()}
	return workload{"goredis_script", workers, func(w, i int) (int, error) {
		_, err := recordScript.Run(context.Background(), rdb, keys, member(w, i)).Float64()
		return 1, err
	}}
}
