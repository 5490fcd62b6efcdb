package kuis

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// EventKind is what an [Event] reports.
type EventKind string

// The kinds of events the feed carries.
const (
	EventAnswer   EventKind = "answer"   // a counted answer (never a Duplicate, never a refusal)
	EventFinished EventKind = "finished" // the teacher finished the quiz
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

// Log entry fields beyond the answer's (answerlog.go): the finish entry.
const (
	logScore  = "skor"
	logStatus = "status"
)

// isFinishEntry reports whether a log entry is the finish entry: the single
// field status = selesai (finish.lua).
func isFinishEntry(fields map[string]string) bool {
	return len(fields) == 1 && fields[logStatus] == string(StatusFinished)
}

// Tuning of the feed, variables so that tests can shorten them.
var (
	// feedBlock is how long one XREAD blocks. Between two, the feed checks the
	// status, to end on a quiz finished without a finish entry.
	feedBlock = 5 * time.Second
	// feedCount is the most entries one XREAD returns.
	feedCount int64 = 1000
	// feedGap is the least time between two XREADs of a feed hub.
	feedGap = 5 * time.Millisecond
)

// Bounds of Live.
const (
	maxLiveTop   = 1000
	minLiveEvery = 50 * time.Millisecond
)

// Events is the quiz's feed: every event after the event ID after ("" means
// from the start of the quiz), in order, then each new one as it is written,
// until the quiz is finished or ctx ends. The EventFinished event is the last
// one: the iterator stops after it. When ctx ends it yields ctx's error once
// (errors.Is(err, context.Canceled) or context.DeadlineExceeded) and stops;
// any other error is yielded once and ends it too. A reader that calls Events
// again with the last ID it saw misses nothing and sees nothing twice; called
// after the EventFinished's ID, it yields nothing and stops. Works on Redis
// Cluster (one key).
//
// The feed is the answer log (Keys.Log), with one entry per counted answer
// and one for the finish, each written by the same script as the write it
// describes. Events starts with HGETALL meta and XREVRANGE log + - COUNT 1
// (O(1)), reads what is already logged with XREAD COUNT 1000 (O(M) for M
// entries), then waits for new entries. The Events iterators of one Store
// that follow the same quiz share one reader, which blocks in XREAD COUNT
// 1000 BLOCK 5000 on a connection of rueidis' dedicated pool, reads at most
// once per 5 ms (a busy quiz's events arrive in batches, a few ms late), and
// hands each batch to every iterator: a hundred screens cost the server what
// one does. The reader stops when its last iterator does; ctx ends an
// iterator at once. An iterator that falls 64 batches behind reads the log
// alone until it catches up. Each XREAD that times out is followed by
// HGETALL meta, so that a quiz finished without a finish entry (one whose
// answers predate the log, or one finished by a plain HSET) ends the feed
// within 5 s, with an EventFinished of an ID of its own, right after the last
// logged entry's (its At is that entry's time, zero for a quiz without a log).
//
// Events are kept as long as the quiz: the log has no TTL and is deleted with
// the quiz's other keys by PurgeQuiz or Purge. An event costs the server
// about 36 bytes of memory (measured over a million answers; BENCHMARKS.md).
//
// Errors (yielded): ErrInvalidRange for an after that is not "" or an event
// ID (<ms>-<seq>), before any I/O; ErrQuizNotFound; ErrCorrupt for a log or
// meta key of the wrong type or an answer entry of the wrong shape (entries
// that are neither answers nor the finish are skipped).
func (b *Board) Events(ctx context.Context, after string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		last := after
		if last == "" {
			last = "0-0"
		}
		if _, _, ok := parseEventID(last); !ok {
			yield(Event{}, fmt.Errorf("%w: %s: event ID %s (want \"\" or <ms>-<seq>)", ErrInvalidRange, b.q.about(""), quote(after)))
			return
		}
		f := feed{b: b, last: last}
		f.run(ctx, yield)
	}
}

// feed is one run of Events: the last ID handed out, and the end the status
// probe found, if any.
type feed struct {
	b    *Board
	last string
	// end is the ID after which the feed ends: the finish entry's, or for a
	// quiz finished without one, an ID of the feed's own right after the log's
	// last entry (synthetic: yielded as an EventFinished when reached).
	end       string
	synthetic bool
	endAt     time.Time
}

func (f *feed) run(ctx context.Context, yield func(Event, error) bool) {
	if err := f.probe(ctx); err != nil {
		yield(Event{}, err)
		return
	}
	if f.end != "" {
		// Finished: nothing is logged any more. Read what is left, and end.
		if !idLess(f.last, f.end) || !f.drain(ctx, "", yield) {
			return
		}
		if f.synthetic && idLess(f.last, f.end) {
			yield(Event{ID: f.end, Kind: EventFinished, At: f.endAt}, nil)
		}
		return
	}
	for {
		m, pos, err := f.b.q.feeds.join(ctx, f.b.q)
		if err != nil {
			yield(Event{}, f.ctxError(ctx, err))
			return
		}
		again := f.follow(ctx, m, pos, yield)
		f.b.q.feeds.leave(f.b.q, m)
		if !again {
			return
		}
	}
}

// follow reads the log alone up to pos, the hub's position when m joined,
// then takes m's batches. It reports whether to join again: true when the
// hub dropped m for falling behind.
func (f *feed) follow(ctx context.Context, m *feedMember, pos string, yield func(Event, error) bool) bool {
	if !f.drain(ctx, pos, yield) {
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
		return fmt.Errorf("kuis: %s: %w", f.b.q.about(""), ctx.Err())
	}
	return err
}

// drain hands every entry after f.last, without blocking (XREAD COUNT 1000,
// no BLOCK), until the log has no more or f.last reaches upTo (if not ""). It
// reports whether to go on.
func (f *feed) drain(ctx context.Context, upTo string, yield func(Event, error) bool) bool {
	k, c := f.b.q.keys, f.b.q.client
	for upTo == "" || idLess(f.last, upTo) {
		cmd := c.B().Xread().Count(feedCount).Streams().Key(k.log).Id(f.last).Build()
		entries, err := readStream(c.Do(ctx, cmd), k.log)
		if err != nil {
			yield(Event{}, f.ctxError(ctx, f.b.q.fail(err, "", k.log)))
			return false
		}
		if len(entries) == 0 {
			return true
		}
		if !f.hand(entries, yield) {
			return false
		}
	}
	return true
}

// hand yields log entries as events, advancing f.last. It reports whether
// to go on: false after the finish entry, a corrupt entry, or a yield that
// said stop.
func (f *feed) hand(entries []rueidis.XRangeEntry, yield func(Event, error) bool) bool {
	for _, e := range entries {
		ev, ok, err := decodeEvent(e)
		if err != nil {
			yield(Event{}, corrupt(f.b.q.keys.log, "entry %s: %v", e.ID, err))
			return false
		}
		f.last = e.ID
		if !ok {
			continue
		}
		if !yield(ev, nil) || ev.Kind == EventFinished {
			return false
		}
	}
	return true
}

// handEvents yields a hub's events after f.last (a batch may overlap what
// drain read), advancing f.last, with hand's result.
func (f *feed) handEvents(events []Event, yield func(Event, error) bool) bool {
	fresh := len(events) > 0 && idLess(f.last, events[0].ID) // the usual case: no ID to compare
	for _, ev := range events {
		if !fresh && !idLess(f.last, ev.ID) {
			continue
		}
		f.last = ev.ID
		if !yield(ev, nil) || ev.Kind == EventFinished {
			return false
		}
	}
	return true
}

// probe reads the status and the log's last entry (HGETALL meta, then
// XREVRANGE log + - COUNT 1, in one round trip, in that order: once the status
// says selesai, nothing is logged after the last entry read) and sets the
// feed's end when the quiz is finished.
func (f *feed) probe(ctx context.Context) error {
	st, tail, err := f.b.q.feedState(ctx)
	if err != nil || st != StatusFinished {
		return err
	}
	if tail != nil && isFinishEntry(tail.FieldValues) {
		f.end = tail.ID
		return nil
	}
	f.end, f.endAt = syntheticEnd(tail)
	f.synthetic = true
	return nil
}

// feedState reads the quiz's status and the log's last entry (nil for an
// empty or missing log).
func (q quiz) feedState(ctx context.Context) (Status, *rueidis.XRangeEntry, error) {
	k, c := q.keys, q.client
	res := c.DoMulti(ctx,
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
	return st, &tail[0], nil
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

// decodeEvent turns a log entry into an event: ok is false for an entry that
// is neither an answer nor the finish (skipped), err set for an answer entry
// of the wrong shape.
func decodeEvent(e rueidis.XRangeEntry) (Event, bool, error) {
	ms, _, ok := parseEventID(e.ID)
	if !ok {
		return Event{}, false, fmt.Errorf("ID is not <ms>-<seq>")
	}
	at := time.UnixMilli(int64(ms)).UTC()
	if isFinishEntry(e.FieldValues) {
		return Event{ID: e.ID, Kind: EventFinished, At: at}, true, nil
	}
	p, isAnswer := e.FieldValues[logParticipant]
	if !isAnswer {
		return Event{}, false, nil
	}
	question, err := strconv.Atoi(e.FieldValues[logQuestion])
	if err != nil || question < 1 || !validText(p, maxParticipantLen) {
		return Event{}, false, fmt.Errorf("want fields %s and %s", logParticipant, logQuestion)
	}
	score, err := strconv.ParseInt(e.FieldValues[logScore], 10, 64)
	if err != nil || score < 10 || score%10 != 0 {
		return Event{}, false, fmt.Errorf("field %s is %s, want a positive multiple of 10", logScore, quote(e.FieldValues[logScore]))
	}
	return Event{ID: e.ID, Kind: EventAnswer, Participant: p, Question: question, Score: score, At: at}, true, nil
}

// parseEventID splits a stream ID "<ms>-<seq>" (both decimal, no sign).
func parseEventID(id string) (ms, seq uint64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found || a == "" || b == "" || len(id) > 41 {
		return 0, 0, false
	}
	var err1, err2 error
	ms, err1 = strconv.ParseUint(a, 10, 64)
	seq, err2 = strconv.ParseUint(b, 10, 64)
	return ms, seq, err1 == nil && err2 == nil
}

// idLess reports whether stream ID a comes before b; both must parse.
func idLess(a, b string) bool {
	am, as, _ := parseEventID(a)
	bm, bs, _ := parseEventID(b)
	return am < bm || am == bm && as < bs
}

// Live yields the top top standings (1 to 1000) as Page(ctx, 0, top) reads
// them: once at the start, then again whenever the quiz changed, at most once
// per every (50 ms or more). It is throttled, not debounced: a busy quiz still
// refreshes every every. It ends after the quiz is finished and the final
// board was yielded; when ctx ends it yields ctx's error once and stops; any
// other error is yielded once and ends it too.
//
// Cost per reader: one probe per every (HGETALL meta and XREVRANGE log + -
// COUNT 1 in one round trip, O(1)), and one board read (Page: HLEN and ZRANGE
// ... REV WITHSCORES, O(log N + top)) only when the log's last entry or the
// status changed since the last board: never one read per answer. It starts
// no goroutine. Errors (yielded): ErrInvalidRange for a top outside 1 to 1000
// or an every below 50 ms, before any I/O; ErrQuizNotFound; ErrCorrupt.
func (b *Board) Live(ctx context.Context, top int, every time.Duration) iter.Seq2[[]Standing, error] {
	return func(yield func([]Standing, error) bool) {
		if top < 1 || top > maxLiveTop || every < minLiveEvery {
			yield(nil, fmt.Errorf("%w: %s: top %d, every %v (want top 1 to %d, every at least %v)",
				ErrInvalidRange, b.q.about(""), top, every, maxLiveTop, minLiveEvery))
			return
		}
		seen := ""
		tick := time.NewTicker(every)
		defer tick.Stop()
		for first := true; ; first = false {
			st, tail, err := b.q.feedState(ctx)
			if err != nil {
				yield(nil, b.liveError(ctx, err))
				return
			}
			id := ""
			if tail != nil {
				id = tail.ID
			}
			finished := st == StatusFinished
			if first || finished || id != seen {
				seen = id
				page, err := b.Page(ctx, 0, top)
				if err != nil {
					yield(nil, b.liveError(ctx, err))
					return
				}
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
