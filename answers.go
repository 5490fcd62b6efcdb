package kuis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/kuisboard/kuis/internal/batch"
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
	Answer       // as RecordAnswer returns it; zero when Err is set, but for ErrNotReplicated
	Err    error `json:"-"` // this answer's own refusal (errors.Is-comparable), nil when counted or Duplicate
}

// RecordAnswer counts a correct answer to question (1 to jumlah_soal) at most
// once per participant: the only way points are earned, exactly 10 each. It is
// one atomic step on the server, O(log N): the quiz's status gates it, and a
// counted answer writes its pair to the answers set, its entry to the log
// (the server's time), its points to the board and its place to the order set
// together, or nothing at all. The first call returns {Score: new, Duplicate:
// false}; every repeat adds nothing and returns {Score: current, Duplicate:
// true}, even after the quiz is finished (only new answers are refused then),
// and leaves the participant's time, and place among equal scores, as it was.
// It is therefore safe to retry after any error, including a timeout after the
// server applied the write and the teacher finished the quiz before the retry.
//
// Concurrent calls of one Store share script runs: the answers that arrive
// while runs are in flight go together in the next run, each still checked and
// counted on its own, so that many callers cost the server far less than one
// script each; a lone caller sends at once. ctx bounds the wait: a call whose
// ctx ends while its answer waits for a run returns ctx's error, and its
// answer is never sent; one whose ctx ends after its answer was sent returns
// ctx's error, and the answer may have been counted (a retry answers
// Duplicate).
//
// Errors, in the order checked: ErrInvalidParticipant and ErrInvalidQuestion
// (question < 1) before any I/O; then on the server ErrForbidden (the ACL user
// may not record answers), ErrQuizNotFound, ErrCorrupt (malformed meta),
// ErrQuizFinished (unless the pair was counted: Duplicate), ErrInvalidQuestion
// (question above jumlah_soal), ErrCorrupt (the answers set, log, order set or
// score breaks the contract, or the score is the largest sound one and cannot
// take 10 more). A refusal writes nothing.
//
// With WithReplicas, a nil error means the answer is on the replicas asked,
// counted now or a repeat (WithReplicas says how a repeat, which adds
// nothing, makes sure of the write that counted it). Last of the errors,
// ErrNotReplicated beside the Answer (its Score, and Duplicate for a
// repeat): the answer was counted, or was a repeat, on the primary, but too
// few replicas acknowledged its run in time, or, for a repeat, the no-op
// that its WAIT follows failed.
//
// Safe to send again after ErrUnavailable, ErrNotReplicated or a deadline:
// an answer the first call counted answers Duplicate, with its score.
func (b *Board) RecordAnswer(ctx context.Context, participant string, question int) (Answer, error) {
	a, err := b.recordAnswer(ctx, participant, question)
	b.q.s.counts.answered(a, err)
	return a, err
}

func (b *Board) recordAnswer(ctx context.Context, participant string, question int) (Answer, error) {
	if err := b.q.checkAnswer(participant, question); err != nil {
		return Answer{}, err
	}
	reply, err := b.q.s.rec.Do(ctx, b.q.slot, recordItem{keys: &b.q.keys, participant: participant, question: question})
	if err != nil {
		return Answer{}, b.q.fail(err, participant, b.q.keys.board)
	}
	return b.decodeAnswer(reply, participant)
}

// RecordAnswers records many answers, each exactly as RecordAnswer does, in
// input order, in runs of up to 32 answers sent together in one round trip:
// O(log N) per answer. It serves bulk imports and rebuilding a board from its
// answers.
//
// The result has one AnswerResult per input, in order. An entry that fails
// carries its own error in Err: an invalid participant or question (that
// entry is not sent), or its refusal by the server (RecordAnswer's errors). A
// refused entry never hides the others' results. A pair given more than once
// counts at its first position; a later position is not sent and answers as a
// repeat at that point of the batch would: Duplicate with the participant's
// score as of their latest earlier entry, or the first position's error. The
// returned error is only for the call as a whole: a context or connection
// error, after which the entries it hit carry it too and may or may not have
// been applied. Retrying the whole batch is safe: what was applied answers
// Duplicate. With WithReplicas, each entry's nil Err means what RecordAnswer's
// nil error does; the entries counted or repeated in runs too few replicas
// acknowledged carry ErrNotReplicated beside their Answer (a later position
// of a pair, the error of its first), and the returned error is
// ErrNotReplicated too (unless a context or connection error came first);
// refused entries keep their refusal.
func (b *Board) RecordAnswers(ctx context.Context, answers []AnswerInput) ([]AnswerResult, error) {
	out := make([]AnswerResult, len(answers))
	first := make(map[AnswerInput]int, len(answers)) // each valid pair's first position
	var sent []int                                   // the input index of each answer sent, in order
	for i, a := range answers {
		if err := b.q.checkAnswer(a.Participant, a.Question); err != nil {
			out[i].Err = err
			continue
		}
		if _, seen := first[a]; seen {
			continue
		}
		first[a] = i
		sent = append(sent, i)
	}
	var callErr error
	if len(sent) > 0 {
		callErr = b.sendAnswers(ctx, answers, sent, out)
	}
	// Later positions of a pair answer as repeats, with the participant's
	// score as of their latest earlier entry, and as durable as the first.
	latest := make(map[string]int, len(first))
	for i, a := range answers {
		f, valid := first[a]
		applied := valid && (out[f].Err == nil || errors.Is(out[f].Err, ErrNotReplicated))
		switch {
		case !valid:
		case i == f:
			if applied {
				latest[a.Participant] = i
			}
		case !applied:
			out[i].Err = out[f].Err
		default:
			out[i] = AnswerResult{Answer: Answer{Score: out[latest[a.Participant]].Score, Duplicate: true}, Err: out[f].Err}
			latest[a.Participant] = i
		}
	}
	for _, r := range out {
		b.q.s.counts.answered(r.Answer, r.Err)
	}
	return out, callErr
}

// sendAnswers sends the answers at positions sent, in runs of up to
// maxChunk, pipelined, and sets their results in out. It returns the first
// error that is not the server's: one for the call as a whole.
func (b *Board) sendAnswers(ctx context.Context, answers []AnswerInput, sent []int, out []AnswerResult) error {
	if err := ctx.Err(); err != nil { // nothing is sent
		for _, i := range sent {
			out[i].Err = b.q.fail(fmt.Errorf("%w: %w", batch.ErrNotSent, err), answers[i].Participant, b.q.keys.board)
		}
		return out[sent[0]].Err
	}
	var execs []rueidis.LuaExec
	for chunk := range slices.Chunk(sent, maxChunk) {
		items := make([]recordItem, len(chunk))
		for j, i := range chunk {
			items[j] = recordItem{keys: &b.q.keys, participant: answers[i].Participant, question: answers[i].Question}
		}
		execs = append(execs, b.q.s.recordRun(items))
		b.q.s.counts.ran(len(chunk))
	}
	var callErr error
	for c, res := range b.q.s.runScriptWrote(ctx, script.RecordAnswer, recordWrote, execs...) {
		chunk := sent[c*maxChunk : min((c+1)*maxChunk, len(sent))]
		replies, err := b.q.s.recordReplies(res, len(chunk))
		for j, i := range chunk {
			if err != nil {
				out[i].Err = b.q.fail(err, answers[i].Participant, b.q.keys.board)
				continue
			}
			out[i].Answer, out[i].Err = b.decodeAnswer(replies[j], answers[i].Participant)
			if callErr == nil && errors.Is(out[i].Err, ErrNotReplicated) {
				callErr = out[i].Err
			}
		}
		if _, server := rueidis.IsRedisErr(err); err != nil && !server && callErr == nil {
			callErr = out[chunk[0]].Err
		}
	}
	return callErr
}

// Concurrent RecordAnswer calls of one Store share script runs
// (internal/batch): the answers that arrive while runs are in flight go
// together in the next one, whatever quiz they answer. A run takes only keys
// of one hash slot: on a Redis Cluster, each slot has a lane of its own;
// elsewhere every quiz shares one.
const (
	// maxChunk bounds the answers of one script run.
	maxChunk = script.MaxAnswers
	// maxInFlight is how many runs of one lane may be in flight at once:
	// two, so that one run's answers queue while the other's round trip is
	// under way, and the server always has the next run at hand.
	maxInFlight = 2
)

// recordItem is one answer as the record script takes it.
type recordItem struct {
	keys        *Keys // the Board's, which outlives the call
	participant string
	question    int
}

// recorder is a Store's lanes of answers waiting for a run, by hash slot.
type recorder = batch.Batcher[uint16, recordItem, recordReply]

// runRecord runs one run of the record script: the recorder's run function.
func (s *Store) runRecord(ctx context.Context, items []recordItem) ([]recordReply, error) {
	s.counts.ran(len(items))
	return s.recordReplies(s.runScriptWrote(ctx, script.RecordAnswer, recordWrote, s.recordRun(items))[0], len(items))
}

// recordRun is the record script's run of items: the keys of each quiz
// once, in the order the quizzes first appear, and a triple of quiz number,
// participant and question per answer; with WithReplicas, then "1", so that
// a run of repeats writes the no-op its WAIT follows.
func (s *Store) recordRun(items []recordItem) rueidis.LuaExec {
	var keys []string
	number := make(map[string]string, 1)
	args := make([]string, 0, 3*len(items))
	for i := range items {
		it := &items[i]
		n, ok := number[it.keys.meta]
		if !ok {
			n = strconv.Itoa(len(number) + 1)
			number[it.keys.meta] = n
			keys = append(keys, it.keys.quizKeys()...)
		}
		args = append(args, n, it.participant, strconv.Itoa(it.question))
	}
	if s.opts.replicas > 0 {
		args = append(args, "1")
	}
	return rueidis.LuaExec{Keys: keys, Args: args}
}

// recordWrote tells from a record run's reply with WithReplicas whether the
// run wrote: its last element is 1 (runScriptWrote).
func recordWrote(m rueidis.RedisMessage) bool {
	msgs, err := m.ToArray()
	if err != nil || len(msgs) == 0 {
		return true // not the script's reply: waited for, and refused by recordReplies
	}
	n, err := msgs[len(msgs)-1].AsInt64()
	return err == nil && n == 1
}

// recordReply is one answer's element of a run's reply, and the run's
// ErrNotReplicated when too few replicas acknowledged it (WithReplicas).
type recordReply struct {
	m       rueidis.RedisMessage
	unacked error
}

// recordReplies reads a run's reply: one element per answer, n in all, and
// with WithReplicas the run's status last. A run of repeats whose no-op
// failed answers them ErrNotReplicated, as no WAIT covered them.
func (s *Store) recordReplies(res rueidis.RedisResult, n int) ([]recordReply, error) {
	var unacked *notReplicated
	if errors.As(res.Error(), &unacked) {
		res = unacked.result
	}
	msgs, err := res.ToArray()
	want := n
	if s.opts.replicas > 0 {
		want++
	}
	if err == nil && len(msgs) != want {
		err = fmt.Errorf("record script replied %d elements, want %d", len(msgs), want)
	}
	if err != nil {
		return nil, err
	}
	if status := msgs[n:]; len(status) == 1 && status[0].IsString() {
		why, _ := status[0].ToString()
		unacked = &notReplicated{result: res, want: s.opts.replicas, timeout: s.opts.replicaWait,
			unwaited: "a repeat, whose run could not write the no-op its WAIT would follow: " + why}
	}
	out := make([]recordReply, n)
	for i, m := range msgs[:n] {
		out[i].m = m
		if unacked != nil {
			out[i].unacked = unacked
		}
	}
	return out, nil
}

// decodeAnswer reads one answer's element of record_answer.lua's reply: the
// score after the answer, plus 1 for a repeat; or the answer's refusal. An
// answer applied in a run too few replicas acknowledged is its Answer beside
// ErrNotReplicated.
func (b *Board) decodeAnswer(r recordReply, participant string) (Answer, error) {
	n, err := r.m.AsInt64()
	if err != nil {
		return Answer{}, b.q.fail(err, participant, b.q.keys.board)
	}
	dup := n%10 == 1
	if dup {
		n--
	}
	score, err := decodeScore(b.q.keys.board, participant, float64(n))
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Score: score, Duplicate: dup}
	if r.unacked != nil {
		return a, b.q.fail(r.unacked, participant, b.q.keys.board)
	}
	return a, nil
}

func (q quiz) checkAnswer(participant string, question int) error {
	if err := checkParticipant(participant, q.about); err != nil {
		return err
	}
	if question < 1 {
		return fmt.Errorf("%w: %s: question %d (want 1 to jumlah_soal)", ErrInvalidQuestion, q.about(participant), question)
	}
	return nil
}
