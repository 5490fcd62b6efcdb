package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// repairKeys are the quiz's keys that dumpKeys can show (all but the log).
func repairKeys(k kuis.Keys) []string { return []string{k.Meta(), k.Board(), k.Answers(), k.Order()} }

// checkClean expects Audit to report nothing, and a second Repair to find
// nothing to do: it returns an empty, non-nil slice and changes no key.
func checkClean(t *testing.T, e *env, id string) {
	t.Helper()
	if v, err := e.store.Audit(e.ctx, id); err != nil || v == nil || len(v) != 0 {
		t.Errorf("Audit after Repair = %v, %v; want an empty, non-nil slice", v, err)
	}
	keys := repairKeys(e.keys(id))
	before := e.dump(keys...)
	if again, err := e.store.Repair(e.ctx, id); err != nil || again == nil || len(again) != 0 {
		t.Errorf("second Repair = %#v, %v; want an empty, non-nil slice", again, err)
	}
	if diff := cmp.Diff(before, e.dump(keys...)); diff != "" {
		t.Errorf("second Repair changed keys (-before +after):\n%s", diff)
	}
}

// repairCase is a tampering of a quiz's board and order set behind the
// library's back, and the corrections Repair must report for it.
type repairCase struct {
	name   string
	tamper [][]string // commands on the board: name, then arguments
	order  [][]string // commands on the order set
	want   []kuis.Correction
}

// check tampers with quiz id as tt says and repairs it: Repair must report
// tt.want, and leave every key as before the tampering, the log untouched,
// and nothing more to do.
func (tt repairCase) check(t *testing.T, e *env, id string) {
	t.Helper()
	k := e.keys(id)
	before, logged := e.dump(repairKeys(k)...), logOf(e, k)
	for _, c := range tt.tamper {
		e.mustRaw(c[0], k.Board(), c[1:]...)
	}
	for _, c := range tt.order {
		e.mustRaw(c[0], k.Order(), c[1:]...)
	}
	got, err := e.store.Repair(e.ctx, id)
	if diff := cmp.Diff(tt.want, got); err != nil || got == nil || diff != "" {
		t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
	}
	if diff := cmp.Diff(before, e.dump(repairKeys(k)...)); diff != "" {
		t.Errorf("keys after Repair (-before tampering +after):\n%s", diff)
	}
	if diff := cmp.Diff(logged, logOf(e, k)); diff != "" {
		t.Errorf("log after Repair (-before +after):\n%s", diff)
	}
	checkClean(t, e, id)
}

// TestRepair tampers with the reference board (Citra 30, Ali 30, Budi 20,
// Dewi 10) behind the library's back, on a running and on a finished quiz.
// Repair must report each board change, sorted by participant, and leave the
// quiz exactly as the answers made it: board, answers and order set as
// before the tampering, the log untouched.
func TestRepair(t *testing.T) {
	t.Parallel()
	tests := []repairCase{
		{name: "untouched", want: []kuis.Correction{}},
		{
			name: "every kind of change",
			tamper: [][]string{
				{"ZADD", "70", "Ali"},
				{"ZREM", "Budi"},
				{"ZINCRBY", "-10", "Citra"},
				{"ZINCRBY", "5", "Dewi"},
				{"ZADD", "50", "Eko"},
			},
			want: []kuis.Correction{
				{Participant: "Ali", Was: 70, Now: 30},
				{Participant: "Budi", Was: 0, Now: 20},
				{Participant: "Citra", Was: 20, Now: 30},
				{Participant: "Dewi", Was: 15, Now: 10},
				{Participant: "Eko", Was: 50, Now: 0},
			},
		},
		{
			name:  "only the order set",
			order: [][]string{{"ZADD", "0", "Ali"}, {"ZREM", "Dewi"}, {"ZADD", "10", "Eko"}},
			want:  []kuis.Correction{},
		},
	}
	for _, rebuild := range []bool{false, true} {
		for _, finished := range []bool{false, true} {
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s, finished %v, rebuild %v", tt.name, finished, rebuild), func(t *testing.T) {
					e := newTunedEnv(t, repairStep(rebuild))
					id, _, _ := e.reference()
					if finished {
						e.finish(id)
					}
					tt.check(t, e, id)
				})
			}
		}
	}
}

// TestRepairRefusesWithoutMeta: a quiz without meta is ErrQuizNotFound, even
// with a board, and nothing is written.
func TestRepairRefusesWithoutMeta(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := quizID()
	k := e.keys(id)
	if got, err := e.store.Repair(e.ctx, id); !errors.Is(err, kuis.ErrQuizNotFound) || len(got) != 0 {
		t.Errorf("Repair of a missing quiz = %v, %v; want ErrQuizNotFound", got, err)
	}
	e.mustRaw("ZADD", k.Board(), "10", "Ali")
	e.mustRaw("SADD", k.Answers(), "1:Ali", "2:Ali")
	before := e.dump(repairKeys(k)...)
	if got, err := e.store.Repair(e.ctx, id); !errors.Is(err, kuis.ErrQuizNotFound) || len(got) != 0 {
		t.Errorf("Repair of a board without meta = %v, %v; want ErrQuizNotFound", got, err)
	}
	if diff := cmp.Diff(before, e.dump(repairKeys(k)...)); diff != "" || e.exists(k.Log()) {
		t.Errorf("Repair without meta wrote (-before +after):\n%s", diff)
	}
}

// TestRepairLegacyQuiz: a quiz written before the log and the order set
// existed (meta, board, answers only) is read in name order by a TiesByTime
// Store until Repair places every participant without a time; a later,
// timed answer with as many points then comes before them.
func TestRepairLegacyQuiz(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := quizID()
	k := e.keys(id)
	e.mustRaw("HSET", k.Meta(), "judul", "Lama", "jumlah_soal", "3", "status", "berjalan")
	e.mustRaw("SADD", k.Answers(), "1:Budi", "2:Budi", "1:Citra", "2:Dewi")
	e.mustRaw("ZADD", k.Board(), "20", "Budi", "20", "Citra", "10", "Dewi") // Citra: 20 for 1 answer
	store := e.byTime()
	checkReads(t, e, store, id, k.Board(), []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 20},
		{Rank: 2, CompetitionRank: 1, Participant: "Budi", Score: 20},
		{Rank: 3, CompetitionRank: 3, Participant: "Dewi", Score: 10},
	})
	got, err := e.store.Repair(e.ctx, id)
	if diff := cmp.Diff([]kuis.Correction{{Participant: "Citra", Was: 20, Now: 10}}, got); err != nil || diff != "" {
		t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
	}
	want := fmt.Sprintf(`zset, no TTL: ["Citra"=%s "Dewi"=%s "Budi"=%s]`, place(1, 0), place(1, 0), place(2, 0))
	if got := e.dump(k.Order())[k.Order()]; got != want {
		t.Errorf("order set after Repair = %s; want %s", got, want)
	}
	if _, err := e.board(id).RecordAnswer(e.ctx, "Ali", 3); err != nil {
		t.Fatal(err)
	}
	checkReads(t, e, store, id, k.Order(), []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Budi", Score: 20},
		{Rank: 2, CompetitionRank: 2, Participant: "Ali", Score: 10},
		{Rank: 3, CompetitionRank: 2, Participant: "Dewi", Score: 10},
		{Rank: 4, CompetitionRank: 2, Participant: "Citra", Score: 10},
	})
}

// repairStep is the tuning that makes Repair rebuild the board for any
// correction when rebuild is set, and the default otherwise.
func repairStep(rebuild bool) kuis.Tuning {
	if rebuild {
		return kuis.Tuning{RepairStep: 1}
	}
	return kuis.Tuning{}
}

// hookedClient runs after, once, right after the first command named cmd
// has returned: a way to land a write between two steps of the library.
type hookedClient struct {
	rueidis.Client
	cmd   string
	once  *sync.Once
	after func()
}

func (c hookedClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	name := cmd.Commands()[0]
	res := c.Client.Do(ctx, cmd)
	if strings.EqualFold(name, c.cmd) {
		c.once.Do(c.after)
	}
	return res
}

// TestRepairKeepsAnswersCountedMeanwhile: answers counted after Repair began
// to read the quiz and before it corrects (right after its first page of the
// answers set, or of the log) are counted, not undone, and place their
// participant at their time, whether Repair corrects in one script or
// rebuilds the board.
func TestRepairKeepsAnswersCountedMeanwhile(t *testing.T) {
	t.Parallel()
	for _, hook := range []string{"SSCAN", "XRANGE"} {
		for _, rebuild := range []bool{false, true} {
			t.Run(fmt.Sprintf("after %s, rebuild %v", hook, rebuild), func(t *testing.T) {
				repairMeanwhile(t, hook, rebuild)
			})
		}
	}
}

func repairMeanwhile(t *testing.T, hook string, rebuild bool) {
	e := newTunedEnv(t, repairStep(rebuild))
	id, _, b := e.running(4)
	playInTurn(e, b, turn{"Ali", 2}, turn{"Budi", 1})
	k := e.keys(id)
	e.mustRaw("ZADD", k.Board(), "70", "Ali")
	e.mustRaw("ZREM", k.Board(), "Budi")
	meanwhile := func() {
		for _, a := range []kuis.AnswerInput{{Participant: "Ali", Question: 3}, {Participant: "Budi", Question: 2}} {
			if _, err := b.RecordAnswer(e.ctx, a.Participant, a.Question); err != nil {
				t.Errorf("RecordAnswer(%+v) during Repair: %v", a, err)
			}
		}
	}
	store := e.storeOn(hookedClient{Client: e.client, cmd: hook, once: &sync.Once{}, after: meanwhile})
	got, err := store.Repair(e.ctx, id)
	want := []kuis.Correction{{Participant: "Ali", Was: 80, Now: 30}, {Participant: "Budi", Was: 10, Now: 20}}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
	}
	checkClean(t, e, id)
}

// TestRepairWhileAnswering: Repair runs, three times in a row, on a tampered
// board while every participant keeps answering, and no Repair runs after
// the last answer. Every score must end at exactly 10 x counted answers: a
// Repair that wrote a count read before an answer landed would leave it short.
func TestRepairWhileAnswering(t *testing.T) {
	t.Parallel()
	for _, rebuild := range []bool{false, true} {
		t.Run(fmt.Sprintf("rebuild %v", rebuild), func(t *testing.T) { repairWhileAnswering(t, rebuild) })
	}
}

func repairWhileAnswering(t *testing.T, rebuild bool) {
	const writers, questions, first = 8, 300, 5
	e := newTunedEnv(t, repairStep(rebuild))
	id, _, b := e.running(questions)
	k := e.keys(id)
	counted := map[string]float64{}
	var inputs []kuis.AnswerInput
	for w := range writers {
		name := fmt.Sprintf("Siswa %d", w)
		for q := 1; q <= first; q++ {
			inputs = append(inputs, kuis.AnswerInput{Participant: name, Question: q})
		}
		counted[name] = 10 * first
	}
	if _, err := b.RecordAnswers(e.ctx, inputs); err != nil {
		t.Fatal(err)
	}
	e.mustRaw("ZINCRBY", k.Board(), "100", "Siswa 0")
	e.mustRaw("ZINCRBY", k.Board(), "-20", "Siswa 1")
	e.mustRaw("ZREM", k.Board(), "Siswa 2")
	e.mustRaw("ZADD", k.Board(), "70", "Siswa 9")

	var (
		mu       sync.Mutex
		errs     []error
		wg       sync.WaitGroup
		answered atomic.Int64
		repaired atomic.Bool
	)
	for w := range writers {
		name := fmt.Sprintf("Siswa %d", w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			after := 0 // answers counted once every Repair had returned
			for q := first + 1; q <= questions && after < 3; q++ {
				done := repaired.Load()
				a, err := b.RecordAnswer(e.ctx, name, q)
				mu.Lock()
				if err != nil || a.Duplicate {
					errs = append(errs, fmt.Errorf("RecordAnswer(%s, %d) = %+v, %w; want counted", name, q, a, err))
				} else {
					counted[name] += 10
				}
				mu.Unlock()
				answered.Add(1)
				if done {
					after++
				}
			}
			if after < 3 {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s ran out of questions before the Repairs ended", name))
				mu.Unlock()
			}
		}()
	}
	for answered.Load() < writers { // the writers are under way
		time.Sleep(time.Millisecond)
	}
	for range 3 {
		if _, err := e.store.Repair(e.ctx, id); err != nil {
			t.Errorf("Repair: %v", err)
		}
	}
	mid := answered.Load()
	repaired.Store(true)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	t.Logf("%d answers counted during the Repairs, %d in all", mid, answered.Load())
	if diff := cmp.Diff(counted, scoresOnBoard(e, k)); diff != "" {
		t.Errorf("board (-10 x counted answers +got):\n%s", diff)
	}
	checkClean(t, e, id)
}

// TestRepairInChunks: on a quiz of 1000 questions one repair script
// recounts only 2 participants; 45 tampered participants are more, so Repair
// rebuilds the board, and every one of them is corrected and reported.
func TestRepairInChunks(t *testing.T) {
	t.Parallel()
	const participants = 45
	e := newEnv(t)
	id, _, b := e.running(1000)
	k := e.keys(id)
	var inputs []kuis.AnswerInput
	var want []kuis.Correction
	for p := range participants {
		name := fmt.Sprintf("Siswa %02d", p)
		n := int64(p%4 + 1)
		for q := range n {
			inputs = append(inputs, kuis.AnswerInput{Participant: name, Question: int(1 + q*300)})
		}
		want = append(want, kuis.Correction{Participant: name, Was: 10 * (n + int64(p%3+1)), Now: 10 * n})
	}
	if _, err := b.RecordAnswers(e.ctx, inputs); err != nil {
		t.Fatal(err)
	}
	for p, c := range want {
		e.mustRaw("ZINCRBY", k.Board(), fmt.Sprint(10*(p%3+1)), c.Participant)
	}
	got, err := e.store.Repair(e.ctx, id)
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
	}
	checkClean(t, e, id)
}

// TestRepairReportsOnlyWhatWasWrong: answers counted while Repair runs (here,
// right after its first read of the board, so that its snapshot of the
// board lacks them while its reading of the log has them) never make a
// Correction: only the participants whose board entry differed from 10 x
// their counted answers are reported, in one script and by a rebuild.
func TestRepairReportsOnlyWhatWasWrong(t *testing.T) {
	t.Parallel()
	for _, rebuild := range []bool{false, true} {
		t.Run(fmt.Sprintf("rebuild %v", rebuild), func(t *testing.T) {
			e := newTunedEnv(t, repairStep(rebuild))
			id, _, b := e.running(3)
			var inputs []kuis.AnswerInput
			for i := range 40 {
				inputs = append(inputs, kuis.AnswerInput{Participant: fmt.Sprintf("murid-%02d", i), Question: 1})
			}
			if _, err := b.RecordAnswers(e.ctx, inputs); err != nil {
				t.Fatal(err)
			}
			k := e.keys(id)
			var want []kuis.Correction
			for i := 0; i < 40; i += 10 { // raised behind the library's back
				p := fmt.Sprintf("murid-%02d", i)
				e.mustRaw("ZADD", k.Board(), "20", p)
				want = append(want, kuis.Correction{Participant: p, Was: 20, Now: 10})
			}
			meanwhile := func() {
				for i := range 5 { // honest new participants, answering during the Repair
					if _, err := b.RecordAnswer(e.ctx, fmt.Sprintf("baru-%d", i), 1); err != nil {
						t.Error(err)
					}
				}
			}
			s := e.tunedOn(hookedClient{Client: e.client, cmd: "ZSCAN", once: &sync.Once{}, after: meanwhile}, repairStep(rebuild))
			got, err := s.Repair(e.ctx, id)
			if diff := cmp.Diff(want, got); err != nil || diff != "" {
				t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
			}
			checkClean(t, e, id)
		})
	}
}

// TestRepairRebuildIsOneStep: 600 of 1,200 participants tampered with are more
// than one repair script corrects, so Repair rebuilds the board; readers
// reading the whole board meanwhile (one ZRANGE each: atomic) must see either
// every tampered score or none, never a board half repaired.
func TestRepairRebuildIsOneStep(t *testing.T) {
	t.Parallel()
	const participants, tampered, readers = 1200, 600, 4
	e := newEnv(t)
	id, _, b := e.running(1)
	k := e.keys(id)
	inputs := make([]kuis.AnswerInput, participants)
	for i := range inputs {
		inputs[i] = kuis.AnswerInput{Participant: fmt.Sprintf("Siswa %04d", i), Question: 1}
	}
	if _, err := b.RecordAnswers(e.ctx, inputs); err != nil {
		t.Fatal(err)
	}
	want := make([]kuis.Correction, 0, tampered)
	for i := range tampered {
		name := inputs[2*i].Participant
		e.mustRaw("ZINCRBY", k.Board(), "5", name)
		want = append(want, kuis.Correction{Participant: name, Was: 15, Now: 10})
	}

	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		seen  = map[int]int{} // tampered scores in one read -> reads
		fails []error
		done  = make(chan struct{})
	)
	for range readers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				zs, err := e.client.Do(e.ctx, e.client.B().Zrange().Key(k.Board()).Min("0").Max("-1").Withscores().Build()).AsZScores()
				mu.Lock()
				if err != nil {
					fails = append(fails, err)
				}
				n := 0
				for _, z := range zs {
					if z.Score == 15 {
						n++
					}
				}
				seen[n]++
				mu.Unlock()
			}
		})
	}
	got, err := e.store.Repair(e.ctx, id)
	close(done)
	wg.Wait()
	for _, err := range fails {
		t.Errorf("reader: %v", err)
	}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
	}
	for n, reads := range seen {
		if n != 0 && n != tampered {
			t.Errorf("%d reads saw %d tampered scores; want %d or none", reads, n, tampered)
		}
	}
	t.Logf("reads: %v (tampered scores -> reads)", seen)
	checkClean(t, e, id)
}

// TestRepairRebuildsRace: Repairs of one quiz that rebuild at the same time
// take the repair keys from each other; each ends repaired or ErrBusy (nothing
// replaced), at least one repairs, and no repair key is left behind.
func TestRepairRebuildsRace(t *testing.T) {
	t.Parallel()
	const repairs = 4
	e := newTunedEnv(t, kuis.Tuning{RepairStep: 1})
	id, _, _ := e.reference()
	k := e.keys(id)
	e.mustRaw("ZADD", k.Board(), "70", "Ali")
	e.mustRaw("ZREM", k.Board(), "Budi")
	errs := make([]error, repairs)
	var wg sync.WaitGroup
	for i := range repairs {
		wg.Go(func() { _, errs[i] = e.store.Repair(e.ctx, id) })
	}
	wg.Wait()
	repaired := 0
	for i, err := range errs {
		switch {
		case err == nil:
			repaired++
		case !errors.Is(err, kuis.ErrBusy):
			t.Errorf("Repair %d: %v; want nil or ErrBusy", i, err)
		}
	}
	if repaired == 0 {
		t.Errorf("no Repair of %d repaired: %v", repairs, errs)
	}
	if e.exists(k.RepairBoard()) || e.exists(k.RepairOrder()) {
		t.Errorf("repair keys left behind: %v", e.dump(k.RepairBoard(), k.RepairOrder()))
	}
	want := map[string]float64{"Citra": 30, "Ali": 30, "Budi": 20, "Dewi": 10}
	if diff := cmp.Diff(want, scoresOnBoard(e, k)); diff != "" {
		t.Errorf("board (-want +got):\n%s", diff)
	}
	checkClean(t, e, id)
}

// TestRepairLeftovers: repair keys left by a Repair that stopped midway are
// reported by Audit, deleted by the next Repair, whether it corrects in one
// script or rebuilds (their members never reach the board), and by PurgeQuiz.
func TestRepairLeftovers(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{RepairStep: 1})
	id, _, _ := e.reference()
	k := e.keys(id)
	leave := func() {
		e.mustRaw("ZADD", k.RepairBoard(), "990", "Zaki")
		e.mustRaw("ZADD", k.RepairOrder(), "990", "Zaki")
	}
	leave()
	v, err := e.store.Audit(e.ctx, id)
	var rules []string
	for _, x := range v {
		rules = append(rules, x.Key+" "+x.Rule)
	}
	wantRules := []string{k.RepairBoard() + " exists", k.RepairOrder() + " exists"}
	if diff := cmp.Diff(wantRules, rules); err != nil || diff != "" {
		t.Errorf("Audit with leftovers: %v (-want +got):\n%s", err, diff)
	}
	for _, tt := range []struct {
		name   string
		tamper [][]string
		want   []kuis.Correction
	}{
		{"one correction, one script", [][]string{{"ZINCRBY", "10", "Dewi"}}, []kuis.Correction{{Participant: "Dewi", Was: 20, Now: 10}}},
		{"two corrections, a rebuild", [][]string{{"ZINCRBY", "10", "Dewi"}, {"ZREM", "Budi"}},
			[]kuis.Correction{{Participant: "Budi", Was: 0, Now: 20}, {Participant: "Dewi", Was: 20, Now: 10}}},
	} {
		leave()
		for _, c := range tt.tamper {
			e.mustRaw(c[0], k.Board(), c[1:]...)
		}
		got, err := e.store.Repair(e.ctx, id)
		if err != nil || !cmp.Equal(tt.want, got) {
			t.Errorf("%s: Repair over leftovers = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
		if e.exists(k.RepairBoard()) || e.exists(k.RepairOrder()) {
			t.Errorf("%s: repair keys after Repair: %v", tt.name, e.dump(k.RepairBoard(), k.RepairOrder()))
		}
		want := map[string]float64{"Citra": 30, "Ali": 30, "Budi": 20, "Dewi": 10}
		if diff := cmp.Diff(want, scoresOnBoard(e, k)); diff != "" {
			t.Errorf("%s: board after Repair (-want +got):\n%s", tt.name, diff)
		}
		checkClean(t, e, id)
	}

	leave()
	e.finish(id)
	n, err := e.store.PurgeQuiz(e.ctx, id, func(_ context.Context, _ kuis.Recap) error { return nil })
	if err != nil || n != 7 {
		t.Errorf("PurgeQuiz = %d, %v; want 7 keys deleted", n, err)
	}
	for _, key := range []string{k.RepairBoard(), k.RepairOrder()} {
		if e.exists(key) {
			t.Errorf("%s after PurgeQuiz", key)
		}
	}
}
