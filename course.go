package kuis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// Course is the handle on one course board (a class's term, a subject), from
// [Store.Course]: the points of the finished quizzes folded into it, each
// (quiz, participant) counted once, with a ledger that says which quiz gave
// whom how many points, so that the course stays exact, auditable and
// repairable after its quizzes are purged. A participant who missed a quiz
// simply has no points from it: the board holds totals, not averages. It is
// safe for concurrent use.
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
	if !validID(courseID) {
		return nil, fmt.Errorf("%w: %s (want 1 to %d bytes of ASCII letters, digits, '-', '_' or '.')",
			ErrInvalidCourseID, quote(courseID), maxIDLen)
	}
	return &Course{s: s, keys: courseKeyNames(s.opts, courseID)}, nil
}

// Keys returns the course's key names. It does no I/O.
func (c *Course) Keys() CourseKeys { return c.keys }

// about is the subject of the course's error messages: the course, and the
// quiz and participant when there are.
func (c *Course) about(quizID, participant string) string {
	out := "course " + quote(c.keys.courseID)
	if quizID != "" {
		out += ", quiz " + quote(quizID)
	}
	if participant != "" {
		out += ", participant " + quote(participant)
	}
	return out
}

// fail maps err (from a command on key) to the library's error about the
// course and the quiz.
func (c *Course) fail(err error, quizID, key string) error {
	return replyError(err, c.about(quizID, ""), key)
}

// check refuses, before anything is read or written, an operation (fold,
// unfold, repair, purge) that the ACL user may not make (ErrForbidden).
func (c *Course) check(ctx context.Context, op, quizID string) error {
	return c.fail(run(ctx, c.s, script.Course, c.keys.scripts(), []string{"check", op}).Error(), quizID, c.keys.ledger)
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

// scripts lists the course's keys in the order course.lua takes them.
func (k CourseKeys) scripts() []string { return []string{k.board, k.ledger} }

// Standings reads the whole course board, highest total first: O(log N + M).
// A course with nothing folded is an empty slice. Errors: ErrCorrupt,
// ErrForbidden.
func (c *Course) Standings(ctx context.Context) ([]Standing, error) {
	return c.rangeByRank(ctx, 0, -1)
}

// Page reads limit standings starting at position offset (0 is the top):
// O(log N + M). Ranks are global, as Board.Page's; a page past the end is
// empty. Errors: ErrInvalidRange (a negative offset, or a limit outside 1 to
// 1000) before any I/O, ErrCorrupt, ErrForbidden.
func (c *Course) Page(ctx context.Context, offset, limit int) ([]Standing, error) {
	if offset < 0 || limit < 1 || limit > maxPageLimit {
		return nil, fmt.Errorf("%w: %s: offset %d, limit %d (want offset >= 0, limit 1 to %d)",
			ErrInvalidRange, c.about("", ""), offset, limit, maxPageLimit)
	}
	start := int64(offset)
	stop := int64(math.MaxInt64)
	if start <= math.MaxInt64-int64(limit) {
		stop = start + int64(limit) - 1
	}
	return c.rangeByRank(ctx, start, stop)
}

// Around reads the participant's standing with up to radius neighbours above
// and below, clipped at the ends of the board: O(log N + M), in two steps as
// Board.Around. Errors: ErrInvalidParticipant and ErrInvalidRange (a radius
// outside 0 to 500) before any I/O, ErrNotOnBoard (no points in the course),
// ErrCorrupt, ErrForbidden.
func (c *Course) Around(ctx context.Context, participant string, radius int) ([]Standing, error) {
	if err := c.checkParticipant(participant); err != nil {
		return nil, err
	}
	if radius < 0 || radius > maxRadius {
		return nil, fmt.Errorf("%w: %s: radius %d (want 0 to %d)", ErrInvalidRange, c.about("", participant), radius, maxRadius)
	}
	res := c.s.sendReads(ctx, c.s.client.B().Zrevrank().Key(c.keys.board).Member(participant).Cache())
	pos, err := res[0].AsInt64()
	if err != nil {
		return nil, c.memberError(err, participant)
	}
	return c.rangeByRank(ctx, max(0, pos-int64(radius)), pos+int64(radius))
}

// Standing returns one participant's Rank, CompetitionRank and total Score:
// O(log N), in two round trips (the score and rank, then how many are
// ahead), the competition rank capped at the rank should a fold come between
// them. Errors: ErrInvalidParticipant before any I/O, ErrNotOnBoard (no
// points in the course), ErrCorrupt, ErrForbidden.
func (c *Course) Standing(ctx context.Context, participant string) (Standing, error) {
	if err := c.checkParticipant(participant); err != nil {
		return Standing{}, err
	}
	b, k := c.s.client.B(), c.keys.board
	res := c.s.sendReads(ctx, b.Zscore().Key(k).Member(participant).Cache(), b.Zrevrank().Key(k).Member(participant).Cache())
	score, err := res[0].AsFloat64()
	if err != nil {
		return Standing{}, c.memberError(err, participant)
	}
	pos, err := res[1].AsInt64()
	if err != nil {
		return Standing{}, c.memberError(err, participant)
	}
	points, err := decodeScore(k, participant, score)
	if err != nil {
		return Standing{}, err
	}
	higher, err := c.higher(ctx, points)
	if err != nil {
		return Standing{}, err
	}
	return Standing{Rank: int(pos) + 1, CompetitionRank: int(min(higher, pos)) + 1, Participant: participant, Score: points}, nil
}

// Len returns the number of participants with points in the course: O(1).
// Errors: ErrCorrupt, ErrForbidden.
func (c *Course) Len(ctx context.Context) (int64, error) {
	n, err := c.s.sendReads(ctx, c.s.client.B().Zcard().Key(c.keys.board).Cache())[0].AsInt64()
	if err != nil {
		return 0, c.fail(err, "", c.keys.board)
	}
	return n, nil
}

// rangeByRank reads positions start..stop (inclusive, -1 = the end) of the
// course board with both ranks.
func (c *Course) rangeByRank(ctx context.Context, start, stop int64) ([]Standing, error) {
	k := c.keys.board
	return rangeByRank(ctx, k, start, stop, func(from, stop int64) ([]rueidis.ZScore, error) {
		zs, err := c.s.sendReads(ctx, c.s.client.B().Zrange().Key(k).Min(strconv.FormatInt(from, 10)).Max(strconv.FormatInt(stop, 10)).
			Rev().Withscores().Cache())[0].AsZScores()
		if err != nil {
			return nil, c.fail(err, "", k)
		}
		return zs, nil
	}, c.higher)
}

// higher counts the members of the course board with more points than
// points (O(log N)).
func (c *Course) higher(ctx context.Context, points int64) (int64, error) {
	k := c.keys.board
	n, err := c.s.sendReads(ctx, c.s.client.B().Zcount().Key(k).Min("("+strconv.FormatInt(points, 10)).Max("+inf").Cache())[0].AsInt64()
	if err != nil {
		return 0, c.fail(err, "", k)
	}
	return n, nil
}

func (c *Course) checkParticipant(name string) error {
	if problem := nameProblem(name); problem != "" {
		return fmt.Errorf("%w: %s: participant %s %s", ErrInvalidParticipant, c.about("", ""), quote(name), problem)
	}
	return nil
}

// memberError maps a nil reply to ErrNotOnBoard, and any other error as fail.
func (c *Course) memberError(err error, participant string) error {
	if rueidis.IsRedisNil(err) {
		return fmt.Errorf("%w: %s", ErrNotOnBoard, c.about("", participant))
	}
	return replyError(err, c.about("", participant), c.keys.board)
}

// CourseQuiz is one quiz folded into a course, as its ledger says.
type CourseQuiz struct {
	QuizID       string `json:"quiz_id"`
	Questions    int64  `json:"questions"`    // the quiz's jumlah_soal: 10 x Questions points possible
	Participants int64  `json:"participants"` // with points from this quiz
	Points       int64  `json:"points"`       // all points this quiz gave
}

// Quizzes lists the quizzes folded into the course, in quiz ID order (byte
// order), from its ledger read in HSCAN pages: O(L), L the ledger's fields. A
// quiz is listed only once all its standings are in (its marker is
// written): one whose Fold or Unfold is under way, or stopped midway, is not.
// A course with nothing folded is an empty slice. Errors: ErrCorrupt (a
// ledger field out of its form), ErrForbidden.
func (c *Course) Quizzes(ctx context.Context) ([]CourseQuiz, error) {
	fields, err := c.pager(c.s.client, "").fields(ctx, c.keys.ledger, "*")
	if err != nil {
		return nil, err
	}
	l, err := c.strictLedger(fields)
	if err != nil {
		return nil, err
	}
	return l.folded(), nil
}

// A course's whole-key operations: its ledger decoded, and the snapshot that
// Recap, Purge, Audit and Repair read under WATCH.

// courseLedger is a ledger decoded.
type courseLedger struct {
	quizzes map[string]*CourseQuiz // every quiz with a marker or an entry; Questions 0 without a marker
	marked  map[string]bool        // the quizzes with a marker
	entries []CourseEntry          // every entry, by quiz ID, then participant
	totals  map[string]int64       // each participant's points over every entry
}

// decodeLedger decodes a ledger's fields; each field out of the wire format
// (internal/wire's ledger) is passed to bad with what is wrong and skipped.
func decodeLedger(fields map[string]string, bad func(field, problem string)) courseLedger {
	l := courseLedger{quizzes: map[string]*CourseQuiz{}, marked: map[string]bool{}, totals: map[string]int64{}}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	slices.Sort(names)
	for _, f := range names {
		v := fields[f]
		quizID, participant, ok := wire.ParseLedgerField(f)
		points, sound := wire.ParseLedgerPoints(v)
		switch {
		case !ok:
			bad(f, "is not <quiz>:<participant> nor a quiz's marker <quiz>:")
			continue
		case !validID(quizID):
			bad(f, "names an invalid quiz ID")
			continue
		case participant != "" && !wire.StoredName(participant):
			bad(f, "names an invalid participant")
			continue
		case !sound && participant == "":
			bad(f, fmt.Sprintf("holds %s, want 10 x the quiz's jumlah_soal", quote(v)))
			continue
		case !sound:
			bad(f, fmt.Sprintf("holds %s, want a positive multiple of 10 of at most %d", quote(v), int64(wire.MaxScore)))
			continue
		}
		q := l.quizzes[quizID]
		if q == nil {
			q = &CourseQuiz{QuizID: quizID}
			l.quizzes[quizID] = q
		}
		if participant == "" {
			q.Questions = points / wire.Points
			l.marked[quizID] = true
			continue
		}
		q.Participants++
		q.Points = addPoints(q.Points, points)
		l.totals[participant] = addPoints(l.totals[participant], points)
		l.entries = append(l.entries, CourseEntry{QuizID: quizID, Participant: participant, Points: points})
	}
	slices.SortFunc(l.entries, func(a, b CourseEntry) int {
		return cmp.Or(strings.Compare(a.QuizID, b.QuizID), strings.Compare(a.Participant, b.Participant))
	})
	return l
}

// addPoints adds, stopping at the largest int64 where a sum of many sound
// values would overflow it.
func addPoints(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// strictLedger decodes fields for a reader that takes only a ledger in its
// wire format: the first field out of it is ErrCorrupt.
func (c *Course) strictLedger(fields map[string]string) (courseLedger, error) {
	var first error
	l := decodeLedger(fields, func(f, problem string) {
		if first == nil {
			first = corrupt(c.keys.ledger, "field %s %s", quote(f), problem)
		}
	})
	return l, first
}

// folded lists the quizzes with a marker, in quiz ID order.
func (l courseLedger) folded() []CourseQuiz {
	out := []CourseQuiz{}
	for id := range l.marked {
		out = append(out, *l.quizzes[id])
	}
	slices.SortFunc(out, func(a, b CourseQuiz) int { return strings.Compare(a.QuizID, b.QuizID) })
	return out
}

// pager is a pager of the course's keys on conn, its errors about the
// course and quizID.
func (c *Course) pager(conn rueidis.CommandClient, quizID string) pager {
	return pager{c: conn, count: c.s.tune.pageSize, subject: c.about(quizID, "")}
}
