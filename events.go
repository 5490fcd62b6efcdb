package kuis

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/redis/rueidis"
)

// EventKind is what an [Event] reports.
type EventKind string

// The kinds of events the feed carries.
const (
	EventAnswer   EventKind = "answer"   // a counted answer (never a Duplicate, never a refusal)
	EventFinished EventKind = "finished" // the teacher finished the quiz

	// eventStart is the log's start entry, never yielded: its quiz's own
	// start, or a sign that the quiz was purged and created anew.
	eventStart EventKind = "start"
)

// Event is one entry of a quiz's feed ([Board.Events]): an entry of the
// answer log (Keys.Log), written by the same atomic script as the write it
// describes, so an event exists if and only if that write happened.
type Event struct {
	ID          string    `json:"id"` // opaque, increasing; resume after it
	Kind        EventKind `json:"kind"`
	Participant string    `json:"participant,omitempty"`
	Question    int       `json:"question,omitempty"`
	Score       int64     `json:"score,omitempty"` // the participant's score after this answer
	At          time.Time `json:"at"`              // server time, to the millisecond
}

// Bounds of Live.
const (
	maxLiveTop   = 1000
	minLiveEvery = 50 * time.Millisecond
)

// Events is the quiz's feed: every event after the event ID after ("" means
// from the start of the quiz), in order, then each new one as it is written,
// until the quiz is finished or ctx ends. The feed is the answer log: an
// event exists if and only if the write it describes happened. The
// EventFinished event is the last one: the iterator stops after it. A reader
// that calls Events again with the last ID it saw misses nothing and sees
// nothing twice; called after the EventFinished's ID, it yields nothing and
// stops. When ctx ends it yields ctx's error once (errors.Is(err,
// context.Canceled) or context.DeadlineExceeded) and stops; any other error is
// yielded once and ends it too. Works on Redis Cluster (one key).
//
// It reads what is already logged, O(M) for M entries, then waits for new
// entries. The Events iterators of one Store that follow the same quiz share
// one blocking reader, which hands each batch of events to every iterator: a
// hundred screens cost the server what one does; a busy quiz's events arrive
// in batches, a few milliseconds late. An iterator that falls behind reads the
// log alone until it catches up. A quiz finished without a finish entry (one
// whose answers predate the log, or one finished by a plain HSET) ends the
// feed within seconds, with an EventFinished of an ID of its own, right after
// the last logged entry's (its At is that entry's time, zero for a quiz
// without a log). Events are kept as long as the quiz: the log has no TTL and
// is deleted with the quiz's other keys by PurgeQuiz or Purge.
//
// Errors (yielded): ErrInvalidRange for an after that is not "" or an event ID
// (<ms>-<seq>), before any I/O; ErrQuizNotFound, also when the quiz was
// purged and a new quiz of the same ID created in a later millisecond (the
// new quiz's log starts with an entry that sorts after the old one's: a
// reader following or resuming the old quiz never sees the new one's
// events); ErrCorrupt for a log or meta
// key of the wrong type or an answer entry of the wrong shape (entries that
// are neither answers nor the finish are skipped); ErrForbidden. An invalid
// after and a missing quiz are the first value yielded, before any blocking
// read, so a handler can pull that value (iter.Pull2) and answer 400 or 404
// before it writes its headers.
func (b *Board) Events(ctx context.Context, after string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		b.q.s.counts.readers.Add(1)
		defer b.q.s.counts.readers.Add(-1)
		var last streamID // 0-0: no entry has it, so XREAD from it reads the whole log
		if after != "" {
			var ok bool
			if last, ok = parseStreamID(after); !ok {
				yield(Event{}, fmt.Errorf("%w: %s: event ID %s (want \"\" or <ms>-<seq>)", ErrInvalidRange, b.q.about(""), quote(after)))
				return
			}
		}
		f := feed{q: b.q, last: last}
		if after != "" {
			f.own = &last // the reader's own quiz started before the events it saw
		}
		f.run(ctx, yield)
	}
}

// feed is one run of Events: the last ID handed out, and the end the status
// probe found, if any.
type feed struct {
	q    quiz
	last streamID
	// own bounds the reader's own quiz's start entry: a start entry after it
	// (or any, when nil) is another quiz's, of the same ID.
	own *streamID
	// end is the ID after which the feed ends: the finish entry's, or for a
	// quiz finished without one, the synthetic end (feedEnd).
	end       *streamID
	synthetic bool
	endAt     time.Time
}

func (f *feed) run(ctx context.Context, yield func(Event, error) bool) {
	if err := f.probe(ctx); err != nil {
		yield(Event{}, err)
		return
	}
	if f.end != nil {
		// Finished: nothing is logged any more. Read what is left, and end.
		// A synthetic end at the log's own last ID (no ID can follow it) is
		// yielded once that entry is read, unless the reader resumed there.
		start := f.last
		if !start.less(*f.end) || !f.drain(ctx, nil, yield) {
			return
		}
		if f.synthetic {
			f.q.s.counts.events.Add(1)
			yield(Event{ID: f.end.String(), Kind: EventFinished, At: f.endAt}, nil)
		}
		return
	}
	for {
		m, pos, err := f.q.s.feeds.join(ctx, f.q)
		if err != nil {
			yield(Event{}, f.ctxError(ctx, err))
			return
		}
		again := f.follow(ctx, m, pos, yield)
		f.q.s.feeds.leave(f.q, m)
		if !again {
			return
		}
	}
}

// follow reads the log alone up to pos, the hub's position when m joined,
// then takes m's batches. It reports whether to join again: true when the
// hub dropped m for falling behind.
func (f *feed) follow(ctx context.Context, m *feedMember, pos streamID, yield func(Event, error) bool) bool {
	if !f.drain(ctx, &pos, yield) {
		return false
	}
	for {
		select {
		case <-ctx.Done():
			yield(Event{}, f.ctxError(ctx, ctx.Err()))
			return false
		case b, ok := <-m.ch:
			if !ok {
				return m.lagged
			}
			if !f.handEvents(b.events, yield) {
				return false
			}
			if b.err != nil {
				yield(Event{}, b.err)
				return false
			}
		}
	}
}

// ctxError prefers ctx's own error when ctx ended during a read.
func (f *feed) ctxError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("kuis: %s: %w", f.q.about(""), ctx.Err())
	}
	return err
}

// drain hands every entry after f.last, without blocking (XREAD COUNT 1000,
// no BLOCK), until the log has no more or f.last reaches upTo (if not nil).
// It reports whether to go on.
func (f *feed) drain(ctx context.Context, upTo *streamID, yield func(Event, error) bool) bool {
	k, c := f.q.keys, f.q.s.client
	for upTo == nil || f.last.less(*upTo) {
		cmd := c.B().Xread().Count(f.q.s.tune.pageSize).Streams().Key(k.log).Id(f.last.String()).Build()
		f.q.s.counts.feedReads.Add(1)
		entries, err := readStream(sendOne(ctx, c, cmd), k.log)
		if err != nil {
			yield(Event{}, f.ctxError(ctx, f.q.fail(err, "", k.log)))
			return false
		}
		if len(entries) == 0 {
			return true
		}
		events, err := decodeEvents(k.log, entries)
		if !f.handEvents(events, yield) {
			return false
		}
		if err != nil {
			yield(Event{}, err)
			return false
		}
		if id, ok := parseStreamID(entries[len(entries)-1].ID); ok && f.last.less(id) {
			f.last = id // entries that are not events moved the position too
		}
	}
	return true
}

// handEvents yields events after f.last (a hub's batch may overlap what
// drain read), advancing f.last. It reports whether to go on: false after
// the finish or a yield that said stop.
func (f *feed) handEvents(events []Event, yield func(Event, error) bool) bool {
	for _, ev := range events {
		id, _ := parseStreamID(ev.ID)
		if !f.last.less(id) {
			continue
		}
		f.last = id
		if ev.Kind == eventStart {
			if f.own != nil && !f.own.less(id) {
				continue
			}
			yield(Event{}, fmt.Errorf("%w: %s: purged, and created again", ErrQuizNotFound, f.q.about("")))
			return false
		}
		f.q.s.counts.events.Add(1)
		if !yield(ev, nil) || ev.Kind == EventFinished {
			return false
		}
	}
	return true
}

// decodeEvents turns log entries into events, skipping entries that are
// neither answers nor the finish; it stops at the first corrupt entry, with
// the events before it.
func decodeEvents(key string, entries []rueidis.XRangeEntry) ([]Event, error) {
	events := make([]Event, 0, len(entries))
	for _, raw := range entries {
		e, err := decodeEntry(raw)
		if err != nil {
			return events, corrupt(key, "%v", err)
		}
		switch e.kind {
		case entryAnswer:
			events = append(events, Event{ID: raw.ID, Kind: EventAnswer, Participant: e.participant,
				Question: e.question, Score: e.score, At: e.id.time()})
		case entryFinish:
			events = append(events, Event{ID: raw.ID, Kind: EventFinished, At: e.id.time()})
		case entryStart:
			events = append(events, Event{ID: raw.ID, Kind: eventStart})
		}
	}
	return events, nil
}

// probe reads the status and the log's last entry (feedState) and sets the
// feed's end when the quiz is finished.
func (f *feed) probe(ctx context.Context) error {
	st, tail, err := f.q.feedState(ctx)
	if err != nil {
		return err
	}
	if f.own == nil && tail != nil {
		f.own = &tail.id // read from the start: the quiz's start entry is logged by now
	}
	if st != StatusFinished {
		return nil
	}
	if tail != nil && tail.kind == entryFinish {
		f.end = &tail.id
		return nil
	}
	end, at := feedEnd(tail)
	f.end, f.endAt, f.synthetic = &end, at, true
	return nil
}

// feedState reads the quiz's status and the log's last entry (nil for an
// empty or missing log) in one round trip, HGETALL meta first: once the
// status says selesai, nothing is logged after the entry read.
func (q quiz) feedState(ctx context.Context) (Status, *logEntry, error) {
	k, c := q.keys, q.s.client
	res := send(ctx, c,
		c.B().Hgetall().Key(k.meta).Build(),
		c.B().Xrevrange().Key(k.log).End("+").Start("-").Count(1).Build())
	fields, err := res[0].AsStrMap()
	if err != nil {
		return "", nil, q.fail(err, "", k.meta)
	}
	if len(fields) == 0 {
		return "", nil, q.errNotFound()
	}
	s, ok := fields[fieldStatus]
	if !ok {
		return "", nil, corrupt(k.meta, "field status is missing")
	}
	st, err := decodeStatus(k.meta, s)
	if err != nil {
		return "", nil, err
	}
	tail, err := res[1].AsXRange()
	if err != nil {
		return "", nil, q.fail(err, "", k.log)
	}
	if len(tail) == 0 {
		return st, nil, nil
	}
	e, err := decodeEntry(tail[0])
	if err != nil {
		return "", nil, corrupt(k.log, "%v", err)
	}
	return st, &e, nil
}

// feedEnd is the ID and time of the finished event of a quiz finished
// without a finish entry: right after the log's last entry (0-1 for none),
// or that entry's own ID when no ID can follow it.
func feedEnd(tail *logEntry) (streamID, time.Time) {
	if tail == nil {
		return streamID{0, 1}, time.Time{}
	}
	end, _ := tail.id.next()
	return end, tail.id.time()
}

// readStream decodes an XREAD reply of the one stream key: nil for XREAD's
// nil reply (the block timed out), never an error for it.
func readStream(res rueidis.RedisResult, key string) ([]rueidis.XRangeEntry, error) {
	streams, err := res.AsXRead()
	if rueidis.IsRedisNil(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries := streams[key]
	if entries == nil {
		entries = []rueidis.XRangeEntry{}
	}
	return entries, nil
}

// Live yields the top top standings (1 to 1000) as Page(ctx, 0, top) reads
// them: once at the start, then again whenever the quiz changed, at most once
// per every (50 ms or more). It is throttled, not debounced: a busy quiz still
// refreshes every every. It ends after the quiz is finished and the final
// board was yielded; when ctx ends it yields ctx's error once and stops; any
// other error is yielded once and ends it too. Each interval costs one O(1)
// probe of the status and the log's last entry, and a board read only when
// they changed: never one read per answer. It starts no goroutine.
//
// Errors (yielded): ErrInvalidRange for a top outside 1 to 1000 or an every
// below 50 ms, before any I/O; ErrQuizNotFound; ErrCorrupt; ErrForbidden.
// Invalid bounds and a missing quiz are the first value yielded, before any
// wait, as with Events.
func (b *Board) Live(ctx context.Context, top int, every time.Duration) iter.Seq2[[]Standing, error] {
	return func(yield func([]Standing, error) bool) {
		b.q.s.counts.readers.Add(1)
		defer b.q.s.counts.readers.Add(-1)
		if top < 1 || top > maxLiveTop || every < minLiveEvery {
			yield(nil, fmt.Errorf("%w: %s: top %d, every %v (want top 1 to %d, every at least %v)",
				ErrInvalidRange, b.q.about(""), top, every, maxLiveTop, minLiveEvery))
			return
		}
		var seen *streamID
		tick := time.NewTicker(every)
		defer tick.Stop()
		for first := true; ; first = false {
			st, tail, err := b.q.feedState(ctx)
			if err != nil {
				yield(nil, b.liveError(ctx, err))
				return
			}
			var id *streamID
			if tail != nil {
				id = &tail.id
			}
			finished := st == StatusFinished
			if first || finished || (id == nil) != (seen == nil) || id != nil && *id != *seen {
				seen = id
				page, err := b.Page(ctx, 0, top)
				if err != nil {
					yield(nil, b.liveError(ctx, err))
					return
				}
				b.q.s.counts.refreshes.Add(1)
				if !yield(page, nil) || finished {
					return
				}
			}
			select {
			case <-ctx.Done():
				yield(nil, fmt.Errorf("kuis: %s: %w", b.q.about(""), ctx.Err()))
				return
			case <-tick.C:
			}
		}
	}
}

// liveError prefers ctx's own error when ctx ended during a read.
func (b *Board) liveError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("kuis: %s: %w", b.q.about(""), ctx.Err())
	}
	return err
}
