package batch_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kuisboard/kuis/internal/batch"
)

// gate is a run function whose runs wait until released, recording each
// run's items.
type gate struct {
	mu      sync.Mutex
	runs    [][]int
	started chan int      // each run's size, as it starts
	release chan struct{} // one receive lets one run finish
}

func newGate() *gate { return &gate{started: make(chan int, 100), release: make(chan struct{})} }

func (g *gate) run(ctx context.Context, items []int) ([]int, error) {
	g.mu.Lock()
	g.runs = append(g.runs, slices.Clone(items))
	g.mu.Unlock()
	g.started <- len(items)
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	out := make([]int, len(items))
	for i, it := range items {
		out[i] = 10 * it
	}
	return out, nil
}

// wait is how long a test waits for a signal before it fails: generous, for
// a loaded machine.
const wait = time.Minute

func received(t *testing.T, c chan int) int {
	t.Helper()
	select {
	case n := <-c:
		return n
	case <-time.After(wait):
		t.Fatal("no run started")
		return 0
	}
}

// waitQueued waits until n calls wait in lane key.
func waitQueued(t *testing.T, b *batch.Batcher[string, int, int], key string, n int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for b.QueuedIn(key) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued in %q, want %d", b.QueuedIn(key), key, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCallsShareRuns: a lone call runs at once; calls that arrive while a
// lane's runs are in flight (at most maxInFlight) queue and go together in
// runs of at most maxRun; other lanes run on their own; every call gets its
// own item's result.
func TestCallsShareRuns(t *testing.T) {
	g := newGate()
	b := batch.New[string](3, 1, g.run)
	ctx := context.Background()
	results := make(chan [2]int, 10)
	call := func(key string, item int) {
		r, err := b.Do(ctx, key, item)
		if err != nil {
			r = -1
		}
		results <- [2]int{item, r}
	}
	go call("a", 1)
	if n := received(t, g.started); n != 1 {
		t.Fatalf("the lone call ran in a run of %d", n)
	}
	for i := 2; i <= 6; i++ {
		go call("a", i)
	}
	waitQueued(t, b, "a", 5)
	go call("b", 7) // another lane: not held back by a's run in flight
	if n := received(t, g.started); n != 1 {
		t.Fatalf("lane b's call ran in a run of %d", n)
	}
	done := make(chan struct{})
	defer close(done)
	go func() { // release every run from now on
		for {
			select {
			case g.release <- struct{}{}:
			case <-done:
				return
			}
		}
	}()
	got := map[int]int{}
	for range 7 {
		r := <-results
		got[r[0]] = r[1]
	}
	for item := 1; item <= 7; item++ {
		if got[item] != 10*item {
			t.Errorf("item %d got %d, want %d", item, got[item], 10*item)
		}
	}
	var sizes []int
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.runs {
		sizes = append(sizes, len(r))
	}
	if !slices.Equal(sizes, []int{1, 1, 3, 2}) {
		t.Errorf("run sizes %v, want the lone call's 1, lane b's 1, then a's queue of 5 in runs of at most 3", sizes)
	}
	if b.Queued() != 0 {
		t.Errorf("Queued = %d after every call returned", b.Queued())
	}
}

// TestEndedCallsAreNeverRun: a call whose ctx has ended is never run, nor is
// one whose ctx ends while it waits; both answer ErrNotSent beside ctx's
// error, and the others of the lane still run.
func TestEndedCallsAreNeverRun(t *testing.T) {
	g := newGate()
	b := batch.New[string](10, 1, g.run)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Do(ended, "a", 1); !errors.Is(err, batch.ErrNotSent) || !errors.Is(err, context.Canceled) {
		t.Errorf("Do with an ended ctx = %v, want ErrNotSent and context.Canceled", err)
	}
	ctx := context.Background()
	first := make(chan error, 1)
	go func() { _, err := b.Do(ctx, "a", 2); first <- err }()
	received(t, g.started)
	leaving, leave := context.WithCancel(ctx)
	left := make(chan error, 1)
	go func() { _, err := b.Do(leaving, "a", 3); left <- err }()
	stays := make(chan error, 1)
	go func() { _, err := b.Do(ctx, "a", 4); stays <- err }()
	waitQueued(t, b, "a", 2)
	leave()
	if err := <-left; !errors.Is(err, batch.ErrNotSent) {
		t.Errorf("a call that left its queue = %v, want ErrNotSent", err)
	}
	g.release <- struct{}{}
	received(t, g.started)
	g.release <- struct{}{}
	for _, c := range []chan error{first, stays} {
		if err := <-c; err != nil {
			t.Errorf("a call that stayed = %v", err)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.runs {
		if slices.Contains(r, 1) || slices.Contains(r, 3) {
			t.Errorf("runs %v hold a call that had ended", g.runs)
		}
	}
}

// TestRunEndsWithItsLastCaller: a shared run's context ends only when every
// caller in it has gone; a run that returns the wrong number of results is
// an error for each of its calls.
func TestRunEndsWithItsLastCaller(t *testing.T) {
	g := newGate()
	b := batch.New[string](10, 1, g.run)
	go func() { _, _ = b.Do(context.Background(), "a", 1) }()
	received(t, g.started)
	c1, cancel1 := context.WithCancel(context.Background())
	c2, cancel2 := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { _, err := b.Do(c1, "a", 2); errs <- err }()
	go func() { _, err := b.Do(c2, "a", 3); errs <- err }()
	waitQueued(t, b, "a", 2)
	g.release <- struct{}{}
	if n := received(t, g.started); n != 2 {
		t.Fatalf("the queued calls ran in a run of %d", n)
	}
	cancel1()
	if err := <-errs; !errors.Is(err, context.Canceled) || errors.Is(err, batch.ErrNotSent) {
		t.Errorf("a caller that left a run in flight = %v, want context.Canceled without ErrNotSent", err)
	}
	cancel2() // the last caller gone: the run's context ends, and the run with it
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Errorf("the last caller = %v", err)
	}

	short := batch.New[string](10, 1, func(context.Context, []int) ([]int, error) { return nil, nil })
	if _, err := short.Do(context.Background(), "a", 1); err == nil {
		t.Error("a run without results answered no error")
	}
}
