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
