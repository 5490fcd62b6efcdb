package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/kuisboard/kuis"
	"github.com/redis/go-redis/v9"
)

// The go-redis baselines: what an application would write without the library.
// The client gets one pooled connection per goroutine (PoolSize 64), go-redis's
// best case for 64 callers, so the baselines are not weakened by pool waits.
// Like the library's workloads, they record fresh (participant, question)
// pairs, so every call writes.

// newGoredis connects go-redis v9 with default options but the pool size.
func newGoredis(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, PoolSize: 64})
}

// errNotRunning is the naive workload's refusal; the bench quiz always runs.
var errNotRunning = errors.New("quiz is not running")

// goredisNaive is the tutorial way: HGET the status, SADD the answered pair,
// and ZINCRBY only if the pair is new. Up to three round trips, and not
// atomic: a Finish between them is ignored, and a crash between SADD and
// ZINCRBY loses the points for good. It writes no answer log and no order
// set, which the library's script does too since revision 3 of the contract.
func (r *runner) goredisNaive(rdb *redis.Client, k kuis.Keys, workers int) workload {
	return workload{"goredis_naive", workers, func(int, int) (int, error) {
		ctx := context.Background()
		status, err := rdb.HGet(ctx, k.Meta(), "status").Result()
		if err != nil {
			return 1, err
		}
		if status != string(kuis.StatusRunning) {
			return 1, errNotRunning
		}
		p, q := r.freshPair()
		added, err := rdb.SAdd(ctx, k.Answers(), strconv.Itoa(q)+":"+p).Result()
		if err != nil || added == 0 {
			return 1, err
		}
		return 1, rdb.ZIncrBy(ctx, k.Board(), 10, p).Err()
	}, nil}
}

// recordScript is RecordAnswer's own Lua, byte for byte, for go-redis to run:
// the comparison is of clients and code paths, not of scripts.
var recordScript = redis.NewScript(recordSource)

// goredisRecord runs RecordAnswer's script once through go-redis (EVALSHA,
// EVAL on NOSCRIPT) for one answer and decodes its reply, {score}.
func goredisRecord(ctx context.Context, rdb *redis.Client, k kuis.Keys, participant string, question int) error {
	reply, err := recordScript.Run(ctx, rdb, recordKeys(k), "1", participant, strconv.Itoa(question)).Slice()
	if err != nil {
		return err
	}
	var score int64
	if len(reply) == 1 {
		score, _ = reply[0].(int64)
	}
	if score == 0 || score%10 != 0 {
		return fmt.Errorf("answer (%s, %d): reply %v, want {score}", participant, question, reply)
	}
	return nil
}

// goredisScript runs the same atomic script through go-redis with a fresh
// pair each call.
func (r *runner) goredisScript(rdb *redis.Client, k kuis.Keys, workers int) workload {
	return workload{"goredis_script", workers, func(int, int) (int, error) {
		p, q := r.freshPair()
		return 1, goredisRecord(context.Background(), rdb, k, p, q)
	}, nil}
}
