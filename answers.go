package kuis

import (
	"context"
	"fmt"
	"strconv"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Answer is the outcome of a counted or repeated answer.
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
	Participant string `json:"participant"`
	// Question is the question answered, 1 to the quiz's jumlah_soal.
	Question int `json:"question"`
}

// AnswerResult is the outcome of one entry of RecordAnswers.
type AnswerResult struct {
	Answer       // as RecordAnswer returns it; zero when Err is set
	Err    error `json:"-"` // this answer's own refusal (errors.Is-comparable), nil when counted or Duplicate
}

// RecordAnswer counts a correct answer to question (1 to jumlah_soal) at most
// once per participant: the only way points are earned, exactly 10 each. It
// is one atomic script that checks the quiz (HMGET meta), the pair (SISMEMBER
// answers) and the score (ZSCORE board, ZSCORE order), then runs XADD log
// (the entry ID holds the server's time), ZINCRBY board 10, SADD answers and
// ZADD order (O(log N)). The first call adds 10 points and returns {Score: new,
// Duplicate: false}; every repeat adds nothing and returns {Score: current,
// Duplicate: true}, even after the quiz is finished (only new answers are
// refused then). It is therefore safe to retry after any error, including a
// timeout after the server applied the write and the teacher finished the quiz
// before the retry.
//
// Checks, in order: ErrInvalidParticipant and ErrInvalidQuestion (question < 1)
// before any I/O; then on the server ErrForbidden (the ACL user may not write
// board or answers), ErrQuizNotFound, ErrCorrupt (malformed meta),
// ErrQuizFinished (unless the pair was counted: Duplicate), ErrInvalidQuestion
// (question > jumlah_soal), ErrCorrupt (answers set, log, order set or score
// breaks the contract). Refusals write nothing, and so does a Duplicate: a
// repeat leaves the participant's time, and place among equal scores, as it was.
func (b *Board) RecordAnswer(ctx context.Context, participant string, question int) (Answer, error) {
	if err := b.q.checkAnswer(participant, question); err != nil {
		return Answer{}, err
	}
	res := script.RecordAnswer.Exec(ctx, b.q.client, b.q.keys.all(), []string{participant, strconv.Itoa(question)})
	return b.decodeAnswer(res, participant)
}

// RecordAnswers records many answers, each exactly as RecordAnswer does (its
// own atomic script run): one EVALSHA of RecordAnswer's script per valid
// answer, pipelined in one round trip, and EVAL only for those answered
// NOSCRIPT; O(log N) per answer. It serves bulk imports and rebuilding a board
// from its answers.
//
// The result has one AnswerResult per input, in order. An entry that fails
// carries its own error in Err: an invalid participant or question (that
// entry is not sent), or its refusal by the server (ErrQuizFinished,
// ErrInvalidQuestion, ...). A refused entry never hides the others' results.
// The returned error is only for the call as a whole: a context or connection
// error, after which the entries it hit carry it too and may or may not have
// been applied. Retrying the whole batch is safe: what was applied answers
// Duplicate.
func (b *Board) RecordAnswers(ctx context.Context, answers []AnswerInput) ([]AnswerResult, error) {
	out := make([]AnswerResult, len(answers))
	execs := make([]rueidis.LuaExec, 0, len(answers))
	sent := make([]int, 0, len(answers)) // the input index of each exec
	keys := b.q.keys.all()
	for i, a := range answers {
		if err := b.q.checkAnswer(a.Participant, a.Question); err != nil {
			out[i].Err = err
			continue
		}
		execs = append(execs, rueidis.LuaExec{Keys: keys, Args: []string{a.Participant, strconv.Itoa(a.Question)}})
		sent = append(sent, i)
	}
	if len(execs) == 0 {
		return out, nil
	}
	var callErr error
	for j, res := range script.RecordAnswerBatch.Exec(ctx, b.q.client, execs) {
		i := sent[j]
		out[i].Answer, out[i].Err = b.decodeAnswer(res, answers[i].Participant)
		if _, server := rueidis.IsRedisErr(res.Error()); res.Error() != nil && !server && callErr == nil {
			callErr = out[i].Err
		}
	}
	return out, callErr
}

// decodeAnswer reads record_answer.lua's {score, duplicate} reply.
func (b *Board) decodeAnswer(res rueidis.RedisResult, participant string) (Answer, error) {
	reply, err := res.ToArray()
	if err != nil {
		return Answer{}, b.q.fail(err, participant, b.q.keys.board)
	}
	if len(reply) != 2 {
		return Answer{}, fmt.Errorf("kuis: %s: answer reply of %d elements, want 2", b.q.about(participant), len(reply))
	}
	f, err := reply[0].AsFloat64()
	if err != nil {
		return Answer{}, b.q.fail(err, participant, b.q.keys.board)
	}
	dup, err := reply[1].AsInt64()
	if err != nil {
		return Answer{}, b.q.fail(err, participant, b.q.keys.board)
	}
	score, err := decodeScore(b.q.keys.board, participant, f)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Score: score, Duplicate: dup == 1}, nil
}
