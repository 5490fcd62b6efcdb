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

// TestQuestionCountOf15Digits: a jumlah_soal of up to 15 digits passes the
// server's gate, so Get, Recap and Audit read it whole on every platform;
// CI also runs this test built with GOARCH=386, where an int has 32 bits.
func TestQuestionCountOf15Digits(t *testing.T) {
	e := newEnv(t)
	for _, count := range []string{"2147483648", "999999999999999"} {
		t.Run(count, func(t *testing.T) {
			id, m, b := e.running(3)
			e.mustRaw("HSET", e.keys(id).Meta(), "jumlah_soal", count)
			if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
				t.Fatal(err)
			}
			info, err := m.Get(e.ctx)
			if err != nil || fmt.Sprint(info.Questions) != count {
				t.Errorf("Get = %+v, %v; want %s questions", info, err, count)
			}
			recap, err := e.store.Recap(e.ctx, id)
			if err != nil || fmt.Sprint(recap.Info.Questions) != count || len(recap.Questions) != 1000 {
				t.Errorf("Recap: %v, %s questions and %d results; want %s questions and 1000 results",
					err, fmt.Sprint(recap.Info.Questions), len(recap.Questions), count)
			}
			if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
				t.Errorf("Audit = %+v, %v; want no violations", v, err)
			}
		})
	}
}

// TestRefusalsPrintWholeNumbers: a score written raw far above what the
// contract allows is refused, by the scripts and by the Go side, with its
// value printed in full, not in exponent form.
func TestRefusalsPrintWholeNumbers(t *testing.T) {
	e := newEnv(t)
	if q, err := strconv.Atoi("1000000000000000"); err == nil { // not on 32-bit builds
		big, _, bb := e.running(3)
		e.mustRaw("HSET", e.keys(big).Meta(), "jumlah_soal", "999999999999999")
		const wantQ = "question 1000000000000000 of 999999999999999"
		if _, err := bb.RecordAnswer(e.ctx, "Ali", q); !errors.Is(err, kuis.ErrInvalidQuestion) || !strings.Contains(fmt.Sprint(err), wantQ) {
			t.Errorf("RecordAnswer above a 15-digit jumlah_soal: %v; want ErrInvalidQuestion with %q", err, wantQ)
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

// TestScoreBoundIsOneRule: the largest sound score, 2^53 - 2 (the largest
// multiple of 10 a float64 holds exactly), is one bound for the reads in Go
// and for the record script in Lua. Just below it an answer raises the score
// to it, and the reads take it; at it, every read takes it and an answer is
// refused (ErrCorrupt, nothing written), alone or in a run of several
// answers, as a score that is sound but full (the Lua and the Go bound must
// agree for the refusal to say so); just above it, the reads refuse it too.
func TestScoreBoundIsOneRule(t *testing.T) {
	const top = 1<<53 - 2
	e := newEnv(t)
	tests := []struct {
		name     string
		stored   int64
		readErr  error
		answer   kuis.Answer // the answer recorded alone
		answerOK bool
	}{
		{"below the bound", top - 10, nil, kuis.Answer{Score: top}, true},
		{"at the bound", top, nil, kuis.Answer{}, false},
		{"above the bound", top + 10, kuis.ErrCorrupt, kuis.Answer{}, false},
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
					if s, err := b.Standing(e.ctx, "Ali"); err != nil || s.Score != top {
						t.Errorf("Standing after the answer = %+v, %v; want %d points", s, err, int64(top))
					}
				case !errors.Is(err, kuis.ErrCorrupt):
					t.Errorf("answer at %d (run %v) = %+v, %v; want ErrCorrupt", tt.stored, run, got, err)
				case tt.readErr == nil && !strings.Contains(err.Error(), "largest sound score"):
					t.Errorf("answer at %d (run %v): %v; want the refusal of a sound, full score", tt.stored, run, err)
				default:
					if diff := cmp.Diff(before, e.dump(k.Board(), k.Answers())); diff != "" {
						t.Errorf("a refused answer wrote (-before +after):\n%s", diff)
					}
				}
			}
		})
	}
}
