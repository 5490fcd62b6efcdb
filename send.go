package kuis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Every command of the library goes through send, sendReads or runScript:
// the one place that decides what may be sent again.
//
// rueidis shares the dial and handshake of a new connection among the callers
// waiting for it, under the first caller's context. When that context ends
// first, every other caller gets its error ("dial tcp: i/o timeout",
// context.DeadlineExceeded or context.Canceled) while its own context lives,
// and nothing of theirs was sent: on a connection that failed, rueidis writes
// nothing more. A context error the caller's own context did not cause, a
// failed dial, and a cached read aborted with its connection
// (rueidis.ErrDoCacheAborted) therefore mean "not sent", and such a command
// is sent again, at most sendTries times in all, while the caller's context
// lives. Any other failure may have reached the server and is returned as it
// is. rueidis does not recycle a command that failed that way, so it can be
// sent again as it is; a cached read is recycled when aborted, so sendReads
// pins it.

// sendTries bounds how often one command is sent.
const sendTries = 3

// send sends cmds on c in one round trip and returns their results in order.
func send(ctx context.Context, c rueidis.CommandClient, cmds ...rueidis.Completed) []rueidis.RedisResult {
	do := func(cmds []rueidis.Completed) []rueidis.RedisResult {
		if len(cmds) == 1 {
			return []rueidis.RedisResult{c.Do(ctx, cmds[0])}
		}
		return c.DoMulti(ctx, cmds...)
	}
	return resend(ctx, cmds, do)
}

// sendOne is send of one command.
func sendOne(ctx context.Context, c rueidis.CommandClient, cmd rueidis.Completed) rueidis.RedisResult {
	return send(ctx, c, cmd)[0]
}

// sendReads sends reads on the Store's client in one round trip, through the
// client-side cache with WithClientCache.
func (s *Store) sendReads(ctx context.Context, cmds ...rueidis.Cacheable) []rueidis.RedisResult {
	if s.opts.cacheTTL <= 0 {
		plain := make([]rueidis.Completed, len(cmds))
		for i, c := range cmds {
			plain[i] = rueidis.Completed(c)
		}
		return send(ctx, s.client, plain...)
	}
	cached := make([]rueidis.CacheableTTL, len(cmds))
	for i, c := range cmds {
		cached[i] = rueidis.CT(c.Pin(), s.opts.cacheTTL)
	}
	return resend(ctx, cached, func(cmds []rueidis.CacheableTTL) []rueidis.RedisResult {
		return s.client.DoMultiCache(ctx, cmds...)
	})
}

// resend sends cmds with do, then sends again those that failed unsent,
// while ctx lives and at most sendTries times in all. One that failed unsent
// as ctx ended answers ctx's error.
func resend[C any](ctx context.Context, cmds []C, do func([]C) []rueidis.RedisResult) []rueidis.RedisResult {
	res := do(cmds)
	for try := 1; try < sendTries; try++ {
		again := unsentOf(ctx, res)
		if len(again) == 0 {
			break
		}
		retry := make([]C, len(again))
		for j, i := range again {
			retry[j] = cmds[i]
		}
		for j, r := range do(retry) {
			res[again[j]] = r
		}
	}
	if ended(ctx) {
		for i, r := range res {
			if err := r.Error(); err != nil && unsent(err) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				res[i] = rueidis.NewErrorResult(fmt.Errorf("%w (%w)", err, cmp.Or(ctx.Err(), context.DeadlineExceeded)))
			}
		}
	}
	return res
}

// unsentOf lists the results that failed before their command reached the
// server, for a reason that is not the caller's.
func unsentOf(ctx context.Context, res []rueidis.RedisResult) []int {
	var out []int
	for i, r := range res {
		if err := r.Error(); err != nil && unsent(err) {
			out = append(out, i)
		}
	}
	if out != nil && ended(ctx) {
		return nil
	}
	return out
}

func unsent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" || errors.Is(err, rueidis.ErrDoCacheAborted) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// ended reports whether ctx has ended, or is past its deadline: the network
// poller may fire a connection's deadline a moment before ctx's own timer.
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// runScript runs sc once per exec, all pipelined in one round trip, on the
// Store's client, and returns their results in order. It sends EVALSHA, and
// EVAL for the runs the server answered NOSCRIPT (its script cache was
// flushed or restarted); a run answered TRYAGAIN (a Redis Cluster moving the
// quiz's slot: the script did not run) is sent again after a short pause,
// growing to 100 ms, for at most about a second while ctx lives. Runs sent
// again run after the others.
//
// With WithReplicas, the runs of a script that writes are followed by WAIT
// on the connection that sent them (runWaited), and a run that too few
// replicas acknowledged answers a *notReplicated error holding its result.
func runScript(ctx context.Context, s *Store, sc script.Script, execs ...rueidis.LuaExec) []rueidis.RedisResult {
	return runScriptWrote(ctx, s, sc, nil, execs...)
}

// runScriptWrote is runScript of a script whose successful reply tells
// whether its run wrote: wrote reports it from the reply (nil: every run
// that succeeded wrote). With WithReplicas, a run that wrote nothing is
// returned as it is, never as ErrNotReplicated, and WAIT follows a round trip
// only when one of its runs wrote: there is nothing of a run that wrote
// nothing for replicas to acknowledge. A run that wrote nothing but answers
// for an earlier write (a repeat answer) must make that write its own to be
// waited for: record_answer.lua writes a no-op then, and says it wrote.
func runScriptWrote(ctx context.Context, s *Store, sc script.Script, wrote func(rueidis.RedisMessage) bool, execs ...rueidis.LuaExec) []rueidis.RedisResult {
	if s.opts.replicas == 0 || sc.ReadOnly() {
		return evalScript(ctx, s.client, sc, execs)
	}
	return s.runWaited(ctx, sc, wrote, execs)
}

// run is runScript of one exec.
func run(ctx context.Context, s *Store, sc script.Script, keys, args []string) rueidis.RedisResult {
	return runScript(ctx, s, sc, rueidis.LuaExec{Keys: keys, Args: args})[0]
}

// evalScript is runScript's sending on c, without WAIT.
func evalScript(ctx context.Context, c rueidis.CommandClient, s script.Script, execs []rueidis.LuaExec) []rueidis.RedisResult {
	res := make([]rueidis.RedisResult, len(execs))
	bySource := make([]bool, len(execs))
	todo := make([]int, len(execs))
	for i := range todo {
		todo[i] = i
	}
	pause := time.Millisecond
	for waited := time.Duration(0); ; {
		cmds := make([]rueidis.Completed, len(todo))
		for j, i := range todo {
			if bySource[i] {
				cmds[j] = s.BySource(c.B(), execs[i].Keys, execs[i].Args)
			} else {
				cmds[j] = s.BySHA(c.B(), execs[i].Keys, execs[i].Args)
			}
		}
		var next []int
		tryAgain := false
		for j, r := range send(ctx, c, cmds...) {
			i := todo[j]
			res[i] = r
			re, ok := rueidis.IsRedisErr(r.Error())
			switch {
			case !ok:
			case re.IsNoScript() && !bySource[i]:
				bySource[i] = true
				next = append(next, i)
			case re.IsTryAgain() && waited < time.Second:
				tryAgain = true
				next = append(next, i)
			}
		}
		if len(next) == 0 {
			return res
		}
		if tryAgain {
			if !sleep(ctx, pause) {
				return res
			}
			waited += pause
			pause = min(2*pause, 100*time.Millisecond)
		}
		todo = next
	}
}

// sleep pauses for d, or until ctx ends: then it reports false.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
