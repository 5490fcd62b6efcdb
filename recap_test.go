package kuis_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// referenceStandings is the reference board with both ranks.
var referenceStandings = []kuis.Standing{
	{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 30},
	{Rank: 2, CompetitionRank: 1, Participant: "Ali", Score: 30},
	{Rank: 3, CompetitionRank: 3, Participant: "Budi", Score: 20},
	{Rank: 4, CompetitionRank: 4, Participant: "Dewi", Score: 10},
}

// referenceRecap is the recap of reference quiz id in status, with the
// answers' times zeroed (see untimed).
func referenceRecap(id string, status kuis.Status) kuis.Recap {
	var answers []kuis.AnswerRecord
	for q, round := range referenceRounds {
		for _, name := range round {
			answers = append(answers, kuis.AnswerRecord{Participant: name, Question: q + 1})
		}
	}
	return kuis.Recap{QuizID: id, Info: kuis.Info{Title: "Kuis " + id, Questions: 3, Status: status},
		Standings: referenceStandings, Questions: []kuis.QuestionResult{{1, 2}, {2, 3}, {3, 4}}, Answers: answers}
}

// checkTimes checks that each answer's time is the server's clock when it was
// counted: UTC, to the millisecond, within from..to (the test's clock around
// the answers) and never before the answer logged before it.
func checkTimes(t testing.TB, answers []kuis.AnswerRecord, from, to time.Time) {
	t.Helper()
	prev := from.Truncate(time.Millisecond)
	for i, a := range answers {
		switch {
		case a.At.IsZero() || a.At.Location() != time.UTC || a.At.Nanosecond()%int(time.Millisecond) != 0:
			t.Errorf("answer %d %+v: At is not a UTC time in whole milliseconds", i, a)
		case a.At.Before(prev):
			t.Errorf("answer %d %+v: At is before %v (the test's start or the answer logged before it)", i, a, prev)
		case a.At.After(to):
			t.Errorf("answer %d %+v: At is after %v, when the test had the reply", i, a, to)
		}
		prev = a.At
	}
}

// checkFinishedAt checks that a finished recap's FinishedAt is the server's
// clock at Finish (UTC, whole milliseconds, within from..to), or zero when
// want is false, then zeroes it for cmp.Diff.
func checkFinishedAt(t testing.TB, r *kuis.Recap, want bool, from, to time.Time) {
	t.Helper()
	at := r.FinishedAt
	switch {
	case !want && !at.IsZero():
		t.Errorf("FinishedAt = %v, want zero", at)
	case want && (at.Location() != time.UTC || at.Nanosecond()%int(time.Millisecond) != 0 ||
		at.Before(from.Truncate(time.Millisecond)) || at.After(to)):
		t.Errorf("FinishedAt = %v, want a UTC time in whole milliseconds within %v..%v", at, from, to)
	}
	r.FinishedAt = time.Time{}
}

// untimed returns a copy of answers with every time zeroed, for cmp.Diff
// once checkTimes has looked at the times.
func untimed(answers []kuis.AnswerRecord) []kuis.AnswerRecord {
	out := slices.Clone(answers)
	for i := range out {
		out[i].At = time.Time{}
	}
	return out
}

func TestRecap(t *testing.T) {
	e := newEnv(t)
	from := time.Now()
	id, _, _ := e.reference()
	instance := e.instance(id) // read before the command statistics are, so that its XRANGE is not counted
	for _, status := range []kuis.Status{kuis.StatusRunning, kuis.StatusFinished} {
		if status == kuis.StatusFinished {
			e.finish(id)
		}
		calls := []string{"evalsha_ro", "eval_ro", "hgetall", "zrange", "smembers", "xrange"}
		var before map[string]int64
		if redistest.Real() { // only a real server keeps command statistics
			before = commandCalls(t, e.ctx, e.client, calls...)
		}
		start := time.Now()
		got, err := e.store.Recap(e.ctx, id)
		if err != nil {
			t.Fatalf("Recap(%q): %v", id, err)
		}
		if got.TakenAt.Before(start) || got.TakenAt.After(time.Now()) {
			t.Errorf("TakenAt = %v; want the moment of the call", got.TakenAt)
		}
		got.TakenAt = time.Time{}
		checkTimes(t, got.Answers, from, start)
		checkFinishedAt(t, &got, status == kuis.StatusFinished, from, start)
		got.Answers = untimed(got.Answers)
		want := referenceRecap(id, status)
		want.Instance = instance
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Recap(%q) (-want +got):\n%s", id, diff)
		}
		// One snapshot: one read-only script runs every read (the first call
		// may have loaded the script, so only the second one counts). The
		// server's statistics also count what other packages' tests send to
		// it meanwhile, which only adds: the count is taken again, a few
		// times, until a Recap had the server to itself.
		if redistest.Real() && status == kuis.StatusFinished {
			want := map[string]int64{"evalsha_ro": 1, "eval_ro": 0, "hgetall": 1, "zrange": 1, "smembers": 1, "xrange": 1}
			var diff string
			for range 5 {
				after := commandCalls(t, e.ctx, e.client, calls...)
				for _, c := range calls {
					after[c] -= before[c]
				}
				if diff = cmp.Diff(want, after); diff == "" {
					break
				}
				before = commandCalls(t, e.ctx, e.client, calls...)
				if _, err := e.store.Recap(e.ctx, id); err != nil {
					t.Fatal(err)
				}
			}
			if diff != "" {
				t.Errorf("commands of one Recap (-want +got):\n%s", diff)
			}
		}
	}
	empty, _, _ := e.running(5)
	got, err := e.store.Recap(e.ctx, empty)
	if err != nil || got.Standings == nil || len(got.Standings) != 0 || got.Info.Questions != 5 || len(got.Answers) != 0 ||
		!cmp.Equal(got.Questions, []kuis.QuestionResult{{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}}) {
		t.Errorf("Recap of a quiz without answers = %+v, %v; want empty, non-nil Standings, no answers, 5 questions of 0", got, err)
	}
}

func TestRecapErrors(t *testing.T) {
	t.Parallel()
	byTime := []kuis.Option{kuis.WithTies(kuis.TiesByTime)}
	tests := []struct {
		name    string
		opts    []kuis.Option
		setup   func(e *env, k kuis.Keys)
		wantErr error
		mention string // for ErrCorrupt: the key ("m" meta, "b" board, "l" log, "o" order), then what it says
	}{
		{"no keys", nil, func(*env, kuis.Keys) {}, kuis.ErrQuizNotFound, ""},
		{"a board without meta", nil, func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Ali") }, kuis.ErrQuizNotFound, ""},
		{"score 15", nil, func(e *env, k kuis.Keys) { e.mustRaw("ZINCRBY", k.Board(), "5", "Dewi") }, kuis.ErrCorrupt, `b: member "Dewi" has score 15`},
		{"board string", nil, func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Board()); e.mustRaw("SET", k.Board(), "x") }, kuis.ErrCorrupt, "b: not a sorted set"},
		{"meta string", nil, func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Meta()); e.mustRaw("SET", k.Meta(), "x") }, kuis.ErrCorrupt, "m: not a hash"},
		{"unknown status", nil, func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "status", "ditunda") }, kuis.ErrCorrupt, `m: field status is "ditunda"`},
		{"no jumlah_soal", nil, func(e *env, k kuis.Keys) { e.mustRaw("HDEL", k.Meta(), "jumlah_soal") }, kuis.ErrCorrupt, "m: field jumlah_soal is missing"},
		{"log string", nil, func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Log()); e.mustRaw("SET", k.Log(), "x") }, kuis.ErrCorrupt, "l: not a stream"},
		{"log entry without soal", nil, func(e *env, k kuis.Keys) { e.mustRaw("XADD", k.Log(), "4000000000000-0", "peserta", "Eka") },
			kuis.ErrCorrupt, `l: entry 4000000000000-0: fields peserta "Eka" and soal "" are not a participant and a question of 1 to 3`},
		{"order string, read by time", byTime, func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Order()); e.mustRaw("SET", k.Order(), "x") },
			kuis.ErrCorrupt, "o: not a sorted set"},
	}
	e := newEnv(t)
	for _, tt := range tests {
		id := quizID()
		if errors.Is(tt.wantErr, kuis.ErrCorrupt) {
			id, _, _ = e.reference()
		}
		k := e.keys(id)
		tt.setup(e, k)
		mention := strings.NewReplacer("m: ", k.Meta()+": ", "b: ", k.Board()+": ", "l: ", k.Log()+": ", "o: ", k.Order()+": ").Replace(tt.mention)
		if _, err := e.storeOn(e.client, tt.opts...).Recap(e.ctx, id); !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), mention) {
			t.Errorf("%s: Recap = %v; want %v naming %q", tt.name, err, tt.wantErr, mention)
		}
	}
}

func TestRecapWriteCSV(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.reference()
	recap, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := recap.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	want := "rank,competition_rank,participant,score,correct_answers\n" +
		"1,1,Citra,30,3\n" +
		"2,1,Ali,30,3\n" +
		"3,3,Budi,20,2\n" +
		"4,4,Dewi,10,1\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteCSV of the reference board (-want +got):\n%s", diff)
	}

	// Names that need quoting come back intact through the server and CSV.
	quoted, _, b := e.running(3)
	for name, n := range map[string]int{`Siti, A.`: 3, `Budi "Bud"`: 2, `Ñoman; Śukarta`: 1, `"Ketut"`: 1} {
		for q := 1; q <= n; q++ {
			if _, err := b.RecordAnswer(e.ctx, name, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantRows := [][]string{
		{"rank", "competition_rank", "participant", "score", "correct_answers"},
		{"1", "1", `Siti, A.`, "30", "3"},
		{"2", "2", `Budi "Bud"`, "20", "2"},
		{"3", "3", `Ñoman; Śukarta`, "10", "1"}, // equal scores: reverse byte order
		{"4", "3", `"Ketut"`, "10", "1"},
	}
	if diff := cmp.Diff(wantRows, e.csvRows(quoted)); diff != "" {
		t.Errorf("WriteCSV read back (-want +got):\n%s", diff)
	}

	errDisk := errors.New("disk full")
	if err := recap.WriteCSV(failWriter{errDisk}); !errors.Is(err, errDisk) {
		t.Errorf("WriteCSV to a failing writer = %v; want %v", err, errDisk)
	}
	if err := recap.WriteAnswersCSV(failWriter{errDisk}); !errors.Is(err, errDisk) {
		t.Errorf("WriteAnswersCSV to a failing writer = %v; want %v", err, errDisk)
	}
}

// failWriter refuses every write, as a full disk would.
type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

func TestRecapJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	from := time.Now()
	id, _, _ := e.reference()
	recap, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	checkTimes(t, recap.Answers, from, time.Now())
	// Fixed times, so that the whole document can be compared.
	recap.TakenAt = time.Date(2026, 3, 1, 8, 30, 0, 0, time.UTC)
	for i := range recap.Answers {
		recap.Answers[i].At = time.Date(2026, 3, 1, 8, 29, i, 125_000_000, time.UTC)
	}
	got, err := json.Marshal(recap)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"quiz_id":"` + id + `","instance":"` + e.instance(id) + `","info":{"title":"Kuis ` + id + `","questions":3,"status":"berjalan"},"standings":[` +
		`{"rank":1,"competition_rank":1,"participant":"Citra","score":30},` +
		`{"rank":2,"competition_rank":1,"participant":"Ali","score":30},` +
		`{"rank":3,"competition_rank":3,"participant":"Budi","score":20},` +
		`{"rank":4,"competition_rank":4,"participant":"Dewi","score":10}],` +
		`"questions":[{"question":1,"correct":2},{"question":2,"correct":3},{"question":3,"correct":4}],"answers":[` +
		`{"participant":"Ali","question":1,"at":"2026-03-01T08:29:00.125Z"},` +
		`{"participant":"Citra","question":1,"at":"2026-03-01T08:29:01.125Z"},` +
		`{"participant":"Ali","question":2,"at":"2026-03-01T08:29:02.125Z"},` +
		`{"participant":"Budi","question":2,"at":"2026-03-01T08:29:03.125Z"},` +
		`{"participant":"Citra","question":2,"at":"2026-03-01T08:29:04.125Z"},` +
		`{"participant":"Ali","question":3,"at":"2026-03-01T08:29:05.125Z"},` +
		`{"participant":"Budi","question":3,"at":"2026-03-01T08:29:06.125Z"},` +
		`{"participant":"Citra","question":3,"at":"2026-03-01T08:29:07.125Z"},` +
		`{"participant":"Dewi","question":3,"at":"2026-03-01T08:29:08.125Z"}],` +
		`"finished_at":"0001-01-01T00:00:00Z","taken_at":"2026-03-01T08:30:00Z"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	var back kuis.Recap
	if err := json.Unmarshal(got, &back); err != nil || !cmp.Equal(recap, back) {
		t.Errorf("JSON round trip = %+v, %v; want %+v", back, err, recap)
	}
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
	if diff := cmp.Diff(wantQuestions, recap.Questions); diff != "" {
		t.Errorf("Recap.Questions (-want +got):\n%s", diff)
	}
	byPair := cmpopts.SortSlices(func(a, b kuis.AnswerRecord) bool {
		return a.Participant < b.Participant || a.Participant == b.Participant && a.Question < b.Question
	})
	if diff := cmp.Diff(pairsAsRecords(pairs), untimed(recap.Answers), byPair); diff != "" {
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
	if diff := cmp.Diff(wantScores, gotScores); diff != "" {
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
