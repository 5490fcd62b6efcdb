package kuis

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Recap is a quiz's grades, taken as one consistent snapshot: what the teacher
// copies elsewhere before the keys are purged.
type Recap struct {
	QuizID    string     `json:"quiz_id"`   // the quiz ID, without braces
	Info      Info       `json:"info"`      // the decoded meta hash
	Standings []Standing `json:"standings"` // the whole board, as Board.Standings reads it
	TakenAt   time.Time  `json:"taken_at"`  // the caller's clock when the snapshot arrived
}

// Recap reads the meta and the whole board of quiz quizID in one atomic
// read-only script (HGETALL meta and ZRANGE board 0 -1 REV WITHSCORES:
// O(log N + M)), so the standings and the status belong to the same moment.
// It never reads from the client-side cache. Errors: ErrInvalidQuizID,
// ErrQuizNotFound, ErrCorrupt (naming key and field or member).
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
	reply, err := script.Recap.Exec(ctx, q.client, k.all(), []string{purpose}).ToArray()
	if err != nil {
		return Recap{}, q.fail(err, "", k.meta)
	}
	if len(reply) != 2 {
		return Recap{}, fmt.Errorf("kuis: %s: recap reply of %d elements, want 2", q.about(""), len(reply))
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
	board, err := flatPairs(reply[1])
	if err != nil {
		return Recap{}, q.fail(err, "", k.board)
	}
	zs := make([]rueidis.ZScore, len(board))
	for i, p := range board {
		f, err := strconv.ParseFloat(p.value, 64)
		if err != nil {
			return Recap{}, corrupt(k.board, "member %s has score %s", quote(p.name), quote(p.value))
		}
		zs[i] = rueidis.ZScore{Member: p.name, Score: f}
	}
	standings, err := decodeStandings(k.board, zs, 1)
	if err != nil {
		return Recap{}, err
	}
	return Recap{QuizID: k.quizID, Info: info, Standings: standings, TakenAt: time.Now()}, nil
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
