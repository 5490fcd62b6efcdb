package kuis

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Concurrent RecordAnswer calls of one Store share script runs: while runs
// are in flight, the answers that arrive queue up and go together in the
// next one, whatever quiz they answer (natural batching). A run takes only
// keys of one hash slot: on a Redis Cluster, each slot has a queue of its
// own; elsewhere every quiz shares one. A lone caller sends its answer at
// once, from its own goroutine, so an idle library adds no delay and runs no
// timer. Queued answers are sent from a goroutine that lives only while there
// are queued answers to send, so no goroutine outlives the calls it serves.

const (
	// maxChunk bounds the answers of one script run.
	maxChunk = script.MaxAnswers
	// maxInFlight is how many runs of one queue may be in flight at once:
	// two, so that one run's answers queue while the other's round trip is
	// under way, and the server always has the next run at hand.
	maxInFlight = 2
)

// coalescer is one Store's queues of answers waiting to be sent, one lane per
// hash slot (one lane on a server that is not a cluster).
type coalescer struct {
	client rueidis.Client
	counts *counters
	mu     sync.Mutex
	lanes  map[uint16]*lane // a lane with nothing in flight is removed
}

// lane is one slot's queue.
type lane struct {
	slot     uint16
	inFlight int
	queue    []*pending
}

// pending is one RecordAnswer call waiting in a lane. It holds the call's
// ctx only while the call waits, to leave it out of a run once it has ended.
type pending struct {
	ctx         context.Context
	keys        Keys
	participant string
	question    string
	taken       bool          // guarded by coalescer.mu: in a run, no longer queued
	done        chan struct{} // closed when reply and err are set
	reply       rueidis.RedisMessage
	err         error
}

func newCoalescer(client rueidis.Client, counts *counters) *coalescer {
	return &coalescer{client: client, counts: counts, lanes: map[uint16]*lane{}}
}

// queued is how many answers wait in all lanes.
func (c *coalescer) queued() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.lanes {
		n += len(l.queue)
	}
	return int64(n)
}

// record sends one answer, alone when its lane has a free slot, else with the
// answers queued behind the runs in flight. It returns the answer's element of
// the script's reply, or the error of the call (ctx's, or the connection's).
// A call whose ctx has ended, or ends while queued, is never sent.
func (c *coalescer) record(ctx context.Context, q quiz, participant string, question int) (rueidis.RedisMessage, error) {
	if err := ctx.Err(); err != nil {
		return rueidis.RedisMessage{}, err // never sent
	}
	p := &pending{ctx: ctx, keys: q.keys, participant: participant, question: strconv.Itoa(question)}
	c.mu.Lock()
	l := c.lanes[q.slot]
	if l == nil {
		l = &lane{slot: q.slot}
		c.lanes[q.slot] = l
	}
	if l.inFlight < maxInFlight && len(l.queue) == 0 {
		l.inFlight++
		c.mu.Unlock()
		c.counts.ran(1)
		replies, err := runChunk(ctx, c.client, []*pending{p})
		c.next(l)
		if err != nil {
			return rueidis.RedisMessage{}, err
		}
		return replies[0], nil
	}
	p.done = make(chan struct{})
	l.queue = append(l.queue, p)
	c.mu.Unlock()
	select {
	case <-p.done:
		return p.reply, p.err
	case <-ctx.Done():
	}
	c.mu.Lock()
	if !p.taken {
		for i, o := range l.queue {
			if o == p {
				l.queue = append(l.queue[:i], l.queue[i+1:]...)
				break
			}
		}
	}
	c.mu.Unlock()
	// Queued, it was never sent; taken, it may have been counted, as after
	// any timeout: a retry answers Duplicate.
	return rueidis.RedisMessage{}, ctx.Err()
}

// next is called when a run of lane l has ended: it frees the run's slot, or
// hands it to the answers queued meanwhile, sent from a goroutine of their own
// that lives until the queue is empty.
func (c *coalescer) next(l *lane) {
	if chunk := c.take(l); chunk != nil {
		go c.drive(l, chunk)
	}
}

// take removes up to maxChunk answers from the head of l's queue, leaving out
// those whose ctx has ended (they return on their own, never sent). With
// nothing to send it frees a slot and returns nil, and removes an idle lane.
func (c *coalescer) take(l *lane) []*pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	var chunk []*pending
	n := 0
	for n < len(l.queue) && len(chunk) < maxChunk {
		p := l.queue[n]
		n++
		if p.ctx.Err() != nil {
			continue
		}
		p.taken = true
		chunk = append(chunk, p)
	}
	l.queue = l.queue[n:]
	if len(l.queue) == 0 {
		l.queue = nil // let the backing array go
	}
	if len(chunk) == 0 {
		l.inFlight--
		if l.inFlight == 0 && c.lanes[l.slot] == l {
			delete(c.lanes, l.slot)
		}
		return nil
	}
	return chunk
}

// drive sends chunks of l's queue, one run at a time, until the queue is empty.
func (c *coalescer) drive(l *lane, chunk []*pending) {
	for ; chunk != nil; chunk = c.take(l) {
		ctx, stop := chunkContext(chunk)
		c.counts.ran(len(chunk))
		replies, err := runChunk(ctx, c.client, chunk)
		stop()
		for i, p := range chunk {
			if err != nil {
				p.err = err
			} else {
				p.reply = replies[i]
			}
			close(p.done)
		}
		// Yield once, so that the callers just answered, if they answer
		// again at once, queue before the next run is taken: bigger runs,
		// and more answers a second. It waits for nothing: with no one to
		// run, it returns at once.
		runtime.Gosched()
	}
}

// runChunk sends one chunk of answers as one script run: the keys of each
// quiz once, in the order the quizzes first appear, and a triple of quiz
// number, participant and question per answer. It returns one reply element
// per answer.
func runChunk(ctx context.Context, client rueidis.CommandClient, chunk []*pending) ([]rueidis.RedisMessage, error) {
	var keys []string
	number := make(map[string]string, 1)
	args := make([]string, 0, 3*len(chunk))
	for _, p := range chunk {
		n, ok := number[p.keys.meta]
		if !ok {
			n = strconv.Itoa(len(number) + 1)
			number[p.keys.meta] = n
			keys = append(keys, p.keys.quizKeys()...)
		}
		args = append(args, n, p.participant, p.question)
	}
	replies, err := run(ctx, client, script.RecordAnswer, keys, args).ToArray()
	if err != nil {
		return nil, err
	}
	if len(replies) != len(chunk) {
		return nil, errReplyLength(len(replies), len(chunk))
	}
	return replies, nil
}

// chunkContext is the context a chunk is sent with: it carries the values of
// the chunk's first caller's context (a trace, say), and ends when the
// contexts of all the chunk's callers have ended, since until then someone
// waits for the reply. stop releases it.
func chunkContext(chunk []*pending) (context.Context, func()) {
	base := context.WithoutCancel(chunk[0].ctx)
	for _, p := range chunk {
		if p.ctx.Done() == nil { // a caller that waits forever
			return base, func() {}
		}
	}
	ctx, cancel := context.WithCancel(base)
	var left atomic.Int64
	left.Store(int64(len(chunk)))
	stops := make([]func() bool, len(chunk))
	for i, p := range chunk {
		stops[i] = context.AfterFunc(p.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, s := range stops {
			s()
		}
		cancel()
	}
}
