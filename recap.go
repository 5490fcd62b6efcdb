package kuis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// Recap is a quiz's grades and everything its answers wrote, taken as one
// consistent snapshot: what the teacher copies elsewhere before the keys are
// purged.
type Recap struct {
	QuizID string `json:"quiz_id"` // the quiz ID, without braces
	// Instance tells this quiz apart from any other created under the same
	// ID, before or after it: the ID of the log's first entry, which is the
	// start entry Create writes ("1733299200000-0"), unique per ID since a
	// stream ID never goes back. A quiz created by hand without a start
	// entry has its first answer's entry ID instead, and one with an empty
	// log has NoInstance. A recap archived before instances existed decodes
	// with an empty Instance, which Course.Fold reads as NoInstance.
	Instance  string           `json:"instance"`
	Info      Info             `json:"info"`      // the decoded meta hash
	Standings []Standing       `json:"standings"` // the whole board, as Board.Standings reads it
	Questions []QuestionResult `json:"questions"` // one per question, 1..jumlah_soal, in order
	Answers   []AnswerRecord   `json:"answers"`   // every counted answer, in the order counted
	// FinishedAt is the server's time of Finish, to the millisecond, from
	// the log's finish entry; zero for a running quiz and for one finished
	// without an entry.
	FinishedAt time.Time `json:"finished_at"`
	TakenAt    time.Time `json:"taken_at"` // the caller's clock when the snapshot arrived
}

// QuestionResult is how one question went.
type QuestionResult struct {
	Question int `json:"question"`
	Correct  int `json:"correct"` // participants who answered it correctly
}

// AnswerRecord is one counted answer.
type AnswerRecord struct {
	Participant string    `json:"participant"`
	Question    int       `json:"question"`
	At          time.Time `json:"at"` // the Redis server's time when it was counted, UTC, to the millisecond
}

// NoInstance is Recap.Instance of a quiz whose log holds no entry (one made
// by hand, with no answer counted yet).
const NoInstance = "0-0"

// Recap reads the quiz quizID whole, as one consistent snapshot: O(N). A quiz
// of up to 10,000 board members, answers and log entries together (a class of
// 250 answering 19 questions) is read in one atomic read-only script, so the
// standings, the per-question counts, the answers and the status belong to
// the same moment. A bigger quiz is read in parts, so that no step holds the
// server long, on one connection watching its keys: a finished quiz cannot
// change through the library but by Repair, so its recap is still exact (if
// it changed while read, it is read again, then ErrBusy). A running quiz read
// in parts is returned as read: every participant on the board for the whole
// read is listed once, at a score they had at some moment of the read, and
// answers counted meanwhile may be in Answers and Questions but not yet in
// Standings, or the reverse. Finish the quiz first for an exact recap. Recap
// never reads from the client-side cache.
//
// The answers set decides what was counted: Questions counts its members per
// question, and Answers lists each of them once, at the time of its first log
// entry, in the order counted. A logged answer whose pair the set lacks is no
// grade (Audit reports it). Answers of a quiz written before the log existed
// are in the answers set only: they come first in Answers, by question then
// participant, with a zero At. Every name and the title come back byte for
// byte, so the recap archives losslessly in JSON: a board member or title
// that is not valid UTF-8 (only a raw write makes one) is ErrCorrupt, not a
// name with U+FFFD in it.
//
// Errors: ErrInvalidQuizID before any I/O, ErrQuizNotFound, ErrCorrupt
// (naming the key and the field, member or entry), ErrBusy, ErrForbidden.
func (s *Store) Recap(ctx context.Context, quizID string) (Recap, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return Recap{}, err
	}
	r, _, err := q.recap(ctx, "")
	return r, err
}

// recap takes the snapshot; purpose "purge" first checks that the ACL user
// may delete the quiz's keys. It also returns the ID of the log's first
// entry ("" for none): the mark of the quiz that Create made, which a quiz
// created again under the same ID does not share.
func (q quiz) recap(ctx context.Context, purpose string) (Recap, string, error) {
	k := q.keys
	mode := ""
	if q.s.opts.ties == TiesByTime {
		mode = "time"
	}
	limit := strconv.Itoa(q.s.tune.recapLimit)
	reply, err := q.s.run(ctx, script.Recap, k.quizKeys(), []string{purpose, mode, limit}).ToArray()
	if err != nil {
		return Recap{}, "", q.fail(err, "", k.meta)
	}
	if len(reply) != 1 && len(reply) != 5 {
		return Recap{}, "", fmt.Errorf("kuis: %s: recap reply of %d elements, want 1 or 5", q.about(""), len(reply))
	}
	var snap snapshot
	fields, err := reply[0].AsStrMap()
	if err != nil {
		return Recap{}, "", q.fail(err, "", k.meta)
	}
	snap.setMeta(q, fields)
	if len(fields) == 0 {
		return Recap{}, "", q.errNotFound()
	}
	if len(reply) == 1 { // too big for one script
		return q.recapInParts(ctx)
	}
	if snap.board, err = flatScores(k.board, reply[1]); err != nil {
		return Recap{}, "", err
	}
	if snap.order, err = flatScores(k.order, reply[4]); err != nil {
		return Recap{}, "", err
	}
	if snap.members, err = reply[2].AsStrSlice(); err != nil {
		return Recap{}, "", q.fail(err, "", k.answers)
	}
	entries, err := reply[3].AsXRange()
	if err != nil {
		return Recap{}, "", corrupt(k.log, "not a list of entries: %v", err)
	}
	snap.addEntries(entries)
	return q.recapOf(&snap, len(snap.order) > 0)
}

// flatScores decodes a flat member/score list, as replies are inside scripts.
func flatScores(key string, m rueidis.RedisMessage) ([]rueidis.ZScore, error) {
	flat, err := m.AsStrSlice()
	if err != nil || len(flat)%2 != 0 {
		return nil, corrupt(key, "not a member/score list")
	}
	zs := make([]rueidis.ZScore, len(flat)/2)
	for i := range zs {
		f, err := strconv.ParseFloat(flat[2*i+1], 64)
		if err != nil {
			return nil, corrupt(key, "member %s has score %s", quote(flat[2*i]), quote(flat[2*i+1]))
		}
		zs[i] = rueidis.ZScore{Member: flat[2*i], Score: f}
	}
	return zs, nil
}

// recapOf makes the recap of a snapshot: the board in the order set's order
// when byTime (each with its board score, which the place must agree with),
// else as read.
func (q quiz) recapOf(s *snapshot, byTime bool) (Recap, string, error) {
	k := q.keys
	if s.infoErr != nil {
		return Recap{}, "", s.infoErr
	}
	zs := s.board
	if byTime {
		var err error
		if zs, err = q.byPlace(s.order, scoreMap(s.board)); err != nil {
			return Recap{}, "", err
		}
	}
	standings, err := decodeStandings(k.board, zs, 1)
	if err != nil {
		return Recap{}, "", err
	}
	// JSON would archive a name that is not UTF-8 with U+FFFD in place of
	// its bad bytes, so two such names would become one: refuse instead.
	for _, s := range standings {
		if !utf8.ValidString(s.Participant) {
			return Recap{}, "", corrupt(k.board, "member %s is not valid UTF-8, which an archive cannot keep", quote(s.Participant))
		}
	}
	if !utf8.ValidString(s.info.Title) {
		return Recap{}, "", corrupt(k.meta, "field judul %s is not valid UTF-8, which an archive cannot keep", quote(s.info.Title))
	}
	for _, e := range s.log {
		if e.err != nil {
			return Recap{}, "", corrupt(k.log, "%v", e.err)
		}
	}
	c := s.count(nil)
	if len(c.bad) > 0 {
		return Recap{}, "", corrupt(k.answers, "member %s is not <question>:<participant> of a question of 1 to %d",
			quote(c.bad[0]), s.info.Questions)
	}
	questions := make([]QuestionResult, len(c.correct))
	for i, n := range c.correct {
		questions[i] = QuestionResult{Question: i + 1, Correct: n}
	}
	mark, instance := "", NoInstance
	if len(s.log) > 0 {
		mark = s.log[0].ID.String()
		instance = mark
	}
	return Recap{
		QuizID: k.quizID, Instance: instance, Info: s.info, Standings: standings, Questions: questions, Answers: c.answers,
		FinishedAt: c.finishedAt, TakenAt: time.Now(),
	}, mark, nil
}

// scoreMap is a board's scores by member.
func scoreMap(board []rueidis.ZScore) map[string]float64 {
	scores := make(map[string]float64, len(board))
	for _, z := range board {
		scores[z.Member] = z.Score
	}
	return scores
}

// recapInParts reads a quiz too big for one recap script, on one dedicated
// connection: WATCH of its keys, then the quiz in pages (readPages), then an
// empty MULTI/EXEC, which fails if a watched key changed meanwhile. A read
// redirected (the slot moved in a failover) starts again on the node that
// serves the slot (rounds). A finished quiz that changed is read again, up
// to readAttempts times, then refused with ErrBusy; a running quiz is
// returned as read.
func (q quiz) recapInParts(ctx context.Context) (Recap, string, error) {
	for attempt := 1; ; attempt++ {
		p := partsRead{q: q, ctx: ctx}
		if err := q.s.rounds(ctx, true, &p); err != nil {
			return Recap{}, "", q.fail(err, "", q.keys.meta)
		}
		r, mark, changed, err := p.r, p.mark, p.changed, p.err
		switch {
		case err != nil:
			return Recap{}, "", err
		case !changed || r.Info.Status == StatusRunning:
			return r, mark, nil
		case attempt == readAttempts:
			return Recap{}, "", fmt.Errorf("%w: %s: the finished quiz changed each of the %d times it was read in parts",
				ErrBusy, q.about(""), attempt)
		}
	}
}

// partsRead is one readParts of recapInParts, as rounds sends it.
type partsRead struct {
	q       quiz
	ctx     context.Context
	r       Recap
	mark    string
	changed bool
	err     error
}

func (p *partsRead) round(c rueidis.CommandClient, more bool) round {
	p.r, p.mark, p.changed, p.err = p.q.readParts(p.ctx, c)
	return again(p.ctx, p.err, more)
}

// readParts is one WATCHed read of the quiz in pages on c, a dedicated
// connection; changed reports that a watched key changed while it ran.
func (q quiz) readParts(ctx context.Context, c rueidis.CommandClient) (r Recap, mark string, changed bool, err error) {
	k := q.keys
	watch := make([]rueidis.Completed, 0, len(k.quizKeys()))
	for _, key := range k.quizKeys() { // one key each: a moving slot never answers TRYAGAIN
		watch = append(watch, c.B().Watch().Key(key).Build())
	}
	for _, res := range q.s.send(ctx, c, watch...) {
		if err := res.Error(); err != nil {
			return Recap{}, "", false, q.fail(err, "", k.meta)
		}
	}
	defer func() {
		if err != nil { // leave the connection as it was found
			q.s.sendOne(context.WithoutCancel(ctx), c, c.B().Unwatch().Build())
		}
	}()
	res := q.s.send(ctx, c, c.B().Zcard().Key(k.board).Build(), c.B().Zcard().Key(k.order).Build())
	rank, err := q.rankingOf(res[0], res[1])
	if err != nil {
		return Recap{}, "", false, err
	}
	snap, err := q.readPages(ctx, c, parts{meta: true, board: true, order: rank.byTime, answers: true, log: true})
	if err != nil {
		return Recap{}, "", false, err
	}
	if len(snap.fields) == 0 {
		return Recap{}, "", false, q.errNotFound()
	}
	exec := q.s.send(ctx, c, c.B().Multi().Build(), c.B().Exec().Build())
	if err := exec[1].Error(); err != nil && !rueidis.IsRedisNil(err) {
		return Recap{}, "", false, q.fail(err, "", k.meta)
	}
	changed = rueidis.IsRedisNil(exec[1].Error())
	if changed && rank.byTime {
		snap.board = byTime(snap.board, snap.order) // read at different moments: they need not agree
		rank.byTime = false
	}
	r, mark, err = q.recapOf(&snap, rank.byTime)
	return r, mark, changed, err
}

// byTime orders the board as the order set does (more points, then the
// earlier latest answer, then names in reverse), taking the points from the
// board and only the time from places; a member without a place comes after
// those with as many points.
func byTime(board, places []rueidis.ZScore) []rueidis.ZScore {
	early := make(map[string]float64, len(places)) // unit - 1 - ms: the greater, the earlier
	for _, p := range places {
		early[p.Member] = math.Mod(p.Score, wire.PlaceUnit)
	}
	out := slices.Clone(board)
	slices.SortFunc(out, func(a, b rueidis.ZScore) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(early[b.Member], early[a.Member]), strings.Compare(b.Member, a.Member))
	})
	return out
}
