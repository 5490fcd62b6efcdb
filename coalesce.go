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

// Concurrent RecordAnswer calls to one quiz share script runs: while a run
// is in flight, the answers that arrive queue up and go together in the next
// one (natural batching). A lone caller sends its answer at once, from its
// own goroutine, so an idle library adds no delay and runs no timer. A run
// serving queued answers is sent from a goroutine that lives only while there
// are queued answers to send, so no goroutine outlives the calls it serves.

const (
	// maxChunk bounds the answers of one script run (see script.MaxAnswers).
	maxChunk = script.MaxAnswers
	// maxInFlight is how many runs of one quiz may be in flight at once:
	// two, so that one run's answers queue while the other's round trip is
	// under way, and the server always has the next run at hand. Three, four
	// or no bound measured slower (BENCHMARKS.md): the runs get smaller.
	maxInFlight = 2
)

// coalescer is one Store's queues of answers waiting to be sent, one lane per
// quiz (a run never mixes quizzes, so on a cluster it stays in one slot).
type coalescer struct {
	mu    sync.Mutex
	lanes map[string]*lane // by board key; a lane with nothing in flight is removed
}

// lane is one quiz's queue.
type lane struct {
	inFlight int
	queue    []*pending
}

// pending is one RecordAnswer call waiting in a lane. It holds the call's
// ctx only while the call waits, to leave it out of a run once it has ended.
type pending struct {
	ctx         context.Context
	participant string
	question    string
	taken       bool          // guarded by coalescer.mu: in a run, no longer queued
	done        chan struct{} // closed when reply and err are set
	reply       rueidis.RedisMessage
	err         error
}

func newCoalescer() *coalescer { return &coalescer{lanes: map[string]*lane{}} }

// record sends one answer, alone when its quiz has a free slot, else with the
// answers queued behind a run in flight. It returns the answer's element of
// the script's reply, or the error of the call (ctx's, or the connection's).
// A call whose ctx ends while queued is never sent.
func (c *coalescer) record(ctx context.Context, client rueidis.Client, keys Keys, participant string, question int) (rueidis.RedisMessage, error) {
	q := strconv.Itoa(question)
	c.mu.Lock()
	l := c.lanes[keys.board]
	if l == nil {
		l = &lane{}
		c.lanes[keys.board] = l
	}
	if l.inFlight < maxInFlight && len(l.queue) == 0 {
		l.inFlight++
		c.mu.Unlock()
		replies, err := runChunk(ctx, client, keys, []string{participant, q})
		c.next(client, keys, l)
		if err != nil {
			return rueidis.RedisMessage{}, err
		}
		return replies[0], nil
	}
	p := &pending{ctx: ctx, participant: participant, question: q, done: make(chan struct{})}
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
func (c *coalescer) next(client rueidis.Client, keys Keys, l *lane) {
	chunk := c.take(keys, l)
	if chunk != nil {
		go c.drive(client, keys, l, chunk)
	}
}

// take removes up to maxChunk answers from the head of l's queue, leaving out
// those whose ctx has ended (they return on their own, never sent). With
// nothing to send it frees a slot and returns nil, and removes an idle lane.
func (c *coalescer) take(keys Keys, l *lane) []*pending {
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
		if l.inFlight == 0 && len(l.queue) == 0 && c.lanes[keys.board] == l {
			delete(c.lanes, keys.board)
		}
		return nil
	}
	return chunk
}

// drive sends chunks of l's queue, one run at a time, until the queue is empty.
func (c *coalescer) drive(client rueidis.Client, keys Keys, l *lane, chunk []*pending) {
	for ; chunk != nil; chunk = c.take(keys, l) {
		args := make([]string, 0, 2*len(chunk))
		for _, p := range chunk {
			args = append(args, p.participant, p.question)
		}
		ctx, stop := chunkContext(chunk)
		replies, err := runChunk(ctx, client, keys, args)
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
		// again at once, queue before the next run is taken: runs of about
		// 28 answers instead of 20 at 64 callers, and 3 to 30 % more answers
		// a second (BENCHMARKS.md). It waits for nothing: with no one to run,
		// it returns at once.
		runtime.Gosched()
	}
}

// runChunk sends one chunk of answers (pairs of participant and question in args)
// as one script run and returns one reply element per answer.
func runChunk(ctx context.Context, client rueidis.Client, keys Keys, args []string) ([]rueidis.RedisMessage, error) {
	replies, err := run(ctx, client, script.RecordAnswer, keys.all(), args).ToArray()
	if err != nil {
		return nil, err
	}
	if len(replies) != len(args)/2 {
		return nil, errReplyLength(len(replies), len(args)/2)
	}
	return replies, nil
}

// chunkContext is the context a chunk is sent with: it ends when the
// contexts of all the chunk's callers have ended, since until then someone
// waits for the reply. stop releases it.
func chunkContext(chunk []*pending) (context.Context, func()) {
	for _, p := range chunk {
		if p.ctx.Done() == nil { // a caller that waits forever
			return context.Background(), func() {}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
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
