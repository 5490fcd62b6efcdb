package kuis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis/internal/batch"
	"github.com/kuisboard/kuis/internal/cluster"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Every command of the library goes through send, sendReads or runScript:
// the one place that decides what may be sent again, where, and after what
// pause (backoff), that bounds how long a node may stay silent (watch), and
// that waits for replicas with WithReplicas.
//
// rueidis shares the dial and handshake of a new connection among the callers
// waiting for it, under the first caller's context. When that context ends
// first, every other caller gets its error ("dial tcp: i/o timeout",
// context.DeadlineExceeded or context.Canceled) while its own context lives,
// and nothing of theirs was sent: on a connection that failed, rueidis writes
// nothing more. A context error the caller's own context did not cause, and
// a command that never reached the server (unsent), is therefore sent again,
// at most sendTries times in all, while the caller's context lives. Any other
// failure may have reached the server and is returned as it is. rueidis does
// not recycle a command that failed that way, so it can be sent again as it
// is; a cached read is recycled when aborted, so sendReads pins it.

// sender is the send layer: the client, and the options it sends under. A
// Store is one.
type sender struct {
	client rueidis.Client
	opts   options
}

// sendTries bounds how often one command is sent.
const sendTries = 3

// send sends cmds on c in one round trip and returns their results in order.
func (s *sender) send(ctx context.Context, c rueidis.CommandClient, cmds ...rueidis.Completed) []rueidis.RedisResult {
	return s.sendTrips(ctx, c, 0, false, cmds...)
}

// sendOne is send of one command.
func (s *sender) sendOne(ctx context.Context, c rueidis.CommandClient, cmd rueidis.Completed) rueidis.RedisResult {
	return s.send(ctx, c, cmd)[0]
}

// sendBlocking is send of commands one of which may block for up to block
// (WAIT): the server may stay silent that long before the silence bound
// starts. A cancellation of ctx ends it only at the bound: sendFollowing
// is for a read a cancellation must end at once.
func (s *sender) sendBlocking(ctx context.Context, c rueidis.CommandClient, block time.Duration, cmds ...rueidis.Completed) []rueidis.RedisResult {
	return s.sendTrips(ctx, c, block, false, cmds...)
}

// sendFollowing is sendBlocking of a read that follows a stream (XREAD
// BLOCK), which a cancellation of ctx ends at once: rueidis holds a
// round trip under a deadline against a cancellation.
func (s *sender) sendFollowing(ctx context.Context, c rueidis.CommandClient, block time.Duration, cmd rueidis.Completed) rueidis.RedisResult {
	return s.sendTrips(ctx, c, block, true, cmd)[0]
}

// sendTrips is send, sendBlocking and sendFollowing.
func (s *sender) sendTrips(ctx context.Context, c rueidis.CommandClient, block time.Duration, following bool, cmds ...rueidis.Completed) []rueidis.RedisResult {
	if len(cmds) == 0 {
		return nil
	}
	return resend(ctx, s, c, cmds[0].Slot(), block, following, cmds, func(ctx context.Context, c rueidis.CommandClient, cmds []rueidis.Completed) []rueidis.RedisResult {
		if len(cmds) == 1 {
			return []rueidis.RedisResult{c.Do(ctx, cmds[0])}
		}
		return c.DoMulti(ctx, cmds...)
	})
}

// sendReads sends reads on the client in one round trip, through the
// client-side cache with WithClientCache.
func (s *sender) sendReads(ctx context.Context, cmds ...rueidis.Cacheable) []rueidis.RedisResult {
	if len(cmds) == 0 {
		return nil
	}
	if s.opts.cacheTTL <= 0 {
		plain := make([]rueidis.Completed, len(cmds))
		for i, c := range cmds {
			plain[i] = rueidis.Completed(c)
		}
		return s.send(ctx, s.client, plain...)
	}
	cached := make([]rueidis.CacheableTTL, len(cmds))
	for i, c := range cmds {
		cached[i] = rueidis.CT(c.Pin(), s.opts.cacheTTL)
	}
	first := rueidis.Completed(cmds[0])
	slot := first.Slot()
	return resend(ctx, s, s.client, slot, 0, false, cached, func(ctx context.Context, c rueidis.CommandClient, cmds []rueidis.CacheableTTL) []rueidis.RedisResult {
		return c.(rueidis.Client).DoMultiCache(ctx, cmds...)
	})
}

// resend sends cmds with do on c under the silence bound (watch), then
// sends again those that may be sent again (sendable), at most sendTries
// times in all. One that never reached the server as ctx ended answers
// ctx's error too; one whose node fell silent answers an *unavailableError;
// on a cluster client, a redirect the client could not follow (the slot
// still moving, or its new owner not known yet) does too, with the reply
// wrapped.
func resend[C any](ctx context.Context, s *sender, c rueidis.CommandClient, slot uint16, block time.Duration, following bool, cmds []C, do func(context.Context, rueidis.CommandClient, []C) []rueidis.RedisResult) []rueidis.RedisResult {
	var res []rueidis.RedisResult
	heard := time.Now() // the node's last sign of life: a try's replies, or the first try's start
	for try := 0; try < sendTries; try++ {
		var again []int
		if try > 0 {
			for i, r := range res {
				if sendable(ctx, r.Error()) {
					again = append(again, i)
				}
			}
			if len(again) == 0 {
				break
			}
			if d := s.opts.silence; d > 0 && time.Since(heard) >= block+d { // silent too long to try again
				for _, i := range again {
					res[i] = rueidis.NewErrorResult(s.silent(slot))
				}
				break
			}
		}
		retry := cmds
		if try > 0 {
			retry = make([]C, len(again))
			for j, i := range again {
				retry[j] = cmds[i]
			}
		}
		trip := s.watch(ctx, c, slot, block, following, len(retry), heard)
		out := sendTrip(trip, c, retry, do)
		if slices.ContainsFunc(out, replied) {
			heard = time.Now()
		}
		if cut := trip.end(); cut != nil {
			for j, r := range out {
				if err := r.Error(); err != nil && (unsent(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
					out[j] = rueidis.NewErrorResult(cut)
				}
			}
		}
		if try == 0 {
			res = out
			continue
		}
		for j, r := range out {
			res[again[j]] = r
		}
	}
	for i, r := range res {
		err := r.Error()
		switch {
		case err == nil:
		case ended(ctx) && unsent(err):
			res[i] = rueidis.NewErrorResult(fmt.Errorf("%w (%w)", err, cmp.Or(ctx.Err(), context.DeadlineExceeded)))
		case s.client.Mode() == rueidis.ClientModeCluster && redirect(err):
			res[i] = rueidis.NewErrorResult(&unavailableError{why: "the cluster did not serve the slot in time", err: err})
		}
	}
	return res
}

// unsent reports whether err says its command never reached the server: it
// was never sent (internal/batch, or a dedicated connection never handed
// over), no connection could be made, or a cached read was aborted with its
// connection.
func unsent(err error) bool {
	var op *net.OpError
	return errors.Is(err, batch.ErrNotSent) || errors.As(err, &op) && op.Op == "dial" || errors.Is(err, rueidis.ErrDoCacheAborted)
}

// sendable reports whether a command that failed with err may be sent again
// while ctx lives: it never reached the server, or it failed with a context
// error that ctx did not cause (a dial shared with another caller).
func sendable(ctx context.Context, err error) bool {
	return err != nil && !ended(ctx) &&
		(unsent(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled))
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

// redirected is the one place that reads a redirect or an unreachable node:
// it reports whether a run that failed with err did not run and is to be
// sent again after a pause, and the node a MOVED named. TRYAGAIN (a Redis
// Cluster moving the slot) is sent again from any connection; MOVED, ASK,
// CLUSTERDOWN and a run that never reached its node only from a dedicated
// one, which follows nothing: the client follows them itself, and send has
// sent again what it could. err may be the library's error wrapping the
// reply.
func redirected(ctx context.Context, err error, dedicated bool) (addr string, again bool) {
	if err == nil {
		return "", false
	}
	var re *rueidis.RedisError
	server := errors.As(err, &re)
	switch {
	case server && re.IsTryAgain():
		return "", true
	case !dedicated:
		return "", false
	case server:
		if addr, ok := re.IsMoved(); ok {
			return addr, true
		}
		_, ask := re.IsAsk()
		return "", ask || re.IsClusterDown()
	case errors.As(err, new(*unavailableError)):
		return "", false // the node fell silent: a round of its own would too
	}
	return "", sendable(ctx, err)
}

// replied reports whether r is a reply of the server, an error reply too.
func replied(r rueidis.RedisResult) bool {
	_, reply := rueidis.IsRedisErr(r.Error())
	return r.Error() == nil || reply
}

// redirect reports whether err is a reply of a Redis Cluster serving a
// slot elsewhere or not yet: MOVED, ASK, TRYAGAIN or CLUSTERDOWN.
func redirect(err error) bool {
	var re *rueidis.RedisError
	if !errors.As(err, &re) {
		return false
	}
	_, moved := re.IsMoved()
	_, ask := re.IsAsk()
	return moved || ask || re.IsTryAgain() || re.IsClusterDown()
}

// backoff paces the rounds of runs sent again: a pause of 1 ms, doubling to
// 100 ms, for at most about a second in all.
type backoff struct{ pause, spent time.Duration }

// more reports whether a run may still be sent again.
func (b *backoff) more() bool { return b.spent < time.Second }

// wait pauses, or reports false when ctx ends first.
func (b *backoff) wait(ctx context.Context) bool {
	b.pause = min(max(2*b.pause, time.Millisecond), 100*time.Millisecond)
	t := time.NewTimer(b.pause)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		b.spent += b.pause
		return true
	}
}

// runScript runs sc once per exec, all pipelined in one round trip, and
// returns their results in order (runs). With WithReplicas, the runs of a
// script that writes are followed by WAIT on the connection that sent them,
// and a run that too few replicas acknowledged answers a *notReplicated
// error holding its result.
func (s *sender) runScript(ctx context.Context, sc script.Script, execs ...rueidis.LuaExec) []rueidis.RedisResult {
	return s.runScriptWrote(ctx, sc, nil, execs...)
}

// run is runScript of one exec.
func (s *sender) run(ctx context.Context, sc script.Script, keys, args []string) rueidis.RedisResult {
	return s.runScript(ctx, sc, rueidis.LuaExec{Keys: keys, Args: args})[0]
}

// runScriptWrote is runScript of a script whose successful reply tells
// whether its run wrote: wrote reports it from the reply (nil: every run
// that succeeded wrote). With WithReplicas, a run that wrote nothing is
// returned as it is, never as ErrNotReplicated, and WAIT follows a round trip
// only when one of its runs wrote: there is nothing of a run that wrote
// nothing for replicas to acknowledge. A run that wrote nothing but answers
// for an earlier write (a repeat answer) must make that write its own to be
// waited for: record_answer.lua writes a no-op then, and says it wrote.
func (s *sender) runScriptWrote(ctx context.Context, sc script.Script, wrote func(rueidis.RedisMessage) bool, execs ...rueidis.LuaExec) []rueidis.RedisResult {
	r := &scriptRuns{s: s, ctx: ctx, sc: sc, wait: s.opts.replicas > 0 && !sc.ReadOnly(), wrote: wrote}
	if len(execs) == 1 { // most calls, the record path's among them: one allocation here in all
		r.oneExec[0] = execs[0]
		r.execs, r.res, r.todo = r.oneExec[:], r.oneRes[:], r.oneTodo[:]
	} else {
		r.execs, r.res, r.todo = slices.Clone(execs), make([]rueidis.RedisResult, len(execs)), make([]int, len(execs))
		for i := range r.todo {
			r.todo[i] = i
		}
	}
	if !r.wait {
		r.send(r.todo)
		return r.res
	}
	// A dedicated connection is one node's: runs of different slots (none of
	// the library's calls sends such runs together) go on one each.
	bySlot := map[uint16][]int{}
	var slots []uint16
	for i, e := range r.execs {
		probe := sc.BySHA(s.client.B(), e.Keys, e.Args) // never sent: only its slot is read
		slot := probe.Slot()
		if _, seen := bySlot[slot]; !seen {
			slots = append(slots, slot)
		}
		bySlot[slot] = append(bySlot[slot], i)
	}
	for _, slot := range slots {
		r.send(bySlot[slot])
	}
	return r.res
}

// didWrite reports whether run r succeeded and wrote, as wrote tells from
// its reply (nil: every run that succeeded wrote).
func didWrite(r rueidis.RedisResult, wrote func(rueidis.RedisMessage) bool) bool {
	m, err := r.ToMessage()
	return err == nil && (wrote == nil || wrote(m))
}

// scriptRuns is the runs of one call of runScriptWrote, sent round after
// round: one value, so that a call of one run costs one allocation here.
type scriptRuns struct {
	s        *sender
	ctx      context.Context
	sc       script.Script
	wait     bool
	wrote    func(rueidis.RedisMessage) bool
	execs    []rueidis.LuaExec
	todo     []int // the runs of the next round
	res      []rueidis.RedisResult
	bySource []bool // the runs to send as EVAL: made at the first NOSCRIPT

	oneExec [1]rueidis.LuaExec // execs, res and todo of a call of one run
	oneRes  [1]rueidis.RedisResult
	oneTodo [1]int
}

// send sends the runs todo, pipelined, in rounds, and sets their
// results in res. It sends EVALSHA, and EVAL for the runs the server
// answered NOSCRIPT (its script cache was flushed or restarted); the runs
// redirected says did not run are sent again after a pause. Runs sent again
// run after the others.
//
// With wait (WithReplicas, a script that writes, runs of one slot), each
// round goes on a dedicated connection, then WAIT on the same connection if
// any of its runs wrote (succeeded, and wrote says so when given), and a run
// that wrote and that fewer than the replicas asked acknowledged answers a
// *notReplicated error holding its result. A call whose ctx ends before
// rueidis hands the connection over sends nothing. Why the runs and their
// WAIT go on one dedicated connection: WithReplicas' godoc.
func (r *scriptRuns) send(todo []int) {
	r.todo = todo
	if err := r.s.rounds(r.ctx, r.wait, r); err != nil {
		for _, i := range r.todo {
			r.res[i] = rueidis.NewErrorResult(fmt.Errorf("%w: %w", batch.ErrNotSent, err))
		}
	}
}

// round sends the runs todo on c and says which to send again.
func (r *scriptRuns) round(c rueidis.CommandClient, more bool) (next round) {
	cmds := make([]rueidis.Completed, len(r.todo))
	for j, i := range r.todo {
		if i < len(r.bySource) && r.bySource[i] {
			cmds[j] = r.sc.BySource(c.B(), r.execs[i].Keys, r.execs[i].Args)
		} else {
			cmds[j] = r.sc.BySHA(c.B(), r.execs[i].Keys, r.execs[i].Args)
		}
	}
	out := r.s.send(r.ctx, c, cmds...)
	var acked rueidis.RedisResult
	if r.wait && slices.ContainsFunc(out, func(m rueidis.RedisResult) bool { return didWrite(m, r.wrote) }) {
		acked = r.s.sendBlocking(r.ctx, c, r.s.opts.replicaWait, r.s.waitCmd(c))[0]
	}
	var again []int
	for j, m := range out {
		i := r.todo[j]
		r.res[i] = m
		if r.wait && didWrite(m, r.wrote) {
			r.res[i] = r.s.acknowledged(m, acked)
		}
		if re, ok := rueidis.IsRedisErr(m.Error()); ok && re.IsNoScript() && (i >= len(r.bySource) || !r.bySource[i]) {
			if r.bySource == nil {
				r.bySource = make([]bool, len(r.execs))
			}
			r.bySource[i] = true
			again = append(again, i)
		} else if addr, ok := redirected(r.ctx, m.Error(), r.wait); ok && more {
			again = append(again, i)
			next.pause, next.addr = true, cmp.Or(next.addr, addr)
		}
	}
	r.todo, next.again = again, again != nil
	return next
}

// again is the round that follows a round of a dedicated connection that
// ended with err: sent again, after a pause and on the node a MOVED named,
// when redirected says so and more allows.
func again(ctx context.Context, err error, more bool) round {
	if addr, ok := redirected(ctx, err, true); ok && more {
		return round{again: true, pause: true, addr: addr}
	}
	return round{}
}

// A rounder is what rounds sends: one round on c, more telling whether the
// backoff allows another; it returns what it asks for next.
type rounder interface {
	round(c rueidis.CommandClient, more bool) round
}

// round is what a rounder's round asks for: to be called again
// (after a pause, or at once), and on the node a MOVED named.
type round struct {
	again, pause bool
	addr         string
}

// rounds is the one place that sends again what a redirect or an
// unreachable node stopped (redirected reads which). It calls fn.round on
// the client, or with onDedicated on a connection of a Dedicated, held by the
// call alone: the client's (the node serving the slot of fn's first
// command), or the node a MOVED named in the round before. It calls fn again
// while fn asks, after a pause (backoff) when it asks for one; more tells fn
// whether the backoff allows one. It returns an error, at once, when no
// dedicated connection was handed over (ctx ended, or the node stayed
// silent): then fn did not run.
func (s *sender) rounds(ctx context.Context, onDedicated bool, fn rounder) error {
	node := s.client
	var b backoff
	for {
		var next round
		if !onDedicated {
			next = fn.round(s.client, b.more())
		} else if n, err := s.dedicatedRound(ctx, node, fn, b.more()); err == nil {
			next = n
		} else {
			return err
		}
		node = s.client
		if next.addr != "" {
			if n, ok := s.client.Nodes()[next.addr]; ok {
				node = n
			}
		}
		if !next.again || next.pause && !b.wait(ctx) {
			return nil
		}
	}
}

// dedicatedRound is one round of rounds on a dedicated connection of node,
// apart so that only this path pays for what the connection's closure holds.
func (s *sender) dedicatedRound(ctx context.Context, node rueidis.Client, fn rounder, more bool) (next round, err error) {
	err = s.dedicated(ctx, node, func(c rueidis.DedicatedClient) { next = fn.round(c, more) })
	return next, err
}

// dedicated runs fn on a connection of node's Dedicated and returns nil,
// unless rueidis does not hand the connection over before ctx ends, or
// within the silence bound (a node that accepts connections but does not
// answer their handshake): then fn never runs, and it returns ctx's error or
// an *unavailableError, at once. rueidis dials a dedicated connection under
// no deadline of the caller's, so the wait runs in a goroutine of its own,
// which ends when the dial does.
func (s *sender) dedicated(ctx context.Context, node rueidis.Client, fn func(rueidis.DedicatedClient)) error {
	const waiting, running, abandoned = 0, 1, 2
	var state atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = node.Dedicated(func(c rueidis.DedicatedClient) error {
			if state.CompareAndSwap(waiting, running) {
				fn(c)
			}
			return nil
		})
	}()
	var silent <-chan time.Time
	if d := s.opts.silence; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		silent = t.C
	}
	var err error
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-silent:
		err = &unavailableError{why: fmt.Sprintf("no connection was ready within %v", s.opts.silence)}
	}
	if state.CompareAndSwap(waiting, abandoned) {
		return err
	}
	<-done // fn runs, and its sends are bounded as every send is
	return nil
}

// shortTrip is the most commands a round trip may hold to be bounded by
// a deadline (watch).
const shortTrip = 8

// watch starts the silence watch over one round trip of n commands that c
// sends to the node serving slot, one of which may block for up to block by
// design, the node having last shown it was alive at heard (the round trip
// sent again after a connection failed counts from the first); the round
// trip is sent under the trip's ctx, then ended with end.
//
// A short round trip (at most shortTrip commands) gets a deadline: the
// silence bound after heard and block, or ctx's own when sooner. rueidis
// then sends a lone caller's command on its connection at once and reads the
// reply with that deadline on the connection, and ends a queued one at it.
//
// A batch (more commands), or a following read, keeps ctx as it is, with a
// cancellation that also ends it: a deadline would cut a batch the server
// works through for its length, and rueidis would hold a following read under
// a deadline against ctx's cancellation. Once it has waited half the bound
// after heard and block, kuis sends PING to the node on a connection of its
// own (a Dedicated of c, or of the client with the PING sent to slot's
// node): an answer of any kind within half the bound shows the node alive,
// and the next PING follows half the bound later; none ends the round trip.
// A batch under a deadline of the caller's that rueidis sends on an idle
// connection still ends at that deadline or at the client's
// ConnWriteTimeout, whichever is sooner: a long batch is best sent without.
func (s *sender) watch(ctx context.Context, c rueidis.CommandClient, slot uint16, block time.Duration, following bool, n int, heard time.Time) trip {
	d := s.opts.silence
	if d <= 0 {
		return trip{ctx: ctx}
	}
	if n <= shortTrip && !following {
		bound := heard.Add(block + d)
		if dl, ok := ctx.Deadline(); ok && !dl.After(bound) {
			return trip{ctx: ctx} // ctx's own deadline comes first
		}
		tctx, cancel := context.WithDeadline(ctx, bound)
		return trip{ctx: tctx, parent: ctx, cancel: cancel, s: s, slot: slot, short: true}
	}
	tctx, cancel := context.WithCancelCause(ctx)
	node, ok := c.(rueidis.Client)
	if !ok {
		node = s.client
	}
	w := &watch{s: s, ctx: tctx, cancel: cancel, node: node, slot: slot}
	first := time.Until(heard.Add(block + d/2))
	return trip{ctx: tctx, parent: ctx, cancelCause: cancel, timer: time.AfterFunc(first, w.check), s: s, slot: slot, detached: following || n > shortTrip}
}

// trip is the watch over one round trip.
type trip struct {
	ctx, parent context.Context
	cancel      context.CancelFunc      // a short trip's
	cancelCause context.CancelCauseFunc // a batch's
	timer       *time.Timer
	s           *sender
	slot        uint16
	short       bool // bounded by a deadline
	detached    bool // sent from a goroutine of its own: a batch, or a read that follows a stream
}

// sendTrip sends a round trip under t with do. A batch, or a read that
// follows a stream, is sent from a goroutine of its own and left to it when
// the watch ends the trip first: rueidis makes a caller wait for a
// connection's dial and handshake under the context of the caller that
// began it, and returns a blocking read on a connection the server no
// longer answers seconds after its cancellation. Its commands may still
// reach the server then, as any command of a call that failed with
// ErrUnavailable may.
func sendTrip[C any](t trip, c rueidis.CommandClient, cmds []C, do func(context.Context, rueidis.CommandClient, []C) []rueidis.RedisResult) []rueidis.RedisResult {
	if !t.detached {
		return do(t.ctx, c, cmds)
	}
	done := make(chan []rueidis.RedisResult, 1)
	go func() { done <- do(t.ctx, c, cmds) }()
	select {
	case out := <-done:
		return out
	case <-t.ctx.Done():
		out := make([]rueidis.RedisResult, len(cmds))
		for i := range out {
			out[i] = rueidis.NewErrorResult(context.Cause(t.ctx))
		}
		return out
	}
}

// end ends the watch once the round trip returned, and returns what ended
// it early: an *unavailableError when the node fell silent, ctx's error
// when ctx ended (a batch's, whose rueidis ctx was another), else nil.
func (t trip) end() error {
	switch {
	case t.parent == nil:
		return nil
	case t.short:
		silent := !ended(t.parent) && ended(t.ctx) // the connection's deadline may fire a moment before ctx's timer
		t.cancel()
		if !silent {
			return nil
		}
		return t.s.silent(t.slot)
	}
	t.timer.Stop()
	err := context.Cause(t.ctx)
	t.cancelCause(nil)
	switch {
	case err == nil:
		return nil
	case t.parent.Err() != nil:
		return context.Cause(t.parent)
	}
	return err
}

// silent is the error of a round trip to the node serving slot that
// answered nothing within the silence bound.
func (s *sender) silent(slot uint16) error {
	where := "the server"
	if s.client.Mode() == rueidis.ClientModeCluster {
		if slot < cluster.Slots {
			where = fmt.Sprintf("the node serving slot %d", slot)
		}
	} else {
		for addr := range s.client.Nodes() { // a standalone client's one
			where = "the server at " + addr
		}
	}
	return &unavailableError{why: fmt.Sprintf("%s answered nothing for %v", where, s.opts.silence)}
}

// watch is the silence watch over one batch.
type watch struct {
	s      *sender
	ctx    context.Context // the batch's
	cancel context.CancelCauseFunc
	node   rueidis.Client
	slot   uint16
}

// check PINGs the node until the batch ends, and ends it with an
// *unavailableError when a PING goes unanswered for half the bound.
func (w *watch) check() {
	half := w.s.opts.silence / 2
	for {
		pctx, cancel := context.WithTimeout(w.ctx, half)
		alive := w.ping(pctx)
		cancel()
		if w.ctx.Err() != nil {
			return
		}
		if !alive {
			w.cancel(w.s.silent(w.slot))
			return
		}
		t := time.NewTimer(half)
		select {
		case <-w.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// ping reports whether the node answers a PING on a dedicated connection
// within ctx: any reply counts, an error reply (BUSY, LOADING) too.
func (w *watch) ping(ctx context.Context) bool {
	var alive bool
	_ = w.s.dedicated(ctx, w.node, func(c rueidis.DedicatedClient) {
		cmd := c.B().Ping().Build()
		if w.s.client.Mode() == rueidis.ClientModeCluster && w.slot < cluster.Slots {
			cmd = cmd.SetSlot(cluster.KeyInSlot(w.slot))
		}
		err := c.Do(ctx, cmd).Error()
		_, reply := rueidis.IsRedisErr(err)
		alive = err == nil || reply
	})
	return alive
}

// waitCmd is the WAIT that follows writes on c.
func (s *sender) waitCmd(c rueidis.CommandClient) rueidis.Completed {
	return c.B().Wait().Numreplicas(int64(s.opts.replicas)).Timeout(waitMillis(s.opts.replicaWait)).Build()
}

// awaitReplicas is, with WithReplicas, WAIT on conn after writes a call sent
// on it that are no script run (a course's MULTI/EXEC): nil once enough
// replicas acknowledged them, else the *notReplicated error. Without the
// option it sends nothing and returns nil.
func (s *sender) awaitReplicas(ctx context.Context, conn rueidis.CommandClient) error {
	if s.opts.replicas == 0 {
		return nil
	}
	return s.acknowledged(rueidis.RedisResult{}, s.sendBlocking(ctx, conn, s.opts.replicaWait, s.waitCmd(conn))[0]).Error()
}

// waitMillis is WAIT's timeout argument for d: whole milliseconds, rounded up.
func waitMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// acknowledged is r, the result of a run that succeeded, when the WAIT after
// it replied that enough replicas acknowledged it; otherwise a *notReplicated
// error holding r.
func (s *sender) acknowledged(r, acked rueidis.RedisResult) rueidis.RedisResult {
	n, err := acked.AsInt64()
	if err == nil && n >= int64(s.opts.replicas) {
		return r
	}
	return rueidis.NewErrorResult(&notReplicated{result: r, acked: n, want: s.opts.replicas, timeout: s.opts.replicaWait, cause: err})
}
