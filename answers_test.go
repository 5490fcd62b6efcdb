package kuis_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// keyContents describes each key's type and whole content in a comparable
// form, so a test can prove that a refused call wrote nothing at all.
func keyContents(t *testing.T, e *env, keys ...string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		typ, err := e.mustRaw("TYPE", k).ToString()
		if err != nil {
			t.Fatalf("TYPE %s: %v", k, err)
		}
		var content any
		switch typ {
		case "none":
		case "string":
			content, err = e.mustRaw("GET", k).ToString()
		case "zset":
			content, err = e.mustRaw("ZRANGE", k, "0", "-1", "WITHSCORES").AsZScores()
		case "set":
			var members []string
			members, err = e.mustRaw("SMEMBERS", k).AsStrSlice()
			sort.Strings(members)
			content = members
		case "hash":
			content, err = e.mustRaw("HGETALL", k).AsStrMap()
		case "list":
			content, err = e.mustRaw("LRANGE", k, "0", "-1").AsStrSlice()
		default:
			t.Fatalf("TYPE %s = %s: not a type these tests write", k, typ)
		}
		if err != nil {
			t.Fatalf("reading %s %s: %v", typ, k, err)
		}
		out[k] = fmt.Sprintf("%s %v", typ, content)
	}
	return out
}

// answeredPairs returns the members of the quiz's answers set, sorted.
func answeredPairs(t *testing.T, e *env, keys kuis.Keys) []string {
	t.Helper()
	members, err := e.mustRaw("SMEMBERS", keys.Answers()).AsStrSlice()
	if err != nil {
		t.Fatalf("SMEMBERS %s: %v", keys.Answers(), err)
	}
	sort.Strings(members)
	return members
}

// TestRecordAnswerCountsEachPairOnce plays sequences of calls on a fresh
// running quiz and checks every reply, then the answers set they leave: one
// member "<question>:<participant>" per counted pair, without TTL.
func TestRecordAnswerCountsEachPairOnce(t *testing.T) {
	type call struct {
		participant string
		question    int
		want        kuis.Answer
	}
	tests := []struct {
		name      string
		questions int
		calls     []call
		// between runs after the calls, before repeat: a write outside RecordAnswer.
		between   func(t *testing.T, e *env, b *kuis.Board)
		repeat    []call
		wantPairs []string
	}{
		{
			name:      "first call counts, repeat is a duplicate with nothing added",
			questions: 3,
			calls: []call{
				{"Ali", 1, kuis.Answer{Score: 10}},
				{"Ali", 1, kuis.Answer{Score: 10, Duplicate: true}},
				{"Ali", 2, kuis.Answer{Score: 20}},
				{"Budi", 1, kuis.Answer{Score: 10}},
				{"Ali", 2, kuis.Answer{Score: 20, Duplicate: true}},
				{"Ali", 3, kuis.Answer{Score: 30}},
				{"Budi", 1, kuis.Answer{Score: 10, Duplicate: true}},
			},
			wantPairs: []string{"1:Ali", "1:Budi", "2:Ali", "3:Ali"},
		},
		{
			// A timeout after the server applied the write looks, to the
			// caller, like an error; its retry is this second call.
			name:      "retry after a landed write answers duplicate",
			questions: 5,
			calls: []call{
				{"Citra", 4, kuis.Answer{Score: 10}},
			},
			repeat: []call{
				{"Citra", 4, kuis.Answer{Score: 10, Duplicate: true}},
				{"Citra", 4, kuis.Answer{Score: 10, Duplicate: true}},
			},
			wantPairs: []string{"4:Citra"},
		},
		{
			name:      "duplicate reports the current score, not the one at the first call",
			questions: 3,
			calls:     []call{{"Dewi", 1, kuis.Answer{Score: 10}}},
			between: func(t *testing.T, e *env, b *kuis.Board) {
				if _, err := b.RecordCorrect(e.ctx, "Dewi"); err != nil {
					t.Fatal(err)
				}
			},
			repeat:    []call{{"Dewi", 1, kuis.Answer{Score: 20, Duplicate: true}}},
			wantPairs: []string{"1:Dewi"},
		},
		{
			name:      "question numbers are decimal without leading zeros",
			questions: 12,
			calls: []call{
				{"Eko", 10, kuis.Answer{Score: 10}},
				{"Eko", 1, kuis.Answer{Score: 20}},
				{"Eko", 12, kuis.Answer{Score: 30}},
			},
			wantPairs: []string{"10:Eko", "12:Eko", "1:Eko"},
		},
		{
			name:      "participant names keep colons, spaces and non-ASCII bytes",
			questions: 2,
			calls: []call{
				{"Siti: kelas 8B", 2, kuis.Answer{Score: 10}},
				{"Ñoman Śukarta", 2, kuis.Answer{Score: 10}},
				{"Siti: kelas 8B", 2, kuis.Answer{Score: 10, Duplicate: true}},
			},
			wantPairs: []string{"2:Siti: kelas 8B", "2:Ñoman Śukarta"},
		},
		{
			name:      "the last question counts",
			questions: 1000,
			calls:     []call{{"Fajar", 1000, kuis.Answer{Score: 10}}},
			wantPairs: []string{"1000:Fajar"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, _, b := e.running(tt.questions)
			play := func(calls []call) {
				t.Helper()
				for _, c := range calls {
					got, err := b.RecordAnswer(e.ctx, c.participant, c.question)
					if err != nil {
						t.Fatalf("RecordAnswer(%q, %d): %v", c.participant, c.question, err)
					}
					if diff := cmp.Diff(c.want, got); diff != "" {
						t.Errorf("RecordAnswer(%q, %d) (-want +got):\n%s", c.participant, c.question, diff)
					}
				}
			}
			play(tt.calls)
			if tt.between != nil {
				tt.between(t, e, b)
			}
			play(tt.repeat)
			want := append([]string(nil), tt.wantPairs...)
			sort.Strings(want)
			if diff := cmp.Diff(want, answeredPairs(t, e, b.Keys())); diff != "" {
				t.Errorf("SMEMBERS %s (-want +got):\n%s", b.Keys().Answers(), diff)
			}
			if ttl, err := e.mustRaw("TTL", b.Keys().Answers()).AsInt64(); err != nil || ttl != -1 {
				t.Errorf("TTL %s = %d, %v; want -1 (no TTL)", b.Keys().Answers(), ttl, err)
			}
		})
	}
}

// TestRecordAnswerRefusalsWriteNothing checks each refusal's sentinel, the
// order in which the checks run (the first failing one wins), and that a
// refused call leaves board and answers exactly as they were.
func TestRecordAnswerRefusalsWriteNothing(t *testing.T) {
	// Every quiz of the table has 3 questions; running quizzes already hold
	// one counted answer, so "unchanged" is not the same as "empty".
	tests := []struct {
		name        string
		setup       func(t *testing.T, e *env, m *kuis.Meta, b *kuis.Board)
		noMeta      bool
		participant string
		question    int
		wantErr     error
	}{
		{name: "empty participant", participant: "", question: 1, wantErr: kuis.ErrInvalidParticipant},
		{name: "participant with a control character", participant: "Ali\n", question: 1, wantErr: kuis.ErrInvalidParticipant},
		{name: "participant of 65 bytes", participant: strings.Repeat("a", 65), question: 1, wantErr: kuis.ErrInvalidParticipant},
		{name: "participant not UTF-8", participant: "Ali\xff", question: 1, wantErr: kuis.ErrInvalidParticipant},
		{name: "question 0", participant: "Ali", question: 0, wantErr: kuis.ErrInvalidQuestion},
		{name: "question -1", participant: "Ali", question: -1, wantErr: kuis.ErrInvalidQuestion},
		{name: "invalid participant before invalid question", participant: "", question: 0, wantErr: kuis.ErrInvalidParticipant},
		{name: "question above jumlah_soal", participant: "Ali", question: 4, wantErr: kuis.ErrInvalidQuestion},
		{name: "quiz without meta", noMeta: true, participant: "Ali", question: 1, wantErr: kuis.ErrQuizNotFound},
		{name: "question 0 checked before the quiz is looked up", noMeta: true, participant: "Ali", question: 0, wantErr: kuis.ErrInvalidQuestion},
		{name: "participant checked before the quiz is looked up", noMeta: true, participant: "", question: 1, wantErr: kuis.ErrInvalidParticipant},
		{
			name:  "finished quiz",
			setup: finish, participant: "Budi", question: 1, wantErr: kuis.ErrQuizFinished,
		},
		{
			name:  "finished beats a question above jumlah_soal",
			setup: finish, participant: "Ali", question: 4, wantErr: kuis.ErrQuizFinished,
		},
		{
			name:  "question 0 on a finished quiz is refused before any I/O",
			setup: finish, participant: "Ali", question: 0, wantErr: kuis.ErrInvalidQuestion,
		},
		{
			name: "answers key of the wrong type",
			setup: func(t *testing.T, e *env, m *kuis.Meta, b *kuis.Board) {
				e.mustRaw("DEL", b.Keys().Answers())
				e.mustRaw("SET", b.Keys().Answers(), "1:Ali")
			},
			participant: "Budi", question: 2, wantErr: kuis.ErrCorrupt,
		},
		{
			name: "board of the wrong type",
			setup: func(t *testing.T, e *env, m *kuis.Meta, b *kuis.Board) {
				e.mustRaw("DEL", b.Keys().Board())
				e.mustRaw("RPUSH", b.Keys().Board(), "Ali")
			},
			participant: "Budi", question: 2, wantErr: kuis.ErrCorrupt,
		},
		{
			name: "answered pair without a score on the board",
			setup: func(t *testing.T, e *env, m *kuis.Meta, b *kuis.Board) {
				e.mustRaw("SADD", b.Keys().Answers(), "3:Citra")
			},
			participant: "Citra", question: 3, wantErr: kuis.ErrCorrupt,
		},
		{
			name: "unknown status",
			setup: func(t *testing.T, e *env, m *kuis.Meta, b *kuis.Board) {
				e.mustRaw("HSET", m.Keys().Meta(), "status", "jeda")
			},
			participant: "Budi", question: 1, wantErr: kuis.ErrCorrupt,
		},
		{
			name: "meta of the wrong type",
			setup: func(t *testing.T, e *env, m *kuis.Meta, b *kuis.Board) {
				e.mustRaw("DEL", m.Keys().Meta())
				e.mustRaw("SET", m.Keys().Meta(), "berjalan")
			},
			participant: "Budi", question: 1, wantErr: kuis.ErrCorrupt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			var b *kuis.Board
			if tt.noMeta {
				b = e.board(quizID())
			} else {
				_, m, board := e.running(3)
				b = board
				if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
					t.Fatal(err)
				}
				if tt.setup != nil {
					tt.setup(t, e, m, b)
				}
			}
			k := b.Keys()
			before := keyContents(t, e, k.Meta(), k.Board(), k.Answers())
			got, err := b.RecordAnswer(e.ctx, tt.participant, tt.question)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("RecordAnswer(%q, %d) = %+v, %v; want %v", tt.participant, tt.question, got, err, tt.wantErr)
			}
			if got != (kuis.Answer{}) {
				t.Errorf("RecordAnswer(%q, %d) answer = %+v with an error; want the zero Answer", tt.participant, tt.question, got)
			}
			after := keyContents(t, e, k.Meta(), k.Board(), k.Answers())
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("keys changed by a refused call (-before +after):\n%s", diff)
			}
		})
	}
}

func finish(t *testing.T, e *env, m *kuis.Meta, _ *kuis.Board) {
	t.Helper()
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRecordAnswerValidatesBeforeIO proves the client-side checks need no
// server: on a closed client they still answer with their own sentinel,
// while a valid call reaches the (dead) connection.
func TestRecordAnswerValidatesBeforeIO(t *testing.T) {
	e := newEnv(t)
	client, closeClient, err := redistest.Open()
	if err != nil {
		t.Fatal(err)
	}
	b, err := kuis.NewBoard(client, quizID(), e.opts...)
	if err != nil {
		closeClient()
		t.Fatal(err)
	}
	closeClient()
	tests := []struct {
		name        string
		participant string
		question    int
		wantErr     error
	}{
		{"empty participant", "", 1, kuis.ErrInvalidParticipant},
		{"question 0", "Ali", 0, kuis.ErrInvalidQuestion},
		{"question -1", "Ali", -1, kuis.ErrInvalidQuestion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := b.RecordAnswer(e.ctx, tt.participant, tt.question); !errors.Is(err, tt.wantErr) {
				t.Errorf("RecordAnswer(%q, %d) on a closed client = %v; want %v", tt.participant, tt.question, err, tt.wantErr)
			}
			_, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: tt.participant, Question: tt.question}})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("RecordAnswers on a closed client = %v; want %v", err, tt.wantErr)
			}
		})
	}
	// The control: a valid answer does try the connection, so the cases
	// above were refused before it.
	if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err == nil {
		t.Error("RecordAnswer on a closed client succeeded; want a connection error")
	}
}

// TestRecordAnswersBatch checks the batch form: each answer behaves as a
// RecordAnswer call, in order; an invalid input stops the whole batch before
// anything is sent; server refusals are reported per entry.
func TestRecordAnswersBatch(t *testing.T) {
	in := func(pairs ...any) []kuis.AnswerInput {
		var out []kuis.AnswerInput
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, kuis.AnswerInput{Participant: pairs[i].(string), Question: pairs[i+1].(int)})
		}
		return out
	}
	tests := []struct {
		name      string
		setup     func(t *testing.T, e *env, m *kuis.Meta, b *kuis.Board)
		input     []kuis.AnswerInput
		want      []kuis.Answer
		wantErr   error
		wantInErr string // the index the error names
		wantPairs []string
	}{
		{
			name:      "each answer as RecordAnswer, duplicates within the batch",
			input:     in("Ali", 1, "Ali", 1, "Budi", 2, "Ali", 2, "Budi", 2),
			want:      []kuis.Answer{{Score: 10}, {Score: 10, Duplicate: true}, {Score: 10}, {Score: 20}, {Score: 10, Duplicate: true}},
			wantPairs: []string{"1:Ali", "2:Ali", "2:Budi"},
		},
		{
			name: "duplicates of answers counted before the batch",
			setup: func(t *testing.T, e *env, m *kuis.Meta, b *kuis.Board) {
				if _, err := b.RecordAnswer(e.ctx, "Citra", 3); err != nil {
					t.Fatal(err)
				}
			},
			input:     in("Citra", 3, "Citra", 1),
			want:      []kuis.Answer{{Score: 10, Duplicate: true}, {Score: 20}},
			wantPairs: []string{"1:Citra", "3:Citra"},
		},
		{
			name:      "an invalid participant stops the batch before anything is sent",
			input:     in("Ali", 1, "", 2, "Budi", 1),
			wantErr:   kuis.ErrInvalidParticipant,
			wantInErr: "answer 1",
		},
		{
			name:      "a question below 1 stops the batch before anything is sent",
			input:     in("Ali", 1, "Budi", 1, "Citra", 0),
			wantErr:   kuis.ErrInvalidQuestion,
			wantInErr: "answer 2",
		},
		{
			name:      "a question above jumlah_soal fails alone",
			input:     in("Ali", 1, "Ali", 4, "Ali", 2),
			want:      []kuis.Answer{{Score: 10}, {}, {Score: 20}},
			wantErr:   kuis.ErrInvalidQuestion,
			wantInErr: "answer 1",
			wantPairs: []string{"1:Ali", "2:Ali"},
		},
		{
			name:      "a finished quiz refuses every entry",
			setup:     finish,
			input:     in("Ali", 1, "Budi", 2, "Citra", 3),
			want:      []kuis.Answer{{}, {}, {}},
			wantErr:   kuis.ErrQuizFinished,
			wantInErr: "answer 0",
		},
		{
			name:  "an empty batch does nothing",
			input: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, m, b := e.running(3)
			if tt.setup != nil {
				tt.setup(t, e, m, b)
			}
			k := b.Keys()
			before := keyContents(t, e, k.Board(), k.Answers())
			got, err := b.RecordAnswers(e.ctx, tt.input)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("RecordAnswers = %+v, %v; want error %v", got, err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantInErr) {
				t.Errorf("error %q does not name %q", err, tt.wantInErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RecordAnswers (-want +got):\n%s", diff)
			}
			if tt.want == nil {
				// Nothing was sent: no key changed.
				if diff := cmp.Diff(before, keyContents(t, e, k.Board(), k.Answers())); diff != "" {
					t.Errorf("keys changed (-before +after):\n%s", diff)
				}
				return
			}
			var wantPairs []string
			if tt.wantPairs != nil {
				wantPairs = append(wantPairs, tt.wantPairs...)
			}
			sort.Strings(wantPairs)
			gotPairs := answeredPairs(t, e, k)
			if len(gotPairs) == 0 {
				gotPairs = nil
			}
			if diff := cmp.Diff(wantPairs, gotPairs); diff != "" {
				t.Errorf("SMEMBERS %s (-want +got):\n%s", k.Answers(), diff)
			}
		})
	}
}

// TestRecordAnswerConcurrentSubmitsCountOnce sends every (participant,
// question) pair of 25 participants x 10 questions from each of 24
// goroutines at once, each in its own order: every pair is raced by 24
// submitters, and exactly one of them may count it.
func TestRecordAnswerConcurrentSubmitsCountOnce(t *testing.T) {
	const (
		participants = 25
		questions    = 10
		submitters   = 24
	)
	e := newEnv(t)
	_, _, b := e.running(questions)
	type pair struct{ p, q int }
	name := func(p int) string { return fmt.Sprintf("Siswa %02d", p+1) }

	var counted [participants][questions]atomic.Int32
	var nonDuplicates atomic.Int64
	errs := make(chan error, submitters)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < submitters; g++ {
		pairs := make([]pair, 0, participants*questions)
		for p := 0; p < participants; p++ {
			for q := 0; q < questions; q++ {
				pairs = append(pairs, pair{p, q})
			}
		}
		rand.New(rand.NewPCG(uint64(g), 3)).Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for _, pr := range pairs {
				a, err := b.RecordAnswer(e.ctx, name(pr.p), pr.q+1)
				if err != nil {
					errs <- fmt.Errorf("RecordAnswer(%q, %d): %w", name(pr.p), pr.q+1, err)
					return
				}
				if a.Score < 10 || a.Score > 10*questions || a.Score%10 != 0 {
					errs <- fmt.Errorf("RecordAnswer(%q, %d) score %d: want 10 to %d", name(pr.p), pr.q+1, a.Score, 10*questions)
					return
				}
				if !a.Duplicate {
					counted[pr.p][pr.q].Add(1)
					nonDuplicates.Add(1)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	if got := nonDuplicates.Load(); got != participants*questions {
		t.Errorf("non-duplicate replies = %d; want %d", got, participants*questions)
	}
	for p := range counted {
		for q := range counted[p] {
			if n := counted[p][q].Load(); n != 1 {
				t.Errorf("pair (%s, %d) counted %d times; want 1", name(p), q+1, n)
			}
		}
	}
	standings, err := b.Standings(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(standings) != participants {
		t.Errorf("board has %d participants; want %d", len(standings), participants)
	}
	for _, s := range standings {
		if s.Score != 10*questions {
			t.Errorf("%s has %d points; want %d", s.Participant, s.Score, 10*questions)
		}
	}
	if n := len(answeredPairs(t, e, b.Keys())); n != participants*questions {
		t.Errorf("answers set has %d members; want %d", n, participants*questions)
	}
}

// TestRecordAnswerRetryAfterFinishIsDuplicate: an answer counted while the
// quiz ran, whose reply was lost, may be retried after the teacher finished:
// the retry says Duplicate with the score, not ErrQuizFinished (which would tell
// the student the answer was not counted). New answers stay refused.
func TestRecordAnswerRetryAfterFinishIsDuplicate(t *testing.T) {
	e := newEnv(t)
	_, m, b := e.running(3)
	if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	got, err := b.RecordAnswer(e.ctx, "Ali", 1)
	if err != nil {
		t.Fatalf("retry of a counted answer after Finish: %v", err)
	}
	if diff := cmp.Diff(kuis.Answer{Score: 10, Duplicate: true}, got); diff != "" {
		t.Errorf("retry after Finish (-want +got):\n%s", diff)
	}
	for _, q := range []int{2, 4} { // a new answer, and one above jumlah_soal
		if _, err := b.RecordAnswer(e.ctx, "Ali", q); !errors.Is(err, kuis.ErrQuizFinished) {
			t.Errorf("RecordAnswer(Ali, %d) after Finish: %v, want ErrQuizFinished", q, err)
		}
	}
	batch, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Ali", 1}, {"Budi", 1}})
	if !errors.Is(err, kuis.ErrQuizFinished) {
		t.Errorf("RecordAnswers after Finish: %v, want ErrQuizFinished for Budi", err)
	}
	if diff := cmp.Diff([]kuis.Answer{{Score: 10, Duplicate: true}, {}}, batch); diff != "" {
		t.Errorf("RecordAnswers after Finish (-want +got):\n%s", diff)
	}
	if n, err := e.mustRaw("SCARD", b.Keys().Answers()).AsInt64(); err != nil || n != 1 {
		t.Errorf("SCARD answers = %d, %v; want 1 (nothing written)", n, err)
	}
	if s, err := b.Score(e.ctx, "Ali"); err != nil || s != 10 {
		t.Errorf("Score(Ali) = %d, %v; want 10", s, err)
	}
}
