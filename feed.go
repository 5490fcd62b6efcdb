package kuis

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// A quiz's feed, in one room: the reader each Events iterator runs, the one
// read of the log every reader goes through (XREAD, decoded once), and the
// hub, the one blocking reader of a quiz's log that all the Events iterators
// of a Store following that quiz share, handing each batch of events to
// every iterator. Without the hub, each of N screens on one server would
// cost Redis an XREAD and a reply per answer, N times over. A hub runs while
// an iterator is joined, and stops when the last one leaves, at the finish,
// or at an error.

// logEvent is an event with its ID parsed.
type logEvent struct {
	Event
	id wire.ID
}

// feedBatch is the events of one read of the log, in order, or the error
// that ended it (after the events before it).
type feedBatch struct {
	events []logEvent
	err    error
}

// readAfter reads the log's entries after after, once: XREAD COUNT pageSize,
// blocking up to block when it is > 0. It returns the events of the entries
// read, entries that are neither answers, joins, nor the start or the
// finish skipped (an entry that does not decode ends the batch with ErrCorrupt),
// the ID of the last entry read (after, when none), and whether any was read
// (a blocking read that found none timed out).
func (q quiz) readAfter(ctx context.Context, after wire.ID, block time.Duration, questions int) (feedBatch, wire.ID, bool) {
	k, c := q.keys, q.s.client
	var cmd rueidis.Completed
	if block > 0 {
		cmd = c.B().Xread().Count(q.s.tune.pageSize).Block(block.Milliseconds()).Streams().Key(k.log).Id(after.String()).Build()
	} else {
		cmd = c.B().Xread().Count(q.s.tune.pageSize).Streams().Key(k.log).Id(after.String()).Build()
	}
	q.s.counts.feedReads.Add(1)
	streams, err := q.s.sendFollowing(ctx, c, block, cmd).AsXRead()
	if rueidis.IsRedisNil(err) { // the block timed out
		return feedBatch{}, after, false
	}
	if err != nil {
		return feedBatch{err: q.fail(err, "", k.log)}, after, false
	}
	entries := streams[k.log]
	var b feedBatch
	for _, raw := range entries {
		e, ok := readEntry(raw, questions)
		if !ok || e.err != nil {
			b.err = corrupt(k.log, "%v", e.err)
			return b, after, true
		}
		after = e.ID
		ev := Event{ID: raw.ID, At: e.ID.Time()}
		switch e.Kind {
		case wire.Answer:
			ev.Kind, ev.Participant, ev.Question, ev.Score = EventAnswer, e.Participant, e.Question, e.Score
		case wire.Join:
			ev.Kind, ev.Participant = EventJoined, e.Participant
		case wire.Finish:
			ev.Kind = EventFinished
		case wire.Start:
			ev = Event{ID: raw.ID, Kind: eventStart}
		default:
			continue
		}
		b.events = append(b.events, logEvent{ev, e.ID})
	}
	return b, after, len(entries) > 0
}

// feed is one Events iterator's reading of the log.
type feed struct {
	q         quiz
	questions int
	last      wire.ID // the last ID handed out
	// own bounds the reader's own quiz's start entry: a start entry after it
	// (or any, when nil) is another quiz's, of the same ID.
	own *wire.ID
	// end is the ID after which the feed ends: the finish entry's, or for a
	// quiz finished without one, the synthetic end (feedEnd).
	end       *wire.ID
	synthetic bool
	endAt     time.Time
}

// newFeed starts a reading after the event ID after: "" and "0-0" read the
// quiz from its start; any other ID resumes after it, and a start entry
// after it is another quiz's.
func (q quiz) newFeed(after string) (*feed, error) {
	f := &feed{q: q}
	if after == "" || after == "0-0" {
		return f, nil
	}
	last, ok := wire.ParseID(after)
	if !ok {
		return nil, fmt.Errorf("%w: %s: event ID %s (want \"\" or <ms>-<seq>)", ErrInvalidRange, q.about(""), quote(after))
	}
	f.last, f.own = last, &last // the reader's own quiz started before the events it saw
	return f, nil
}

// run hands every event to yield, in order, until the finish, an error,
// ctx's end or yield's stop.
func (f *feed) run(ctx context.Context, yield func(Event, error) bool) {
	if err := f.probe(ctx); err != nil {
		yield(Event{}, err)
		return
	}
	if f.end != nil {
		// Finished: nothing is logged any more. Read what is left, and end.
		// A synthetic end at the log's own last ID (no ID can follow it) is
		// yielded once that entry is read, unless the reader resumed there.
		if !f.last.Less(*f.end) || !f.catchUp(ctx, nil, yield) {
			return
		}
		if f.synthetic {
			f.q.s.counts.events.Add(1)
			yield(Event{ID: f.end.String(), Kind: EventFinished, At: f.endAt}, nil)
		}
		return
	}
	for {
		m, pos, err := f.q.s.feeds.join(ctx, f.q, f.questions)
		if err != nil {
			yield(Event{}, f.q.ctxError(ctx, err))
			return
		}
		again := f.follow(ctx, m, pos, yield)
		f.q.s.feeds.leave(f.q, m)
		if !again {
			return
		}
	}
}

// probe reads the quiz's state: its question count, its start entry (when
// reading from the start) and, for a finished quiz, the feed's end.
func (f *feed) probe(ctx context.Context) error {
	st, err := f.q.state(ctx)
	if err != nil {
		return err
	}
	f.questions = int(st.info.Questions)
	if f.own == nil && st.start != nil {
		f.own = &st.start.ID
	}
	if st.info.Status != StatusFinished {
		return nil
	}
	if st.tail != nil && st.tail.Kind == wire.Finish {
		f.end = &st.tail.ID
		return nil
	}
	end, at := feedEnd(st.tail)
	f.end, f.endAt, f.synthetic = &end, at, true
	return nil
}

// feedEnd is the ID and time of the finished event of a quiz finished
// without a finish entry: right after the log's last entry (0-1 for none),
// or that entry's own ID when no ID can follow it.
func feedEnd(tail *logRead) (wire.ID, time.Time) {
	if tail == nil {
		return wire.ID{MS: 0, Seq: 1}, time.Time{}
	}
	end, _ := tail.ID.Next()
	return end, tail.ID.Time()
}

// follow reads the log alone up to pos, the hub's position when m joined,
// then takes m's batches. It reports whether to join again: true when the
// hub dropped m for falling behind.
func (f *feed) follow(ctx context.Context, m *feedMember, pos wire.ID, yield func(Event, error) bool) bool {
	if !f.catchUp(ctx, &pos, yield) {
		return false
	}
	for {
		select {
		case <-ctx.Done():
			yield(Event{}, f.q.ctxError(ctx, ctx.Err()))
			return false
		case b, ok := <-m.ch:
			if !ok {
				return m.lagged
			}
			if !f.hand(b, yield) {
				return false
			}
		}
	}
}

// catchUp reads the log alone, without blocking, and hands its events,
// until the log has no more or f.last reaches upTo (if not nil). It reports
// whether to go on.
func (f *feed) catchUp(ctx context.Context, upTo *wire.ID, yield func(Event, error) bool) bool {
	for upTo == nil || f.last.Less(*upTo) {
		b, last, read := f.q.readAfter(ctx, f.last, 0, f.questions)
		if b.err != nil {
			b.err = f.q.ctxError(ctx, b.err)
		}
		if !f.hand(b, yield) {
			return false
		}
		if !read {
			return true
		}
		if f.last.Less(last) {
			f.last = last // entries that are not events moved the position too
		}
	}
	return true
}

// hand yields the batch's events after f.last (a hub's batch may overlap
// what catchUp read), advancing f.last, then its error. It reports whether
// to go on: false after the finish, an error or a yield that said stop.
func (f *feed) hand(b feedBatch, yield func(Event, error) bool) bool {
	for _, ev := range b.events {
		if !f.last.Less(ev.id) {
			continue
		}
		f.last = ev.id
		if ev.Kind == eventStart {
			if f.own != nil && !f.own.Less(ev.id) {
				continue
			}
			yield(Event{}, f.q.errRecreated())
			return false
		}
		f.q.s.counts.events.Add(1)
		if !yield(ev.Event, nil) || ev.Kind == EventFinished {
			return false
		}
	}
	if b.err != nil {
		yield(Event{}, b.err)
		return false
	}
	return true
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
	q         quiz
	questions int
	pos       wire.ID // the last ID read and handed out (guarded by feedHubs.mu)
	members   map[*feedMember]struct{}
	cancel    context.CancelFunc
}

// feedMember is one iterator's place in a hub: batches arrive on ch; ch is
// closed when the hub drops the member (lagged) or stops (then after its last
// batch, the error one if it failed).
type feedMember struct {
	ch     chan feedBatch
	lagged bool // set before ch is closed: the member fell behind and must catch up alone
}

// join makes a new member of q's hub, starting the hub if none runs, and
// returns it with the hub's position: every event after it reaches the
// member through its ch; the caller reads the log up to it itself. Starting
// a hub reads the quiz's state (the log's last ID) with ctx.
func (hs *feedHubs) join(ctx context.Context, q quiz, questions int) (*feedMember, wire.ID, error) {
	key := q.keys.log
	m := &feedMember{ch: make(chan feedBatch, q.s.tune.memberBuffer)}
	hs.mu.Lock()
	if h, ok := hs.hubs[key]; ok {
		h.members[m] = struct{}{}
		pos := h.pos
		hs.mu.Unlock()
		return m, pos, nil
	}
	hs.mu.Unlock()

	st, err := q.state(ctx)
	if err != nil {
		return nil, wire.ID{}, err
	}
	var pos wire.ID
	if st.tail != nil {
		pos = st.tail.ID
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h, ok := hs.hubs[key]; ok { // another iterator started one meanwhile
		h.members[m] = struct{}{}
		return m, h.pos, nil
	}
	hctx, cancel := context.WithCancel(context.Background())
	h := &feedHub{q: q, questions: questions, pos: pos, members: map[*feedMember]struct{}{m: {}}, cancel: cancel}
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
	tune := h.q.s.tune
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
		b, next, read := h.q.readAfter(ctx, pos, tune.feedBlock, h.questions)
		switch {
		case ctx.Err() != nil:
			return // the last member left: nobody to tell
		case b.err != nil:
			hs.stop(h, b)
			return
		case !read: // timed out: finished without a finish entry?
			st, err := h.q.state(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				hs.stop(h, feedBatch{err: err})
				return
			}
			if st.info.Status != StatusFinished || st.tail != nil && st.tail.ID != pos {
				continue // running, or entries arrived since: read them first
			}
			end, at := feedEnd(st.tail)
			hs.stop(h, feedBatch{events: []logEvent{{Event{ID: end.String(), Kind: EventFinished, At: at}, end}}})
			return
		}
		pos = next
		if n := len(b.events); n > 0 && b.events[n-1].Kind == EventFinished {
			hs.stop(h, b)
			return
		}
		hs.broadcast(h, pos, b)
	}
}

// broadcast hands b to every member without waiting: a member whose buffer
// is full is dropped (lagged) and catches up alone. pos is the hub's new
// position, set under the same lock, so that a member joining later reads up
// to exactly where its first batch starts.
func (hs *feedHubs) broadcast(h *feedHub, pos wire.ID, b feedBatch) {
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
