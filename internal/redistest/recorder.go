package redistest

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"
)

// Recorder is a client that records the name of every command sent between
// Start and Stop ("CLUSTER|NODES" for a subcommand of CLUSTER), through its
// nodes' clients and on dedicated connections too, so that a test can see
// what a call sent.
type Recorder struct {
	rueidis.Client
	log *commandLog // shared with the recorders of its nodes
}

type commandLog struct {
	mu        sync.Mutex
	on        bool
	seen      []string
	dedicated atomic.Int64 // calls of Dedicated, whether on or not
}

// NewRecorder records what is sent through c.
func NewRecorder(c rueidis.Client) *Recorder { return &Recorder{Client: c, log: &commandLog{}} }

// Start forgets what was recorded and records from now on.
func (r *Recorder) Start() { r.log.mu.Lock(); r.log.on, r.log.seen = true, nil; r.log.mu.Unlock() }

// Stop ends the recording and returns the commands sent since Start.
func (r *Recorder) Stop() []string {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.on = false
	return r.log.seen
}

// DedicatedCalls is how many times Dedicated was called, recording or not.
func (r *Recorder) DedicatedCalls() int64 { return r.log.dedicated.Load() }

func (r *Recorder) note(args []string) {
	name := strings.ToUpper(args[0])
	if name == "CLUSTER" && len(args) > 1 {
		name += "|" + strings.ToUpper(args[1])
	}
	r.log.mu.Lock()
	if r.log.on {
		r.log.seen = append(r.log.seen, name)
	}
	r.log.mu.Unlock()
}

// Do records cmd and sends it.
func (r *Recorder) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	r.note(cmd.Commands())
	return r.Client.Do(ctx, cmd)
}

// DoMulti records cmds and sends them.
func (r *Recorder) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	for _, c := range cmds {
		r.note(c.Commands())
	}
	return r.Client.DoMulti(ctx, cmds...)
}

// DoMultiCache records cmds and sends them (or reads them from the cache).
func (r *Recorder) DoMultiCache(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	for _, c := range cmds {
		r.note(c.Cmd.Commands())
	}
	return r.Client.DoMultiCache(ctx, cmds...)
}

// DoCache records cmd and sends it (or reads it from the cache).
func (r *Recorder) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	r.note(cmd.Commands())
	return r.Client.DoCache(ctx, cmd, ttl)
}

// Nodes is the client's nodes, each recording into the same log.
func (r *Recorder) Nodes() map[string]rueidis.Client {
	out := map[string]rueidis.Client{}
	for addr, n := range r.Client.Nodes() {
		out[addr] = &Recorder{Client: n, log: r.log}
	}
	return out
}

// Dedicated counts the call and hands fn a connection that records too.
func (r *Recorder) Dedicated(fn func(rueidis.DedicatedClient) error) error {
	r.log.dedicated.Add(1)
	return r.Client.Dedicated(func(d rueidis.DedicatedClient) error {
		return fn(recordedConn{DedicatedClient: d, r: r})
	})
}

type recordedConn struct {
	rueidis.DedicatedClient
	r *Recorder
}

func (c recordedConn) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.r.note(cmd.Commands())
	return c.DedicatedClient.Do(ctx, cmd)
}

func (c recordedConn) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	for _, cmd := range cmds {
		c.r.note(cmd.Commands())
	}
	return c.DedicatedClient.DoMulti(ctx, cmds...)
}
