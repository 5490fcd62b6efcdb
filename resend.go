package kuis

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/redis/rueidis"
)

// resending is the caller's client as the library uses it: a command that
// failed before it reached the server, for a reason that belongs to another
// call, is sent again (at most resendTries times in all) while the caller's
// own context lives. Two such failures exist in rueidis:
//   - concurrent callers of a connection not dialled yet share one dial, made
//     with the first caller's context; if that context ends (a short
//     deadline), every caller gets its "dial tcp: i/o timeout";
//   - when one call times out, rueidis closes the connection and aborts every
//     cached read waiting on it (ErrDoCacheAborted).
//
// Nothing was sent in either case, so sending again is safe for any command,
// and RecordAnswer is exactly-once besides. Commands are pinned so that they
// can be sent twice. Everything else passes through to the caller's client.
type resending struct {
	rueidis.Client
}

const resendTries = 3

// Do sends cmd, again while it failed before reaching the server.
func (c resending) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	cmd = cmd.Pin()
	var res rueidis.RedisResult
	for try := 0; try < resendTries; try++ {
		if res = c.Client.Do(ctx, cmd); !unsent(ctx, res) {
			break
		}
	}
	return res
}

// DoMulti sends cmds, again while they failed before reaching the server.
func (c resending) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	for i := range cmds {
		cmds[i] = cmds[i].Pin()
	}
	var res []rueidis.RedisResult
	for try := 0; try < resendTries; try++ {
		if res = c.Client.DoMulti(ctx, cmds...); !unsent(ctx, res...) {
			break
		}
	}
	return res
}

// DoCache reads through the cache, again while the read was aborted.
func (c resending) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	cmd = cmd.Pin()
	var res rueidis.RedisResult
	for try := 0; try < resendTries; try++ {
		if res = c.Client.DoCache(ctx, cmd, ttl); !unsent(ctx, res) {
			break
		}
	}
	return res
}

// DoMultiCache reads through the cache, again while the reads were aborted.
func (c resending) DoMultiCache(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	for i := range cmds {
		cmds[i].Cmd = cmds[i].Cmd.Pin()
	}
	var res []rueidis.RedisResult
	for try := 0; try < resendTries; try++ {
		if res = c.Client.DoMultiCache(ctx, cmds...); !unsent(ctx, res...) {
			break
		}
	}
	return res
}

// unsent reports whether a result failed before its command reached the
// server, for a reason that is not the caller's (whose context still lives).
func unsent(ctx context.Context, res ...rueidis.RedisResult) bool {
	if ctx.Err() != nil {
		return false
	}
	for _, r := range res {
		err := r.Error()
		var op *net.OpError
		if errors.Is(err, rueidis.ErrDoCacheAborted) || errors.As(err, &op) && op.Op == "dial" {
			return true
		}
	}
	return false
}
