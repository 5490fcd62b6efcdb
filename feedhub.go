package kuis

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// A feed hub is the one reader of a quiz's log that all the Board.Events
// iterators of a Store following that quiz share: one blocking XREAD at a
// time, its entries decoded once and handed to every iterator as a batch.
// Without it, each of N screens on one server would cost Redis an XREAD and
// a reply per answer, N times over. A hub runs while an iterator is joined,
// and stops when the last one leaves, at the finish, or at an error.

// feedBatch is what a hub hands its members: the events of one XREAD (in
// order, its last ID last), or the error that ended the hub.
type feedBatch struct {
	events []Event
	err    error
}

// feedHubs holds a Store's running hubs, by log key. One mutex guards the
// map and every hub's members: joins and leaves are rare, broadcasts short.
type feedHubs struct {
	mu   sync.Mutex
	hubs map[string]*feedHub
}

func newFeedHubs() *feedHubs { return &feedHubs{hubs: map[string]*feedHub{}} }

// feedHub reads one log from pos on, for its members.
type feedHub struct {
	q       quiz
	block   time.Duration // feedBlock when the hub started
	pos     string        // the last ID read and handed out (guarded by feedHubs.mu)
	members map[*feedMember]struct{}
	cancel  context.CancelFunc
}

// feedMember is one iterator's place in a hub: batches arrive on ch; ch is
// closed when the hub drops the member (lagged) or stops (then after its last
// batch, the error one if it failed).
type feedMember struct {
	ch     chan feedBatch
	lagged bool // set before ch is closed: the member fell behind and must catch up alone
}

// memberBuffer is how many batches a member may fall behind (up to 1,000
// events each) before the hub drops it; a dropped member catches up on its
// own and joins again, so a slow screen never slows the others. A variable
// so that tests can make every member fall behind.
var memberBuffer = 64

// join makes m a member of q's hub, starting the hub if none runs, and
// returns the hub's position: every event after it reaches m through m.ch;
// the caller reads the log up to it itself. Starting a hub reads the log's
// last ID (XREVRANGE log + - COUNT 1) with ctx.
func (hs *feedHubs) join(ctx context.Context, q quiz) (*feedMember, string, error) {
	key := q.keys.log
	hs.mu.Lock()
	if h, ok := hs.hubs[key]; ok {
		m := &feedMember{ch: make(chan feedBatch, memberBuffer)}
		h.members[m] = struct{}{}
		pos := h.pos
		hs.mu.Unlock()
		return m, pos, nil
	}
	hs.mu.Unlock()

	pos := "0-0"
	tail, err := q.client.Do(ctx, q.client.B().Xrevrange().Key(key).End("+").Start("-").Count(1).Build()).AsXRange()
	if err != nil {
		return nil, "", q.fail(err, "", key)
	}
	if len(tail) > 0 {
		pos = tail[0].ID
	}
	m := &feedMember{ch: make(chan feedBatch, memberBuffer)}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h, ok := hs.hubs[key]; ok { // another iterator started one meanwhile
		h.members[m] = struct{}{}
		return m, h.pos, nil
	}
	hctx, cancel := context.WithCancel(context.Background())
	h := &feedHub{q: q, block: feedBlock, pos: pos, members: map[*feedMember]struct{}{m: {}}, cancel: cancel}
	hs.hubs[key] = h
	go hs.run(hctx, h)
	return m, pos, nil
}

// leave removes m from its hub, and stops the hub when m was the last member.
func (hs *feedHubs) leave(q quiz, m *feedMember) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h, ok := hs.hubs[q.keys.log]
	if !ok {
		return
	}
	if _, in := h.members[m]; !in {
		return // dropped already
	}
	delete(h.members, m)
	if len(h.members) == 0 {
		delete(hs.hubs, q.keys.log)
		h.cancel()
	}
}

// run is the hub's reader: XREAD COUNT 1000 BLOCK 5000 from its position,
// each batch handed to every member, until the finish, an error, or the last
// member leaves (ctx). A timeout checks the status, so that a quiz finished
// without a finish entry ends its feed too.
func (hs *feedHubs) run(ctx context.Context, h *feedHub) {
	k, c := h.q.keys, h.q.client
	pos := h.pos // only run writes h.pos; it reads its own copy
	var last time.Time
	for {
		// At most one read per feedGap: a busy quiz's events come in batches,
		// so that members wake per batch, not per answer.
		if wait := feedGap - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
		cmd := c.B().Xread().Count(feedCount).Block(h.block.Milliseconds()).Streams().Key(k.log).Id(pos).Build()
		entries, err := readStream(c.Do(ctx, cmd), k.log)
		if ctx.Err() != nil {
			return // the last member left: nobody to tell
		}
		if err != nil {
			hs.stop(h, feedBatch{err: h.q.fail(err, "", k.log)})
			return
		}
		if entries == nil { // timed out: finished without a finish entry?
			st, tail, err := h.q.feedState(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				hs.stop(h, feedBatch{err: err})
				return
			}
			if st != StatusFinished || (tail != nil && tail.ID != pos) {
				continue // running, or entries arrived since: read them first
			}
			id, at := syntheticEnd(tail)
			hs.stop(h, feedBatch{events: []Event{{ID: id, Kind: EventFinished, At: at}}})
			return
		}
		events := make([]Event, 0, len(entries))
		finished := false
		for _, e := range entries {
			ev, ok, err := decodeEvent(e)
			if err != nil {
				hs.stop(h, feedBatch{events: events, err: corrupt(k.log, "entry %s: %v", e.ID, err)})
				return
			}
			if ok {
				events = append(events, ev)
				finished = finished || ev.Kind == EventFinished
			}
			pos = e.ID
		}
		if finished {
			hs.stop(h, feedBatch{events: events})
			return
		}
		hs.broadcast(h, pos, feedBatch{events: events})
	}
}

// broadcast hands b to every member without waiting: a member whose buffer
// is full is dropped (lagged) and catches up alone. pos is the hub's new
// position, set under the same lock, so that a member joining later reads up
// to exactly where its first batch starts.
func (hs *feedHubs) broadcast(h *feedHub, pos string, b feedBatch) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h.pos = pos
	if len(b.events) == 0 {
		return // entries that are not events (skipped) moved the position only
	}
	for m := range h.members {
		select {
		case m.ch <- b:
		default:
			m.lagged = true
			delete(h.members, m)
			close(m.ch)
		}
	}
}

// stop hands every member its last batch (b, which may carry the error that
// ended the hub), closes their channels and removes the hub, so that the
// next iterator starts a new one.
func (hs *feedHubs) stop(h *feedHub, b feedBatch) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if cur, ok := hs.hubs[h.q.keys.log]; ok && cur == h {
		delete(hs.hubs, h.q.keys.log)
	}
	h.cancel()
	for m := range h.members {
		select {
		case m.ch <- b:
		default:
			m.lagged = true // no room for the end: the member reads it from the log
		}
		delete(h.members, m)
		close(m.ch)
	}
}

// syntheticEnd is the ID and time of the finished event of a quiz finished
// without a finish entry: right after the log's last entry ("0-1" for none).
func syntheticEnd(tail *rueidis.XRangeEntry) (string, time.Time) {
	if tail == nil {
		return "0-1", time.Time{}
	}
	ms, seq, _ := parseEventID(tail.ID)
	return strconv.FormatUint(ms, 10) + "-" + strconv.FormatUint(seq+1, 10), time.UnixMilli(int64(ms)).UTC()
}
