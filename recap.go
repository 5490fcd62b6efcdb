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
	Standings []Standing `json:"standings"` // the whole board, as Board.Standings orders it
	TakenAt   time.Time  `json:"taken_at"`  // the caller's clock when the snapshot arrived
}

// TakeRecap reads the meta and the whole board in one atomic read-only script
// (HGETALL meta and ZREVRANGE board 0 -1 WITHSCORES: O(log N + M)), so the
// standings and the status belong to the same moment. It never reads from the
// client-side cache. Errors: ErrQuizNotFound, ErrCorrupt (naming key and field
// or member), ErrNeedsHashTag on a cluster client without WithHashTag.
func TakeRecap(ctx context.Context, client rueidis.Client, quizID string, opts ...Option) (Recap, error) {
	q, err := newQuiz(client, quizID, opts)
	if err != nil {
		return Recap{}, err
	}
	return takeRecap(ctx, q)
}

func takeRecap(ctx context.Context, q quiz) (Recap, error) {
	k := q.keys
	reply, err := script.Recap.Exec(ctx, q.client, []string{k.meta, k.board}, nil).ToArray()
	if err != nil {
		return Recap{}, replyError(err, fmt.Sprintf("quiz %q", k.quizID))
	}
	if len(reply) != 2 {
		return Recap{}, fmt.Errorf("kuis: quiz %q: unexpected recap reply of %d elements", k.quizID, len(reply))
	}
	fields, err := flatPairs(reply[0])
	if err != nil {
		return Recap{}, replyError(err, k.meta)
	}
	info, err := decodeInfo(k.meta, fields.asMap())
	if err != nil {
		return Recap{}, err
	}
	board, err := flatPairs(reply[1])
	if err != nil {
		return Recap{}, replyError(err, k.board)
	}
	standings := make([]Standing, len(board))
	for i, p := range board {
		f, err := strconv.ParseFloat(p.value, 64)
		if err != nil {
			return Recap{}, corrupt(k.board, "member %q has score %q", p.name, p.value)
		}
		score, err := decodeScore(k.board, p.name, f)
		if err != nil {
			return Recap{}, err
		}
		standings[i] = Standing{Rank: i + 1, Participant: p.name, Score: score}
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

// CSVHeader is the first row WriteCSV writes.
var CSVHeader = []string{"rank", "competition_rank", "participant", "score", "correct_answers"}

// WriteCSV writes the standings with encoding/csv: CSVHeader, then one row per
// participant. competition_rank gives equal scores the same rank ("1224") and
// correct_answers is score / 10. Names are written exactly as stored, so the
// file reads back byte for byte; a spreadsheet may treat a name that starts
// with '=', '+', '-' or '@' as a formula, so escape names before opening the
// file in one if students typed them.
func (r Recap) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	comp := 0
	for i, s := range r.Standings {
		// Equal scores share the rank of the first of them ("1224").
		if i == 0 || s.Score != r.Standings[i-1].Score {
			comp = i + 1
		}
		row := []string{
			strconv.Itoa(s.Rank),
			strconv.Itoa(comp),
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
