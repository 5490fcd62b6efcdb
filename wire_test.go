package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// The wire's rules as every reader applies them: one rule for a question
// number, the order set's bounds, and the answers set deciding what was
// counted.

// TestQuestionNumbersHaveOneRule: a log entry or answers set member whose
// question is not a canonical number of the quiz ("04", "+4", "4 ", above
// jumlah_soal) is corrupt to every reader, in Go and in Lua alike: Audit
// reports it, Recap refuses the quiz naming it, and Repair, whether it
// corrects in one script (Lua recounts) or rebuilds (Go counts), leaves the
// same board and order set, which Audit then finds sound.
func TestQuestionNumbersHaveOneRule(t *testing.T) {
	t.Parallel()
	for _, form := range []string{"04", "+4", "4 ", "6"} {
		t.Run(strconv.Quote(form), func(t *testing.T) {
			var boards []map[string]string
			for _, step := range []int{500, 1} { // 500: corrected by repair.lua; 1: rebuilt from Go's counts
				e := newTunedEnv(t, kuis.Tuning{RepairStep: step})
				id, _, b := e.running(5)
				if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
					t.Fatal(err)
				}
				k := e.keys(id)
				// Ali's answer to question 4 counted by hand, then logged with a
				// number in another form, the board and order set as it would
				// have them if Go took that entry for the answer.
				e.mustRaw("SADD", k.Answers(), "4:Ali", form+":Budi")
				e.mustRaw("ZADD", k.Board(), "20", "Ali", "10", "Budi")
				e.mustRaw("XADD", k.Log(), "*", "peserta", "Ali", "soal", form, "skor", "20")
				e.mustRaw("XADD", k.Log(), "*", "peserta", "Budi", "soal", form, "skor", "10")
				v, err := e.store.Audit(e.ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []string{`soal "` + form + `"`, `answer "4:Ali" is counted but not logged`, `member "` + form + `:Budi"`} {
					if !strings.Contains(fmt.Sprint(v), want) {
						t.Errorf("Audit = %v; want a violation saying %s", v, want)
					}
				}
				if _, err := e.store.Recap(e.ctx, id); !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(err.Error(), k.Log()) {
					t.Errorf("Recap = %v; want ErrCorrupt naming the log", err)
				}
				if _, err := e.store.Repair(e.ctx, id); err != nil {
					t.Fatal(err)
				}
				after, err := e.store.Audit(e.ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range after {
					if v.Rule == "score" || v.Rule == "order" {
						t.Errorf("after Repair (step %d), Audit still finds %v", step, v)
					}
				}
				// The same content in both quizzes: the board, and how many
				// answers each place holds (the times are each quiz's own).
				dump := map[string]string{"board": e.dump(k.Board())[k.Board()]}
				places, err := e.client.Do(e.ctx, e.client.B().Zrange().Key(k.Order()).Min("0").Max("-1").Withscores().Build()).AsZScores()
				if err != nil {
					t.Fatal(err)
				}
				for _, z := range places {
					dump["place of "+z.Member] = strconv.FormatInt(int64(z.Score)/(1<<42), 10)
				}
				boards = append(boards, dump)
			}
			if diff := cmp.Diff(boards[0], boards[1]); diff != "" {
				t.Errorf("Repair in one script and by a rebuild disagree (-script +rebuild):\n%s", diff)
			}
		})
	}
}

// TestLogPastThePlacesTimeTakesNoAnswer: an entry written behind the
// library's back at a time an order place cannot hold (2^42 ms or later)
// makes every later answer ErrCorrupt naming the log, with nothing written,
// so every TiesByTime read keeps working; Audit reports the entry.
func TestLogPastThePlacesTimeTakesNoAnswer(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"5000000000000-0", "4398046511104-0", "18446744073709551615-0"} {
		t.Run(at, func(t *testing.T) {
			e := newEnv(t, kuis.WithTies(kuis.TiesByTime))
			id, _, b := e.reference()
			k := e.keys(id)
			e.mustRaw("XADD", k.Log(), at, "note", "x")
			if !redistest.Real() {
				t.Skip("miniredis's XADD <ms>-* adds the entry after a later last entry, where Redis refuses it: the record script counts on the refusal")
			}
			before := e.dump(fiveKeys(k)...)
			if _, err := b.RecordAnswer(e.ctx, "Dewi", 1); !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(err.Error(), k.Log()) {
				t.Errorf("RecordAnswer after the entry = %v; want ErrCorrupt naming the log", err)
			}
			res, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: "Eka", Question: 1}, {Participant: "Ali", Question: 1}})
			if err != nil || !errors.Is(res[0].Err, kuis.ErrCorrupt) || res[1].Err != nil || !res[1].Duplicate {
				t.Errorf("RecordAnswers after the entry = %+v, %v; want ErrCorrupt, then Ali's repeat", res, err)
			}
			if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
				t.Errorf("refused answers wrote (-before +after):\n%s", diff)
			}
			got, err := b.Standings(e.ctx)
			if err != nil || len(got) != 4 {
				t.Errorf("Standings by time = %v, %v; want the four of the reference session", got, err)
			}
			v, err := e.store.Audit(e.ctx, id)
			if err != nil || !strings.Contains(fmt.Sprint(v), "entry "+at+" is at a time past what an order place holds") {
				t.Errorf("Audit = %v, %v; want the entry reported", v, err)
			}
		})
	}
}

// TestOrderPlaceOutOfRangeIsMended: a place that no count and time make (one
// an earlier library wrote for an answer logged past 2^42 ms: the place of
// one answer less, or a negative one) fails every TiesByTime read with
// ErrCorrupt naming the order set; Audit reports it, and Repair mends it, so
// that every read works again afterwards.
func TestOrderPlaceOutOfRangeIsMended(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, at, place string }{
		{"one answer less", "5000000000000-0", strconv.FormatInt(2*(1<<42)-1-5000000000000, 10)},
		{"negative", "18446744073709551615-0", "-9223372036854775808"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, kuis.WithTies(kuis.TiesByTime))
			id, _, b := e.reference()
			k := e.keys(id)
			e.mustRaw("SADD", k.Answers(), "1:Eka")
			e.mustRaw("ZADD", k.Board(), "10", "Eka")
			e.mustRaw("XADD", k.Log(), tt.at, "peserta", "Eka", "soal", "1", "skor", "10")
			e.mustRaw("ZADD", k.Order(), tt.place, "Eka")
			if _, err := b.Standings(e.ctx); !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(err.Error(), k.Order()) {
				t.Fatalf("Standings = %v; want ErrCorrupt naming the order set", err)
			}
			v, err := e.store.Audit(e.ctx, id)
			if err != nil || !hasViolation(v, k.Order(), "order") {
				t.Errorf("Audit = %v, %v; want the place reported", v, err)
			}
			fixes, err := e.store.Repair(e.ctx, id)
			if err != nil {
				t.Fatalf("Repair = %v, %v", fixes, err)
			}
			reads := map[string]func() error{
				"Standings": func() error { return errOf(b.Standings(e.ctx)) },
				"Page":      func() error { return errOf(b.Page(e.ctx, 1, 3)) },
				"Around":    func() error { return errOf(b.Around(e.ctx, "Eka", 2)) },
				"Standing":  func() error { return errOf(b.Standing(e.ctx, "Eka")) },
			}
			if tt.at != "18446744073709551615-0" { // that ID is no time at all: Recap refuses the entry itself
				reads["Recap"] = func() error { return errOf(e.store.Recap(e.ctx, id)) }
			}
			for name, read := range reads {
				if err := read(); err != nil {
					t.Errorf("%s after Repair: %v", name, err)
				}
			}
			if v, err := e.store.Audit(e.ctx, id); err != nil || hasViolation(v, k.Order(), "order") {
				t.Errorf("Audit after Repair = %v, %v; want no order violation", v, err)
			}
		})
	}
}

// TestAnswersSetDecidesTheGrades: an answer logged behind the library's back
// whose pair the answers set lacks is no grade: the gradebook, Answers, the
// per-question results and Answered all say what the answers set says, and
// Audit reports the entry.
func TestAnswersSetDecidesTheGrades(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(3)
	for _, q := range []int{1, 2} {
		if _, err := b.RecordAnswer(e.ctx, "Ali", q); err != nil {
			t.Fatal(err)
		}
	}
	e.finish(id)
	k := e.keys(id)
	e.mustRaw("XADD", k.Log(), "*", "peserta", "Ali", "soal", "3", "skor", "30")
	r, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]kuis.GradeRow{{Participant: "Ali", Score: 20, Correct: []int{1, 2}}}, r.Gradebook()); diff != "" {
		t.Errorf("Gradebook (-want +got):\n%s", diff)
	}
	var answered []int
	for _, a := range r.Answers {
		answered = append(answered, a.Question)
	}
	if diff := cmp.Diff([]int{1, 2}, answered); diff != "" {
		t.Errorf("Recap.Answers' questions (-want +got):\n%s", diff)
	}
	want := []kuis.QuestionResult{{Question: 1, Correct: 1}, {Question: 2, Correct: 1}, {Question: 3, Correct: 0}}
	if diff := cmp.Diff(want, r.Questions); diff != "" {
		t.Errorf("Recap.Questions (-want +got):\n%s", diff)
	}
	if got, err := b.Answered(e.ctx, "Ali"); err != nil || !cmp.Equal(got, []int{1, 2}) {
		t.Errorf("Answered = %v, %v; want [1 2]", got, err)
	}
	if v, err := e.store.Audit(e.ctx, id); err != nil || !strings.Contains(fmt.Sprint(v), `logs answer "3:Ali", which the answers set does not hold`) {
		t.Errorf("Audit = %v, %v; want the entry reported", v, err)
	}
}

// The wire's numbers and names at their bounds, as every reader, the record
// script and the archive take them.

// TestRecapRefusesNamesThatJSONWouldChange: two board members that differ
// only in bytes that are not UTF-8 would both archive as "Ana\ufffd"; Recap
// and PurgeQuiz refuse the quiz with ErrCorrupt naming the member instead, and
// PurgeQuiz deletes nothing and never calls archive. A title that is not UTF-8
// is refused the same way, whether the quiz is read in one script or in parts.
func TestRecapRefusesNamesThatJSONWouldChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name  string
		write func(k kuis.Keys)
		want  string
	}{
		{"member", func(k kuis.Keys) {
			e.mustRaw("ZADD", k.Board(), "10", "Ana\xff", "10", "Ana\xfe")
		}, `member "Ana\xf`},
		{"title", func(k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "judul", "Kuis \xc3") }, `judul "Kuis \xc3"`},
	}
	parts := e.tunedOn(e.client, kuis.Tuning{RecapInParts: true}) // reads every quiz in parts
	for _, tt := range tests {
		for _, store := range []*kuis.Store{e.store, parts} {
			t.Run(tt.name, func(t *testing.T) {
				id, _, b := e.running(3)
				if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
					t.Fatal(err)
				}
				k := e.keys(id)
				tt.write(k)
				e.finish(id)
				_, err := store.Recap(e.ctx, id)
				if !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(fmt.Sprint(err), tt.want) {
					t.Errorf("Recap: %v; want ErrCorrupt naming %s", err, tt.want)
				}
				before := e.dump(k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order())
				n, err := store.PurgeQuiz(e.ctx, id, func(context.Context, kuis.Recap) error {
					t.Error("archive called with a recap JSON cannot keep")
					return nil
				})
				if n != 0 || !errors.Is(err, kuis.ErrCorrupt) {
					t.Errorf("PurgeQuiz = %d, %v; want 0, ErrCorrupt", n, err)
				}
				if diff := cmp.Diff(before, e.dump(k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order())); diff != "" {
					t.Errorf("PurgeQuiz changed the quiz (-before +after):\n%s", diff)
				}
			})
		}
	}
}

// TestQuestionCountAboveCreatesLimitIsCorrupt: a jumlah_soal above the
// 1,000 Create writes (set by hand) is corrupt for every path that reads it:
// RecordAnswer refuses and writes nothing, so no count of answers can pass
// what an order place holds (with 3,000 questions, 2,048 answers used to be
// placed below 2,047 by TiesByTime); Get, Summary, Answered, Recap, Repair
// and the feed answer ErrCorrupt naming jumlah_soal, and Audit reports it.
func TestQuestionCountAboveCreatesLimitIsCorrupt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, kuis.WithTies(kuis.TiesByTime))
	for _, count := range []string{"1001", "3000", "999999999999999"} {
		t.Run(count, func(t *testing.T) {
			id, m, b := e.running(3)
			if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
				t.Fatal(err)
			}
			k := e.keys(id)
			e.mustRaw("HSET", k.Meta(), "jumlah_soal", count)
			before := e.dump(fiveKeys(k)...)
			const want = "jumlah_soal is "
			calls := map[string]error{
				"RecordAnswer": errOf(b.RecordAnswer(e.ctx, "Budi", 2)),
				"Get":          errOf(m.Get(e.ctx)),
				"Summary":      errOf(b.Summary(e.ctx)),
				"Answered":     errOf(b.Answered(e.ctx, "Ali")),
				"Recap":        errOf(e.store.Recap(e.ctx, id)),
				"Repair":       errOf(e.store.Repair(e.ctx, id)),
			}
			for _, err := range b.Events(e.ctx, "") {
				calls["Events"] = err
				break
			}
			for name, err := range calls {
				if !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(fmt.Sprint(err), want) {
					t.Errorf("%s: %v; want ErrCorrupt naming jumlah_soal", name, err)
				}
			}
			if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
				t.Errorf("the calls changed the quiz (-before +after):\n%s", diff)
			}
			v, err := e.store.Audit(e.ctx, id)
			if err != nil || !hasViolation(v, k.Meta(), "jumlah_soal") {
				t.Errorf("Audit = %v, %v; want a jumlah_soal violation", v, err)
			}
		})
	}
}

// TestRefusalsPrintWholeNumbers: a score written raw far above what the
// contract allows is refused, by the scripts and by the Go side, with its
// value printed in full, not in exponent form.
func TestRefusalsPrintWholeNumbers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if q, err := strconv.Atoi("1000000000000000"); err == nil { // not on 32-bit builds
		_, _, bb := e.running(3)
		const wantQ = "question 1000000000000000 of 3"
		if _, err := bb.RecordAnswer(e.ctx, "Ali", q); !errors.Is(err, kuis.ErrInvalidQuestion) || !strings.Contains(fmt.Sprint(err), wantQ) {
			t.Errorf("RecordAnswer of question 10^15: %v; want ErrInvalidQuestion with %q", err, wantQ)
		}
	}
	id, _, b := e.running(3)
	e.mustRaw("ZADD", e.keys(id).Board(), "100000000000000000000", "Ali")
	const want = "has score 100000000000000000000,"
	_, err := e.store.Recap(e.ctx, id)
	if !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("Recap of a score of 1e20: %v; want ErrCorrupt with %q", err, want)
	}
	if !redistest.Real() {
		t.Skip("miniredis's Lua (gopher-lua) has no tonumber for exponent form (1e+20), which the scripts read scores with")
	}
	_, err = b.RecordAnswer(e.ctx, "Ali", 1)
	if !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("RecordAnswer over a score of 1e20: %v; want ErrCorrupt with %q", err, want)
	}
}

// TestScoreBoundsAreOneRule: the largest sound score, 2^53 - 2 (the largest
// multiple of 10 a float64 holds exactly), is one bound for the reads in Go
// and for the record script in Lua: the reads take it, and refuse it just
// above. The record script adds to a score only while an order place can
// count the answers it makes (2,047, what the place holds exactly in a
// double): just below, an answer counts; at it, and at any larger sound
// score, it is refused (ErrCorrupt saying so, nothing written), alone or in
// a run of several answers.
func TestScoreBoundsAreOneRule(t *testing.T) {
	t.Parallel()
	const top = 1<<53 - 2
	e := newEnv(t)
	tests := []struct {
		name     string
		stored   int64
		readErr  error
		answer   kuis.Answer // the answer recorded alone
		answerOK bool
	}{
		{"below the place's count", 20460, nil, kuis.Answer{Score: 20470}, true},
		{"at the place's count", 20470, nil, kuis.Answer{}, false},
		{"at the sound bound", top, nil, kuis.Answer{}, false},
		{"above the sound bound", top + 10, kuis.ErrCorrupt, kuis.Answer{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, run := range []bool{false, true} {
				id, _, b := e.running(3)
				k := e.keys(id)
				e.mustRaw("ZADD", k.Board(), strconv.FormatInt(tt.stored, 10), "Ali")
				if _, err := b.Standing(e.ctx, "Ali"); !errors.Is(err, tt.readErr) {
					t.Errorf("Standing at %d: %v; want %v", tt.stored, err, tt.readErr)
				}
				if _, err := b.Standings(e.ctx); !errors.Is(err, tt.readErr) {
					t.Errorf("Standings at %d: %v; want %v", tt.stored, err, tt.readErr)
				}
				before := e.dump(k.Board(), k.Answers())
				var got kuis.Answer
				var err error
				if run { // Ali's answer in a run with another participant's
					res, callErr := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Budi", 1}, {"Ali", 1}})
					if callErr != nil || res[0].Err != nil {
						t.Fatalf("RecordAnswers: %v, %+v", callErr, res)
					}
					got, err = res[1].Answer, res[1].Err
					e.mustRaw("ZREM", k.Board(), "Budi")
					e.mustRaw("SREM", k.Answers(), "1:Budi")
				} else {
					got, err = b.RecordAnswer(e.ctx, "Ali", 1)
				}
				switch {
				case tt.answerOK && (err != nil || got != tt.answer):
					t.Errorf("answer at %d (run %v) = %+v, %v; want %+v", tt.stored, run, got, err, tt.answer)
				case tt.answerOK:
					if s, err := b.Standing(e.ctx, "Ali"); err != nil || s.Score != tt.answer.Score {
						t.Errorf("Standing after the answer = %+v, %v; want %d points", s, err, tt.answer.Score)
					}
				case !errors.Is(err, kuis.ErrCorrupt):
					t.Errorf("answer at %d (run %v) = %+v, %v; want ErrCorrupt", tt.stored, run, got, err)
				case tt.readErr == nil && !strings.Contains(err.Error(), "no order place can count another answer"):
					t.Errorf("answer at %d (run %v): %v; want the refusal of a score the order place cannot count past", tt.stored, run, err)
				default:
					if diff := cmp.Diff(before, e.dump(k.Board(), k.Answers())); diff != "" {
						t.Errorf("a refused answer wrote (-before +after):\n%s", diff)
					}
				}
			}
		})
	}
}
