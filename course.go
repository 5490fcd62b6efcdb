package kuis

import (
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

// Fold is what one Course.Fold did.
type Fold struct {
	QuizID        string `json:"quiz_id"`
	Participants  int    `json:"participants"`   // whose points this call added
	Points        int64  `json:"points"`         // added by this call
	AlreadyFolded bool   `json:"already_folded"` // the quiz was folded before; nothing written
}

// foldPair is one participant's points from the quiz being folded.
type foldPair struct {
	participant, points string
}

// Fold adds a finished quiz's standings, from its Recap (Store.Recap, or
// what PurgeQuiz hands Archive's function), to the course, once: each
// participant's points go to their total and to the ledger's field
// "<quiz>:<participant>" in one atomic step, and once every participant is
// in, the quiz's marker "<quiz>:" (10 x jumlah_soal) says the quiz is folded.
// A quiz of many participants is folded in parts of up to 250, one script
// each, so that no step holds the server long; a fold cut short (a lost
// connection, a deadline) and called again adds only what is missing, and
// folds of one quiz running at the same time add each participant's points
// once between them. A participant without points (a score of 0) gets no
// ledger field. Fold reads only the recap, so it works on a cluster whatever
// slots the quiz and the course live in. O(M log N), M the quiz's
// participants, and O(L) more, L the ledger's fields, when the ledger holds
// some of the quiz already.
//
// A quiz folded before with the same standings writes nothing and returns
// {QuizID, 0, 0, true}; the first fold of a finished quiz nobody scored in
// is {QuizID, 0, 0, false} and counts toward the course's Possible. A quiz
// whose ledger fields disagree with the recap (other points for a
// participant, a participant more or fewer, another question count: it was
// repaired since) is ErrConflict, with nothing more written: Unfold it, then
// fold the new recap. Unfold while the same quiz is being folded leaves part
// of it folded: unfold it again once the fold has returned. On an error the
// Fold counts what the call added before it.
//
// Errors: before any I/O, ErrInvalidQuizID (the recap's QuizID),
// ErrQuizRunning (a recap whose status is not selesai) and ErrCorrupt (a
// recap Recap cannot return: a score that is not sound, a participant twice
// or with a name that is not UTF-8, a question count below 1); then
// ErrForbidden, ErrConflict, ErrCorrupt (a key of the wrong type, or a total
// the points would raise past 2^53 - 2); with WithReplicas, ErrNotReplicated
// (a part was applied on the primary; a Fold again is safe).
func (c *Course) Fold(ctx context.Context, r Recap) (Fold, error) {
	pairs, mark, err := c.foldable(r)
	if err != nil {
		return Fold{}, err
	}
	quiz := r.QuizID
	if err := c.check(ctx, "fold", quiz); err != nil {
		return Fold{}, err
	}
	held, marker, err := c.held(ctx, quiz, pairs)
	if err != nil {
		return Fold{}, err
	}
	present := 0
	for _, p := range pairs {
		v, ok := held[p.participant]
		switch {
		case ok && v != p.points:
			return Fold{}, c.conflict(quiz, "participant %s was folded with %s points, and the recap gives %s",
				quote(p.participant), quote(v), p.points)
		case ok:
			present++
		case marker != "":
			return Fold{}, c.conflict(quiz, "the quiz is folded without participant %s", quote(p.participant))
		}
	}
	if marker != "" && marker != mark {
		return Fold{}, c.conflict(quiz, "the quiz was folded as worth %s points, and the recap makes it %s", quote(marker), mark)
	}
	if marker != "" || present > 0 {
		if err := c.noOthers(ctx, quiz, pairs); err != nil {
			return Fold{}, err
		}
	}
	if marker != "" {
		return Fold{QuizID: quiz, AlreadyFolded: true}, nil
	}
	out := Fold{QuizID: quiz}
	parts := chunks(pairs, c.s.tune.foldStep)
	found := true
	for i, part := range parts {
		final := ""
		if i == len(parts)-1 {
			final = "1"
		}
		args := make([]string, 0, 4+2*len(part))
		args = append(args, "fold", quiz, mark, final)
		for _, p := range part {
			args = append(args, p.participant, p.points)
		}
		nums, err := c.numbers(run(ctx, c.s, script.Course, c.keys.scripts(), args), quiz, 3)
		if err != nil {
			return out, err
		}
		found = found && nums[0] == 1
		out.Participants += int(nums[1])
		out.Points += nums[2]
	}
	// Every part found the quiz folded by another call, which won the race.
	out.AlreadyFolded = found && out.Participants == 0
	return out, nil
}

// foldable checks a recap before any I/O and returns its participants with
// points, in byte order of names, and its marker's value, 10 x jumlah_soal.
func (c *Course) foldable(r Recap) ([]foldPair, string, error) {
	if !validID(r.QuizID) {
		return nil, "", fmt.Errorf("%w: %s: the recap's quiz ID %s (want 1 to %d bytes of ASCII letters, digits, '-', '_' or '.')",
			ErrInvalidQuizID, c.about("", ""), quote(r.QuizID), maxIDLen)
	}
	if r.Info.Status != StatusFinished {
		return nil, "", fmt.Errorf("%w: %s: finish the quiz and take its recap again before folding it",
			ErrQuizRunning, c.about(r.QuizID, ""))
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: the recap %s", ErrCorrupt, c.about(r.QuizID, ""), fmt.Sprintf(format, args...))
	}
	if r.Info.Questions < 1 || r.Info.Questions > wire.MaxScore/wire.Points {
		return nil, "", bad("has %d questions (want at least 1)", r.Info.Questions)
	}
	seen := make(map[string]bool, len(r.Standings))
	pairs := make([]foldPair, 0, len(r.Standings))
	for _, s := range r.Standings {
		switch {
		case !wire.StoredName(s.Participant):
			return nil, "", bad("names participant %s, which is not 1 to %d bytes of UTF-8 without control characters",
				quote(s.Participant), wire.MaxName)
		case seen[s.Participant]:
			return nil, "", bad("lists participant %s twice", quote(s.Participant))
		case s.Score < 0 || s.Score > wire.MaxScore || s.Score%wire.Points != 0:
			return nil, "", bad("gives participant %s %d points (want a non-negative multiple of 10 of at most %d)",
				quote(s.Participant), s.Score, int64(wire.MaxScore))
		}
		seen[s.Participant] = true
		if s.Score > 0 {
			pairs = append(pairs, foldPair{participant: s.Participant, points: wire.FormatLedgerPoints(s.Score)})
		}
	}
	slices.SortFunc(pairs, func(a, b foldPair) int { return strings.Compare(a.participant, b.participant) })
	return pairs, wire.FormatLedgerPoints(wire.Points * r.Info.Questions), nil
}

// chunks cuts s into parts of at most n, and is one empty part for an empty
// s, so that a fold of a quiz nobody scored in still writes its marker.
func chunks[T any](s []T, n int) [][]T {
	if len(s) == 0 {
		return [][]T{nil}
	}
	var out [][]T
	for lo := 0; lo < len(s); lo += n {
		out = append(out, s[lo:min(lo+n, len(s))])
	}
	return out
}

// check refuses, before anything is read or written, an operation (fold,
// unfold, repair, purge) that the ACL user may not make (ErrForbidden).
func (c *Course) check(ctx context.Context, op, quizID string) error {
	return c.fail(run(ctx, c.s, script.Course, c.keys.scripts(), []string{"check", op}).Error(), quizID, c.keys.ledger)
}

// held reads what the ledger holds of the quiz's pairs, by participant, and
// the quiz's marker ("" when none), in one round trip of HMGETs of at most
// foldStep fields: plain reads, never the client-side cache.
func (c *Course) held(ctx context.Context, quizID string, pairs []foldPair) (map[string]string, string, error) {
	fields := make([]string, 0, 1+len(pairs))
	fields = append(fields, wire.LedgerMarker(quizID))
	for _, p := range pairs {
		fields = append(fields, wire.LedgerField(quizID, p.participant))
	}
	parts := chunks(fields, c.s.tune.foldStep)
	cmds := make([]rueidis.Completed, len(parts))
	for i, part := range parts {
		cmds[i] = c.s.client.B().Hmget().Key(c.keys.ledger).Field(part...).Build()
	}
	held := map[string]string{}
	marker := ""
	at := 0
	for _, res := range send(ctx, c.s.client, cmds...) {
		values, err := res.ToArray()
		if err != nil {
			return nil, "", c.fail(err, quizID, c.keys.ledger)
		}
		for _, v := range values {
			s, err := v.ToString()
			switch {
			case rueidis.IsRedisNil(err):
			case err != nil:
				return nil, "", c.fail(err, quizID, c.keys.ledger)
			case at == 0:
				marker = s
			default:
				held[pairs[at-1].participant] = s
			}
			at++
		}
	}
	return held, marker, nil
}

// noOthers refuses (ErrConflict) a quiz whose ledger holds a participant the
// recap does not list: one Repair removed from the quiz's board since.
func (c *Course) noOthers(ctx context.Context, quizID string, pairs []foldPair) error {
	listed := make(map[string]bool, len(pairs))
	for _, p := range pairs {
		listed[p.participant] = true
	}
	fields, err := c.pager(c.s.client, quizID).fields(ctx, c.keys.ledger, wire.LedgerMarker(quizID)+"*")
	if err != nil {
		return err
	}
	var others []string
	for f := range fields {
		if q, p, ok := wire.ParseLedgerField(f); ok && q == quizID && p != "" && !listed[p] {
			others = append(others, p)
		}
	}
	if len(others) > 0 {
		slices.Sort(others)
		return c.conflict(quizID, "participant %s was folded with %s points, and the recap does not list them",
			quote(others[0]), quote(fields[wire.LedgerField(quizID, others[0])]))
	}
	return nil
}

func (c *Course) conflict(quizID, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s; Unfold the quiz to fold its new recap", ErrConflict, c.about(quizID, ""), fmt.Sprintf(format, args...))
}

// numbers decodes a script's reply of n integers.
func (c *Course) numbers(res rueidis.RedisResult, quizID string, n int) ([]int64, error) {
	reply, err := res.ToArray()
	if err != nil {
		return nil, c.fail(err, quizID, c.keys.ledger)
	}
	if len(reply) != n {
		return nil, fmt.Errorf("kuis: %s: course reply of %d elements, want %d", c.about(quizID, ""), len(reply), n)
	}
	out := make([]int64, n)
	for i, m := range reply {
		if out[i], err = m.AsInt64(); err != nil {
			return nil, c.fail(err, quizID, c.keys.ledger)
		}
	}
	return out, nil
}

// Archive returns an archive function for Store.PurgeQuiz that folds the
// quiz's recap into the course (as Fold) and then calls next, when not nil,
// with the same recap. PurgeQuiz deletes the quiz's keys only when both
// succeed, and calling PurgeQuiz again after a failure is safe: the quiz is
// folded once. An ErrConflict of the fold fails the archive, so the quiz is
// kept. The commands are Fold's and next's.
func (c *Course) Archive(next func(context.Context, Recap) error) func(context.Context, Recap) error {
	return func(ctx context.Context, r Recap) error {
		if _, err := c.Fold(ctx, r); err != nil {
			return err
		}
		if next == nil {
			return nil
		}
		return next(ctx, r)
	}
}

// Unfold takes quiz quizID's points out of the course (a practice quiz, a
// fold into the wrong course, a quiz repaired since it was folded): it
// deletes the quiz's marker first, then, in parts of up to 250, each
// participant's ledger field, subtracting its points from their total in
// the same atomic step; a participant left without points leaves the board.
// It returns one Correction per participant the ledger held, in participant
// order (Was and Now the total before and after; Now 0 means removed), and
// an empty slice for a quiz not folded, which is no error. An Unfold cut
// short leaves the quiz partly folded, unmarked: Unfold it again, or fold
// it again. O(L + M log N), L the ledger's fields and M the quiz's.
//
// Errors: ErrInvalidQuizID before any I/O, ErrForbidden (nothing written),
// ErrCorrupt (a key of the wrong type, or one of the quiz's ledger values
// out of its form; nothing written by that part); with WithReplicas,
// ErrNotReplicated (a part was applied on the primary; Unfold again).
func (c *Course) Unfold(ctx context.Context, quizID string) ([]Correction, error) {
	if !validID(quizID) {
		return nil, fmt.Errorf("%w: %s: %s (want 1 to %d bytes of ASCII letters, digits, '-', '_' or '.')",
			ErrInvalidQuizID, c.about("", ""), quote(quizID), maxIDLen)
	}
	if err := c.check(ctx, "unfold", quizID); err != nil {
		return nil, err
	}
	fields, err := c.pager(c.s.client, quizID).fields(ctx, c.keys.ledger, wire.LedgerMarker(quizID)+"*")
	if err != nil {
		return nil, err
	}
	var names []string
	marked := false
	for f := range fields {
		switch q, p, ok := wire.ParseLedgerField(f); {
		case !ok || q != quizID:
		case p == "":
			marked = true
		default:
			names = append(names, p)
		}
	}
	out := []Correction{}
	if len(names) == 0 && !marked {
		return out, nil
	}
	slices.Sort(names)
	for i, part := range chunks(names, c.s.tune.foldStep) {
		first := ""
		if i == 0 {
			first = "1"
		}
		flat, err := run(ctx, c.s, script.Course, c.keys.scripts(), append([]string{"unfold", quizID, first}, part...)).AsStrSlice()
		if err != nil {
			return out, c.fail(err, quizID, c.keys.ledger)
		}
		for j := 0; j+2 < len(flat); j += 3 {
			was, err1 := strconv.ParseFloat(flat[j+1], 64)
			now, err2 := strconv.ParseInt(flat[j+2], 10, 64)
			if err1 != nil || err2 != nil {
				return out, fmt.Errorf("kuis: %s: unfold reply %q", c.about(quizID, flat[j]), flat[j:j+3])
			}
			out = append(out, Correction{Participant: flat[j], Was: wasScore(was), Now: now})
		}
	}
	return out, nil
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
