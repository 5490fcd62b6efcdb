package kuis_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// withoutTimes returns the answers' participants and questions, sorted.
func withoutTimes(answers []kuis.AnswerRecord) []kuis.AnswerInput {
	out := make([]kuis.AnswerInput, len(answers))
	for i, a := range answers {
		out[i] = kuis.AnswerInput{Participant: a.Participant, Question: a.Question}
	}
	slices.SortFunc(out, func(a, b kuis.AnswerInput) int {
		return cmp.Or(cmp.Compare(a.Participant, b.Participant), cmp.Compare(a.Question, b.Question))
	})
	return out
}

// TestRecapAnswersUnderConcurrency: 64 goroutines submit every pair of a quiz
// twice each, one by one or in batches that hold each pair twice, several of
// them for the same participant at once. Recap then counts each question's
// distinct participants, lists every pair exactly once, at the server's
// time in UTC within the test's window, non-decreasing, and in the order
// counted: along Answers, the score each counted answer was replied with
// rises by 10 for each participant.
func TestRecapAnswersUnderConcurrency(t *testing.T) {
	t.Parallel()
	const (
		participants = 16
		questions    = 12
		goroutines   = 64
	)
	e := newEnv(t)
	id, _, b := e.running(questions)
	var pairs []kuis.AnswerInput
	wantQuestions := make([]kuis.QuestionResult, questions)
	for q := 1; q <= questions; q++ {
		wantQuestions[q-1] = kuis.QuestionResult{Question: q}
		for p := range participants {
			if (p+q)%5 != 0 { // participants skip some questions, so counts differ
				pairs = append(pairs, kuis.AnswerInput{Participant: fmt.Sprintf("Siswa %02d", p), Question: q})
				wantQuestions[q-1].Correct++
			}
		}
	}
	var (
		mu    sync.Mutex
		reply = map[kuis.AnswerInput][]int64{} // the scores of counted replies
		errs  []error
		wg    sync.WaitGroup
	)
	start := time.Now().Truncate(time.Millisecond)
	for g := range goroutines {
		var mine []kuis.AnswerInput // pairs g, g+64, ...: every participant's pairs are spread
		for i := g; i < len(pairs); i += goroutines {
			mine = append(mine, pairs[i], pairs[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res []kuis.AnswerResult
			var err error
			if g%2 == 0 {
				res, err = b.RecordAnswers(e.ctx, mine)
			} else {
				for _, a := range mine {
					r, err := b.RecordAnswer(e.ctx, a.Participant, a.Question)
					res = append(res, kuis.AnswerResult{Answer: r, Err: err})
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("goroutine %d: %w", g, err))
			}
			for i, r := range res {
				if r.Err != nil {
					errs = append(errs, fmt.Errorf("goroutine %d: %+v: %w", g, mine[i], r.Err))
				} else if !r.Duplicate {
					reply[mine[i]] = append(reply[mine[i]], r.Score)
				}
			}
		}()
	}
	wg.Wait()
	end := time.Now()
	for _, err := range errs {
		t.Error(err)
	}
	for _, p := range pairs {
		if len(reply[p]) != 1 {
			t.Errorf("%+v counted %d times; want once", p, len(reply[p]))
		}
	}

	recap, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(wantQuestions, recap.Questions); diff != "" {
		t.Errorf("Recap.Questions (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(withoutTimes(pairsAsRecords(pairs)), withoutTimes(recap.Answers)); diff != "" {
		t.Errorf("Recap.Answers' pairs (-want +got):\n%s", diff)
	}
	wantScores, gotScores := map[string][]int64{}, map[string][]int64{}
	for i, a := range recap.Answers {
		if a.At.Location() != time.UTC || a.At.Before(start) || a.At.After(end) {
			t.Errorf("Answers[%d].At = %v; want UTC, between %v and %v", i, a.At, start, end)
		}
		if i > 0 && a.At.Before(recap.Answers[i-1].At) {
			t.Errorf("Answers[%d].At = %v, before Answers[%d].At = %v", i, a.At, i-1, recap.Answers[i-1].At)
		}
		wantScores[a.Participant] = append(wantScores[a.Participant], int64(10*(len(wantScores[a.Participant])+1)))
		if r := reply[kuis.AnswerInput{Participant: a.Participant, Question: a.Question}]; len(r) > 0 {
			gotScores[a.Participant] = append(gotScores[a.Participant], r[0])
		}
	}
	if diff := gocmp.Diff(wantScores, gotScores); diff != "" {
		t.Errorf("replied scores along Recap.Answers, per participant (-want +got):\n%s", diff)
	}
}

// pairsAsRecords is pairs as AnswerRecords without a time.
func pairsAsRecords(pairs []kuis.AnswerInput) []kuis.AnswerRecord {
	out := make([]kuis.AnswerRecord, len(pairs))
	for i, p := range pairs {
		out[i] = kuis.AnswerRecord{Participant: p.Participant, Question: p.Question}
	}
	return out
}

// TestPurgeQuizArchivesEveryAnswer: the recap PurgeQuiz archives holds every
// counted answer, in the order counted, with per-question counts, and
// survives a JSON round trip whole, times included; all five keys are gone.
func TestPurgeQuizArchivesEveryAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.reference()
	e.finish(id)
	k := e.keys(id)
	logged := answerLog(e, k)
	var archived []kuis.Recap
	n, err := e.store.PurgeQuiz(e.ctx, id, func(_ context.Context, r kuis.Recap) error {
		archived = append(archived, r)
		return nil
	})
	if err != nil || n != 5 || len(archived) != 1 {
		t.Fatalf("PurgeQuiz = %d, %v, %d archives; want 5 keys deleted, one archive", n, err, len(archived))
	}
	recap := archived[0]
	var want []kuis.AnswerRecord
	for q, round := range referenceRounds {
		for _, name := range round {
			want = append(want, kuis.AnswerRecord{Participant: name, Question: q + 1, At: time.UnixMilli(logged[len(want)].ms()).UTC()})
		}
	}
	if diff := gocmp.Diff(want, recap.Answers); diff != "" {
		t.Errorf("archived Answers (-want +got):\n%s", diff)
	}
	wantQuestions := []kuis.QuestionResult{{Question: 1, Correct: 2}, {Question: 2, Correct: 3}, {Question: 3, Correct: 4}}
	if diff := gocmp.Diff(wantQuestions, recap.Questions); diff != "" {
		t.Errorf("archived Questions (-want +got):\n%s", diff)
	}
	data, err := json.Marshal(recap)
	if err != nil {
		t.Fatal(err)
	}
	var back kuis.Recap
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(recap, back); diff != "" {
		t.Errorf("JSON round trip of %s (-archived +read back):\n%s", data, diff)
	}
	keys := []string{k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()}
	wantGone := map[string]string{}
	for _, key := range keys {
		wantGone[key] = "none"
	}
	if diff := gocmp.Diff(wantGone, e.dump(keys...)); diff != "" {
		t.Errorf("keys after PurgeQuiz (-want +got):\n%s", diff)
	}
}

// answersCSV is Recap.WriteAnswersCSV of quiz id.
func answersCSV(e *env, id string) string {
	e.t.Helper()
	recap, err := e.store.Recap(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := recap.WriteAnswersCSV(&buf); err != nil {
		e.t.Fatal(err)
	}
	return buf.String()
}

// TestWriteAnswersCSV: the answers file byte for byte, its times those of the
// log entries' IDs in UTC to the millisecond. An answer of a quiz written
// before the log existed (in the answers set only) comes first, by question
// then participant, with an empty time.
func TestWriteAnswersCSV(t *testing.T) {
	t.Parallel()
	at := func(l logEntry) string { return time.UnixMilli(l.ms()).UTC().Format("2006-01-02T15:04:05.000Z") }
	t.Run("logged", func(t *testing.T) {
		e := newEnv(t)
		id, _, b := e.running(2)
		playInTurn(e, b, turn{"Siti, A.", 2}, turn{`Budi "B"`, 1})
		l := answerLog(e, e.keys(id))
		want := "participant,question,answered_at\n" +
			`"Siti, A.",1,` + at(l[0]) + "\n" +
			`"Siti, A.",2,` + at(l[1]) + "\n" +
			`"Budi ""B""",1,` + at(l[2]) + "\n"
		if diff := gocmp.Diff(want, answersCSV(e, id)); diff != "" {
			t.Errorf("WriteAnswersCSV (-want +got):\n%s", diff)
		}
	})
	t.Run("before the log", func(t *testing.T) {
		e := newEnv(t)
		id := quizID()
		k := e.keys(id)
		e.mustRaw("HSET", k.Meta(), "judul", "Lama", "jumlah_soal", "10", "status", "berjalan")
		e.mustRaw("SADD", k.Answers(), "10:Ali", "2:Budi", "1:Citra", "1:Ali", "2:Ali")
		e.mustRaw("ZADD", k.Board(), "30", "Ali", "10", "Budi", "10", "Citra")
		if got := answersCSV(e, id); got != "participant,question,answered_at\n"+
			"Ali,1,\nCitra,1,\nAli,2,\nBudi,2,\nAli,10,\n" {
			t.Errorf("WriteAnswersCSV without a log = %q", got)
		}
		if _, err := e.board(id).RecordAnswer(e.ctx, "Dewi", 3); err != nil {
			t.Fatal(err)
		}
		l := answerLog(e, k)
		want := "participant,question,answered_at\n" +
			"Ali,1,\nCitra,1,\nAli,2,\nBudi,2,\nAli,10,\n" +
			"Dewi,3," + at(l[0]) + "\n"
		if diff := gocmp.Diff(want, answersCSV(e, id)); diff != "" {
			t.Errorf("WriteAnswersCSV (-want +got):\n%s", diff)
		}
		recap, err := e.store.Recap(e.ctx, id)
		wantQuestions := make([]kuis.QuestionResult, 10)
		for i, n := range []int{2, 2, 1, 0, 0, 0, 0, 0, 0, 1} {
			wantQuestions[i] = kuis.QuestionResult{Question: i + 1, Correct: n}
		}
		if diff := gocmp.Diff(wantQuestions, recap.Questions); err != nil || diff != "" {
			t.Errorf("Recap.Questions: %v (-want +got):\n%s", err, diff)
		}
	})
}
