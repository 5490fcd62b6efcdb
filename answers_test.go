package kuis_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
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

// The record path's lanes, seen through the public API: answers queued
// behind runs in flight share runs, and a run counts each answer once.

// holdClient is the test's client with a valve on the record script: while
// holding, each run of it waits before being sent until release is closed,
// so that a test can fill the library's queue behind runs in flight. It
// counts the answers of every run it sends.
type holdClient struct {
	rueidis.Client
	holding atomic.Bool
	entered chan struct{} // one send per run held
	release chan struct{}

	mu      sync.Mutex
	runs    []int // answers per run sent through Do
	quizzes []int // quizzes per run
}

// recordSHA is the SHA1 of the record script, as EVALSHA names it.
var recordSHA = func() string {
	sum := sha1.Sum([]byte(script.RecordAnswer.Source()))
	return hex.EncodeToString(sum[:])
}()

func newHoldClient(c rueidis.Client) *holdClient {
	return &holdClient{Client: c, entered: make(chan struct{}, 64), release: make(chan struct{})}
}

// Do holds and counts the record script's runs; everything passes through.
func (c *holdClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	// A run is one EVALSHA (its EVAL after NOSCRIPT is the same run).
	if args := cmd.Commands(); len(args) > 3 && args[0] == "EVALSHA" && args[1] == recordSHA {
		keys, _ := strconv.Atoi(args[2])
		c.mu.Lock()
		c.runs = append(c.runs, (len(args)-3-keys)/3)
		c.quizzes = append(c.quizzes, keys/5)
		c.mu.Unlock()
		if c.holding.Load() {
			c.entered <- struct{}{}
			<-c.release
		}
	}
	return c.Client.Do(ctx, cmd)
}

// sentRuns returns the answers of each run sent so far.
func (c *holdClient) sentRuns() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.runs...)
}

// fill holds kuis.MaxInFlight runs of b in flight, each of one answer of
// participants "held-1", ..., and returns a function that waits for them to
// end. Calls made meanwhile queue.
func (c *holdClient) fill(t *testing.T, ctx context.Context, b *kuis.Board) (wait func()) {
	t.Helper()
	c.holding.Store(true)
	var wg sync.WaitGroup
	for i := range kuis.MaxInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.RecordAnswer(ctx, "held-"+strconv.Itoa(i+1), 1); err != nil {
				t.Errorf("held RecordAnswer: %v", err)
			}
		}()
	}
	for range kuis.MaxInFlight {
		select {
		case <-c.entered:
		case <-time.After(signalWait):
			t.Fatal("the held runs never reached the client")
		}
	}
	c.holding.Store(false)
	return wg.Wait
}

// waitQueued waits until n calls to quiz id wait in s's queue.
func waitQueued(t *testing.T, s *kuis.Store, id string, n int) {
	t.Helper()
	for end := time.Now().Add(signalWait); kuis.Queued(s, id) != n; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d calls queued, want %d", kuis.Queued(s, id), n)
		}
	}
}

// TestQueuedCallCancelledIsNeverCounted: a call whose context ends while it
// waits behind runs in flight returns at once with its context's error and
// its answer is never sent; the call queued after it, to another quiz, is
// sent and counted.
func TestQueuedCallCancelledIsNeverCounted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hc := newHoldClient(e.client)
	s := e.storeOn(hc)
	id, _, _ := e.running(3)
	other, _, _ := e.running(3)
	if redistest.Cluster() {
		other = id // quizzes of different slots queue apart on a cluster
	}
	b, _ := handles(t, s, id)
	ob, _ := handles(t, s, other)
	wait := hc.fill(t, e.ctx, b)
	ctx, cancel := context.WithCancel(e.ctx)
	cancelled := make(chan error, 1)
	go func() { _, err := ob.RecordAnswer(ctx, "Citra", 1); cancelled <- err }()
	waitQueued(t, s, id, 1)
	kept := make(chan error, 1)
	go func() { _, err := b.RecordAnswer(e.ctx, "Dewi", 1); kept <- err }()
	waitQueued(t, s, id, 2)
	cancel()
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("queued call cancelled: error %v; want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a queued call whose context was cancelled did not return while the runs in flight were held")
	}
	close(hc.release)
	wait()
	if err := <-kept; err != nil {
		t.Errorf("the call queued after the cancelled one: %v", err)
	}
	if diff := cmp.Diff([]string{"1:Dewi", "1:held-1", "1:held-2"}, pairsAnswered(e, e.keys(id))); diff != "" {
		t.Errorf("answers set (-want +got):\n%s", diff)
	}
	if other != id && len(pairsAnswered(e, e.keys(other))) != 0 {
		t.Errorf("the cancelled call's quiz holds %q; want no answer", pairsAnswered(e, e.keys(other)))
	}
	if diff := cmp.Diff([]int{1, 1, 1}, hc.sentRuns()); diff != "" {
		t.Errorf("answers per run sent (-want +got):\n%s", diff)
	}
}

// TestCoalescedRunRefusesOnlyTheCorruptAnswer: calls queued behind runs in
// flight go in one run; the one whose participant's score breaks the
// contract is refused alone, with nothing written for it, and every other
// call gets its own answer.
func TestCoalescedRunRefusesOnlyTheCorruptAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hc := newHoldClient(e.client)
	s := e.storeOn(hc)
	id, _, _ := e.running(3)
	k := e.keys(id)
	e.mustRaw("ZADD", k.Board(), "15", "Citra")
	b, err := s.Board(id)
	if err != nil {
		t.Fatal(err)
	}
	wait := hc.fill(t, e.ctx, b)
	calls := []kuis.AnswerInput{{"Ali", 1}, {"Citra", 1}, {"Budi", 1}, {"Ali", 2}, {"Dewi", 3}}
	type result struct {
		a   kuis.Answer
		err error
	}
	got := make([]result, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i].a, got[i].err = b.RecordAnswer(e.ctx, c.Participant, c.Question)
		}()
		waitQueued(t, s, id, i+1) // in this order in the queue
	}
	close(hc.release)
	wait()
	wg.Wait()
	want := []result{{a: kuis.Answer{Score: 10}}, {err: kuis.ErrCorrupt}, {a: kuis.Answer{Score: 10}},
		{a: kuis.Answer{Score: 20}}, {a: kuis.Answer{Score: 10}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{}), cmp.Comparer(func(a, b error) bool {
		return errors.Is(a, b) || errors.Is(b, a)
	})); diff != "" {
		t.Errorf("RecordAnswer results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1:Ali", "1:Budi", "1:held-1", "1:held-2", "2:Ali", "3:Dewi"}, pairsAnswered(e, k)); diff != "" {
		t.Errorf("answers set (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 1, len(calls)}, hc.sentRuns()); diff != "" {
		t.Errorf("answers per run sent (-want +got): the queued calls did not share one run\n%s", diff)
	}
}

// TestCoalescedRunsAreBounded: many calls queued at once go in runs of at
// most kuis.MaxChunk answers, each call with its own answer.
func TestCoalescedRunsAreBounded(t *testing.T) {
	t.Parallel()
	const calls = 3*kuis.MaxChunk + 5
	e := newEnv(t)
	hc := newHoldClient(e.client)
	s := e.storeOn(hc)
	id, _, _ := e.running(1)
	b, err := s.Board(id)
	if err != nil {
		t.Fatal(err)
	}
	wait := hc.fill(t, e.ctx, b)
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a kuis.Answer
			a, errs[i] = b.RecordAnswer(e.ctx, "p"+strconv.Itoa(i), 1)
			if errs[i] == nil && a != (kuis.Answer{Score: 10}) {
				errs[i] = fmt.Errorf("answer %+v, want 10 points counted", a)
			}
		}()
	}
	waitQueued(t, s, id, calls)
	close(hc.release)
	wait()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	runs := hc.sentRuns()
	sum := 0
	for _, n := range runs[kuis.MaxInFlight:] {
		sum += n
		if n > kuis.MaxChunk {
			t.Errorf("a run of %d answers; want at most %d", n, kuis.MaxChunk)
		}
	}
	if sum != calls || len(runs) > kuis.MaxInFlight+calls/kuis.MaxChunk+1 {
		t.Errorf("runs %v: %d answers; want %d in %d runs", runs, sum, calls, calls/kuis.MaxChunk+1)
	}
}

// TestCoalescedDoubleTapsRacingFinish: 64 goroutines, two per participant
// (a double tap), answer every question of their quiz while the teacher
// finishes some quizzes midway: all on one quiz, or spread over 30, so that
// runs mix quizzes, one finished, one corrupt. For each quiz, nothing counts
// after its Finish returned, the board ends at 10 x counted answers, and the
// answers set and the log hold exactly the counted pairs; every call gets
// its own answer (counted scores 10, 20, ... once each, a repeat never below
// its pair's), and the corrupt quiz's answers alone are refused.
func TestCoalescedDoubleTapsRacingFinish(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		quizzes int
		corrupt bool
	}{{"one quiz", 1, false}, {"30 quizzes", 30, true}} {
		t.Run(tc.name, func(t *testing.T) {
			const goroutines, questions = 64, 200
			e := newEnv(t)
			hc := newHoldClient(e.client) // counts the quizzes of each run
			s := e.storeOn(hc)
			ids := make([]string, tc.quizzes)
			metas := make([]*kuis.Meta, tc.quizzes)
			boards := make([]*kuis.Board, tc.quizzes)
			for i := range ids {
				ids[i], metas[i], _ = e.running(questions)
				boards[i], _ = handles(t, s, ids[i])
			}
			broken := -1
			if tc.corrupt {
				broken = tc.quizzes - 1
				e.mustRaw("SET", e.keys(ids[broken]).Answers(), "not a set")
			}
			var (
				mu        sync.Mutex
				counted   = map[string][]int64{}            // scores of counted answers, per quiz and participant
				pairAt    = map[string]int64{}              // a counted pair's score
				dupAt     = map[string][]int64{}            // its Duplicates' scores
				problems  []string                          // reported after the goroutines end
				finished  = make([]atomic.Bool, tc.quizzes) // set once Finish of the quiz has returned
				halfway   = make(chan struct{}, goroutines) // one per goroutine past question 20
				finishing = make(chan struct{})             // closed once the Finishes have returned
				wg        sync.WaitGroup
			)
			for g := range goroutines {
				wg.Go(func() {
					qi := g / 2 % tc.quizzes
					name := fmt.Sprintf("peserta-%02d", g/2)
					for q := 1; q <= questions; q++ {
						switch q {
						case 20:
							halfway <- struct{}{}
						case questions / 2: // Finish lands before anyone is done
							<-finishing
						}
						after := finished[qi].Load()
						a, err := boards[qi].RecordAnswer(e.ctx, name, q)
						who, pair := ids[qi]+" "+name, fmt.Sprintf("%s %s %d", ids[qi], name, q)
						mu.Lock()
						switch {
						case qi == broken && errors.Is(err, kuis.ErrCorrupt):
						case qi == broken:
							problems = append(problems, fmt.Sprintf("%s: %+v, %v; want ErrCorrupt", pair, a, err))
						case errors.Is(err, kuis.ErrQuizFinished):
						case err != nil:
							problems = append(problems, fmt.Sprintf("%s: %v", pair, err))
						case a.Duplicate:
							dupAt[pair] = append(dupAt[pair], a.Score)
						case after:
							problems = append(problems, fmt.Sprintf("%s counted after Finish returned: %+v", pair, a))
						default:
							counted[who] = append(counted[who], a.Score)
							pairAt[pair] = a.Score
						}
						mu.Unlock()
					}
				})
			}
			for range goroutines {
				<-halfway
			}
			for i := 0; i < tc.quizzes; i += 7 { // one quiz in seven, and the only one
				if err := metas[i].Finish(e.ctx); err != nil {
					t.Fatal(err)
				}
				finished[i].Store(true)
			}
			close(finishing)
			wg.Wait()
			for _, p := range problems {
				t.Error(p)
			}
			for pair, scores := range dupAt {
				for _, s := range scores {
					if s < pairAt[pair] {
						t.Errorf("%s: a Duplicate returned score %d, below the %d its pair counted at", pair, s, pairAt[pair])
					}
				}
			}
			totals := 0
			for i, id := range ids {
				if i == broken {
					continue
				}
				k := e.keys(id)
				want, total := map[string]float64{}, 0
				for who, scores := range counted {
					quiz, name, _ := strings.Cut(who, " ")
					if quiz != id {
						continue
					}
					sort.Slice(scores, func(i, j int) bool { return scores[i] < scores[j] })
					for i, s := range scores {
						if s != int64(10*(i+1)) {
							t.Errorf("%s's counted answers returned scores %v; want 10, 20, ... once each", who, scores)
							break
						}
					}
					want[name] = float64(10 * len(scores))
					total += len(scores)
				}
				if diff := cmp.Diff(want, scoresOnBoard(e, k)); diff != "" {
					t.Errorf("quiz %s: board, want 10 x counted answers (-want +got):\n%s", id, diff)
				}
				if n, m := len(pairsAnswered(e, k)), len(logFields(e, k)); n != total || m != total {
					t.Errorf("quiz %s: %d pairs in the answers set and %d log entries, %d counted answers", id, n, m, total)
				}
				if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
					t.Errorf("quiz %s: Audit = %v, %v; want no violation", id, v, err)
				}
				totals += total
				if finished[i].Load() && total >= len(want)*questions {
					t.Errorf("quiz %s: %d answers counted: Finish did not land mid-run", id, total)
				}
			}
			if totals == 0 {
				t.Error("no answer counted")
			}
			hc.mu.Lock()
			mixed := slices.Max(hc.quizzes)
			hc.mu.Unlock()
			if tc.quizzes > 1 && !redistest.Cluster() && mixed < 2 {
				t.Errorf("no run carried answers of two quizzes (runs of at most %d)", mixed)
			}
		})
	}
}

// TestNoGoroutineOutlivesItsCalls: once concurrent calls (some cancelled
// while queued, some timing out) have returned, the library runs no
// goroutine of its own.
func TestNoGoroutineOutlivesItsCalls(t *testing.T) {
	e := newEnv(t)
	_, _, b := e.running(1000)
	burst := func(round int, deadlines bool) {
		var wg sync.WaitGroup
		for g := range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					ctx, cancel := e.ctx, context.CancelFunc(func() {})
					if deadlines && g%4 == 0 { // a quarter give up early, queued or in flight
						ctx, cancel = context.WithTimeout(e.ctx, time.Duration(i*50)*time.Microsecond)
					}
					_, err := b.RecordAnswer(ctx, fmt.Sprintf("p%d-%d", round, g), i+1)
					cancel()
					if err != nil && ctx.Err() == nil {
						t.Errorf("RecordAnswer: %v", err)
					}
				}
			}()
		}
		wg.Wait()
	}
	// Until rueidis has seen concurrent callers on a connection, a caller's
	// deadline closes that connection under every call in flight: a first
	// burst without deadlines.
	burst(0, false)
	burst(1, true)
	// Only the library's own goroutines count: the client's, and any other
	// test's, are not this test's business.
	if left := libraryGoroutinesAfter(signalWait); len(left) > 0 {
		t.Errorf("%d goroutines of the library (of %d in all) still run %v after the calls returned:\n%s",
			len(left), runtime.NumGoroutine(), signalWait, strings.Join(left, "\n\n"))
	}
}

// flushingClient empties the server's script cache before its first
// pipeline of record script runs, sends the first half of it (answered
// NOSCRIPT), loads the script again, then sends the second half (which
// runs): another client reloading the script partway through a batch.
type flushingClient struct {
	rueidis.Client
	done atomic.Bool
	err  error // of SCRIPT FLUSH or SCRIPT LOAD, read after the call
}

func (c *flushingClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	if len(cmds) < 2 || cmds[0].Commands()[0] != "EVALSHA" || c.done.Swap(true) {
		return c.Client.DoMulti(ctx, cmds...)
	}
	scripts := func(cmd func(rueidis.Client) rueidis.Completed) {
		for addr, node := range c.Nodes() {
			if err := node.Do(ctx, cmd(node)).Error(); err != nil {
				c.err = errors.Join(c.err, fmt.Errorf("%s: %w", addr, err))
			}
		}
	}
	scripts(func(n rueidis.Client) rueidis.Completed { return n.B().ScriptFlush().Build() })
	half := len(cmds) / 2
	res := c.Client.DoMulti(ctx, cmds[:half]...)
	scripts(func(n rueidis.Client) rueidis.Completed {
		return n.B().ScriptLoad().Script(script.RecordAnswer.Source()).Build()
	})
	return append(res, c.Client.DoMulti(ctx, cmds[half:]...)...)
}

// TestRecordAnswersFirstPositionAfterNoscript: when the script cache is
// flushed and reloaded partway through a batch, so that its first half is
// answered NOSCRIPT and resent after its second half ran, a pair given at
// positions 0 and 2999 still counts at position 0, and every other entry
// is counted once, with its own score.
func TestRecordAnswersFirstPositionAfterNoscript(t *testing.T) {
	t.Parallel()
	const n, participants = 3000, 100
	e := newEnv(t)
	fc := &flushingClient{Client: e.client}
	s := e.storeOn(fc)
	id, _, _ := e.running(n / participants)
	b, err := s.Board(id)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]kuis.AnswerInput, n)
	for i := range n - 1 {
		in[i] = kuis.AnswerInput{Participant: "s" + strconv.Itoa(i%participants), Question: i/participants + 1}
	}
	in[n-1] = in[0]
	out, err := b.RecordAnswers(e.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !fc.done.Load() || fc.err != nil {
		t.Fatalf("the batch was not sent as one pipeline of EVALSHA, or the script cache was not reset: %v", fc.err)
	}
	if out[0].Err != nil || out[0].Duplicate {
		t.Errorf("input 0 %v: %+v, %v; want counted", in[0], out[0].Answer, out[0].Err)
	}
	if want := (kuis.Answer{Score: out[n-participants].Score, Duplicate: true}); out[n-1].Err != nil || out[n-1].Answer != want {
		t.Errorf("input %d %v: %+v, %v; want %+v (a repeat, with the score of s0's entry before it)", n-1, in[n-1], out[n-1].Answer, out[n-1].Err, want)
	}
	scores := map[string][]int64{}
	for i, r := range out[:n-1] {
		if r.Err != nil || r.Duplicate {
			t.Errorf("input %d %v: %+v, %v; want counted", i, in[i], r.Answer, r.Err)
		}
		scores[in[i].Participant] = append(scores[in[i].Participant], r.Score)
	}
	for p, s := range scores {
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		for i, v := range s {
			if v != int64(10*(i+1)) {
				t.Errorf("%s's answers returned scores %v; want 10, 20, ... once each", p, s)
				break
			}
		}
	}
	if log := logFields(e, e.keys(id)); len(log) != n-1 {
		t.Errorf("log of %d entries; want %d", len(log), n-1)
	}
}

// TestLogThatTakesNoEntryRefusesAndWritesNothing: a log whose last entry ID
// is the greatest possible takes no XADD *: every new answer of a run is
// refused with ErrCorrupt and nothing is written, not even the pair.
func TestLogThatTakesNoEntryRefusesAndWritesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(3)
	k := e.keys(id)
	if _, err := b.RecordAnswer(e.ctx, "Citra", 1); err != nil {
		t.Fatal(err)
	}
	e.mustRaw("XADD", k.Log(), "18446744073709551615-18446744073709551615", "peserta", "Eka", "soal", "1", "skor", "10")
	before := e.dump(fiveKeys(k)...)
	out, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Ali", 1}, {"Citra", 1}, {"Budi", 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := []kuis.AnswerResult{{Err: kuis.ErrCorrupt}, {Answer: kuis.Answer{Score: 10, Duplicate: true}}, {Err: kuis.ErrCorrupt}}
	if diff := cmp.Diff(want, out, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("RecordAnswers (-want +got):\n%s", diff)
	}
	if _, err := b.RecordAnswer(e.ctx, "Dewi", 3); !errors.Is(err, kuis.ErrCorrupt) {
		t.Errorf("RecordAnswer(Dewi, 3) = %v; want ErrCorrupt", err)
	}
	if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
		t.Errorf("refused answers changed keys (-before +after):\n%s", diff)
	}
}

// TestRunCountsAsOneAnswerPerRun: a run of many answers, of one quiz or of
// several (each quiz's reads and writes are then one command for the whole
// run), replies and writes exactly what the same answers sent one per run
// do, whatever they hold: repeats within the run, questions above
// jumlah_soal, a participant with a corrupt score, a pair answered with no
// score on the board, a score no order place can count past, new answers after
// each of those, and answers of a finished quiz, of one whose order set has
// the wrong type and of one without meta beside them: one quiz's refusal
// never changes another's answers.
func TestRunCountsAsOneAnswerPerRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	people := []string{"ada", "baru", "rusak", "hantu", "besar", "eka", "fajar"}
	setup := func() []kuis.Keys {
		var ks []kuis.Keys
		for i := range 4 {
			id, _, _ := e.running(5)
			k := e.keys(id)
			e.mustRaw("ZADD", k.Board(), "10", "ada", "15", "rusak", "9007199254740970", "besar")
			e.mustRaw("SADD", k.Answers(), "1:ada", "2:hantu")
			switch i {
			case 1:
				e.finish(id)
			case 2:
				e.mustRaw("SET", k.Order(), "not a sorted set")
			case 3:
				e.mustRaw("DEL", k.Meta())
			}
			ks = append(ks, k)
		}
		return ks
	}
	rng := rand.New(rand.NewPCG(7, 13))
	fixed := []runAnswer{{0, "ada", "1"}, {0, "ada", "2"}, {0, "baru", "1"}, {0, "baru", "1"}, {0, "rusak", "1"},
		{0, "baru", "9"}, {0, "baru", "2"}, {0, "hantu", "2"}, {0, "hantu", "1"}, {0, "hantu", "2"}, {0, "ada", "2"},
		{0, "besar", "1"}, {0, "besar", "2"}, {0, "besar", "3"}}
	fixedReplies := []string{"10 dup", "20", "10", "10 dup", "KUIS_CORRUPT", "KUIS_QUESTION", "20",
		"KUIS_CORRUPT", "10", "10 dup", "20 dup", "KUIS_CORRUPT", "KUIS_CORRUPT", "KUIS_CORRUPT"}
	for round := 0; round < 8; round++ {
		answers := fixed
		if round > 0 {
			answers = nil
			for range 2 + rng.IntN(31) {
				answers = append(answers, runAnswer{rng.IntN(4), people[rng.IntN(len(people))], strconv.Itoa(1 + rng.IntN(6))})
			}
		}
		run, single := setup(), setup()
		got := sendRun(t, e, run, answers)
		var want []string
		for _, a := range answers {
			alone := a
			alone.quiz = 0
			want = append(want, sendRun(t, e, single[a.quiz:a.quiz+1], []runAnswer{alone})...)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d, answers %v: replies of one run (-one per run +one run):\n%s", round, answers, diff)
		}
		if diff := cmp.Diff(fixedReplies, got); round == 0 && diff != "" {
			t.Fatalf("replies to %v (-want +got):\n%s", answers, diff)
		}
		for i := range run {
			for _, view := range []struct {
				name string
				read func(kuis.Keys) any
			}{
				{"board", func(k kuis.Keys) any { return scoresOnBoard(e, k) }},
				{"answers set", func(k kuis.Keys) any { return pairsAnswered(e, k) }},
				{"log", func(k kuis.Keys) any { return logFields(e, k) }},
				{"answers counted in the order set", func(k kuis.Keys) any {
					if i == 2 {
						return nil // not a sorted set
					}
					return countsInOrder(e, k)
				}},
			} {
				if diff := cmp.Diff(view.read(single[i]), view.read(run[i])); diff != "" {
					t.Errorf("round %d, quiz %d, answers %v: %s (-one per run +one run):\n%s", round, i, answers, view.name, diff)
				}
			}
		}
	}
}

// runAnswer is one answer of a run: the quiz's index among the run's, the
// participant and the question.
type runAnswer struct {
	quiz           int
	participant, q string
}

// sendRun runs the record script once with answers to the quizzes ks and
// returns each answer's reply as its score (and "dup" for a repeat), or its
// refusal's code.
func sendRun(t *testing.T, e *env, ks []kuis.Keys, answers []runAnswer) []string {
	t.Helper()
	var keys, args []string
	for i := range ks {
		k := &ks[i]
		keys = append(keys, k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order())
	}
	for _, a := range answers {
		args = append(args, strconv.Itoa(a.quiz+1), a.participant, a.q)
	}
	if redistest.Cluster() && len(ks) > 1 {
		t.Skip("a run takes keys of one slot on a cluster")
	}
	replies, err := e.client.Do(e.ctx, script.RecordAnswer.BySource(e.client.B(), keys, args)).ToArray()
	if err != nil {
		t.Fatalf("record script with %q: %v", args, err)
	}
	out := make([]string, len(replies))
	for i, r := range replies {
		if err := r.Error(); err != nil {
			out[i] = strings.Fields(err.Error())[0]
			continue
		}
		n, err := r.AsInt64()
		if err != nil {
			t.Fatalf("reply %d to %q: %v", i, args, err)
		}
		out[i] = strconv.FormatInt(n, 10)
		if n%10 == 1 {
			out[i] = strconv.FormatInt(n-1, 10) + " dup"
		}
	}
	return out
}

// countsInOrder returns each order set member's count of answers, the part
// of its place above 2^42 (the rest is time).
func countsInOrder(e *env, k kuis.Keys) map[string]int64 {
	e.t.Helper()
	m, err := e.client.Do(e.ctx, e.client.B().Zrange().Key(k.Order()).Min("0").Max("-1").Withscores().Build()).AsZScores()
	if err != nil {
		e.t.Fatalf("ZRANGE %s: %v", k.Order(), err)
	}
	out := map[string]int64{}
	for _, z := range m {
		out[z.Member] = int64(z.Score) >> 42
	}
	return out
}
