package kuis

import (
	"context"
	"sync"
	"time"
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
	pos     streamID // the last ID read and handed out (guarded by feedHubs.mu)
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

// join makes m a member of q's hub, starting the hub if none runs, and
// returns the hub's position: every event after it reaches m through m.ch;
// the caller reads the log up to it itself. Starting a hub reads the log's
// last ID (XREVRANGE log + - COUNT 1) with ctx.
func (hs *feedHubs) join(ctx context.Context, q quiz) (*feedMember, streamID, error) {
	key := q.keys.log
	hs.mu.Lock()
	if h, ok := hs.hubs[key]; ok {
		m := &feedMember{ch: make(chan feedBatch, q.s.tune.memberBuffer)}
		h.members[m] = struct{}{}
		pos := h.pos
		hs.mu.Unlock()
		return m, pos, nil
	}
	hs.mu.Unlock()

	var pos streamID
	tail, err := sendOne(ctx, q.s.client, q.s.client.B().Xrevrange().Key(key).End("+").Start("-").Count(1).Build()).AsXRange()
	if err != nil {
		return nil, pos, q.fail(err, "", key)
	}
	if len(tail) > 0 {
		if pos, err = q.entryID(tail[0].ID); err != nil {
			return nil, pos, err
		}
	}
	m := &feedMember{ch: make(chan feedBatch, q.s.tune.memberBuffer)}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h, ok := hs.hubs[key]; ok { // another iterator started one meanwhile
		h.members[m] = struct{}{}
		return m, h.pos, nil
	}
	hctx, cancel := context.WithCancel(context.Background())
	h := &feedHub{q: q, pos: pos, members: map[*feedMember]struct{}{m: {}}, cancel: cancel}
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
	k, c, tune := h.q.keys, h.q.s.client, h.q.s.tune
	pos := h.pos // only run writes h.pos; it reads its own copy
	var last time.Time
	for {
		// At most one read per feedGap: a busy quiz's events come in batches,
		// so that members wake per batch, not per answer.
		if wait := tune.feedGap - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
		cmd := c.B().Xread().Count(tune.pageSize).Block(tune.feedBlock.Milliseconds()).Streams().Key(k.log).Id(pos.String()).Build()
		h.q.s.counts.feedReads.Add(1)
		entries, err := readStream(sendOne(ctx, c, cmd), k.log)
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
			if st != StatusFinished || tail != nil && tail.id != pos {
				continue // running, or entries arrived since: read them first
			}
			end, at := feedEnd(tail)
			hs.stop(h, feedBatch{events: []Event{{ID: end.String(), Kind: EventFinished, At: at}}})
			return
		}
		events, err := decodeEvents(k.log, entries)
		if err != nil {
			hs.stop(h, feedBatch{events: events, err: err})
			return
		}
		if pos, err = h.q.entryID(entries[len(entries)-1].ID); err != nil {
			hs.stop(h, feedBatch{events: events, err: err})
			return
		}
		if len(events) > 0 && events[len(events)-1].Kind == EventFinished {
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
func (hs *feedHubs) broadcast(h *feedHub, pos streamID, b feedBatch) {
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
