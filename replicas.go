package kuis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis/internal/batch"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// WithReplicas' two halves: the WAIT after the runs of a script that writes,
// and New's check of the replicas there are. Why the runs and their WAIT go
// on one dedicated connection: WithReplicas' godoc.

// runWaited is runScriptWrote with WithReplicas, for a script that writes:
// the runs of one hash slot are sent inside a Dedicated of the client, then
// WAIT on the same connection if any of them wrote (succeeded, and wrote
// says so when given), and a run that wrote and that fewer than the
// replicas asked acknowledged answers a *notReplicated error holding its
// result; a run that wrote nothing answers its result as it is. Runs
// answered MOVED are sent again on the node named; those answered ASK or
// CLUSTERDOWN, or whose dedicated connection failed to dial, are sent again
// on the slot's primary after a pause, growing to 100 ms, for at most about
// a second while ctx lives.
func (s *Store) runWaited(ctx context.Context, sc script.Script, wrote func(rueidis.RedisMessage) bool, execs []rueidis.LuaExec) []rueidis.RedisResult {
	res := make([]rueidis.RedisResult, len(execs))
	// A dedicated connection is one node's: runs of different slots (none of
	// the library's calls sends such runs together) go on one each.
	bySlot := map[uint16][]int{}
	var slots []uint16
	for i, e := range execs {
		probe := sc.BySHA(s.client.B(), e.Keys, e.Args) // never sent: only its slot is read
		slot := probe.Slot()
		if _, seen := bySlot[slot]; !seen {
			slots = append(slots, slot)
		}
		bySlot[slot] = append(bySlot[slot], i)
	}
	for _, slot := range slots {
		s.runWaitedOn(ctx, sc, wrote, execs, bySlot[slot], res)
	}
	return res
}

// runWaitedOn is runWaited of the runs todo, which share a slot.
func (s *Store) runWaitedOn(ctx context.Context, sc script.Script, wrote func(rueidis.RedisMessage) bool, execs []rueidis.LuaExec, todo []int, res []rueidis.RedisResult) {
	didWrite := func(r rueidis.RedisResult) bool {
		m, err := r.ToMessage()
		return err == nil && (wrote == nil || wrote(m))
	}
	node := rueidis.Client(s.client)
	pause := time.Millisecond
	for waited := time.Duration(0); ; {
		round := make([]rueidis.LuaExec, len(todo))
		for j, i := range todo {
			round[j] = execs[i]
		}
		var out []rueidis.RedisResult
		var acked rueidis.RedisResult
		ran := dedicated(ctx, node, func(c rueidis.DedicatedClient) {
			out = evalScript(ctx, c, sc, round)
			if slices.ContainsFunc(out, didWrite) {
				acked = c.Do(ctx, s.waitCmd(c))
			}
		})
		if !ran {
			for _, i := range todo {
				res[i] = rueidis.NewErrorResult(fmt.Errorf("%w: %w", batch.ErrNotSent, ctx.Err()))
			}
			return
		}
		node = s.client
		var next []int
		for j, r := range out {
			i := todo[j]
			res[i] = r
			if didWrite(r) {
				res[i] = s.acknowledged(r, acked)
			}
			if r.Error() == nil {
				continue
			}
			addr, again := redirected(ctx, r.Error())
			if !again || waited >= time.Second {
				continue
			}
			next = append(next, i)
			if addr != "" {
				if n, ok := s.client.Nodes()[addr]; ok {
					node = n
				}
			}
		}
		if len(next) == 0 || !sleep(ctx, pause) {
			return
		}
		waited += pause
		pause = min(2*pause, 100*time.Millisecond)
		todo = next
	}
}

// dedicated runs fn on a connection of node's Dedicated and reports true,
// unless ctx ends before rueidis hands the connection over: then fn never
// runs, and it reports false at once. A standalone client dials a new
// dedicated connection under no deadline of the caller's (a server that
// accepts connections but does not answer would hold the call until the
// client's own timeouts), so the wait runs in a goroutine of its own, which
// ends when the dial does.
func dedicated(ctx context.Context, node rueidis.Client, fn func(rueidis.DedicatedClient)) bool {
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
	select {
	case <-done:
		return true
	case <-ctx.Done():
		if state.CompareAndSwap(waiting, abandoned) {
			return false
		}
		<-done // fn runs under ctx, which has ended: it returns at once
		return true
	}
}

// waitCmd is the WAIT that follows writes on c.
func (s *Store) waitCmd(c rueidis.CommandClient) rueidis.Completed {
	return c.B().Wait().Numreplicas(int64(s.opts.replicas)).Timeout(waitMillis(s.opts.replicaWait)).Build()
}

// awaitReplicas is, with WithReplicas, WAIT on conn after writes a call sent
// on it that are no script run (a course's MULTI/EXEC): nil once enough
// replicas acknowledged them, else the *notReplicated error. Without the
// option it sends nothing and returns nil.
func (s *Store) awaitReplicas(ctx context.Context, conn rueidis.DedicatedClient) error {
	if s.opts.replicas == 0 {
		return nil
	}
	return s.acknowledged(rueidis.RedisResult{}, conn.Do(ctx, s.waitCmd(conn))).Error()
}

// waitMillis is WAIT's timeout argument for d: whole milliseconds, rounded up.
func waitMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// redirected reports whether a run that failed with err on a dedicated
// connection did not run and may be sent again, and the node a MOVED named.
func redirected(ctx context.Context, err error) (addr string, again bool) {
	if re, ok := rueidis.IsRedisErr(err); ok {
		if addr, ok := re.IsMoved(); ok {
			return addr, true
		}
		_, ask := re.IsAsk()
		return "", ask || re.IsClusterDown()
	}
	return "", unsent(err) && !ended(ctx)
}

// acknowledged is r, the result of a run that succeeded, when the WAIT after
// it replied that enough replicas acknowledged it; otherwise a *notReplicated
// error holding r.
func (s *Store) acknowledged(r, acked rueidis.RedisResult) rueidis.RedisResult {
	n, err := acked.AsInt64()
	if err == nil && n >= int64(s.opts.replicas) {
		return r
	}
	return rueidis.NewErrorResult(&notReplicated{result: r, acked: n, want: s.opts.replicas, timeout: s.opts.replicaWait, cause: err})
}

// notReplicated is the error of a run applied on the primary that fewer
// replicas than asked acknowledged: ErrNotReplicated, with the run's own
// result (for the callers that read it: RecordAnswer's refusals stay
// refusals and its answers keep their Answer), and WAIT's own error when
// WAIT failed, or why no WAIT could cover the run.
type notReplicated struct {
	result   rueidis.RedisResult
	acked    int64
	want     int
	timeout  time.Duration
	cause    error
	unwaited string // why the run gave WAIT nothing to follow
}

func (e *notReplicated) Error() string { return e.about("a write").Error() }

func (e *notReplicated) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrNotReplicated}
	}
	return []error{ErrNotReplicated, e.cause}
}

// about is the error as the library returns it, naming subject.
func (e *notReplicated) about(subject string) error {
	if e.unwaited != "" {
		return fmt.Errorf("%w: %s: %s", ErrNotReplicated, subject, e.unwaited)
	}
	if e.cause != nil {
		return fmt.Errorf("%w: %s: WAIT failed: %w", ErrNotReplicated, subject, timedOut(e.cause))
	}
	return fmt.Errorf("%w: %s: %d of %d replicas acknowledged within %v", ErrNotReplicated, subject, e.acked, e.want, e.timeout)
}

// replicaCheck bounds New's check of the replicas.
const replicaCheck = 10 * time.Second

// checkReplicas asks every node of client for its role (ROLE) and refuses
// want above the replicas of the primary with the fewest: ErrInvalidOption.
// A node that cannot be reached is left out (a replica that is down, or a
// primary whose writes fail anyway until a failover), but at least one
// primary must answer; an error reply (an ACL refusal) fails the check.
func checkReplicas(client rueidis.Client, want int) error {
	ctx, cancel := context.WithTimeout(context.Background(), replicaCheck)
	defer cancel()
	nodes := client.Nodes()
	fewest, at := -1, ""
	var unreached error
	for _, addr := range slices.Sorted(maps.Keys(nodes)) {
		node := nodes[addr]
		role, err := sendOne(ctx, node, node.B().Role().Build()).ToArray()
		if _, server := rueidis.IsRedisErr(err); err != nil && !server && client.Mode() == rueidis.ClientModeCluster {
			unreached = errors.Join(unreached, replyError(err, "ROLE on "+addr, ""))
			continue
		}
		if err != nil {
			return replyError(err, "ROLE on "+addr, "")
		}
		if len(role) < 3 {
			continue // not a primary's reply: a replica's has 5 elements, a sentinel's 2
		}
		if kind, _ := role[0].ToString(); kind != "master" {
			continue
		}
		replicas, err := role[2].ToArray()
		if err != nil {
			return replyError(err, "ROLE on "+addr, "")
		}
		if fewest < 0 || len(replicas) < fewest {
			fewest, at = len(replicas), addr
		}
	}
	switch {
	case fewest < 0 && unreached != nil:
		return unreached
	case fewest < 0:
		return fmt.Errorf("%w: WithReplicas(%d): no node of the client is a primary", ErrInvalidOption, want)
	case want > fewest:
		return fmt.Errorf("%w: WithReplicas(%d): primary %s has %d replica(s)", ErrInvalidOption, want, at, fewest)
	}
	return nil
}
