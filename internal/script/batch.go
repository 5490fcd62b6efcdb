package script

import (
	"context"
	"crypto/sha1"
	"encoding/hex"

	"github.com/redis/rueidis"
)

// Batch runs one write script once (Do) or many times in a single pipelined
// round trip (Exec; RecordAnswers: one run per chunk of up to MaxAnswers
// answers).
//
// rueidis' Lua.ExecMulti sends SCRIPT LOAD to every node before each batch
// (one more round trip, and a keyless command that ACL users must be granted)
// and does not fall back to EVAL on NOSCRIPT. Batch sends EVALSHA for every
// execution and resends only those answered NOSCRIPT, which did not run, as
// EVAL: one round trip while the server's script cache holds the script.
// Runs resent run after the others: callers that need an order across runs
// must not depend on it (RecordAnswers sends each pair once).
type Batch struct {
	src, sha string
}

func newBatch(src string) Batch {
	sum := sha1.Sum([]byte(src))
	return Batch{src: src, sha: hex.EncodeToString(sum[:])}
}

// RecordAnswer adds 10 points once per (question, participant) while the
// quiz runs, for each of up to MaxAnswers answers.
var RecordAnswer = newBatch(gate + recordAnswer)

// Exec runs the script once per execution and returns the replies in order.
func (b Batch) Exec(ctx context.Context, c rueidis.Client, execs []rueidis.LuaExec) []rueidis.RedisResult {
	cmds := make(rueidis.Commands, len(execs))
	for i, e := range execs {
		cmds[i] = c.B().Evalsha().Sha1(b.sha).Numkeys(int64(len(e.Keys))).Key(e.Keys...).Arg(e.Args...).Build()
	}
	res := c.DoMulti(ctx, cmds...)
	var missing []int
	for i, r := range res {
		if re, ok := rueidis.IsRedisErr(r.Error()); ok && re.IsNoScript() {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return res
	}
	retry := make(rueidis.Commands, len(missing))
	for j, i := range missing {
		e := execs[i]
		retry[j] = c.B().Eval().Script(b.src).Numkeys(int64(len(e.Keys))).Key(e.Keys...).Arg(e.Args...).Build()
	}
	for j, r := range c.DoMulti(ctx, retry...) {
		res[missing[j]] = r
	}
	return res
}

// Do runs the script once: EVALSHA, and EVAL if the server answers NOSCRIPT.
func (b Batch) Do(ctx context.Context, c rueidis.CommandClient, keys, args []string) rueidis.RedisResult {
	res := c.Do(ctx, c.B().Evalsha().Sha1(b.sha).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build())
	if re, ok := rueidis.IsRedisErr(res.Error()); ok && re.IsNoScript() {
		res = c.Do(ctx, c.B().Eval().Script(b.src).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build())
	}
	return res
}
