package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// joinIDs maps each participant with a join entry in the quiz's log to the
// ID of their latest one.
func joinIDs(e *env, k kuis.Keys) map[string]string {
	e.t.Helper()
	entries, err := e.mustRaw("XRANGE", k.Log(), "-", "+").AsXRange()
	if err != nil {
		e.t.Fatalf("XRANGE %s: %v", k.Log(), err)
	}
	out := map[string]string{}
	for _, x := range entries {
		if f := x.FieldValues; len(f) == 2 && f["skor"] == "0" && f["peserta"] != "" {
			out[f["peserta"]] = x.ID
		}
	}
	return out
}

// msOf is the time part of a stream entry ID.
func msOf(t testing.TB, id string) int64 {
	t.Helper()
	ms, err := strconv.ParseInt(strings.SplitN(id, "-", 2)[0], 10, 64)
	if err != nil {
		t.Fatalf("entry ID %q: %v", id, err)
	}
	return ms
}

// orderScores is the quiz's order set as Redis holds it: member -> score,
// in full.
func orderScores(e *env, k kuis.Keys) map[string]string {
	e.t.Helper()
	zs, err := e.mustRaw("ZRANGE", k.Order(), "0", "-1", "WITHSCORES").AsZScores()
	if err != nil {
		e.t.Fatalf("ZRANGE %s: %v", k.Order(), err)
	}
	out := map[string]string{}
	for _, z := range zs {
		out[z.Member] = strconv.FormatFloat(z.Score, 'f', -1, 64)
	}
	return out
}

// TestJoin plays call sequences on a fresh running quiz and checks every
// reply (a Join's Standing of that moment, an answer's score), that a Join of
// a participant on the board writes nothing, then the log, the board, each
// joiner's place (no answers, at the time of their join entry) and that
// Audit finds the quiz clean.
func TestJoin(t *testing.T) {
	t.Parallel()
	type step struct {
		join        bool // a Join, else a RecordAnswer
		participant string
		question    int
		want        kuis.Standing // a Join's
		score       int64         // an answer's
		unchanged   bool          // a Join that writes nothing
	}
	join := func(p string, rank, competition int, score int64) step {
		return step{join: true, participant: p, want: kuis.Standing{Rank: rank, CompetitionRank: competition, Participant: p, Score: score}}
	}
	again := func(s step) step { s.unchanged = true; return s }
	answer := func(p string, q int, score int64) step { return step{participant: p, question: q, score: score} }
	tests := []struct {
		name   string
		steps  []step
		log    []string
		board  map[string]float64
		joined []string // whose place holds their join's time
	}{
		{"join then answer", []step{join("Ali", 1, 1, 0), answer("Ali", 1, 10)},
			[]string{"start", "join Ali", "answer Ali 1 10"}, map[string]float64{"Ali": 10}, nil},
		{"answer then join: no change, no entry", []step{answer("Ali", 1, 10), again(join("Ali", 1, 1, 10))},
			[]string{"start", "answer Ali 1 10"}, map[string]float64{"Ali": 10}, nil},
		{"a join repeated", []step{join("Ali", 1, 1, 0), again(join("Ali", 1, 1, 0)), again(join("Ali", 1, 1, 0))},
			[]string{"start", "join Ali"}, map[string]float64{"Ali": 0}, []string{"Ali"}},
		// Equal scores in name order, reversed: Citra before Ali.
		{"joiners after those with points", []step{answer("Budi", 1, 10), join("Ali", 2, 2, 0), join("Citra", 2, 2, 0),
			again(join("Ali", 3, 2, 0)), again(join("Budi", 1, 1, 10))},
			[]string{"start", "answer Budi 1 10", "join Ali", "join Citra"}, map[string]float64{"Budi": 10, "Ali": 0, "Citra": 0},
			[]string{"Ali", "Citra"}},
		{"joiners who answer", []step{join("Ali", 1, 1, 0), join("Budi", 1, 1, 0), answer("Budi", 2, 10), answer("Ali", 1, 10),
			answer("Ali", 2, 20), again(join("Budi", 2, 2, 10))},
			[]string{"start", "join Ali", "join Budi", "answer Budi 2 10", "answer Ali 1 10", "answer Ali 2 20"},
			map[string]float64{"Ali": 20, "Budi": 10}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			id, _, b := e.running(3)
			k := e.keys(id)
			for i, s := range tt.steps {
				before := e.dump(fiveKeys(k)...)
				if !s.join {
					a, err := b.RecordAnswer(e.ctx, s.participant, s.question)
					if err != nil || a != (kuis.Answer{Score: s.score}) {
						t.Fatalf("step %d: RecordAnswer(%s, %d) = %+v, %v; want score %d", i, s.participant, s.question, a, err, s.score)
					}
					continue
				}
				got, err := b.Join(e.ctx, s.participant)
				if diff := cmp.Diff(s.want, got); err != nil || diff != "" {
					t.Errorf("step %d: Join(%s): %v (-want +got):\n%s", i, s.participant, err, diff)
				}
				if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); s.unchanged && diff != "" {
					t.Errorf("step %d: Join(%s) of a participant on the board wrote (-before +after):\n%s", i, s.participant, diff)
				}
			}
			if diff := cmp.Diff(tt.log, logOf(e, k)); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.board, scoresOnBoard(e, k)); diff != "" {
				t.Errorf("board (-want +got):\n%s", diff)
			}
			joins, order := joinIDs(e, k), orderScores(e, k)
			for _, p := range tt.joined {
				if want := place(0, msOf(t, joins[p])); order[p] != want {
					t.Errorf("%s's place = %s; want %s, for no answers at the time of their join entry %s", p, order[p], want, joins[p])
				}
			}
			if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
				t.Errorf("Audit = %v, %v; want nothing", v, err)
			}
		})
	}
}

// TestJoinTiesByTime: with TiesByTime, joiners rank after everyone with
// points, the earlier join first, in Join's own Standing, Standings, every
// Standing and the Recap; with name order, in reverse name order. An answer
// places a joiner by its time, as any answer.
func TestJoinTiesByTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	timed := e.byTime()
	id, _, b := e.running(3)
	tb, _ := handles(t, timed, id)
	if _, err := b.RecordAnswer(e.ctx, "Budi", 1); err != nil {
		t.Fatal(err)
	}
	// Each join in a later millisecond than the one before; by time,
	// each joiner comes after the others.
	for i, p := range []string{"Dewi", "Ali", "Citra"} {
		e.nextMillisecond()
		got, err := tb.Join(e.ctx, p)
		if want := (kuis.Standing{Rank: i + 2, CompetitionRank: 2, Participant: p}); err != nil || got != want {
			t.Errorf("Join(%s) by time = %+v, %v; want %+v", p, got, err, want)
		}
	}
	standings := func(s ...string) []kuis.Standing {
		out := make([]kuis.Standing, len(s))
		for i, x := range s {
			p, score, _ := strings.Cut(x, " ")
			n, _ := strconv.ParseInt(score, 10, 64)
			out[i] = kuis.Standing{Rank: i + 1, Participant: p, Score: n}
		}
		for i := range out {
			out[i].CompetitionRank = i + 1
			if i > 0 && out[i].Score == out[i-1].Score {
				out[i].CompetitionRank = out[i-1].CompetitionRank
			}
		}
		return out
	}
	check := func(when string, byTime, byName []kuis.Standing) {
		t.Helper()
		for _, c := range []struct {
			name  string
			store *kuis.Store
			want  []kuis.Standing
		}{{"by time", timed, byTime}, {"by name", e.store, byName}} {
			board, _ := handles(t, c.store, id)
			got, err := board.Standings(e.ctx)
			if diff := cmp.Diff(c.want, got); err != nil || diff != "" {
				t.Errorf("%s, %s: Standings: %v (-want +got):\n%s", when, c.name, err, diff)
			}
			recap, err := c.store.Recap(e.ctx, id)
			if diff := cmp.Diff(c.want, recap.Standings); err != nil || diff != "" {
				t.Errorf("%s, %s: Recap.Standings: %v (-want +got):\n%s", when, c.name, err, diff)
			}
			for _, s := range c.want {
				if got, err := board.Standing(e.ctx, s.Participant); err != nil || got != s {
					t.Errorf("%s, %s: Standing(%s) = %+v, %v; want %+v", when, c.name, s.Participant, got, err, s)
				}
			}
		}
	}
	check("after the joins", standings("Budi 10", "Dewi 0", "Ali 0", "Citra 0"), standings("Budi 10", "Dewi 0", "Citra 0", "Ali 0"))
	e.nextMillisecond()
	if _, err := b.RecordAnswer(e.ctx, "Citra", 2); err != nil {
		t.Fatal(err)
	}
	check("after Citra's answer", standings("Budi 10", "Citra 10", "Dewi 0", "Ali 0"), standings("Citra 10", "Budi 10", "Dewi 0", "Ali 0"))
	if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want nothing", v, err)
	}
}

// TestJoinDoubleTaps: many concurrent Joins of one name, from two Stores,
// beside an answer of the same participant, put them on the board once:
// one join entry at most, every Join's Standing that of a participant on
// the board, and an Audit that finds nothing.
func TestJoinDoubleTaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.storeOn(e.client)
	for _, withAnswer := range []bool{false, true} {
		t.Run(fmt.Sprintf("with an answer %v", withAnswer), func(t *testing.T) {
			id, _, b := e.running(3)
			ob, _ := handles(t, other, id)
			const taps = 40
			type result struct {
				s   kuis.Standing
				err error
			}
			results := make(chan result, taps)
			answered := make(chan error, 1)
			var wg sync.WaitGroup
			for i := range taps {
				wg.Go(func() {
					board := b
					if i%2 == 1 {
						board = ob
					}
					s, err := board.Join(e.ctx, "Ali")
					results <- result{s, err}
				})
			}
			if withAnswer {
				wg.Go(func() { _, err := b.RecordAnswer(e.ctx, "Ali", 1); answered <- err })
			}
			wg.Wait()
			close(results)
			for r := range results {
				if r.err != nil || r.s.Participant != "Ali" || r.s.Rank != 1 || r.s.Score != 0 && r.s.Score != 10 {
					t.Errorf("Join(Ali) = %+v, %v; want Ali at rank 1 with 0 or 10 points", r.s, r.err)
				}
			}
			want := [][]string{{"start", "join Ali"}}
			if withAnswer {
				if err := <-answered; err != nil {
					t.Fatal(err)
				}
				// Joined first, or answered first and never joined.
				want = [][]string{{"start", "join Ali", "answer Ali 1 10"}, {"start", "answer Ali 1 10"}}
			}
			k := e.keys(id)
			if got := logOf(e, k); !cmp.Equal(got, want[0]) && (len(want) == 1 || !cmp.Equal(got, want[1])) {
				t.Errorf("log = %q; want one of %q", got, want)
			}
			if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
				t.Errorf("Audit = %v, %v; want nothing", v, err)
			}
		})
	}
}

// TestJoinRefusals breaks a quiz of 5 questions (Ali 20 points, Budi 10)
// in one way per row, then joins a new participant (Citra) and one on the
// board (Ali), in name and time order, and records Citra's answer beside
// them: each call answers exactly the expected sentinel, or none; one that
// refuses, and a Join of a participant on the board, leave the quiz's keys
// as they were. Join of a new participant refuses what a new answer does.
func TestJoinRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	timed := e.byTime()
	type calls struct{ join, onBoard, onBoardByTime, answer error }
	same := func(err error) calls { return calls{err, err, err, err} }
	raw := func(key func(kuis.Keys) string, cmd string, args ...string) func(*env, kuis.Keys) {
		return func(e *env, k kuis.Keys) { e.mustRaw(cmd, key(k), args...) }
	}
	retype := func(key func(kuis.Keys) string, typ string) func(*env, kuis.Keys) {
		return func(e *env, k kuis.Keys) { e.replace(key(k), typ) }
	}
	meta, board, answers := kuis.Keys.Meta, kuis.Keys.Board, kuis.Keys.Answers
	logKey, order := kuis.Keys.Log, kuis.Keys.Order
	// The largest time an order place holds is 2^42 - 1 ms.
	past := strconv.FormatInt(orderUnit, 10) + "-0"
	tests := []struct {
		name     string
		finished bool
		brk      func(*env, kuis.Keys)
		want     calls
	}{
		{"healthy", false, nil, calls{}},
		{"finished", true, nil, calls{join: kuis.ErrQuizFinished, answer: kuis.ErrQuizFinished}},
		{"meta is missing", false, raw(meta, "DEL"), same(kuis.ErrQuizNotFound)},
		{"meta is a string", false, retype(meta, "string"), same(kuis.ErrCorrupt)},
		{"meta lacks status", false, raw(meta, "HDEL", "status"), same(kuis.ErrCorrupt)},
		{"status is SELESAI", false, raw(meta, "HSET", "status", "SELESAI"), same(kuis.ErrCorrupt)},
		{"jumlah_soal is lima", false, raw(meta, "HSET", "jumlah_soal", "lima"), same(kuis.ErrCorrupt)},
		{"board is a hash", false, retype(board, "hash"), same(kuis.ErrCorrupt)},
		// A Join of a participant on the board reads only the board (and, by
		// time, the order set), as Standing does.
		{"answers is a string", false, retype(answers, "string"), calls{join: kuis.ErrCorrupt, answer: kuis.ErrCorrupt}},
		{"log is a hash", false, retype(logKey, "hash"), calls{join: kuis.ErrCorrupt, answer: kuis.ErrCorrupt}},
		{"order is a string", false, retype(order, "string"), calls{join: kuis.ErrCorrupt, onBoardByTime: kuis.ErrCorrupt, answer: kuis.ErrCorrupt}},
		{"Ali's score is 15", false, raw(board, "ZADD", "15", "Ali"), calls{onBoard: kuis.ErrCorrupt, onBoardByTime: kuis.ErrCorrupt}},
		{"Ali's place is for no answers", false, raw(order, "ZADD", "1", "Ali"), calls{onBoardByTime: kuis.ErrCorrupt}},
		{"the log's last entry is past what a place holds", false, raw(logKey, "XADD", past, "catatan", "x"),
			calls{join: kuis.ErrCorrupt, answer: kuis.ErrCorrupt}},
		// Nobody is on a board of the wrong type: a finished quiz refuses them.
		{"finished, board is a hash", true, retype(board, "hash"), same(kuis.ErrQuizFinished)},
		{"finished, answers is a string", true, retype(answers, "string"), calls{join: kuis.ErrQuizFinished, answer: kuis.ErrQuizFinished}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.name, "the log's last entry") && !redistest.Real() {
				t.Skip("miniredis's XADD <ms>-* adds the entry after a later last entry, where Redis refuses it: the scripts count on the refusal")
			}
			for _, c := range []struct {
				name  string
				want  error
				store *kuis.Store
				call  func(b *kuis.Board) error
			}{
				{"Join(Citra)", tt.want.join, e.store, func(b *kuis.Board) error { return errOf(b.Join(e.ctx, "Citra")) }},
				{"Join(Ali)", tt.want.onBoard, e.store, func(b *kuis.Board) error { return errOf(b.Join(e.ctx, "Ali")) }},
				{"Join(Ali) by time", tt.want.onBoardByTime, timed, func(b *kuis.Board) error { return errOf(b.Join(e.ctx, "Ali")) }},
				{"RecordAnswer(Citra, 1)", tt.want.answer, e.store, func(b *kuis.Board) error { return errOf(b.RecordAnswer(e.ctx, "Citra", 1)) }},
			} {
				id := e.hostileQuiz(tt.finished)
				k := e.keys(id)
				if tt.brk != nil {
					tt.brk(e, k)
				}
				before := e.dump(fiveKeys(k)...)
				b, _ := handles(t, c.store, id)
				err := c.call(b)
				if got := sentinelsOf(err); c.want == nil && err != nil || c.want != nil && (len(got) != 1 || !errors.Is(err, c.want)) {
					t.Errorf("%s = %v; want %v", c.name, err, c.want)
				}
				// A refusal writes nothing, and neither does a Join of a participant on the board.
				if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); (err != nil || strings.HasPrefix(c.name, "Join(Ali)")) && diff != "" {
					t.Errorf("%s (%v) wrote (-before +after):\n%s", c.name, err, diff)
				}
			}
		})
	}
}

// TestJoinInvalidParticipant: a name RecordAnswer refuses is refused by
// Join too, ErrInvalidParticipant before any command is sent.
func TestJoinInvalidParticipant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.running(3)
	rec := newRecorder(e.client)
	b, _ := handles(t, e.storeOn(rec), id)
	for _, name := range []string{"", " Ali", "Ali ", "Ali\n", "ａｌｉ", strings.Repeat("a", 65), "Ali\xff", "\u200bAli"} {
		rec.start()
		got, err := b.Join(e.ctx, name)
		sent := rec.stop()
		if !errors.Is(err, kuis.ErrInvalidParticipant) || got != (kuis.Standing{}) || len(sent) != 0 {
			t.Errorf("Join(%q) = %+v, %v, sending %v; want ErrInvalidParticipant and nothing sent", name, got, err, sent)
		}
		if _, rerr := b.RecordAnswer(e.ctx, name, 1); !errors.Is(rerr, kuis.ErrInvalidParticipant) {
			t.Errorf("RecordAnswer(%q): %v; want ErrInvalidParticipant as Join's", name, rerr)
		}
	}
	if l := logOf(e, e.keys(id)); !cmp.Equal(l, []string{"start"}) {
		t.Errorf("log = %q; want the start entry only", l)
	}
}

// TestJoinAfterAClockGoneBack: a log whose last entry is later than the
// server's clock takes the join entry right after it, and the joiner's place
// holds that entry's time, as Audit wants.
func TestJoinAfterAClockGoneBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(3)
	k := e.keys(id)
	ahead := e.serverMillis() + 3_600_000
	e.mustRaw("XADD", k.Log(), strconv.FormatInt(ahead, 10)+"-5", "catatan", "dari masa depan")
	if _, err := b.Join(e.ctx, "Ali"); err != nil {
		t.Fatal(err)
	}
	joined := joinIDs(e, k)["Ali"]
	if want := strconv.FormatInt(ahead, 10) + "-6"; joined != want {
		t.Errorf("join entry %s; want %s, right after the log's last entry", joined, want)
	}
	if got, want := orderScores(e, k)["Ali"], place(0, ahead); got != want {
		t.Errorf("Ali's place = %s; want %s", got, want)
	}
	v, err := e.store.Audit(e.ctx, id)
	want := []kuis.Violation{{Key: k.Log(), Rule: "log", Detail: fmt.Sprintf("entry %d-5 has no valid peserta and soal", ahead)}}
	if diff := cmp.Diff(want, v); err != nil || diff != "" {
		t.Errorf("Audit: %v (-want +got):\n%s", err, diff)
	}
}

// joinedQuiz is a running quiz of 3 questions: Ali answered question 1,
// Budi joined, Citra joined and answered question 2 (each in a later
// millisecond), and Dewi joined last.
func (e *env) joinedQuiz() (string, *kuis.Board) {
	e.t.Helper()
	id, _, b := e.running(3)
	for _, s := range []struct {
		p string
		q int
	}{{"Ali", 1}, {"Budi", 0}, {"Citra", 0}, {"Citra", 2}, {"Dewi", 0}} {
		e.nextMillisecond()
		var err error
		if s.q == 0 {
			_, err = b.Join(e.ctx, s.p)
		} else {
			_, err = b.RecordAnswer(e.ctx, s.p, s.q)
		}
		if err != nil {
			e.t.Fatalf("%s, %d: %v", s.p, s.q, err)
		}
	}
	return id, b
}

// TestJoinRecap: the recap lists each joiner with their points, 0 without an
// answer, and no answer for them, read whole or in parts, running or
// finished; a course that folds it keeps the 0-point joiners.
func TestJoinRecap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	parts := e.tunedOn(e.client, kuis.Tuning{RecapInParts: true, PageSize: 2})
	id, _ := e.joinedQuiz()
	want := []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 10},
		{Rank: 2, CompetitionRank: 1, Participant: "Ali", Score: 10},
		{Rank: 3, CompetitionRank: 3, Participant: "Dewi", Score: 0},
		{Rank: 4, CompetitionRank: 3, Participant: "Budi", Score: 0},
	}
	for _, finished := range []bool{false, true} {
		if finished {
			e.finish(id)
		}
		for name, s := range map[string]*kuis.Store{"whole": e.store, "in parts": parts} {
			r, err := s.Recap(e.ctx, id)
			if err != nil {
				t.Fatalf("%s, finished %v: Recap: %v", name, finished, err)
			}
			if diff := cmp.Diff(want, r.Standings); diff != "" {
				t.Errorf("%s, finished %v: Standings (-want +got):\n%s", name, finished, diff)
			}
			answers := []string{}
			for _, a := range r.Answers {
				answers = append(answers, fmt.Sprintf("%s %d", a.Participant, a.Question))
			}
			if diff := cmp.Diff([]string{"Ali 1", "Citra 2"}, answers); diff != "" {
				t.Errorf("%s, finished %v: Answers (-want +got):\n%s", name, finished, diff)
			}
			if diff := cmp.Diff([]kuis.QuestionResult{{Question: 1, Correct: 1}, {Question: 2, Correct: 1}, {Question: 3}}, r.Questions); diff != "" {
				t.Errorf("%s, finished %v: Questions (-want +got):\n%s", name, finished, diff)
			}
		}
	}
	recap, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	course, err := e.store.Course("ipa-8a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := course.Fold(e.ctx, recap); err != nil {
		t.Fatal(err)
	}
	got, err := course.Standings(e.ctx)
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("course Standings: %v (-want +got):\n%s", err, diff)
	}
}

// TestJoinAudit: Audit finds a quiz with joiners clean, and reports a board
// member with 0 points and no join entry, a joiner missing from the board
// (both "score", on the board, which Repair mends), a second join entry and
// one after the participant's counted answer ("log").
func TestJoinAudit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name   string
		tamper func(k kuis.Keys) map[string]string // raw writes; returns names for the details
		want   func(k kuis.Keys, ids map[string]string) []kuis.Violation
	}{
		{"clean", func(kuis.Keys) map[string]string { return nil },
			func(kuis.Keys, map[string]string) []kuis.Violation { return []kuis.Violation{} }},
		{"a 0-point member without a join entry", func(k kuis.Keys) map[string]string {
			e.mustRaw("ZADD", k.Board(), "0", "Eka")
			e.mustRaw("ZADD", k.Order(), "0", "Eka")
			return nil
		}, func(k kuis.Keys, _ map[string]string) []kuis.Violation {
			return []kuis.Violation{{Key: k.Board(), Rule: "score",
				Detail: `member "Eka" has 0 points and neither a counted answer nor a join entry in the log`}}
		}},
		{"a joiner missing from the board", func(k kuis.Keys) map[string]string {
			e.mustRaw("ZREM", k.Board(), "Budi")
			e.mustRaw("ZREM", k.Order(), "Budi")
			return nil
		}, func(k kuis.Keys, _ map[string]string) []kuis.Violation {
			return []kuis.Violation{{Key: k.Board(), Rule: "score",
				Detail: `participant "Budi" has a join entry in the log and is not on the board, want 0 points`}}
		}},
		{"a second join entry, and one after an answer", func(k kuis.Keys) map[string]string {
			second, _ := e.mustRaw("XADD", k.Log(), "*", "peserta", "Budi", "skor", "0").ToString()
			late, _ := e.mustRaw("XADD", k.Log(), "*", "peserta", "Ali", "skor", "0").ToString()
			return map[string]string{"second": second, "late": late}
		}, func(k kuis.Keys, ids map[string]string) []kuis.Violation {
			return []kuis.Violation{
				{Key: k.Log(), Rule: "log", Detail: fmt.Sprintf(`entry %s logs the join of "Budi" a second time (first: entry %s)`, ids["second"], ids["Budi"])},
				{Key: k.Log(), Rule: "log", Detail: fmt.Sprintf(`entry %s logs the join of "Ali" after their counted answer in entry %s`, ids["late"], ids["Ali 1"])},
				// Ali's place still holds his answer; Budi's now holds his later join.
				{Key: k.Order(), Rule: "order", Detail: fmt.Sprintf(`member "Budi" has score %s, want %s for 0 answers, the latest at %d ms`,
					place(0, msOf(t, ids["Budi"])), place(0, msOf(t, ids["second"])), msOf(t, ids["second"]))},
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, _ := e.joinedQuiz()
			k := e.keys(id)
			ids := joinIDs(e, k)
			for _, l := range answerEntries(e, k) {
				ids[l.Participant+" "+l.Question] = l.ID
			}
			for name, x := range tt.tamper(k) {
				ids[name] = x
			}
			got, err := e.store.Audit(e.ctx, id)
			if diff := cmp.Diff(tt.want(k, ids), got); err != nil || diff != "" {
				t.Errorf("Audit: %v (-want +got):\n%s", err, diff)
			}
		})
	}
}

// answerEntries are the answer entries of the quiz's log, in order.
func answerEntries(e *env, k kuis.Keys) []logEntry {
	e.t.Helper()
	entries, err := e.mustRaw("XRANGE", k.Log(), "-", "+").AsXRange()
	if err != nil {
		e.t.Fatalf("XRANGE %s: %v", k.Log(), err)
	}
	var out []logEntry
	for _, x := range entries {
		if f := x.FieldValues; len(f) == 3 {
			out = append(out, logEntry{x.ID, f["peserta"], f["soal"], f["skor"]})
		}
	}
	return out
}

// TestJoinRepair: Repair, in one script or a rebuild, on a running or
// finished quiz, puts a joiner deleted from the board back with 0 points
// and the place of their join (a Correction from 0 to 0), sets a joiner's
// wrong score back to 0, and removes a 0-point member without a join entry
// (unreported, as a 0-point member always was); the quiz is then as the
// answers and joins made it, and clean.
func TestJoinRepair(t *testing.T) {
	t.Parallel()
	tests := []repairCase{
		{"untouched", nil, nil, []kuis.Correction{}},
		{"a joiner deleted", [][]string{{"ZREM", "Budi"}}, [][]string{{"ZREM", "Budi"}}, []kuis.Correction{{Participant: "Budi"}}},
		{"a joiner deleted from the board only", [][]string{{"ZREM", "Dewi"}}, nil, []kuis.Correction{{Participant: "Dewi"}}},
		{"a joiner's place lost", nil, [][]string{{"ZREM", "Budi"}}, []kuis.Correction{}},
		{"a joiner given points", [][]string{{"ZADD", "30", "Budi"}}, nil, []kuis.Correction{{Participant: "Budi", Was: 30}}},
		{"a joiner who answered set to 0", [][]string{{"ZADD", "0", "Citra"}}, nil, []kuis.Correction{{Participant: "Citra", Was: 0, Now: 10}}},
		{"a 0-point member without a join entry", [][]string{{"ZADD", "0", "Eka"}}, [][]string{{"ZADD", "0", "Eka"}}, []kuis.Correction{}},
	}
	for _, rebuild := range []bool{false, true} {
		for _, finished := range []bool{false, true} {
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s, finished %v, rebuild %v", tt.name, finished, rebuild), func(t *testing.T) {
					t.Parallel()
					e := newTunedEnv(t, repairStep(rebuild))
					id, _ := e.joinedQuiz()
					if finished {
						e.finish(id)
					}
					tt.check(t, e, id)
				})
			}
		}
	}
}

// TestJoinRepairSeesJoinsDuringItsRead: a join logged while Repair reads
// the quiz (right after its first page of the answers set, or of the log)
// is not undone, in one script or a rebuild (a join entry after the
// rebuild's snapshot is caught up before the swap).
func TestJoinRepairSeesJoinsDuringItsRead(t *testing.T) {
	t.Parallel()
	for _, hook := range []string{"SSCAN", "XRANGE"} {
		for _, rebuild := range []bool{false, true} {
			t.Run(fmt.Sprintf("after %s, rebuild %v", hook, rebuild), func(t *testing.T) {
				t.Parallel()
				e := newTunedEnv(t, repairStep(rebuild))
				id, b := e.joinedQuiz()
				k := e.keys(id)
				// Two joiners to put back (a rebuild's work), and Eka, placed
				// but not on the board, who joins while Repair reads.
				e.mustRaw("ZREM", k.Board(), "Budi")
				e.mustRaw("ZREM", k.Board(), "Dewi")
				e.mustRaw("ZADD", k.Order(), "5", "Eka")
				meanwhile := func() {
					if _, err := b.Join(e.ctx, "Eka"); err != nil {
						t.Errorf("Join(Eka) during Repair: %v", err)
					}
				}
				s := e.storeOn(hookedClient{Client: e.client, cmd: hook, once: &sync.Once{}, after: meanwhile})
				got, err := s.Repair(e.ctx, id)
				if diff := cmp.Diff([]kuis.Correction{{Participant: "Budi"}, {Participant: "Dewi"}}, got); err != nil || diff != "" {
					t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
				}
				if diff := cmp.Diff(map[string]float64{"Ali": 10, "Budi": 0, "Citra": 10, "Dewi": 0, "Eka": 0}, scoresOnBoard(e, k)); diff != "" {
					t.Errorf("board after Repair (-want +got):\n%s", diff)
				}
				checkClean(t, e, id)
			})
		}
	}
}

// TestJoinEvents: the feed yields an EventJoined for each join entry, in
// log order with the answers, to a reader that catches up and to one that
// follows live; a Join of a participant on the board yields nothing.
func TestJoinEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, m, b := e.running(3)
	ctx, cancel := context.WithTimeout(e.ctx, signalWait)
	defer cancel()
	live := make(chan []kuis.Event, 1)
	go func() {
		evs, err := collect(ctx, b, "", 2)
		if err != nil {
			t.Errorf("live Events: %v", err)
		}
		live <- evs
	}()
	if _, err := b.Join(e.ctx, "Ali"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
		t.Fatal(err)
	}
	want := []brief{{kuis.EventJoined, "Ali", 0, 0}, {kuis.EventAnswer, "Ali", 1, 10}}
	select {
	case evs := <-live:
		if diff := cmp.Diff(want, briefs(evs)); diff != "" {
			t.Errorf("live events (-want +got):\n%s", diff)
		}
	case <-ctx.Done():
		t.Fatal("no events within the bound")
	}
	for _, p := range []string{"Ali", "Budi", "Budi"} {
		if _, err := b.Join(e.ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	evs, err := collect(ctx, b, "", -1)
	want = append(want, brief{kuis.EventJoined, "Budi", 0, 0}, brief{Kind: kuis.EventFinished})
	if diff := cmp.Diff(want, briefs(evs)); err != nil || diff != "" {
		t.Errorf("Events: %v (-want +got):\n%s", err, diff)
	}
	if diff := cmp.Diff(joinIDs(e, e.keys(id))["Budi"], evs[2].ID); diff != "" {
		t.Errorf("Budi's EventJoined ID (-join entry +event):\n%s", diff)
	}
	if evs[2].At.IsZero() {
		t.Error("Budi's EventJoined has no time")
	}
}

// TestJoinACL: the app's rules (ACLRules(RoleApp)) allow Join, and need
// nothing more; the teacher and the operator are refused it, with nothing
// written.
func TestJoinACL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.running(3)
	k := e.keys(id)
	app, _ := roleStore(t, e, kuis.RoleApp, false, kuis.Tuning{})
	ab, _ := handles(t, app, id)
	if got, err := ab.Join(e.ctx, "Ali"); err != nil || got != (kuis.Standing{Rank: 1, CompetitionRank: 1, Participant: "Ali"}) {
		t.Errorf("Join as the app = %+v, %v", got, err)
	}
	for _, role := range []kuis.Role{kuis.RoleTeacher, kuis.RoleOperator} {
		s, _ := roleStore(t, e, role, false, kuis.Tuning{})
		b, _ := handles(t, s, id)
		checkRefused(t, e, fiveKeys(k), isForbidden, refusedCall{role.String() + " Join", func() error { return errOf(b.Join(e.ctx, "Budi")) }})
	}
	if l := logOf(e, k); !cmp.Equal(l, []string{"start", "join Ali"}) {
		t.Errorf("log = %q; want the start and Ali's join", l)
	}
}

// BenchmarkJoin joins a new participant each call (the writing path), and,
// as a page reload does, one already on the board (no write).
func BenchmarkJoin(b *testing.B) {
	e := newEnv(b)
	_, _, board := e.running(3)
	b.Run("new", func(b *testing.B) {
		benchParallel(b, func(i int64) error {
			s, err := board.Join(e.ctx, benchMember(int(i)))
			if err == nil && s.Score != 0 {
				err = fmt.Errorf("joiner %d has %d points", i, s.Score)
			}
			return err
		})
	})
	b.Run("again", func(b *testing.B) {
		benchParallel(b, func(i int64) error { return errOf(board.Join(e.ctx, benchMember(int(i%100)))) })
	})
}
