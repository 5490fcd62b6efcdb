package kuis

import (
	"context"
	"fmt"
	"strconv"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Answer is the outcome of RecordAnswer.
type Answer struct {
	// Score is the participant's score after the call.
	Score int64 `json:"score"`
	// Duplicate is true when this (participant, question) pair had already been
	// counted, by an earlier call or by a retry of a call whose reply was lost;
	// nothing was added.
	Duplicate bool `json:"duplicate"`
}

// AnswerInput is one correct answer for RecordAnswers.
type AnswerInput struct {
	// Participant is the participant's name, checked as in RecordAnswer.
	Participant string
	// Question is the question answered, 1 to the quiz's jumlah_soal.
	Question int
}

// RecordCorrect adds exactly 10 points to the participant with ZINCRBY and
// returns the new score. It runs as one atomic script that first checks the
// meta (HMGET, O(1)) and the current score (ZSCORE, O(1)), so answers are
// refused, with nothing written, once the quiz is selesai: ErrQuizFinished;
// ErrQuizNotFound with no meta; ErrCorrupt for a malformed meta, a board of the
// wrong type or a current score that is not a non-negative multiple of 10;
// ErrInvalidParticipant before any I/O. ZINCRBY is O(log N).
//
// RecordCorrect counts every call: a retry after a lost reply may count twice.
// Prefer RecordAnswer, which is exactly-once per question.
func (b *Board) RecordCorrect(ctx context.Context, participant string) (int64, error) {
	if err := checkParticipant(participant); err != nil {
		return 0, err
	}
	k := b.q.keys
	f, err := script.Record.Exec(ctx, b.q.client, []string{k.meta, k.board}, []string{participant}).AsFloat64()
	if err != nil {
		return 0, b.recordError(err, participant)
	}
	return decodeScore(k.board, participant, f)
}

// RecordAnswer counts a correct answer to question (1 to jumlah_soal) at most
// once per participant, in one atomic script together with the status gate of
// RecordCorrect: HMGET meta, SISMEMBER answers, ZSCORE board, then ZINCRBY
// board 10 and SADD answers (O(log N)). The first call adds 10 points and returns
// {Score: new, Duplicate: false}; every repeat adds nothing and returns
// {Score: current, Duplicate: true}, even after the quiz is finished (only
// new answers are refused then). It is therefore safe to retry after any
// error, including a timeout after the server applied the write and the
// teacher finished the quiz before the retry.
//
// Checks, in order: ErrInvalidParticipant and ErrInvalidQuestion (question < 1)
// before any I/O; then on the server ErrForbidden (the ACL user may not write
// board or answers), ErrQuizNotFound, ErrCorrupt (malformed meta),
// ErrQuizFinished (unless the pair was counted: Duplicate), ErrInvalidQuestion
// (question > jumlah_soal), ErrCorrupt (answers set or score breaks the
// contract). Refusals write nothing.
func (b *Board) RecordAnswer(ctx context.Context, participant string, question int) (Answer, error) {
	if err := checkAnswer(participant, question); err != nil {
		return Answer{}, err
	}
	k := b.q.keys
	res := script.RecordAnswer.Exec(ctx, b.q.client, k.all(), []string{participant, strconv.Itoa(question)})
	return b.decodeAnswer(res, participant)
}

// RecordAnswers records many answers, each exactly as RecordAnswer does (its own
// atomic script run): one EVALSHA of RecordAnswer's script per answer,
// pipelined in one round trip, and EVAL only for those answered NOSCRIPT;
// O(log N) per answer. It serves bulk imports and rebuilding a board from its
// answer log. Every input is validated before any I/O (ErrInvalidParticipant,
// ErrInvalidQuestion, naming the index); on such an error the result is nil
// and nothing is sent.
//
// The result has one Answer per input, in order. When err is non-nil it wraps
// the first failure and names its index; the entries of failed answers are
// zero, and every other entry was applied exactly once. Retrying the whole
// batch is safe: what was applied answers Duplicate.
func (b *Board) RecordAnswers(ctx context.Context, answers []AnswerInput) ([]Answer, error) {
	if len(answers) == 0 {
		return nil, nil
	}
	execs := make([]rueidis.LuaExec, len(answers))
	keys := b.q.keys.all()
	for i, a := range answers {
		if err := checkAnswer(a.Participant, a.Question); err != nil {
			return nil, fmt.Errorf("answer %d: %w", i, err)
		}
		execs[i] = rueidis.LuaExec{Keys: keys, Args: []string{a.Participant, strconv.Itoa(a.Question)}}
	}
	out := make([]Answer, len(answers))
	var first error
	for i, res := range script.RecordAnswerBatch.Exec(ctx, b.q.client, execs) {
		a, err := b.decodeAnswer(res, answers[i].Participant)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("answer %d: %w", i, err)
			}
			continue
		}
		out[i] = a
	}
	return out, first
}

func checkAnswer(participant string, question int) error {
	if err := checkParticipant(participant); err != nil {
		return err
	}
	if question < 1 {
		return fmt.Errorf("%w: question %d (want 1 to jumlah_soal)", ErrInvalidQuestion, question)
	}
	return nil
}

// decodeAnswer reads record_answer.lua's {score, duplicate} reply.
func (b *Board) decodeAnswer(res rueidis.RedisResult, participant string) (Answer, error) {
	reply, err := res.ToArray()
	if err != nil {
		return Answer{}, b.recordError(err, participant)
	}
	if len(reply) != 2 {
		return Answer{}, fmt.Errorf("kuis: %s: unexpected reply of %d elements", b.q.keys.board, len(reply))
	}
	f, err := reply[0].AsFloat64()
	if err != nil {
		return Answer{}, b.recordError(err, participant)
	}
	dup, err := reply[1].AsInt64()
	if err != nil {
		return Answer{}, b.recordError(err, participant)
	}
	score, err := decodeScore(b.q.keys.board, participant, f)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Score: score, Duplicate: dup == 1}, nil
}

func (b *Board) recordError(err error, participant string) error {
	return replyError(err, fmt.Sprintf("quiz %q, participant %q", b.q.keys.quizID, participant))
}
