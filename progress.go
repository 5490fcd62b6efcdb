package kuis

import (
	"context"

	"github.com/kuisboard/kuis/internal/wire"
)

// Summary is how far a quiz has come, as a projected board shows it.
type Summary struct {
	Title        string `json:"title"`
	Questions    int64  `json:"questions"`
	Status       Status `json:"status"`
	Participants int64  `json:"participants"` // members of the board
	Answers      int64  `json:"answers"`      // counted answers: members of the answers set
}

// Summary reads the quiz's meta, the number of participants on the board and
// the number of answers counted, all in one round trip: O(1). With
// WithClientCache it may be served from the cache. A quiz whose answers were
// written outside the library, without the answers set, counts no answers.
// Errors: ErrQuizNotFound, ErrCorrupt (malformed meta, or a key of the wrong
// type), ErrForbidden.
func (b *Board) Summary(ctx context.Context) (Summary, error) {
	k, c := b.q.keys, b.q.s.client.B()
	res := b.q.s.sendReads(ctx, c.Hgetall().Key(k.meta).Cache(), c.Zcard().Key(k.board).Cache(), c.Scard().Key(k.answers).Cache())
	fields, err := res[0].AsStrMap()
	info, err := b.q.decodeMeta(fields, err, needAll)
	if err != nil {
		return Summary{}, err
	}
	var counts [2]int64
	for i, key := range []string{k.board, k.answers} {
		if counts[i], err = res[i+1].AsInt64(); err != nil {
			return Summary{}, b.q.fail(err, "", key)
		}
	}
	return Summary{Title: info.Title, Questions: info.Questions, Status: info.Status, Participants: counts[0], Answers: counts[1]}, nil
}

// Answered returns the questions the participant answered correctly,
// ascending, and an empty slice when none (a participant not on the board
// included): O(jumlah_soal).
// It reads the meta, then asks the answers set about every question at once:
// two round trips, none when both are cached (WithClientCache). Errors:
// ErrInvalidParticipant before any I/O, ErrQuizNotFound, ErrCorrupt
// (malformed meta, or an answers set of the wrong type), ErrForbidden.
func (b *Board) Answered(ctx context.Context, participant string) ([]int, error) {
	if err := checkParticipant(participant, b.q.about); err != nil {
		return nil, err
	}
	info, err := (&Meta{q: b.q}).Get(ctx)
	if err != nil {
		return nil, err
	}
	k := b.q.keys
	pairs := make([]string, info.Questions)
	for i := range pairs {
		pairs[i] = wire.Pair(i+1, participant)
	}
	found, err := b.q.s.sendReads(ctx, b.q.s.client.B().Smismember().Key(k.answers).Member(pairs...).Cache())[0].AsIntSlice()
	if err != nil {
		return nil, b.q.fail(err, participant, k.answers)
	}
	out := []int{}
	for i, f := range found {
		if f == 1 {
			out = append(out, i+1)
		}
	}
	return out, nil
}
