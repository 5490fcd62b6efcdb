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
	"github.com/redis/rueidis"
)

// Recap is a quiz's grades and everything its answers wrote, taken as one
// consistent snapshot: what the teacher copies elsewhere before the keys are
// purged.
type Recap struct {
	QuizID    string           `json:"quiz_id"`   // the quiz ID, without braces
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

// recapAttempts is how many times Recap reads a big finished quiz in parts
// before it gives up because the quiz kept changing.
const recapAttempts = 3

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
// Questions counts the answers set's members per question; Answers lists the
// log in the order counted. Answers of a quiz written before the log existed
// are in the answers set only: they come first in Answers, by question then
// participant, with a zero At. A jumlah_soal above 1000 (which Create never
// writes) lists questions up to the highest one answered past 1000. Every
// name and the title come back byte for byte, so the recap archives
// losslessly in JSON: a board member or title that is not valid UTF-8 (only a
// raw write makes one) is ErrCorrupt, not a name with U+FFFD in it.
//
// Errors: ErrInvalidQuizID before any I/O, ErrQuizNotFound, ErrCorrupt
// (naming the key and the field, member or entry), ErrBusy, ErrForbidden.
func (s *Store) Recap(ctx context.Context, quizID string) (Recap, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return Recap{}, err
	}
	return q.recap(ctx, "")
}

// recap takes the snapshot; purpose "purge" first checks that the ACL user
// may delete the quiz's keys.
func (q quiz) recap(ctx context.Context, purpose string) (Recap, error) {
	k := q.keys
	mode := ""
	if q.s.opts.ties == TiesByTime {
		mode = "time"
	}
	limit := strconv.Itoa(q.s.tune.recapLimit)
	reply, err := run(ctx, q.s.client, script.Recap, k.all(), []string{purpose, mode, limit}).ToArray()
	if err != nil {
		return Recap{}, q.fail(err, "", k.meta)
	}
	if len(reply) == 0 {
		return Recap{}, fmt.Errorf("kuis: %s: empty recap reply", q.about(""))
	}
	fields, err := reply[0].AsStrMap()
	if err != nil {
		return Recap{}, q.fail(err, "", k.meta)
	}
	if len(fields) == 0 {
		return Recap{}, q.errNotFound()
	}
	if len(reply) == 1 { // too big for one script
		return q.recapInParts(ctx)
	}
	if len(reply) != 5 {
		return Recap{}, fmt.Errorf("kuis: %s: recap reply of %d elements, want 5", q.about(""), len(reply))
	}
	board, err := scoresOf(k.board, reply[1])
	if err != nil {
		return Recap{}, err
	}
	places, err := scoresOf(k.order, reply[4])
	if err != nil {
		return Recap{}, err
	}
	zs, err := q.ordered(board, places)
	if err != nil {
		return Recap{}, err
	}
	members, err := reply[2].AsStrSlice()
	if err != nil {
		return Recap{}, q.fail(err, "", k.answers)
	}
	entries, err := reply[3].AsXRange()
	if err != nil {
		return Recap{}, corrupt(k.log, "not a list of entries: %v", err)
	}
	var logged loggedAnswers
	for _, raw := range entries {
		e, err := decodeEntry(raw)
		if err != nil {
			return Recap{}, corrupt(k.log, "%v", err)
		}
		logged.add(e)
	}
	return q.assemble(fields, zs, members, logged)
}

// scoresOf decodes a flat member/score list, as replies are inside scripts.
func scoresOf(key string, m rueidis.RedisMessage) ([]rueidis.ZScore, error) {
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

// ordered is the whole board in the recap's order: as it comes (ZRANGE ...
// REV), or, when the order set orders it (places, in the same form, holding
// as many members), in the order set's order, each with its board score.
func (q quiz) ordered(board, places []rueidis.ZScore) ([]rueidis.ZScore, error) {
	if len(places) == 0 {
		return board, nil
	}
	scores := make(map[string]float64, len(board))
	for _, z := range board {
		scores[z.Member] = z.Score
	}
	return q.byPlace(places, scores)
}

// loggedAnswers is what a recap takes from the log: its answers, in order,
// and the time of its finish entry.
type loggedAnswers struct {
	answers    []AnswerRecord
	finishedAt time.Time
}

func (l *loggedAnswers) add(e logEntry) {
	switch e.kind {
	case entryAnswer:
		l.answers = append(l.answers, AnswerRecord{Participant: e.participant, Question: e.question, At: e.id.time()})
	case entryFinish:
		if l.finishedAt.IsZero() {
			l.finishedAt = e.id.time()
		}
	}
}

// assemble makes the recap of what a read found: the meta hash, the board in
// the recap's order, the answers set's members, the log.
func (q quiz) assemble(fields map[string]string, zs []rueidis.ZScore, members []string, logged loggedAnswers) (Recap, error) {
	k := q.keys
	info, err := decodeInfo(k.meta, fields)
	if err != nil {
		return Recap{}, err
	}
	standings, err := decodeStandings(k.board, zs, 1)
	if err != nil {
		return Recap{}, err
	}
	// JSON would archive a name that is not UTF-8 with U+FFFD in place of
	// its bad bytes, so two such names would become one: refuse instead.
	for _, s := range standings {
		if !utf8.ValidString(s.Participant) {
			return Recap{}, corrupt(k.board, "member %s is not valid UTF-8, which an archive cannot keep", quote(s.Participant))
		}
	}
	if !utf8.ValidString(info.Title) {
		return Recap{}, corrupt(k.meta, "field judul %s is not valid UTF-8, which an archive cannot keep", quote(info.Title))
	}
	questions, answers, err := tally(k.answers, int(min(info.Questions, maxQuestions)), members, logged.answers)
	if err != nil {
		return Recap{}, err
	}
	return Recap{
		QuizID: k.quizID, Info: info, Standings: standings, Questions: questions, Answers: answers,
		FinishedAt: logged.finishedAt, TakenAt: time.Now(),
	}, nil
}

// recapInParts reads a quiz too big for one recap script, on one dedicated
// connection: WATCH of its keys, HGETALL meta, the board or order set
// (ZSCAN), the answers set (SSCAN) and the log (XRANGE) in pages, then an
// empty MULTI/EXEC, which fails if a watched key changed meanwhile. A
// finished quiz that changed is read again, up to recapAttempts times, then
// refused with ErrBusy; a running quiz is returned as read.
func (q quiz) recapInParts(ctx context.Context) (Recap, error) {
	for attempt := 1; ; attempt++ {
		var (
			r       Recap
			changed bool
		)
		err := q.s.client.Dedicated(func(c rueidis.DedicatedClient) error {
			var err error
			r, changed, err = q.readParts(ctx, c)
			return err
		})
		switch {
		case err != nil:
			return Recap{}, err
		case !changed || r.Info.Status == StatusRunning:
			return r, nil
		case attempt == recapAttempts:
			return Recap{}, fmt.Errorf("%w: %s: the finished quiz changed each of the %d times it was read in parts",
				ErrBusy, q.about(""), attempt)
		}
	}
}

// readParts is one WATCHed read of the quiz in pages on c; changed reports
// that a watched key changed while it ran.
func (q quiz) readParts(ctx context.Context, c rueidis.DedicatedClient) (r Recap, changed bool, err error) {
	k := q.keys
	watch := make([]rueidis.Completed, 0, len(k.all()))
	for _, key := range k.all() { // one key each: a moving slot never answers TRYAGAIN
		watch = append(watch, c.B().Watch().Key(key).Build())
	}
	for _, res := range send(ctx, c, watch...) {
		if err := res.Error(); err != nil {
			return Recap{}, false, q.fail(err, "", k.meta)
		}
	}
	defer func() {
		if err != nil { // leave the connection as it was found
			sendOne(context.WithoutCancel(ctx), c, c.B().Unwatch().Build())
		}
	}()
	res := send(ctx, c, c.B().Hgetall().Key(k.meta).Build(), c.B().Zcard().Key(k.board).Build(), c.B().Zcard().Key(k.order).Build())
	fields, err := res[0].AsStrMap()
	if err != nil {
		return Recap{}, false, q.fail(err, "", k.meta)
	}
	if len(fields) == 0 {
		return Recap{}, false, q.errNotFound()
	}
	rank, err := q.rankingOf(res[1], res[2])
	if err != nil {
		return Recap{}, false, err
	}
	board, err := q.scanSorted(ctx, c, k.board)
	if err != nil {
		return Recap{}, false, err
	}
	slices.Reverse(board) // ZRANGE ... REV's order
	var places []rueidis.ZScore
	if rank.byTime {
		if places, err = q.scanSorted(ctx, c, k.order); err != nil {
			return Recap{}, false, err
		}
		slices.Reverse(places)
	}
	members, err := q.scanMembers(ctx, c, k.answers)
	if err != nil {
		return Recap{}, false, err
	}
	slices.Sort(members)
	var logged loggedAnswers
	if _, err := q.readLog(ctx, c, nil, func(e logEntry, err error) error {
		if err != nil {
			return corrupt(k.log, "%v", err)
		}
		logged.add(e)
		return nil
	}); err != nil {
		return Recap{}, false, err
	}
	exec := send(ctx, c, c.B().Multi().Build(), c.B().Exec().Build())
	if err := exec[1].Error(); err != nil && !rueidis.IsRedisNil(err) {
		return Recap{}, false, q.fail(err, "", k.meta)
	}
	changed = rueidis.IsRedisNil(exec[1].Error())
	var zs []rueidis.ZScore
	if changed && rank.byTime {
		zs = byTime(board, places) // read at different moments: they need not agree
	} else if zs, err = q.ordered(board, places); err != nil {
		return Recap{}, false, err
	}
	if r, err = q.assemble(fields, zs, members, logged); err != nil {
		return Recap{}, false, err
	}
	return r, changed, nil
}

// byTime orders the board as the order set does (more points, then the
// earlier latest answer, then names in reverse), taking the points from the
// board and only the time from places; a member without a place comes after
// those with as many points.
func byTime(board, places []rueidis.ZScore) []rueidis.ZScore {
	early := make(map[string]float64, len(places)) // unit - 1 - ms: the greater, the earlier
	for _, p := range places {
		early[p.Member] = math.Mod(p.Score, orderUnit)
	}
	out := slices.Clone(board)
	slices.SortFunc(out, func(a, b rueidis.ZScore) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(early[b.Member], early[a.Member]), strings.Compare(b.Member, a.Member))
	})
	return out
}

// scanMembers reads a set whole with SSCAN pages on c, each member once
// (SSCAN may return one twice).
func (q quiz) scanMembers(ctx context.Context, c rueidis.CommandClient, key string) ([]string, error) {
	var members []string
	seen := map[string]bool{}
	err := q.scanPages(ctx, c, key, func(cursor uint64) rueidis.Completed {
		return c.B().Sscan().Key(key).Cursor(cursor).Count(q.s.tune.pageSize).Build()
	}, func(page []string) error {
		for _, m := range page {
			if !seen[m] {
				seen[m] = true
				members = append(members, m)
			}
		}
		return nil
	})
	return members, err
}

// scanSorted reads a sorted set whole with ZSCAN pages on c and returns it
// in ZRANGE's order: by score, then by name, both ascending.
func (q quiz) scanSorted(ctx context.Context, c rueidis.CommandClient, key string) ([]rueidis.ZScore, error) {
	scores := map[string]float64{}
	err := q.scanPages(ctx, c, key, func(cursor uint64) rueidis.Completed {
		return c.B().Zscan().Key(key).Cursor(cursor).Count(q.s.tune.pageSize).Build()
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
		return cmp.Or(cmp.Compare(a.Score, b.Score), strings.Compare(a.Member, b.Member))
	})
	return zs, nil
}

// scanPages runs a SCAN-family command on c from cursor 0 until it is 0 again.
func (q quiz) scanPages(ctx context.Context, c rueidis.CommandClient, key string, cmd func(uint64) rueidis.Completed, page func([]string) error) error {
	var cursor uint64
	for {
		entry, err := sendOne(ctx, c, cmd(cursor)).AsScanEntry()
		if err != nil {
			return q.fail(err, "", key)
		}
		if err := page(entry.Elements); err != nil {
			return err
		}
		if cursor = entry.Cursor; cursor == 0 {
			return nil
		}
	}
}
