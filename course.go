package kuis

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// Course is the handle on one course board (a class's term, a subject), from
// [Store.Course]: the points of the finished quizzes folded into it, each
// quiz instance (a quiz ID created again after a purge is another instance,
// told apart by its log's start entry) folded from one recap, each
// (instance, participant) counted once, with a ledger per instance that says
// who got how many points from it, so that the course stays exact,
// auditable and repairable after its quizzes are purged. A participant who
// missed a quiz simply has no points from it; one who took it and scored 0
// is on the board with what else they have: the board holds totals, not
// averages. It is safe for concurrent use.
//
// A course has no meta: one with nothing folded reads as empty. Reads order
// equal totals in Redis's own order, reverse byte order of names (Citra
// before Ali), whatever WithTies says (a course keeps no times); every
// Standing carries both ranks. With WithClientCache, Standings, Page, Around,
// Standing, Len and Teams are served from the client-side cache. A key of the
// wrong type, or a total or ledger value out of its form, is ErrCorrupt; a
// call the ACL user may not make is ErrForbidden, with nothing written. The
// operator folds, unfolds, repairs and purges (ACLRules(RoleOperator)); every
// role reads and recaps, and the teacher and the operator audit.
type Course struct {
	s    *Store
	keys CourseKeys
}

// Course returns the handle on course courseID. A course ID follows the quiz
// ID rule: 1 to 64 bytes of ASCII letters, digits, '-', '_' or '.'
// (ErrInvalidCourseID otherwise). It does no I/O.
func (s *Store) Course(courseID string) (*Course, error) {
	if err := checkID(ErrInvalidCourseID, "", courseID); err != nil {
		return nil, err
	}
	return &Course{s: s, keys: courseKeyNames(s.opts.naming, courseID)}, nil
}

// Keys returns the course's key names. It does no I/O.
func (c *Course) Keys() CourseKeys { return c.keys }

// about is the subject of the course's error messages: the course, and the
// quiz and participant when there are.
func (c *Course) about(quizID, participant string) string {
	return about(c.keys.courseID, quizID, participant)
}

// ranked is the reader of the course board.
func (c *Course) ranked() rankedBoard {
	return rankedBoard{s: c.s, board: c.keys.board, course: c.keys.courseID}
}

// fail maps err (from a command on key, about the instance of quizID) to
// the library's error about the course: a script's KUIS_CONFLICT becomes a
// *ConflictError with its fields.
func (c *Course) fail(err error, quizID, instance, key string) error {
	var re *rueidis.RedisError
	if errors.As(err, &re) {
		if rest, ok := strings.CutPrefix(re.Error(), "KUIS_CONFLICT "); ok {
			f := append(strings.Split(rest, conflictSeparator), "", "", "")
			return c.conflict(quizID, instance, ConflictReason(f[0]), f[1], f[2], f[3])
		}
	}
	return replyError(err, c.about(quizID, ""), key)
}

// conflictSeparator separates the fields of course.lua's KUIS_CONFLICT: the
// unit separator, a control character no stored name holds, which no server
// turns into a space as miniredis does a tab.
const conflictSeparator = "\x1f"

// conflict is the ConflictError of the instance of quizID.
func (c *Course) conflict(quizID, instance string, reason ConflictReason, participant, held, given string) *ConflictError {
	return &ConflictError{Course: c.keys.courseID, Quiz: quizID, Instance: instance, Reason: reason,
		Participant: participant, Held: held, Given: given}
}

// check refuses, before anything is read or written, an operation (fold,
// unfold, repair, purge) that the ACL user may not make (ErrForbidden), with
// a read-only script: no WAIT follows it.
func (c *Course) check(ctx context.Context, op, quizID, instance string) error {
	keys := []string{c.keys.board, c.keys.quizzes, c.keys.Ledger(cmp.Or(quizID, "-"), cmp.Or(instance, NoInstance))}
	return c.fail(c.s.run(ctx, script.CourseCheck, keys, []string{op}).Error(), quizID, instance, c.keys.quizzes)
}

// wasScore is a board score as a Correction's Was: whole numbers as they
// are, anything a raw write left that an int64 cannot hold clipped.
func wasScore(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// scripts lists the keys of the instance of quizID in the order course.lua
// takes them.
func (k CourseKeys) scripts(quizID, instance string) []string {
	return []string{k.board, k.quizzes, k.Ledger(quizID, instance)}
}

// Standings reads the whole course board, highest total first: O(log N + M).
// A course with nothing folded is an empty slice. Errors: ErrCorrupt,
// ErrForbidden.
func (c *Course) Standings(ctx context.Context) ([]Standing, error) {
	return c.ranked().rangeByRank(ctx, 0, -1)
}

// Page reads limit standings starting at position offset (0 is the top):
// O(log N + M). Ranks are global, as Board.Page's; a page past the end is
// empty. Errors: ErrInvalidRange (a negative offset, or a limit outside 1 to
// 1000) before any I/O, ErrCorrupt, ErrForbidden.
func (c *Course) Page(ctx context.Context, offset, limit int) ([]Standing, error) {
	return c.ranked().page(ctx, offset, limit)
}

// Around reads the participant's standing with up to radius neighbours above
// and below, clipped at the ends of the board: O(log N + M), in two steps as
// Board.Around. Errors: ErrInvalidParticipant and ErrInvalidRange (a radius
// outside 0 to 500) before any I/O, ErrNotOnBoard (no points in the course),
// ErrCorrupt, ErrForbidden.
func (c *Course) Around(ctx context.Context, participant string, radius int) ([]Standing, error) {
	return c.ranked().around(ctx, participant, radius)
}

// Standing returns one participant's Rank, CompetitionRank and total Score,
// all three of one moment, in one round trip (one read-only script):
// O(log N). With WithClientCache it reads through the cache instead, in two
// round trips when nothing is cached and none when all is; the competition
// rank is then capped at the rank, should the cached entries be of
// different moments. Errors: ErrInvalidParticipant before any I/O,
// ErrNotOnBoard (no points in the course), ErrCorrupt, ErrForbidden.
func (c *Course) Standing(ctx context.Context, participant string) (Standing, error) {
	return c.ranked().standing(ctx, participant)
}

// Len returns the number of participants with points in the course: O(1).
// Errors: ErrCorrupt, ErrForbidden.
func (c *Course) Len(ctx context.Context) (int64, error) {
	return c.ranked().length(ctx)
}

// CourseQuiz is one quiz instance folded into a course, as its marker says.
type CourseQuiz struct {
	QuizID       string    `json:"quiz_id"`
	Instance     string    `json:"instance"`     // the quiz's start entry ID (Recap.Instance)
	Questions    int64     `json:"questions"`    // the quiz's jumlah_soal: 10 x Questions points possible
	Participants int64     `json:"participants"` // the recap's standings, 0-point ones included
	Points       int64     `json:"points"`       // all points the instance gave
	FoldedAt     time.Time `json:"folded_at"`    // the server's time when its fold was complete
}

// CourseEntry is one entry of a course's ledger: the points one quiz
// instance gave one participant.
type CourseEntry struct {
	QuizID      string `json:"quiz_id"`
	Instance    string `json:"instance"`
	Participant string `json:"participant"`
	Points      int64  `json:"points"`
}

// Quizzes lists the quiz instances folded into the course, ordered by quiz
// ID (byte order), then by instance start time (NoInstance first), from its
// quiz index read in HSCAN pages: O(Q), Q the course's quiz instances. An
// instance is listed once its fold is complete: one whose Fold or Unfold is
// under way, or stopped midway, is not. A course with nothing folded is an
// empty slice. Errors: ErrCorrupt (an index field or marker out of its
// form), ErrForbidden.
func (c *Course) Quizzes(ctx context.Context) ([]CourseQuiz, error) {
	index, err := c.pager(c.s.client, "").fields(ctx, c.keys.quizzes, "*")
	if err != nil {
		return nil, err
	}
	var first error
	l := decodeIndex(c.keys, index, func(key, _, format string, args ...any) {
		if first == nil {
			first = corrupt(key, format, args...)
		}
	})
	return l.folded(), first
}

// A course's whole-key operations: its index and ledgers decoded, and the
// snapshot that Recap, Purge, Audit and Repair read under WATCH.

// courseInstance is one instance of the index, decoded.
type courseInstance struct {
	field   string // "<quiz>@<instance>"
	quiz    CourseQuiz
	id      wire.ID
	marker  wire.Marker
	sound   bool             // the marker is in its form
	entries map[string]int64 // the ledger's entries in their form
}

// courseLedger is a course's index and ledgers decoded.
type courseLedger struct {
	instances []*courseInstance // in Quizzes' order
	entries   []CourseEntry     // every entry, in instance order, then by participant
	totals    map[string]int64  // each participant's points over every entry
}

// decodeIndex decodes the quiz index's fields; each out of its form is
// passed to bad and skipped.
func decodeIndex(k CourseKeys, index map[string]string, bad complain) courseLedger {
	var l courseLedger
	for _, field := range slices.Sorted(maps.Keys(index)) {
		v := index[field]
		quizID, instance, ok := wire.ParseIndexField(field)
		if !ok || !validID(quizID) {
			bad(k.quizzes, "field", "field %s is not <quiz>@<instance>", quote(field))
			continue
		}
		m, sound := wire.ParseMarker(v)
		if !sound {
			bad(k.quizzes, "marker", "field %s holds %s, not a marker", quote(field), quote(v))
		}
		id, _ := wire.ParseID(instance)
		q := CourseQuiz{QuizID: quizID, Instance: instance, Questions: m.Possible / wire.Points,
			Participants: m.Participants, Points: m.Points}
		if m.FoldedMS > 0 {
			q.FoldedAt = time.UnixMilli(m.FoldedMS).UTC()
		}
		l.instances = append(l.instances, &courseInstance{field: field, quiz: q, id: id, marker: m, sound: sound})
	}
	slices.SortFunc(l.instances, func(a, b *courseInstance) int {
		return cmp.Or(strings.Compare(a.quiz.QuizID, b.quiz.QuizID), cmp.Compare(a.id.MS, b.id.MS), cmp.Compare(a.id.Seq, b.id.Seq))
	})
	return l
}

// decodeLedgers adds to l each instance's ledger (by index field), checking
// every entry and each marker against its entries; what breaks the rules is
// passed to bad, and an entry out of its form is skipped.
func (l *courseLedger) decodeLedgers(k CourseKeys, ledgers map[string]map[string]string, bad complain) {
	l.totals = map[string]int64{}
	for _, in := range l.instances {
		key := k.Ledger(in.quiz.QuizID, in.quiz.Instance)
		raw, read := ledgers[in.field]
		if !read {
			continue // a ledger of the wrong type holds no entries to check
		}
		names := slices.Sorted(maps.Keys(raw))
		in.entries = make(map[string]int64, len(raw))
		var sum int64
		for _, p := range names {
			points, ok := wire.ParseLedgerPoints(raw[p])
			switch {
			case !wire.StoredName(p):
				bad(key, "entry", "participant %s is not 1 to %d bytes of UTF-8 without control characters", quote(p), wire.MaxName)
				continue
			case !ok || in.sound && points > in.marker.Possible:
				bad(key, "entry", "participant %s holds %s, want a multiple of 10 of at most %d", quote(p), quote(raw[p]), in.marker.Possible)
				continue
			}
			in.entries[p] = points
			sum = addPoints(sum, points)
			l.totals[p] = addPoints(l.totals[p], points)
			l.entries = append(l.entries, CourseEntry{QuizID: in.quiz.QuizID, Instance: in.quiz.Instance, Participant: p, Points: points})
		}
		m, n := in.marker, int64(len(raw))
		switch {
		case !in.sound:
		case m.FoldedMS == 0:
			bad(k.quizzes, "unfinished", "instance %s is folded in parts: fold its recap again, or unfold the instance", quote(in.field))
		case n == 0 && m.Participants > 0:
			bad(key, "ledger", "is missing, and the marker of %s says %d participants", quote(in.field), m.Participants)
		case n != m.Participants || sum != m.Points:
			bad(k.quizzes, "marker", "instance %s is marked with %d participants and %d points, and its ledger holds %d and %d",
				quote(in.field), m.Participants, m.Points, n, sum)
		}
	}
}

// addPoints adds, stopping at the largest int64 where a sum of many sound
// values would overflow it.
func addPoints(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// folded lists the instances whose fold is complete, in Quizzes' order.
func (l courseLedger) folded() []CourseQuiz {
	out := []CourseQuiz{}
	for _, in := range l.instances {
		if in.sound && in.marker.FoldedMS > 0 {
			out = append(out, in.quiz)
		}
	}
	return out
}

// pager is a pager of the course's keys on conn, its errors about the
// course and quizID.
func (c *Course) pager(conn rueidis.CommandClient, quizID string) pager {
	return pager{s: &c.s.sender, c: conn, count: c.s.tune.pageSize, subject: c.about(quizID, "")}
}
