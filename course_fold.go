package kuis

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

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
