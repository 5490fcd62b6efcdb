// Package batch sends items in runs. Concurrent calls share runs: while runs
// of a lane are in flight, the items that arrive queue up and go together in
// the lane's next run (natural batching), so that many callers cost the
// server far less than one round trip each. A lone caller runs its item at
// once, from its own goroutine, so an idle batcher adds no delay and runs no
// timer; queued items are run from a goroutine that lives only while there
// are queued items, so none outlives the calls it serves.
//
// It knows nothing of what an item is: a run function takes the items of one
// run and returns one result each.
package batch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// ErrNotSent marks the error of an item that was never run: its caller's
// context ended before, or while it waited in its lane. The caller's
// context's error is wrapped beside it.
var ErrNotSent = errors.New("not sent")

// Batcher runs items in runs of at most maxRun, with at most maxInFlight
// runs of one lane in flight at once. The zero value is not usable; make one
// with New. It is safe for concurrent use.
type Batcher[K comparable, T, R any] struct {
	run         func(ctx context.Context, items []T) ([]R, error)
	maxRun      int
	maxInFlight int
	mu          sync.Mutex
	lanes       map[K]*lane[K, T, R] // a lane with nothing in flight is removed
}

// New returns a Batcher of runs of at most maxRun items (at least 1), of
// which at most maxInFlight (at least 1) per lane are in flight at once. run
// must return one result per item, in order, or an error for the whole run.
func New[K comparable, T, R any](maxRun, maxInFlight int, run func(ctx context.Context, items []T) ([]R, error)) *Batcher[K, T, R] {
	return &Batcher[K, T, R]{run: run, maxRun: max(1, maxRun), maxInFlight: max(1, maxInFlight), lanes: map[K]*lane[K, T, R]{}}
}

// lane is one key's queue.
type lane[K comparable, T, R any] struct {
	key      K
	inFlight int
	queue    []*pending[T, R]
}

// pending is one call waiting in a lane. It holds the call's ctx only while
// the call waits, to leave it out of a run once it has ended.
type pending[T, R any] struct {
	ctx    context.Context
	item   T
	taken  bool          // guarded by Batcher.mu: in a run, no longer queued
	done   chan struct{} // closed when result and err are set
	result R
	err    error
}

// Do runs item in lane key: at once when the lane has a run free, else in
// the lane's next run, with the items queued behind the runs in flight. It
// returns the item's result, or the error of its run. A call whose ctx has
// ended, or ends while it waits, is never run: its error wraps ErrNotSent
// and ctx's error. A call whose ctx ends after its item was taken into a run
// returns ctx's error; the item may have been run.
func (b *Batcher[K, T, R]) Do(ctx context.Context, key K, item T) (R, error) {
	var zero R
	if err := ctx.Err(); err != nil {
		return zero, notSent(err)
	}
	p := &pending[T, R]{ctx: ctx, item: item}
	b.mu.Lock()
	l := b.lanes[key]
	if l == nil {
		l = &lane[K, T, R]{key: key}
		b.lanes[key] = l
	}
	if l.inFlight < b.maxInFlight && len(l.queue) == 0 {
		l.inFlight++
		b.mu.Unlock()
		results, err := b.runOne(ctx, []*pending[T, R]{p})
		b.next(l)
		if err != nil {
			return zero, err
		}
		return results[0], nil
	}
	p.done = make(chan struct{})
	l.queue = append(l.queue, p)
	b.mu.Unlock()
	select {
	case <-p.done:
		return p.result, p.err
	case <-ctx.Done():
	}
	b.mu.Lock()
	taken := p.taken
	if !taken {
		for i, o := range l.queue {
			if o == p {
				l.queue = append(l.queue[:i], l.queue[i+1:]...)
				break
			}
		}
	}
	b.mu.Unlock()
	if !taken {
		return zero, notSent(ctx.Err())
	}
	return zero, ctx.Err()
}

func notSent(err error) error { return fmt.Errorf("%w: %w", ErrNotSent, err) }

// runOne runs one chunk: results one per item, or the run's error.
func (b *Batcher[K, T, R]) runOne(ctx context.Context, chunk []*pending[T, R]) ([]R, error) {
	items := make([]T, len(chunk))
	for i, p := range chunk {
		items[i] = p.item
	}
	results, err := b.run(ctx, items)
	if err == nil && len(results) != len(items) {
		err = fmt.Errorf("batch: a run of %d items gave %d results", len(items), len(results))
	}
	return results, err
}

// Queued is how many calls wait in all lanes.
func (b *Batcher[K, T, R]) Queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.lanes {
		n += len(l.queue)
	}
	return n
}

// QueuedIn is how many calls wait in lane key.
func (b *Batcher[K, T, R]) QueuedIn(key K) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.lanes[key]; l != nil {
		return len(l.queue)
	}
	return 0
}

// next is called when a run of lane l has ended: it frees the run's slot, or
// hands it to the items queued meanwhile, run from a goroutine of their own
// that lives until the queue is empty.
func (b *Batcher[K, T, R]) next(l *lane[K, T, R]) {
	if chunk := b.take(l); chunk != nil {
		go b.drive(l, chunk)
	}
}

// take removes up to maxRun items from the head of l's queue, leaving out
// those whose ctx has ended (they return on their own, never run). With
// nothing to run it frees a slot and returns nil, and removes an idle lane.
func (b *Batcher[K, T, R]) take(l *lane[K, T, R]) []*pending[T, R] {
	b.mu.Lock()
	defer b.mu.Unlock()
	var chunk []*pending[T, R]
	n := 0
	for n < len(l.queue) && len(chunk) < b.maxRun {
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
		if l.inFlight == 0 && b.lanes[l.key] == l {
			delete(b.lanes, l.key)
		}
		return nil
	}
	return chunk
}

// drive runs chunks of l's queue, one run at a time, until the queue is empty.
func (b *Batcher[K, T, R]) drive(l *lane[K, T, R], chunk []*pending[T, R]) {
	for ; chunk != nil; chunk = b.take(l) {
		ctx, stop := chunkContext(chunk)
		results, err := b.runOne(ctx, chunk)
		stop()
		for i, p := range chunk {
			if err != nil {
				p.err = err
			} else {
				p.result = results[i]
			}
			close(p.done)
		}
		// Yield once, so that the callers just answered, if they call again
		// at once, queue before the next run is taken: bigger runs, and more
		// items a second. It waits for nothing: with no one to run, it
		// returns at once.
		runtime.Gosched()
	}
}

// chunkContext is the context a chunk is run with: it carries the values of
// the chunk's first caller's context (a trace, say), and ends when the
// contexts of all the chunk's callers have ended, since until then someone
// waits for the result. stop releases it.
func chunkContext[T, R any](chunk []*pending[T, R]) (context.Context, func()) {
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
