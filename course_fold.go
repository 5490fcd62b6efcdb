package kuis

import (
	"context"
	"fmt"
	"maps"
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
	Instance      string `json:"instance"`       // the recap's Instance (NoInstance for one without)
	Participants  int    `json:"participants"`   // whose points this call added
	Points        int64  `json:"points"`         // added by this call
	AlreadyFolded bool   `json:"already_folded"` // the instance was folded before from this recap; nothing written
}

// foldPair is one participant's points from the quiz being folded.
type foldPair struct {
	participant, points string
}

// foldRecap is a recap checked for a fold: its instance, its pairs in byte
// order of names, and the marker its fold writes.
type foldRecap struct {
	quiz, instance string
	pairs          []foldPair
	marker         wire.Marker
}

// Fold adds a finished quiz's standings, from its Recap (Store.Recap, or
// what PurgeQuiz hands Archive's function), to the course, once per quiz
// instance: each participant's points, 0 included, go to their total and to
// the instance's ledger (CourseKeys.Ledger) in one atomic step, and once
// every participant is in, the instance's marker in the quiz index says it
// is folded. Another instance of a quiz ID the course holds (the ID created
// again) is a quiz of its own: both count, told apart everywhere. A quiz of
// many participants is folded in parts of up to 250, one script each, so
// that no step holds the server long; the first part writes the marker,
// naming the recap by its digest, so that a fold cut short (a lost
// connection, a deadline) and called again with the same recap adds only
// what is missing, folds of one recap running at the same time add each
// participant's points once between them, and no other recap of the
// instance is ever mixed in. Fold reads only the recap, so it works on a
// cluster whatever slots the quiz and the course live in. O(M log N), M the
// quiz's participants: it reads only the instance's own keys, in one round
// trip (HGET of its marker, HMGET of its pairs) before it writes.
//
// An instance folded before from the same recap writes nothing and returns
// {QuizID, Instance, 0, 0, true}; the first fold of a finished quiz nobody
// took is {QuizID, Instance, 0, 0, false} and counts toward the course's
// Possible. A recap that disagrees with what the course holds of its
// instance is a *ConflictError (errors.Is ErrConflict), refused before any
// part is written: another question count (ConflictQuestions), another
// recap of the instance folded in part (ConflictRecap: fold that one again
// to finish it, or UnfoldInstance), a participant held with other points
// (ConflictPoints) or a participant more or fewer (ConflictParticipants):
// the quiz was repaired since; UnfoldInstance, then fold the new recap.
// UnfoldInstance while the same instance is being folded leaves part of it
// folded: unfold it again once the fold has returned; a last part that
// finds the instance's ledger holding more participants than the recap (an
// UnfoldInstance cut short left them) marks nothing and answers
// ConflictParticipants without a Participant. On an error the Fold counts
// what the call added before it.
//
// Errors: before any I/O, ErrInvalidQuizID (the recap's QuizID),
// ErrQuizRunning (a recap whose status is not selesai) and ErrCorrupt (a
// recap Recap cannot return: a score that is not sound, a participant twice
// or with a name that is not UTF-8, a question count below 1, an Instance
// that is not an entry ID); then ErrForbidden, ErrConflict, ErrCorrupt (a
// key of the wrong type, a marker out of its form, or a total the points
// would raise past 2^53 - 2); with WithReplicas, ErrNotReplicated (a part
// that wrote was applied on the primary; a Fold again is safe). A part that
// wrote nothing is not waited for, so a Fold that finds the instance folded
// returns AlreadyFolded and nil: what an earlier Fold wrote is as durable as
// that call answered.
func (c *Course) Fold(ctx context.Context, r Recap) (Fold, error) {
	f, err := c.foldable(r)
	if err != nil {
		return Fold{}, err
	}
	if err := c.check(ctx, "fold", f.quiz, f.instance); err != nil {
		return Fold{}, err
	}
	held, values, err := c.held(ctx, f)
	if err != nil {
		return Fold{}, err
	}
	out := Fold{QuizID: f.quiz, Instance: f.instance}
	if held != nil && held.Digest == f.marker.Digest && held.FoldedMS > 0 {
		out.AlreadyFolded = true
		return out, nil
	}
	if e := f.conflict(held, values); e != nil {
		return Fold{}, c.foldConflict(ctx, f, e)
	}
	parts := chunks(f.pairs, c.s.tune.foldStep)
	found := true
	keys := c.keys.scripts(f.quiz, f.instance)
	for i, part := range parts {
		final := ""
		if i == len(parts)-1 {
			final = "1"
		}
		args := make([]string, 0, 4+2*len(part))
		args = append(args, "fold", wire.IndexField(f.quiz, f.instance), f.marker.String(), final)
		for _, p := range part {
			args = append(args, p.participant, p.points)
		}
		nums, err := c.numbers(c.s.runScriptWrote(ctx, script.Course, foldWrote, rueidis.LuaExec{Keys: keys, Args: args})[0], f, 4)
		if err != nil {
			return out, err
		}
		found = found && nums[0] == 1
		out.Participants += int(nums[1])
		out.Points += nums[2]
		if final != "" && nums[0] == 0 {
			// The ledger holds more than the recap: what an unfold cut short left.
			return out, c.conflict(f.quiz, f.instance, ConflictParticipants, "", "", "")
		}
	}
	// Every part found the instance folded by another call, which won the race.
	out.AlreadyFolded = found && out.Participants == 0
	return out, nil
}

// foldable checks a recap before any I/O and returns what its fold writes.
func (c *Course) foldable(r Recap) (foldRecap, error) {
	if err := checkID(ErrInvalidQuizID, c.about("", "")+": the recap's quiz ID", r.QuizID); err != nil {
		return foldRecap{}, err
	}
	if r.Info.Status != StatusFinished {
		return foldRecap{}, fmt.Errorf("%w: %s: finish the quiz and take its recap again before folding it",
			ErrQuizRunning, c.about(r.QuizID, ""))
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: the recap %s", ErrCorrupt, c.about(r.QuizID, ""), fmt.Sprintf(format, args...))
	}
	instance := r.Instance
	if instance == "" { // archived before quizzes had instances
		instance = NoInstance
	}
	if _, ok := wire.ParseID(instance); !ok {
		return foldRecap{}, bad("has instance %s, which is not a log entry ID", quote(instance))
	}
	if r.Info.Questions < 1 || r.Info.Questions > wire.MaxQuestions {
		return foldRecap{}, bad("has %d questions (want 1 to %d)", r.Info.Questions, wire.MaxQuestions)
	}
	f := foldRecap{quiz: r.QuizID, instance: instance, pairs: make([]foldPair, 0, len(r.Standings)),
		marker: wire.Marker{Possible: wire.Points * r.Info.Questions, Participants: int64(len(r.Standings))}}
	seen := make(map[string]bool, len(r.Standings))
	for _, s := range r.Standings {
		switch {
		case !wire.StoredName(s.Participant):
			return foldRecap{}, bad("names participant %s, which is not 1 to %d bytes of UTF-8 without control characters",
				quote(s.Participant), wire.MaxName)
		case seen[s.Participant]:
			return foldRecap{}, bad("lists participant %s twice", quote(s.Participant))
		case s.Score < 0 || s.Score > f.marker.Possible || s.Score%wire.Points != 0:
			return foldRecap{}, bad("gives participant %s %d points (want a multiple of 10 from 0 to %d)",
				quote(s.Participant), s.Score, f.marker.Possible)
		}
		seen[s.Participant] = true
		f.marker.Points += s.Score
		f.pairs = append(f.pairs, foldPair{participant: s.Participant, points: wire.FormatLedgerPoints(s.Score)})
	}
	slices.SortFunc(f.pairs, func(a, b foldPair) int { return strings.Compare(a.participant, b.participant) })
	digested := make([][2]string, len(f.pairs))
	for i, p := range f.pairs {
		digested[i] = [2]string{p.participant, p.points}
	}
	f.marker.Digest = wire.RecapDigest(f.quiz, f.instance, f.marker.Possible, digested)
	return f, nil
}

// chunks cuts s into parts of at most n, and is one empty part for an empty
// s, so that a fold of a quiz nobody took still writes its marker.
func chunks[T any](s []T, n int) [][]T {
	if len(s) == 0 {
		return [][]T{nil}
	}
	return slices.Collect(slices.Chunk(s, n))
}

// held reads, in one round trip of plain reads, the instance's marker (nil
// when none) and what its ledger holds of the recap's pairs, by participant.
func (c *Course) held(ctx context.Context, f foldRecap) (*wire.Marker, map[string]string, error) {
	b, ledger := c.s.client.B(), c.keys.Ledger(f.quiz, f.instance)
	parts := slices.Collect(slices.Chunk(f.pairs, c.s.tune.foldStep))
	cmds := []rueidis.Completed{b.Hget().Key(c.keys.quizzes).Field(wire.IndexField(f.quiz, f.instance)).Build()}
	for _, part := range parts {
		names := make([]string, len(part))
		for i, p := range part {
			names[i] = p.participant
		}
		cmds = append(cmds, b.Hmget().Key(ledger).Field(names...).Build())
	}
	res := c.s.send(ctx, c.s.client, cmds...)
	var held *wire.Marker
	switch v, err := res[0].ToString(); {
	case rueidis.IsRedisNil(err):
	case err != nil:
		return nil, nil, c.fail(err, f.quiz, f.instance, c.keys.quizzes)
	default:
		m, ok := wire.ParseMarker(v)
		if !ok {
			return nil, nil, corrupt(c.keys.quizzes, "field %s holds %s, not a marker", quote(wire.IndexField(f.quiz, f.instance)), quote(v))
		}
		held = &m
	}
	values := map[string]string{}
	for i, r := range res[1:] {
		got, err := r.ToArray()
		if err != nil {
			return nil, nil, c.fail(err, f.quiz, f.instance, ledger)
		}
		for j, v := range got {
			if s, err := v.ToString(); err == nil {
				values[parts[i][j].participant] = s
			} else if !rueidis.IsRedisNil(err) {
				return nil, nil, c.fail(err, f.quiz, f.instance, ledger)
			}
		}
	}
	return held, values, nil
}

// conflict is what course.lua would refuse the fold of f for, over the
// marker held and the ledger's values of f's pairs, checked in the same
// order (nil: nothing). When the ledger holds every pair and one more, the
// participant is left for foldConflict to find.
func (f foldRecap) conflict(held *wire.Marker, values map[string]string) *ConflictError {
	e := &ConflictError{Quiz: f.quiz, Instance: f.instance}
	other := held != nil && held.Digest != f.marker.Digest
	switch {
	case other && held.Possible != f.marker.Possible:
		e.Reason, e.Held, e.Given = ConflictQuestions, wire.FormatLedgerPoints(held.Possible), wire.FormatLedgerPoints(f.marker.Possible)
		return e
	case other && held.FoldedMS == 0:
		e.Reason = ConflictRecap
		return e
	}
	for _, p := range f.pairs {
		v, ok := values[p.participant]
		switch {
		case ok && v != p.points:
			e.Reason = ConflictPoints
		case !ok && other:
			e.Reason = ConflictParticipants
		default:
			continue
		}
		e.Participant, e.Held, e.Given = p.participant, v, p.points
		return e
	}
	if other {
		e.Reason = ConflictParticipants
		return e
	}
	return nil
}

// foldConflict is the conflict e of f's fold, with the participant the
// instance's ledger holds and the recap lacks found, for that reason, in
// the instance's own ledger.
func (c *Course) foldConflict(ctx context.Context, f foldRecap, e *ConflictError) error {
	e.Course = c.keys.courseID
	if e.Reason != ConflictParticipants || e.Participant != "" {
		return e
	}
	entries, err := c.pager(c.s.client, f.quiz).fields(ctx, c.keys.Ledger(f.quiz, f.instance), "*")
	if err != nil {
		return err
	}
	for _, p := range f.pairs {
		delete(entries, p.participant)
	}
	if names := slices.Sorted(maps.Keys(entries)); len(names) > 0 {
		e.Participant, e.Held = names[0], entries[names[0]]
	}
	return e
}

// numbers decodes a script's reply of n integers.
func (c *Course) numbers(res rueidis.RedisResult, f foldRecap, n int) ([]int64, error) {
	reply, err := res.ToArray()
	if err != nil {
		return nil, c.fail(err, f.quiz, f.instance, c.keys.Ledger(f.quiz, f.instance))
	}
	if len(reply) != n {
		return nil, fmt.Errorf("kuis: %s: course reply of %d elements, want %d", c.about(f.quiz, ""), len(reply), n)
	}
	out := make([]int64, n)
	for i, m := range reply {
		if out[i], err = m.AsInt64(); err != nil {
			return nil, c.fail(err, f.quiz, f.instance, c.keys.Ledger(f.quiz, f.instance))
		}
	}
	return out, nil
}

// Archive returns an archive function for Store.PurgeQuiz that folds the
// quiz's recap into the course (as Fold) and then calls next, when not nil,
// with the same recap. PurgeQuiz deletes the quiz's keys only when both
// succeed, and calling PurgeQuiz again after a failure is safe: the quiz is
// folded once. A recap whose Info.Course names another course is refused
// before anything is folded and next is called (a *ConflictError,
// ConflictCourse: Held the course the quiz names, Given this one), as is
// any ErrConflict of the fold, so the quiz is kept. The commands are Fold's
// and next's.
func (c *Course) Archive(next func(context.Context, Recap) error) func(context.Context, Recap) error {
	return func(ctx context.Context, r Recap) error {
		if r.Info.Course != "" && r.Info.Course != c.keys.courseID {
			return c.conflict(r.QuizID, r.Instance, ConflictCourse, "", r.Info.Course, c.keys.courseID)
		}
		if _, err := c.Fold(ctx, r); err != nil {
			return err
		}
		if next == nil {
			return nil
		}
		return next(ctx, r)
	}
}

// Unfold takes the points of quiz quizID out of the course (a practice
// quiz, a fold into the wrong course), as UnfoldInstance of the ID's only
// instance, which it finds with one HSCAN MATCH "<quiz>@*" of the quiz
// index. A quiz ID the course does not hold is an empty slice, no error; one
// it holds in several instances is a *ConflictError (ConflictInstances,
// Instances listing them) with nothing written: UnfoldInstance the one
// meant. O(Q + M log N), Q the course's quiz instances and M the instance's
// participants. Errors: those of UnfoldInstance, and ErrConflict.
func (c *Course) Unfold(ctx context.Context, quizID string) ([]Correction, error) {
	if err := c.checkQuizID(quizID); err != nil {
		return nil, err
	}
	if err := c.check(ctx, "unfold", quizID, ""); err != nil {
		return nil, err
	}
	index, err := c.pager(c.s.client, quizID).fields(ctx, c.keys.quizzes, wire.IndexField(quizID, "*"))
	if err != nil {
		return nil, err
	}
	var instances []string
	for _, in := range decodeIndex(c.keys, index, func(string, string, string, ...any) {}).instances {
		if in.quiz.QuizID == quizID {
			instances = append(instances, in.quiz.Instance)
		}
	}
	switch len(instances) {
	case 0:
		return []Correction{}, nil
	case 1:
		return c.unfold(ctx, quizID, instances[0])
	}
	e := c.conflict(quizID, "", ConflictInstances, "", "", "")
	e.Instances = instances
	return nil, e
}

// UnfoldInstance takes the points of one instance of quiz quizID out of the
// course (a quiz repaired since it was folded, a recap folded in part): it
// marks the instance unfinished, then, in parts of up to 250, deletes each
// participant's ledger entry, subtracting its points from their total in
// the same atomic step, and once the instance's ledger is empty, its index
// field. A participant left with 0 points leaves the board unless another
// instance's ledger holds them. It returns one Correction per participant
// the ledger held, in participant order (Was and Now the total before and
// after; Now 0 with the participant gone or at 0), and an empty slice for
// an instance not folded, which is no error. An UnfoldInstance cut short
// leaves the instance in parts, unlisted: UnfoldInstance it again, or fold
// its recap again. An instance "" is NoInstance. O(M log N), M the
// instance's participants, reading only the instance's own keys; O(Q) more,
// Q the course's quiz instances, for participants left at 0 points.
//
// Errors: ErrInvalidQuizID (also for an instance that is not a log entry
// ID) before any I/O, ErrForbidden (nothing written), ErrCorrupt (a key of
// the wrong type, or one of the instance's ledger values out of its form;
// nothing written by that part); with WithReplicas, ErrNotReplicated (a
// part was applied on the primary; UnfoldInstance again).
func (c *Course) UnfoldInstance(ctx context.Context, quizID, instance string) ([]Correction, error) {
	if err := c.checkQuizID(quizID); err != nil {
		return nil, err
	}
	if instance == "" {
		instance = NoInstance
	}
	if _, ok := wire.ParseID(instance); !ok {
		return nil, fmt.Errorf("%w: %s: instance %s is not a log entry ID", ErrInvalidQuizID, c.about(quizID, ""), quote(instance))
	}
	if err := c.check(ctx, "unfold", quizID, instance); err != nil {
		return nil, err
	}
	return c.unfold(ctx, quizID, instance)
}

func (c *Course) checkQuizID(quizID string) error {
	return checkID(ErrInvalidQuizID, c.about("", ""), quizID)
}

// unfold is UnfoldInstance after its checks.
func (c *Course) unfold(ctx context.Context, quizID, instance string) ([]Correction, error) {
	field, ledger := wire.IndexField(quizID, instance), c.keys.Ledger(quizID, instance)
	marked := true
	if _, err := c.s.sendOne(ctx, c.s.client, c.s.client.B().Hget().Key(c.keys.quizzes).Field(field).Build()).ToString(); rueidis.IsRedisNil(err) {
		marked = false
	} else if err != nil {
		return nil, c.fail(err, quizID, instance, c.keys.quizzes)
	}
	entries, err := c.pager(c.s.client, quizID).fields(ctx, ledger, "*")
	if err != nil {
		return nil, err
	}
	out := []Correction{}
	if len(entries) == 0 && !marked {
		return out, nil
	}
	names := slices.Sorted(maps.Keys(entries))
	keys := c.keys.scripts(quizID, instance)
	for i, part := range chunks(names, c.s.tune.foldStep) {
		first := ""
		if i == 0 {
			first = "1"
		}
		args := append([]string{"unfold", field, c.keys.ledgers, first}, part...)
		flat, err := c.s.runScriptWrote(ctx, script.Course, unfoldWrote, rueidis.LuaExec{Keys: keys, Args: args})[0].AsStrSlice()
		if err != nil {
			return out, c.fail(err, quizID, instance, ledger)
		}
		if len(flat)%3 != 1 {
			return out, fmt.Errorf("kuis: %s: unfold reply of %d elements, want 1 + 3 per participant", c.about(quizID, ""), len(flat))
		}
		for j := 1; j+2 < len(flat); j += 3 {
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

// foldWrote and unfoldWrote tell from a course.lua run's reply whether it
// wrote (its last element, or its first): a run that wrote nothing is not
// waited for with WithReplicas, so that a fold again or an unfold of nothing
// never answers ErrNotReplicated. A reply of another shape counts as written.
func foldWrote(m rueidis.RedisMessage) bool {
	a, err := m.ToArray()
	if err != nil || len(a) != 4 {
		return true
	}
	n, err := a[3].AsInt64()
	return err != nil || n != 0
}

func unfoldWrote(m rueidis.RedisMessage) bool {
	a, err := m.AsStrSlice()
	return err != nil || len(a) == 0 || a[0] != "0"
}
