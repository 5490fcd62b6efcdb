package kuis_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// pairsAnswered returns the members of the quiz's answers set, sorted.
func pairsAnswered(e *env, k kuis.Keys) []string {
	e.t.Helper()
	members, err := e.mustRaw("SMEMBERS", k.Answers()).AsStrSlice()
	if err != nil {
		e.t.Fatalf("SMEMBERS %s: %v", k.Answers(), err)
	}
	sort.Strings(members)
	return members
}

// scoresOnBoard returns the board's members and scores as Redis holds them.
func scoresOnBoard(e *env, k kuis.Keys) map[string]float64 {
	e.t.Helper()
	zs, err := e.mustRaw("ZRANGE", k.Board(), "0", "-1", "WITHSCORES").AsZScores()
	if err != nil {
		e.t.Fatalf("ZRANGE %s: %v", k.Board(), err)
	}
	out := make(map[string]float64, len(zs))
	for _, z := range zs {
		out[z.Member] = z.Score
	}
	return out
}

// logFields is the quiz's log without entry IDs: peserta, soal and skor of
// each entry, in order.
func logFields(e *env, k kuis.Keys) [][3]string {
	e.t.Helper()
	out := [][3]string{}
	for _, l := range answerLog(e, k) {
		out = append(out, [3]string{l.Participant, l.Question, l.Score})
	}
	return out
}

// TestRecordAnswerCountsEachPairOnce plays call sequences on a fresh running
// quiz and checks every reply, then the board, the answers set and the log
// they leave: one member "<question>:<participant>" and one entry per counted
// pair, and an order set Audit finds placing everyone by their latest answer.
func TestRecordAnswerCountsEachPairOnce(t *testing.T) {
	t.Parallel()
	type call struct {
		participant string
		question    int
		want        kuis.Answer
	}
	tests := []struct {
		name      string
		questions int
		calls     []call
		wantBoard map[string]float64
		wantPairs []string
		wantLog   [][3]string
	}{
		{
			name:      "a repeat adds nothing and answers the current score",
			questions: 3,
			calls: []call{
				{"Ali", 1, kuis.Answer{Score: 10}},
				{"Ali", 1, kuis.Answer{Score: 10, Duplicate: true}},
				{"Ali", 2, kuis.Answer{Score: 20}},
				{"Budi", 1, kuis.Answer{Score: 10}},
				{"Ali", 1, kuis.Answer{Score: 20, Duplicate: true}},
				{"Ali", 3, kuis.Answer{Score: 30}},
				{"Budi", 1, kuis.Answer{Score: 10, Duplicate: true}},
				{"Ali", 3, kuis.Answer{Score: 30, Duplicate: true}},
			},
			wantBoard: map[string]float64{"Ali": 30, "Budi": 10},
			wantPairs: []string{"1:Ali", "1:Budi", "2:Ali", "3:Ali"},
			wantLog:   [][3]string{{"Ali", "1", "10"}, {"Ali", "2", "20"}, {"Budi", "1", "10"}, {"Ali", "3", "30"}},
		},
		{
			name:      "questions are decimal, names kept as given",
			questions: 1000,
			calls: []call{
				{"Siti: kelas 8B", 10, kuis.Answer{Score: 10}},
				{"Siti: kelas 8B", 1, kuis.Answer{Score: 20}},
				{"Siti: kelas 8B", 1000, kuis.Answer{Score: 30}},
				{"Ñoman Śukarta", 1, kuis.Answer{Score: 10}},
				{"Siti: kelas 8B", 10, kuis.Answer{Score: 30, Duplicate: true}},
			},
			wantBoard: map[string]float64{"Siti: kelas 8B": 30, "Ñoman Śukarta": 10},
			wantPairs: []string{"1000:Siti: kelas 8B", "10:Siti: kelas 8B", "1:Siti: kelas 8B", "1:Ñoman Śukarta"},
			wantLog: [][3]string{{"Siti: kelas 8B", "10", "10"}, {"Siti: kelas 8B", "1", "20"}, {"Siti: kelas 8B", "1000", "30"},
				{"Ñoman Śukarta", "1", "10"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id, _, b := e.running(tt.questions)
			k := e.keys(id)
			for _, c := range tt.calls {
				got, err := b.RecordAnswer(e.ctx, c.participant, c.question)
				if err != nil {
					t.Fatalf("RecordAnswer(%q, %d): %v", c.participant, c.question, err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("RecordAnswer(%q, %d) (-want +got):\n%s", c.participant, c.question, diff)
				}
			}
			if diff := cmp.Diff(tt.wantBoard, scoresOnBoard(e, k)); diff != "" {
				t.Errorf("board (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPairs, pairsAnswered(e, k)); diff != "" {
				t.Errorf("answers set (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLog, logFields(e, k)); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
			if v, err := e.store.Audit(e.ctx, id); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
				t.Errorf("Audit = %v, %v; want no violations", v, err)
			}
		})
	}
}

// invalidParticipants break the name rule (CleanParticipant's).
var invalidParticipants = []struct{ name, participant string }{
	{"empty", ""},
	{"65 characters", strings.Repeat("a", 65)},
	{"65 characters of multi-byte runes", strings.Repeat("é", 64) + "a"},
	{"spaces only", "   "},
	{"a lone no-break space", "\u00a0"},
	{"a space after", "Ali "},
	{"an ideographic space before", "\u3000Ali"},
	{"zero width space", "Ali\u200b"},
	{"byte order mark", "\ufeffAli"},
	{"line separator", "\u2028"},
	{"right-to-left override", "\u202eilA"},
	{"NFD", "Jose\u0301"},
	{"soft hyphen", "Al\u00adi"},
	{"combining mark alone", "\u0301"},
	{"invalid UTF-8", "Ali\xff"},
	{"truncated rune", "Ali\xe6\x9d"},
	{"newline", "Ali\n"},
	{"tab", "Ali\tBaba"},
	{"NUL", "Ali\x00"},
	{"escape", "\x1b[31mAli"},
	{"DEL", "Ali\x7f"},
	{"U+0085 next line", "Ali\u0085"},
}

// TestRecordAnswerRefusalsWriteNothing: each refusal returns its sentinel and
// the zero Answer, and leaves the quiz's five keys exactly as they were. The
// quiz has 3 questions and holds Ali's answer to question 1 before setup.
func TestRecordAnswerRefusalsWriteNothing(t *testing.T) {
	t.Parallel()
	type setup func(e *env, k kuis.Keys)
	del := func(keys ...func(kuis.Keys) string) setup {
		return func(e *env, k kuis.Keys) {
			for _, key := range keys {
				e.mustRaw("DEL", key(k))
			}
		}
	}
	raw := func(key func(kuis.Keys) string, cmd string, args ...string) setup {
		return func(e *env, k kuis.Keys) {
			e.mustRaw("DEL", key(k))
			e.mustRaw(cmd, key(k), args...)
		}
	}
	meta := func(fields ...string) setup { return raw(kuis.Keys.Meta, "HSET", fields...) }
	finished := func(e *env, k kuis.Keys) { e.finish(k.QuizID()) }
	tests := []struct {
		name        string
		setup       setup
		participant string
		question    int
		wantErr     error
	}{
		{"question 0", nil, "Budi", 0, kuis.ErrInvalidQuestion},
		{"question -1", nil, "Budi", -1, kuis.ErrInvalidQuestion},
		{"question above jumlah_soal", nil, "Budi", 4, kuis.ErrInvalidQuestion},
		{"invalid participant is checked first", nil, "", 0, kuis.ErrInvalidParticipant},
		{"no key at all", del(kuis.Keys.Meta, kuis.Keys.Board, kuis.Keys.Answers, kuis.Keys.Log, kuis.Keys.Order), "Budi", 1, kuis.ErrQuizNotFound},
		{"board, answers, log and order without meta", del(kuis.Keys.Meta), "Budi", 1, kuis.ErrQuizNotFound},
		{"question 0 is checked before the quiz", del(kuis.Keys.Meta), "Budi", 0, kuis.ErrInvalidQuestion},
		{"finished", finished, "Budi", 1, kuis.ErrQuizFinished},
		{"finished, a new question of a counted participant", finished, "Ali", 2, kuis.ErrQuizFinished},
		{"finished beats a question above jumlah_soal", finished, "Ali", 4, kuis.ErrQuizFinished},
		{"meta is a string", raw(kuis.Keys.Meta, "SET", "berjalan"), "Budi", 1, kuis.ErrCorrupt},
		{"unknown status", meta("judul", "Kuis", "jumlah_soal", "3", "status", "jeda"), "Budi", 1, kuis.ErrCorrupt},
		{"missing status", meta("judul", "Kuis", "jumlah_soal", "3"), "Budi", 1, kuis.ErrCorrupt},
		{"malformed jumlah_soal", meta("judul", "Kuis", "jumlah_soal", "03", "status", "berjalan"), "Budi", 1, kuis.ErrCorrupt},
		{"jumlah_soal of 16 digits", meta("judul", "Kuis", "jumlah_soal", "1000000000000000", "status", "berjalan"), "Budi", 1, kuis.ErrCorrupt},
		{"board is a list", raw(kuis.Keys.Board, "RPUSH", "Ali"), "Budi", 2, kuis.ErrCorrupt},
		{"answers is a string", raw(kuis.Keys.Answers, "SET", "1:Ali"), "Budi", 2, kuis.ErrCorrupt},
		{"log is a string", raw(kuis.Keys.Log, "SET", "catatan"), "Budi", 2, kuis.ErrCorrupt},
		{"log is a string, a participant on the board", raw(kuis.Keys.Log, "SET", "catatan"), "Ali", 2, kuis.ErrCorrupt},
		{"order is a string", raw(kuis.Keys.Order, "SET", "urutan"), "Budi", 2, kuis.ErrCorrupt},
		{"order is a hash", raw(kuis.Keys.Order, "HSET", "Ali", "10"), "Ali", 2, kuis.ErrCorrupt},
		{"score not a multiple of 10", raw(kuis.Keys.Board, "ZADD", "15", "Ali"), "Ali", 2, kuis.ErrCorrupt},
		{"negative score", raw(kuis.Keys.Board, "ZADD", "-10", "Ali"), "Ali", 2, kuis.ErrCorrupt},
		{"answered pair without a score", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "3:Citra") }, "Citra", 3, kuis.ErrCorrupt},
	}
	for _, p := range invalidParticipants {
		tests = append(tests, struct {
			name        string
			setup       setup
			participant string
			question    int
			wantErr     error
		}{"participant " + p.name, nil, p.participant, 1, kuis.ErrInvalidParticipant})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id, _, b := e.running(3)
			if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
				t.Fatal(err)
			}
			k := e.keys(id)
			if tt.setup != nil {
				tt.setup(e, k)
			}
			before := e.dump(fiveKeys(k)...)
			got, err := b.RecordAnswer(e.ctx, tt.participant, tt.question)
			if !errors.Is(err, tt.wantErr) || got != (kuis.Answer{}) {
				t.Errorf("RecordAnswer(%q, %d) = %+v, %v; want the zero Answer, %v", tt.participant, tt.question, got, err, tt.wantErr)
			}
			if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
				t.Errorf("a refused RecordAnswer changed keys (-before +after):\n%s", diff)
			}
		})
	}
}

// TestRecordAnswerRetryAfterFinishIsDuplicate: an answer counted while the
// quiz ran may be retried after the teacher finished (its reply was lost):
// the retry answers Duplicate with the score and writes nothing.
func TestRecordAnswerRetryAfterFinishIsDuplicate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(3)
	for q := 1; q <= 2; q++ {
		if _, err := b.RecordAnswer(e.ctx, "Ali", q); err != nil {
			t.Fatal(err)
		}
	}
	e.finish(id)
	k := e.keys(id)
	before := e.dump(fiveKeys(k)...)
	got, err := b.RecordAnswer(e.ctx, "Ali", 1)
	if err != nil || got != (kuis.Answer{Score: 20, Duplicate: true}) {
		t.Errorf("RecordAnswer(Ali, 1) after Finish = %+v, %v; want {Score: 20, Duplicate: true}", got, err)
	}
	if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
		t.Errorf("a retry after Finish changed keys (-before +after):\n%s", diff)
	}
}

// TestRecordAnswers: each entry behaves as its own RecordAnswer call, in
// order; an invalid or refused entry carries its own error and never hides
// the others' results; the returned error stays nil when only entries failed.
func TestRecordAnswers(t *testing.T) {
	t.Parallel()
	in := func(pairs ...any) []kuis.AnswerInput {
		var out []kuis.AnswerInput
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, kuis.AnswerInput{Participant: pairs[i].(string), Question: pairs[i+1].(int)})
		}
		return out
	}
	ok := func(score int64) kuis.AnswerResult { return kuis.AnswerResult{Answer: kuis.Answer{Score: score}} }
	dup := func(score int64) kuis.AnswerResult {
		return kuis.AnswerResult{Answer: kuis.Answer{Score: score, Duplicate: true}}
	}
	refused := func(err error) kuis.AnswerResult { return kuis.AnswerResult{Err: err} }
	tests := []struct {
		name      string
		setup     func(e *env, id string, b *kuis.Board) // after Citra's answer to question 3
		input     []kuis.AnswerInput
		want      []kuis.AnswerResult
		wantPairs []string
		wantLog   [][3]string // after Citra's answer to question 3, counted first
	}{
		{
			name:      "a pair twice in one batch counts at its first position",
			input:     in("Ali", 1, "Ali", 1, "Budi", 2, "Ali", 2, "Budi", 2, "Citra", 3),
			want:      []kuis.AnswerResult{ok(10), dup(10), ok(10), ok(20), dup(10), dup(10)},
			wantPairs: []string{"1:Ali", "2:Ali", "2:Budi", "3:Citra"},
			wantLog:   [][3]string{{"Ali", "1", "10"}, {"Budi", "2", "10"}, {"Ali", "2", "20"}},
		},
		{
			name: "invalid and refused entries fail alone",
			input: in("Ali", 1, "", 1, "Budi", 0, "Budi", 4, "Ali\n", 2,
				"Ali", 2, strings.Repeat("x", 65), 1, "Ali", 1),
			want: []kuis.AnswerResult{ok(10), refused(kuis.ErrInvalidParticipant), refused(kuis.ErrInvalidQuestion),
				refused(kuis.ErrInvalidQuestion), refused(kuis.ErrInvalidParticipant),
				ok(20), refused(kuis.ErrInvalidParticipant), dup(20)},
			wantPairs: []string{"1:Ali", "2:Ali", "3:Citra"},
			wantLog:   [][3]string{{"Ali", "1", "10"}, {"Ali", "2", "20"}},
		},
		{
			name: "a corrupt score refuses only its participant",
			setup: func(e *env, id string, _ *kuis.Board) {
				e.mustRaw("ZADD", e.keys(id).Board(), "15", "Citra")
			},
			input:     in("Citra", 1, "Ali", 1),
			want:      []kuis.AnswerResult{refused(kuis.ErrCorrupt), ok(10)},
			wantPairs: []string{"1:Ali", "3:Citra"},
			wantLog:   [][3]string{{"Ali", "1", "10"}},
		},
		{
			name:      "finished: counted pairs are Duplicate, new ones refused",
			setup:     func(e *env, id string, _ *kuis.Board) { e.finish(id) },
			input:     in("Budi", 1, "Citra", 3, "Citra", 1, "Ali", 4),
			want:      []kuis.AnswerResult{refused(kuis.ErrQuizFinished), dup(10), refused(kuis.ErrQuizFinished), refused(kuis.ErrQuizFinished)},
			wantPairs: []string{"3:Citra"},
		},
		{
			name:      "no meta: every entry ErrQuizNotFound",
			setup:     func(e *env, id string, _ *kuis.Board) { e.mustRaw("DEL", e.keys(id).Meta()) },
			input:     in("Ali", 1, "Citra", 3),
			want:      []kuis.AnswerResult{refused(kuis.ErrQuizNotFound), refused(kuis.ErrQuizNotFound)},
			wantPairs: []string{"3:Citra"},
		},
		{
			name:      "an empty batch",
			want:      []kuis.AnswerResult{},
			wantPairs: []string{"3:Citra"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id, _, b := e.running(3)
			if _, err := b.RecordAnswer(e.ctx, "Citra", 3); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(e, id, b)
			}
			got, err := b.RecordAnswers(e.ctx, tt.input)
			if err != nil {
				t.Errorf("RecordAnswers returned the call error %v; want nil (only entries failed)", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("RecordAnswers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPairs, pairsAnswered(e, e.keys(id))); diff != "" {
				t.Errorf("answers set (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(append([][3]string{{"Citra", "3", "10"}}, tt.wantLog...), logFields(e, e.keys(id))); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecordAnswersCancelled: a cancelled context is the call's error, and
// every sent entry carries it; an invalid entry keeps its own error.
func TestRecordAnswersCancelled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, b := e.running(3)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	got, err := b.RecordAnswers(ctx, []kuis.AnswerInput{{Participant: "Ali", Question: 1}, {Participant: "", Question: 1}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("RecordAnswers with a cancelled context: error %v; want context.Canceled", err)
	}
	want := []kuis.AnswerResult{{Err: context.Canceled}, {Err: kuis.ErrInvalidParticipant}}
	if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("RecordAnswers with a cancelled context (-want +got):\n%s", diff)
	}
}

// TestInputChecksNeedNoServer: invalid input is refused before any I/O, so on
// a closed client each call still answers its own sentinel, while a valid call
// reaches the dead connection.
func TestInputChecksNeedNoServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	client, closeClient, err := redistest.Open()
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.storeOn(client).Board(quizID())
	if err != nil {
		t.Fatal(err)
	}
	closeClient()
	batch, batchErr := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: "", Question: 1}, {Participant: "Ali", Question: 0}})
	want := []kuis.AnswerResult{{Err: kuis.ErrInvalidParticipant}, {Err: kuis.ErrInvalidQuestion}}
	if diff := cmp.Diff(want, batch, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("RecordAnswers on a closed client (-want +got):\n%s", diff)
	}
	_, dead := b.RecordAnswer(e.ctx, "Ali", 1)
	calls := map[string]struct{ got, want error }{
		"RecordAnswer(\"\", 1)":           {second(b.RecordAnswer(e.ctx, "", 1)), kuis.ErrInvalidParticipant},
		"RecordAnswer(Ali, 0)":            {second(b.RecordAnswer(e.ctx, "Ali", 0)), kuis.ErrInvalidQuestion},
		"RecordAnswers of invalid inputs": {batchErr, nil}, // nothing was sent
		"Page(-1, 10)":                    {second(b.Page(e.ctx, -1, 10)), kuis.ErrInvalidRange},
		"Around(Ali, 501)":                {second(b.Around(e.ctx, "Ali", 501)), kuis.ErrInvalidRange},
		"Standing(\"Ali\\n\")":            {second(b.Standing(e.ctx, "Ali\n")), kuis.ErrInvalidParticipant},
	}
	for call, c := range calls {
		if !errors.Is(c.got, c.want) {
			t.Errorf("%s on a closed client = %v; want %v", call, c.got, c.want)
		}
	}
	if dead == nil {
		t.Error("RecordAnswer(Ali, 1) on a closed client succeeded; want a connection error")
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
