package kuis

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/kuisboard/kuis/internal/wire"
)

// EventKind is what an [Event] reports.
type EventKind string

// The kinds of events the feed carries.
const (
	EventAnswer   EventKind = "answer"   // a counted answer (never a Duplicate, never a refusal)
	EventJoined   EventKind = "joined"   // a participant put on the board with 0 points (Board.Join)
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
	Question    int       `json:"question,omitempty"` // 0 for a join
	Score       int64     `json:"score,omitempty"`    // the participant's score after this answer; 0 for a join
	At          time.Time `json:"at"`                 // server time, to the millisecond
}

// Bounds of Live.
const (
	maxLiveTop   = 1000
	minLiveEvery = 50 * time.Millisecond
)

// Events is the quiz's feed: every event after the event ID after ("", and
// Redis's "0-0", mean from the start of the quiz), in order (answers and
// joins as the log holds them, then the finish), then each new one as it is written,
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
// key of the wrong type or an answer or join entry of the wrong shape
// (entries that are neither answers, joins nor the finish are skipped);
// ErrForbidden. An invalid
// after and a missing quiz are the first value yielded, before any blocking
// read, so a handler can pull that value (iter.Pull2) and answer 400 or 404
// before it writes its headers.
func (b *Board) Events(ctx context.Context, after string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		b.q.s.counts.readers.Add(1)
		defer b.q.s.counts.readers.Add(-1)
		f, err := b.q.newFeed(after)
		if err != nil {
			yield(Event{}, err)
			return
		}
		f.run(ctx, yield)
	}
}

// Live yields the top top standings (1 to 1000) as Page(ctx, 0, top) reads
// them: once at the start, then again whenever the quiz changed, at most once
// per every (50 ms or more). It is throttled, not debounced: a busy quiz still
// refreshes every every. It ends after the quiz is finished and the final
// board was yielded; when ctx ends it yields ctx's error once and stops; any
// other error is yielded once and ends it too. Each interval costs one O(1)
// probe of the status and the log's two ends, and a board read only when
// they changed: never one read per answer. It starts no goroutine.
//
// Errors (yielded): ErrInvalidRange for a top outside 1 to 1000 or an every
// below 50 ms, before any I/O; ErrQuizNotFound, also when the quiz is purged
// while Live follows it, or purged and created again under its ID (its log
// starts anew); ErrCorrupt; ErrForbidden.
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
		var start, seen *wire.ID // the log's first and last entries when the board was last read
		tick := time.NewTicker(every)
		defer tick.Stop()
		for first := true; ; first = false {
			st, err := b.q.state(ctx)
			if err != nil {
				yield(nil, b.q.ctxError(ctx, err))
				return
			}
			var head, tail *wire.ID
			if st.start != nil {
				head, tail = &st.start.ID, &st.tail.ID
			}
			if !first && !sameID(start, head) {
				yield(nil, b.q.errRecreated())
				return
			}
			finished := st.info.Status == StatusFinished
			if first || finished || !sameID(seen, tail) {
				start, seen = head, tail
				page, err := b.Page(ctx, 0, top)
				if err != nil {
					yield(nil, b.q.ctxError(ctx, err))
					return
				}
				b.q.s.counts.refreshes.Add(1)
				if !yield(page, nil) || finished {
					return
				}
			}
			select {
			case <-ctx.Done():
				yield(nil, b.q.ctxError(ctx, ctx.Err()))
				return
			case <-tick.C:
			}
		}
	}
}

// sameID reports whether two optional IDs are both absent or equal.
func sameID(a, b *wire.ID) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
