package kuis

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// A whole quiz as one read found it, and the rules every reader of a whole
// quiz (Recap, Audit, Repair) takes from it: which answers are counted,
// when each was counted, and so where each participant is placed.

// snapshot is the keys of one quiz as one read found them.
type snapshot struct {
	fields  map[string]string // the meta hash (empty: none)
	info    Info              // fields decoded, when infoErr is nil
	infoErr error
	board   []rueidis.ZScore // the board, by score then name, descending (ZRANGE ... REV)
	order   []rueidis.ZScore // the order set, likewise; nil when not read
	members []string         // the answers set
	log     []logRead        // the log, in order
}

// logRead is one log entry as read, with what is wrong with it if it is
// not a whole entry (an answer that does not decode, say).
type logRead struct {
	wire.Entry
	err error
}

// questions is the bound of the quiz's question numbers: its jumlah_soal,
// or the most any quiz has when meta does not decode.
func (s *snapshot) questions() int {
	if s.infoErr != nil {
		return wire.MaxQuestions
	}
	return int(s.info.Questions)
}

// setMeta takes the meta hash as read.
func (s *snapshot) setMeta(q quiz, fields map[string]string) {
	s.fields = fields
	s.info, s.infoErr = q.decodeMeta(fields, nil, needAll)
}

// readEntry decodes one entry the log returned, of a quiz of questions
// questions, keeping what is wrong with it in err; ok is false when its ID
// is no stream ID, so that it has no place in the log.
func readEntry(raw rueidis.XRangeEntry, questions int) (e logRead, ok bool) {
	e.Entry, e.err = wire.DecodeEntry(raw.ID, raw.FieldValues, questions)
	_, ok = wire.ParseID(raw.ID)
	return e, ok
}

// addEntries decodes log entries as read, in order.
func (s *snapshot) addEntries(entries []rueidis.XRangeEntry) {
	for _, raw := range entries {
		e, _ := readEntry(raw, s.questions()) // a bad ID is the entry's err, for the reader to judge
		s.log = append(s.log, e)
	}
}

// parts names the keys a paged read takes.
type parts struct{ meta, board, order, answers, log bool }

// readPages reads the parts of the quiz asked for, in pages on c,
// so that no step holds the server long: HGETALL meta, ZSCAN of the board
// and the order set, SSCAN of the answers set and XRANGE of the log, each
// COUNT pageSize. The pages are of different moments. A key of the wrong
// type is ErrCorrupt.
func (q quiz) readPages(ctx context.Context, c rueidis.CommandClient, p parts) (snapshot, error) {
	k, pages := q.keys, q.pager(c)
	var s snapshot
	var err error
	if p.meta {
		fields, err := q.s.sendOne(ctx, c, c.B().Hgetall().Key(k.meta).Build()).AsStrMap()
		if err != nil {
			return s, q.fail(err, "", k.meta)
		}
		s.setMeta(q, fields)
	} else {
		s.setMeta(q, nil)
	}
	if p.board {
		if s.board, err = pages.sorted(ctx, k.board); err != nil {
			return s, err
		}
	}
	if p.order {
		if s.order, err = pages.sorted(ctx, k.order); err != nil {
			return s, err
		}
	}
	if p.answers {
		if s.members, err = pages.members(ctx, k.answers); err != nil {
			return s, err
		}
	}
	if p.log {
		if err := q.readLog(ctx, c, &s); err != nil {
			return s, err
		}
	}
	return s, nil
}

// readLog adds every entry of the log to s, in pages of XRANGE ... COUNT
// pageSize on c.
func (q quiz) readLog(ctx context.Context, c rueidis.CommandClient, s *snapshot) error {
	k, start := q.keys.log, "-"
	for {
		entries, err := q.s.sendOne(ctx, c, c.B().Xrange().Key(k).Start(start).End("+").Count(q.s.tune.pageSize).Build()).AsXRange()
		if err != nil {
			return q.fail(err, "", k)
		}
		s.addEntries(entries)
		if int64(len(entries)) < q.s.tune.pageSize {
			return nil
		}
		last, ok := wire.ParseID(entries[len(entries)-1].ID)
		if !ok {
			return corrupt(k, "entry ID %s is not <ms>-<seq>", quote(entries[len(entries)-1].ID))
		}
		next, ok := last.Next()
		if !ok {
			return nil // the greatest ID: nothing can follow it
		}
		start = next.String()
	}
}

// readAttempts is how many times whole keys are read on a connection that
// watches them (a big quiz read in parts, a course read whole) before the
// read gives up because they changed each time (ErrBusy).
const readAttempts = 3

// pager reads whole keys in pages of a SCAN-family command on one
// connection, COUNT pageSize each, so that no step holds the server long:
// the one paged reader of a quiz's and a course's keys.
type pager struct {
	s       *sender
	c       rueidis.CommandClient
	count   int64
	subject string // whose keys, as error messages name it
}

// pager is a pager of the quiz's keys on c.
func (q quiz) pager(c rueidis.CommandClient) pager {
	return pager{s: &q.s.sender, c: c, count: q.s.tune.pageSize, subject: q.about("")}
}

// members reads a set whole with SSCAN, each member once (SSCAN may return
// one twice), sorted.
func (p pager) members(ctx context.Context, key string) ([]string, error) {
	var members []string
	err := p.scan(ctx, key, func(cursor uint64) rueidis.Completed {
		return p.c.B().Sscan().Key(key).Cursor(cursor).Count(p.count).Build()
	}, func(page []string) error {
		members = append(members, page...)
		return nil
	})
	slices.Sort(members)
	return slices.Compact(members), err
}

// fields reads the fields of a hash that match pattern with HSCAN, each
// once (HSCAN may return one twice).
func (p pager) fields(ctx context.Context, key, pattern string) (map[string]string, error) {
	fields := map[string]string{}
	err := p.scan(ctx, key, func(cursor uint64) rueidis.Completed {
		return p.c.B().Hscan().Key(key).Cursor(cursor).Match(pattern).Count(p.count).Build()
	}, func(flat []string) error {
		for i := 0; i+1 < len(flat); i += 2 {
			fields[flat[i]] = flat[i+1]
		}
		return nil
	})
	return fields, err
}

// sorted reads a sorted set whole with ZSCAN and returns it in ZRANGE ...
// REV's order: by score, then by name, both descending.
func (p pager) sorted(ctx context.Context, key string) ([]rueidis.ZScore, error) {
	scores := map[string]float64{}
	err := p.scan(ctx, key, func(cursor uint64) rueidis.Completed {
		return p.c.B().Zscan().Key(key).Cursor(cursor).Count(p.count).Build()
	}, func(flat []string) error {
		for i := 0; i+1 < len(flat); i += 2 {
			f, err := strconv.ParseFloat(flat[i+1], 64)
			if err != nil {
				return corrupt(key, "member %s has score %s", quote(flat[i]), quote(flat[i+1]))
			}
			scores[flat[i]] = f
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	zs := make([]rueidis.ZScore, 0, len(scores))
	for m, s := range scores {
		zs = append(zs, rueidis.ZScore{Member: m, Score: s})
	}
	slices.SortFunc(zs, func(a, b rueidis.ZScore) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(b.Member, a.Member))
	})
	return zs, nil
}

// scan runs a SCAN-family command from cursor 0 until it is 0 again.
func (p pager) scan(ctx context.Context, key string, cmd func(uint64) rueidis.Completed, page func([]string) error) error {
	var cursor uint64
	for {
		entry, err := p.s.sendOne(ctx, p.c, cmd(cursor)).AsScanEntry()
		if err != nil {
			return replyError(err, p.subject, key)
		}
		if err := page(entry.Elements); err != nil {
			return err
		}
		if cursor = entry.Cursor; cursor == 0 {
			return nil
		}
	}
}

// counting is what the answers set and the log say together, by the rules
// every reader of a whole quiz shares:
//   - an answer is counted when its pair is in the answers set: a logged
//     answer whose pair is not there is no grade (Audit reports it);
//   - a counted answer's time is its first log entry's; a counted answer
//     without an entry (written before the log existed) has none;
//   - a participant's place holds the time of their latest counted answer
//     in the log's order, or none when a place cannot hold that time;
//   - a participant with a join entry in the log belongs on the board, with
//     0 points until an answer counts; without a counted answer, their
//     place holds the time of their latest join entry.
type counting struct {
	counts  map[string]int64 // participant -> counted answers
	correct []int            // per question, 1 to jumlah_soal: participants who answered it
	// answers are the counted answers: those without a log entry first, by
	// question then participant, then the logged ones in the order of their
	// first entries.
	answers []AnswerRecord
	latest  map[string]int64 // participant -> ms their place holds (0: none)
	logged  map[string]bool  // pairs counted with an entry
	joined  map[string]bool  // participants with a join entry
	bad     []string         // members of the answers set that are no pair of the quiz
	// finishedAt is the time of the log's first finish entry.
	finishedAt time.Time
}

// count applies the rules to s. An answer logged after since (nil: none),
// whose pair the answers set read lacked, counts too: Repair reads the set
// in pages while answers are counted, and an answer counted meanwhile may
// be missed by the pages but not by the log read after them.
func (s *snapshot) count(since *wire.ID) counting {
	n := s.questions()
	c := counting{counts: map[string]int64{}, correct: make([]int, n), latest: map[string]int64{}, logged: map[string]bool{},
		joined: map[string]bool{}}
	joinedAt := map[string]int64{} // participant -> ms of their latest join entry as a place holds it
	counted := make(map[string]bool, len(s.members))
	for _, m := range s.members {
		q, p, ok := wire.ParsePair(m, n)
		if !ok {
			c.bad = append(c.bad, m)
			continue
		}
		counted[m] = true
		c.counts[p]++
		c.correct[q-1]++
	}
	var logged []AnswerRecord
	for _, e := range s.log {
		switch {
		case e.err != nil:
			continue
		case e.Kind == wire.Finish && c.finishedAt.IsZero():
			c.finishedAt = e.ID.Time()
		case e.Kind == wire.Join:
			c.joined[e.Participant] = true
			joinedAt[e.Participant] = placeTime(e.ID)
			continue
		case e.Kind != wire.Answer:
			continue
		}
		pair := e.Pair()
		if !counted[pair] && since != nil && since.Less(e.ID) {
			counted[pair] = true
			c.counts[e.Participant]++
			c.correct[e.Question-1]++
		}
		if !counted[pair] || c.logged[pair] {
			continue
		}
		c.logged[pair] = true
		logged = append(logged, AnswerRecord{Participant: e.Participant, Question: e.Question, At: e.ID.Time()})
		c.latest[e.Participant] = placeTime(e.ID)
	}
	for p, ms := range joinedAt {
		if c.counts[p] == 0 {
			c.latest[p] = ms
		}
	}
	c.answers = []AnswerRecord{} // never nil: an archive of a quiz without answers says [] in JSON
	for _, m := range s.members {
		if q, p, ok := wire.ParsePair(m, n); ok && !c.logged[m] {
			c.answers = append(c.answers, AnswerRecord{Participant: p, Question: q})
		}
	}
	slices.SortFunc(c.answers, func(a, b AnswerRecord) int {
		return cmp.Or(cmp.Compare(a.Question, b.Question), strings.Compare(a.Participant, b.Participant))
	})
	c.answers = append(c.answers, logged...)
	return c
}

// placeTime is the time of an entry as an order place holds it: 0 (none)
// for a time it cannot hold.
func placeTime(id wire.ID) int64 {
	if id.MS < wire.PlaceUnit {
		return int64(id.MS)
	}
	return 0
}

// onBoard reports whether participant p belongs on the board, by the
// counting: a counted answer, or a join entry.
func (c counting) onBoard(p string) bool { return c.counts[p] > 0 || c.joined[p] }

// place is where participant p belongs in the order set, by the counting:
// their counted answers and the time of the latest.
func (c counting) place(p string) int64 {
	place, _ := wire.Place(c.counts[p], c.latest[p])
	return place
}
