package kuis

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
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
	TakenAt   time.Time        `json:"taken_at"`  // the caller's clock when the snapshot arrived
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

// Recap reads the quiz quizID whole, as one consistent snapshot. A quiz of
// at most 20,000 board members, answers and log entries together (a class
// of 500 answering 20 questions) is read in one atomic read-only script:
// HGETALL meta, ZCARD, SCARD and XLEN, ZRANGE board 0 -1 REV WITHSCORES (of
// the order set with TiesByTime), SMEMBERS answers and XRANGE log - +: O(N),
// a few milliseconds of the server's time, and the standings, the
// per-question counts, the answers and the status belong to the same moment.
//
// A bigger quiz is read in parts, so that no step blocks the server for
// long: on one dedicated connection, WATCH of its keys, HGETALL, then ZSCAN,
// SSCAN and XRANGE in pages of 1,000, then an empty MULTI/EXEC that tells
// whether any key changed meanwhile. A finished quiz cannot change through
// the library but by Repair, so its recap is still exact: if it changed, it
// is read again, and after 3 reads that all changed Recap returns ErrBusy. A
// running quiz is returned as read: every participant on the board for the
// whole read is listed once, at a score they had at some moment of the read,
// and answers counted meanwhile may be in Answers and Questions but not yet
// in Standings, or the reverse. Finish the quiz first for an exact recap.
//
// Recap never reads from the client-side cache.
//
// Questions counts the answers set's members per question; Answers lists the
// log in the order counted. Answers of a quiz written before the log existed
// are in the answers set only: they come first in Answers, by question then
// participant, with a zero At. A jumlah_soal above 1000 (which Create never
// writes) lists questions up to the highest one answered past 1000.
// Every name and the title come back byte for byte, so the recap archives
// losslessly in JSON: a board member or title that is not valid UTF-8 (only a
// raw write makes one) is ErrCorrupt, not a name with U+FFFD in it.
// Errors: ErrInvalidQuizID, ErrQuizNotFound, ErrCorrupt (naming key and field,
// member or entry), ErrBusy.
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
	if q.opts.ties == TiesByTime {
		mode = "time"
	}
	limit := strconv.Itoa(q.opts.recapLimit)
	reply, err := script.Recap.Exec(ctx, q.client, k.all(), []string{purpose, mode, limit}).ToArray()
	if err != nil {
		return Recap{}, q.fail(err, "", k.meta)
	}
	if len(reply) == 1 { // too big for one script
		if fields, err := flatPairs(reply[0]); err != nil || len(fields) == 0 {
			return Recap{}, cmp.Or(q.fail(err, "", k.meta), q.errNotFound())
		}
		return q.recapInParts(ctx)
	}
	if len(reply) != 5 {
		return Recap{}, fmt.Errorf("kuis: %s: recap reply of %d elements, want 5", q.about(""), len(reply))
	}
	fields, err := flatPairs(reply[0])
	if err != nil {
		return Recap{}, q.fail(err, "", k.meta)
	}
	if len(fields) == 0 {
		return Recap{}, q.errNotFound()
	}
	info, err := decodeInfo(k.meta, fields.asMap())
	if err != nil {
		return Recap{}, err
	}
	r := ranking{key: k.board}
	if byTime, err := reply[4].AsInt64(); err != nil {
		return Recap{}, q.fail(err, "", k.board)
	} else if byTime == 1 {
		r = ranking{key: k.order, byTime: true}
	}
	board, err := flatPairs(reply[1])
	if err != nil {
		return Recap{}, q.fail(err, "", r.key)
	}
	zs := make([]rueidis.ZScore, len(board))
	for i, p := range board {
		f, err := strconv.ParseFloat(p.value, 64)
		if err != nil {
			return Recap{}, corrupt(r.key, "member %s has score %s", quote(p.name), quote(p.value))
		}
		zs[i] = rueidis.ZScore{Member: p.name, Score: f}
	}
	pairs, err := reply[2].AsStrSlice()
	if err != nil {
		return Recap{}, q.fail(err, "", k.answers)
	}
	logged, err := decodeLog(k.log, reply[3])
	if err != nil {
		return Recap{}, err
	}
	return q.assemble(info, r, zs, pairs, logged)
}

// assemble makes the recap of what a read found: the board (or order set)
// in ZRANGE ... REV's order, the answers set's members, the log's answers.
func (q quiz) assemble(info Info, r ranking, zs []rueidis.ZScore, members []string, logged []AnswerRecord) (Recap, error) {
	k := q.keys
	standings, err := decodeStandings(r, zs, 1)
	if err != nil {
		return Recap{}, err
	}
	// JSON would archive a name that is not UTF-8 with U+FFFD in place of
	// its bad bytes, so two such names would become one: refuse instead.
	for _, s := range standings {
		if !utf8.ValidString(s.Participant) {
			return Recap{}, corrupt(r.key, "member %s is not valid UTF-8, which an archive cannot keep", quote(s.Participant))
		}
	}
	if !utf8.ValidString(info.Title) {
		return Recap{}, corrupt(k.meta, "field judul %s is not valid UTF-8, which an archive cannot keep", quote(info.Title))
	}
	questions, answers, err := tally(k.answers, int(min(info.Questions, maxQuestions)), members, logged)
	if err != nil {
		return Recap{}, err
	}
	return Recap{
		QuizID: k.quizID, Info: info, Standings: standings, Questions: questions, Answers: answers,
		TakenAt: time.Now(),
	}, nil
}

// pair is one name/value couple of a flat RESP2 reply (HGETALL, WITHSCORES),
// the shape replies have inside Lua scripts whatever the connection's protocol.
type pair struct{ name, value string }

type pairs []pair

func flatPairs(m rueidis.RedisMessage) (pairs, error) {
	flat, err := m.AsStrSlice()
	if err != nil {
		return nil, err
	}
	if len(flat)%2 != 0 {
		return nil, fmt.Errorf("odd-length reply of %d elements", len(flat))
	}
	out := make(pairs, len(flat)/2)
	for i := range out {
		out[i] = pair{flat[2*i], flat[2*i+1]}
	}
	return out, nil
}

func (ps pairs) asMap() map[string]string {
	m := make(map[string]string, len(ps))
	for _, p := range ps {
		m[p.name] = p.value
	}
	return m
}

// WriteCSV writes the standings with encoding/csv: the header row
// "rank,competition_rank,participant,score,correct_answers", then one row per
// participant; correct_answers is score / 10. Names are written exactly as
// stored, so the file reads back byte for byte; a spreadsheet may treat a name
// that starts with '=', '+', '-' or '@' as a formula, so escape names before
// opening the file in one if students typed them. It returns w's error as it is.
func (r Recap) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"rank", "competition_rank", "participant", "score", "correct_answers"}); err != nil {
		return err
	}
	for _, s := range r.Standings {
		row := []string{
			strconv.Itoa(s.Rank),
			strconv.Itoa(s.CompetitionRank),
			s.Participant,
			strconv.FormatInt(s.Score, 10),
			strconv.FormatInt(s.Score/10, 10),
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
