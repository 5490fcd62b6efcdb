package kuis_test

// Hostile data: keys of the wrong type, scores and meta that break the
// contract, huge values, every allowed kind of name, and oversized input. Each
// public method must answer with a typed error (or its normal result), never
// panic, and a refused write must leave every key of the quiz as it was.

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// hostileQuiz is a quiz built for corrupting: jumlah_soal 5, Ali has answered
// questions 1 and 2 (20 points), Budi question 1 (10 points); finished when asked.
func (e *env) hostileQuiz(finished bool) (string, *kuis.Meta, *kuis.Board) {
	e.t.Helper()
	id, m, b := e.running(5)
	for _, a := range []kuis.AnswerInput{{Participant: "Ali", Question: 1}, {Participant: "Ali", Question: 2}, {Participant: "Budi", Question: 1}} {
		if _, err := b.RecordAnswer(e.ctx, a.Participant, a.Question); err != nil {
			e.t.Fatalf("RecordAnswer(%v): %v", a, err)
		}
	}
	if finished {
		if err := m.Finish(e.ctx); err != nil {
			e.t.Fatal(err)
		}
	}
	return id, m, b
}

// replace deletes key and writes it anew as the given type.
func (e *env) replace(key, typ string) {
	e.t.Helper()
	e.mustRaw("DEL", key)
	switch typ {
	case "string":
		e.mustRaw("SET", key, "x")
	case "list":
		e.mustRaw("RPUSH", key, "Ali", "10")
	case "set":
		e.mustRaw("SADD", key, "Ali")
	case "hash":
		e.mustRaw("HSET", key, "Ali", "10")
	case "zset":
		e.mustRaw("ZADD", key, "10", "Ali")
	default:
		e.t.Fatalf("replace: unknown type %s", typ)
	}
}

// hostileMethod is one public method, called on the quiz in a fixed, valid way.
type hostileMethod struct {
	name  string
	write bool
	call  func(e *env, id string, m *kuis.Meta, b *kuis.Board) error
}

var hostileMethods = []hostileMethod{
	{"Standings", false, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error { _, err := b.Standings(e.ctx); return err }},
	{"Page", false, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error { _, err := b.Page(e.ctx, 0, 10); return err }},
	{"Around", false, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error {
		_, err := b.Around(e.ctx, "Ali", 1)
		return err
	}},
	{"Rank", false, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error { _, err := b.Rank(e.ctx, "Ali"); return err }},
	{"CompetitionRank", false, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error {
		_, err := b.CompetitionRank(e.ctx, "Ali")
		return err
	}},
	{"Score", false, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error { _, err := b.Score(e.ctx, "Ali"); return err }},
	{"Len", false, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error { _, err := b.Len(e.ctx); return err }},
	{"Get", false, func(e *env, _ string, m *kuis.Meta, _ *kuis.Board) error { _, err := m.Get(e.ctx); return err }},
	{"Status", false, func(e *env, _ string, m *kuis.Meta, _ *kuis.Board) error { _, err := m.Status(e.ctx); return err }},
	{"TakeRecap", false, func(e *env, id string, _ *kuis.Meta, _ *kuis.Board) error {
		_, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
		return err
	}},
	{"Quizzes", false, func(e *env, _ string, _ *kuis.Meta, _ *kuis.Board) error {
		_, err := kuis.Quizzes(e.ctx, e.client, e.opts...)
		return err
	}},
	{"RecordCorrect", true, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error {
		_, err := b.RecordCorrect(e.ctx, "Ali")
		return err
	}},
	{"RecordAnswer", true, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error {
		_, err := b.RecordAnswer(e.ctx, "Ali", 3)
		return err
	}},
	{"RecordAnswers", true, func(e *env, _ string, _ *kuis.Meta, b *kuis.Board) error {
		// Both for Ali: RecordAnswers applies each answer on its own, so a batch
		// mixing a refused and a valid answer rightly writes the valid one.
		_, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: "Ali", Question: 3}, {Participant: "Ali", Question: 4}})
		return err
	}},
	{"Finish", true, func(e *env, _ string, m *kuis.Meta, _ *kuis.Board) error { return m.Finish(e.ctx) }},
	{"Create", true, func(e *env, _ string, m *kuis.Meta, _ *kuis.Board) error { return m.Create(e.ctx, "Kuis Baru", 3) }},
	{"PurgeQuiz", true, func(e *env, id string, _ *kuis.Meta, _ *kuis.Board) error {
		_, err := kuis.PurgeQuiz(e.ctx, e.client, id, func(context.Context, kuis.Recap) error { return nil }, e.opts...)
		return err
	}},
}

// Method groups for the expectations below.
var (
	boardReads = []string{"Standings", "Page", "Around", "Rank", "CompetitionRank", "Score", "Len"}
	scoreReads = []string{"Standings", "Page", "Around", "CompetitionRank", "Score", "TakeRecap"}
	records    = []string{"RecordCorrect", "RecordAnswer", "RecordAnswers"}
)

// expect maps every named method (or group) to err.
func expect(err error, groups ...[]string) map[string]error {
	out := map[string]error{}
	for _, g := range groups {
		for _, name := range g {
			out[name] = err
		}
	}
	return out
}

// merge joins expectation maps; later ones win.
func merge(ms ...map[string]error) map[string]error {
	out := map[string]error{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// baseline is what each method answers on the healthy hostile quiz.
func baseline(finished bool) map[string]error {
	if finished {
		return merge(expect(kuis.ErrQuizFinished, records), map[string]error{"Create": kuis.ErrQuizExists})
	}
	return map[string]error{"Create": kuis.ErrQuizExists, "PurgeQuiz": kuis.ErrQuizRunning}
}

// one names a single method, for expect.
func one(name ...string) []string { return name }

// TestHostileDataEveryMethodAnswersTypedAndRefusedWritesChangeNothing corrupts
// a quiz in one way per row and calls every public method on it: each returns
// exactly the expected sentinel (the healthy quiz's answer unless the row
// says otherwise), never panics, and a write that returns an error leaves the
// quiz's three keys exactly as they were. Audit reports every corruption.
func TestHostileDataEveryMethodAnswersTypedAndRefusedWritesChangeNothing(t *testing.T) {
	e := newEnv(t)
	metaAll := append(one("Get", "Status", "TakeRecap", "PurgeQuiz", "Finish"), records...)
	type row struct {
		name     string
		finished bool
		setup    func(e *env, k kuis.Keys)
		want     map[string]error // overrides of baseline(finished)
	}
	var rows []row
	for _, typ := range []string{"string", "list", "set", "zset"} {
		rows = append(rows, row{"meta is a " + typ, false,
			func(e *env, k kuis.Keys) { e.replace(k.Meta(), typ) },
			expect(kuis.ErrCorrupt, metaAll)})
	}
	for _, typ := range []string{"string", "list", "set", "hash"} {
		rows = append(rows,
			row{"board is a " + typ, false,
				func(e *env, k kuis.Keys) { e.replace(k.Board(), typ) },
				expect(kuis.ErrCorrupt, boardReads, one("TakeRecap", "PurgeQuiz"), records)},
			row{"finished, board is a " + typ, true,
				func(e *env, k kuis.Keys) { e.replace(k.Board(), typ) },
				expect(kuis.ErrCorrupt, boardReads, one("TakeRecap", "PurgeQuiz"))})
	}
	for _, typ := range []string{"string", "list", "hash", "zset"} {
		rows = append(rows,
			row{"answers is a " + typ, false,
				func(e *env, k kuis.Keys) { e.replace(k.Answers(), typ) },
				expect(kuis.ErrCorrupt, one("RecordAnswer", "RecordAnswers"))},
			// PurgeQuiz deletes the broken set with the rest: the grades are on the board.
			row{"finished, answers is a " + typ, true,
				func(e *env, k kuis.Keys) { e.replace(k.Answers(), typ) },
				nil})
	}
	for _, score := range []string{"15", "12.5", "-10", "1e300", "inf", "-inf", "9007199254740994"} {
		rows = append(rows,
			row{"Ali's score is " + score, false,
				func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), score, "Ali") },
				expect(kuis.ErrCorrupt, scoreReads, one("PurgeQuiz"), records)},
			row{"finished, Ali's score is " + score, true,
				func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), score, "Ali") },
				expect(kuis.ErrCorrupt, scoreReads, one("PurgeQuiz"))})
	}
	rows = append(rows,
		// The write gate needs only status and jumlah_soal; the reads that return the title refuse.
		row{"meta lacks judul", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HDEL", k.Meta(), "judul") },
			expect(kuis.ErrCorrupt, one("Get", "TakeRecap", "PurgeQuiz"))},
		row{"meta lacks status", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HDEL", k.Meta(), "status") },
			expect(kuis.ErrCorrupt, metaAll)},
		row{"meta lacks jumlah_soal", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HDEL", k.Meta(), "jumlah_soal") },
			expect(kuis.ErrCorrupt, one("Get", "TakeRecap", "PurgeQuiz", "Finish"), records)},
		row{"meta has an extra field", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "guru", "Bu Sari") },
			nil},
		row{"meta has a 1 MB extra field", true,
			func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "catatan", strings.Repeat("x", 1<<20)) },
			nil},
		row{"status is SELESAI", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "status", "SELESAI") },
			expect(kuis.ErrCorrupt, metaAll)},
		row{"status is empty", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "status", "") },
			expect(kuis.ErrCorrupt, metaAll)},
		row{"jumlah_soal is 03", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "jumlah_soal", "03") },
			expect(kuis.ErrCorrupt, one("Get", "TakeRecap", "PurgeQuiz", "Finish"), records)},
		row{"jumlah_soal is -5", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "jumlah_soal", "-5") },
			expect(kuis.ErrCorrupt, one("Get", "TakeRecap", "PurgeQuiz", "Finish"), records)},
		row{"jumlah_soal is lima", true,
			func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "jumlah_soal", "lima") },
			merge(expect(kuis.ErrCorrupt, one("Get", "TakeRecap", "PurgeQuiz", "Finish"), records))},
		row{"meta is missing", false,
			func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Meta()) },
			expect(kuis.ErrQuizNotFound, metaAll)},
		// A raw judul of 1 MB is read back as it is (decodeInfo does not judge the
		// title); Audit reports it, and nothing panics or is cut.
		row{"judul is 1 MB", false,
			func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "judul", strings.Repeat("j", 1<<20)) },
			nil},
		// Names on the board are returned as they are; Audit reports them.
		row{"board holds an invalid name", false,
			func(e *env, k kuis.Keys) {
				e.mustRaw("ZADD", k.Board(), "10", "bad\x00name", "0", strings.Repeat("n", 1000))
			},
			nil},
		row{"answers holds malformed members", false,
			func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "x", "0:Ali", "9:Ali", "3:", ":Ali") },
			nil},
		row{"board has a TTL", false,
			func(e *env, k kuis.Keys) { e.mustRaw("PEXPIRE", k.Board(), "3600000") },
			nil},
	)

	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			want := merge(baseline(r.finished), r.want)
			// Reads share one quiz: they write nothing.
			id, m, b := e.hostileQuiz(r.finished)
			r.setup(e, m.Keys())
			for _, hm := range hostileMethods {
				if hm.write {
					continue
				}
				if err := hm.call(e, id, m, b); !sameSentinel(err, want[hm.name]) {
					t.Errorf("%s = %v, want %v", hm.name, err, want[hm.name])
				}
			}
			v, err := kuis.Audit(e.ctx, e.client, id, e.opts...)
			if err != nil || len(v) == 0 {
				t.Errorf("Audit = %v, %v; want violations", v, err)
			}
			// Each write gets a fresh quiz, corrupted the same way.
			for _, hm := range hostileMethods {
				if !hm.write {
					continue
				}
				id, m, b := e.hostileQuiz(r.finished)
				r.setup(e, m.Keys())
				before := quizSnapshot(t, e.ctx, e.client, m.Keys())
				err := hm.call(e, id, m, b)
				if !sameSentinel(err, want[hm.name]) {
					t.Errorf("%s = %v, want %v", hm.name, err, want[hm.name])
				}
				if err != nil {
					if diff := cmp.Diff(before, quizSnapshot(t, e.ctx, e.client, m.Keys())); diff != "" {
						t.Errorf("%s refused (%v) but changed the quiz (-before +after):\n%s", hm.name, err, diff)
					}
				}
			}
		})
	}
}

// sameSentinel reports whether err is nil when want is nil, or wraps want and
// no other library sentinel (a refusal must say exactly what went wrong).
func sameSentinel(err, want error) bool {
	if want == nil || err == nil {
		return err == want
	}
	return errors.Is(err, want) && sentinelOf(err) == want
}

// TestHostileHugeBoardReadsWholeAndInOrder: a board of 100,000 participants is
// read, paged, ranked, recapped, written as CSV and audited without error,
// truncation or panic, and still takes answers.
func TestHostileHugeBoardReadsWholeAndInOrder(t *testing.T) {
	e := newEnv(t)
	id, m, b := e.running(5)
	const n = 100_000
	// Scores 10..1,000,000 by participant number, so the expected order is known.
	for start := 0; start < n; start += 10_000 {
		args := make([]string, 0, 20_000)
		for i := start; i < start+10_000; i++ {
			args = append(args, strconv.Itoa(10*(i+1)), fmt.Sprintf("p%06d", i))
		}
		e.mustRaw("ZADD", m.Keys().Board(), args...)
	}
	standings, err := b.Standings(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(standings) != n {
		t.Fatalf("Standings returned %d, want %d", len(standings), n)
	}
	for i, s := range standings {
		want := kuis.Standing{Rank: i + 1, Participant: fmt.Sprintf("p%06d", n-1-i), Score: int64(10 * (n - i))}
		if s != want {
			t.Fatalf("Standings[%d] = %+v, want %+v", i, s, want)
		}
	}
	if got, err := b.Len(e.ctx); err != nil || got != n {
		t.Errorf("Len = %d, %v; want %d", got, err, n)
	}
	page, err := b.Page(e.ctx, n-10, 1000)
	if err != nil || len(page) != 10 || page[9].Rank != n {
		t.Errorf("last Page = %d standings, last %+v, %v; want 10 ending at rank %d", len(page), page[len(page)-1:], err, n)
	}
	around, err := b.Around(e.ctx, "p000000", 500)
	if err != nil || len(around) != 501 || around[500].Rank != n {
		t.Errorf("Around(last, 500) = %d standings, %v; want 501 ending at rank %d", len(around), err, n)
	}
	if r, err := b.CompetitionRank(e.ctx, "p050000"); err != nil || r != n-50000 {
		t.Errorf("CompetitionRank(p050000) = %d, %v; want %d", r, err, n-50000)
	}
	if a, err := b.RecordAnswer(e.ctx, "p000000", 1); err != nil || a.Score != 20 {
		t.Errorf("RecordAnswer on the huge board = %+v, %v; want score 20", a, err)
	}
	recap, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
	if err != nil || len(recap.Standings) != n {
		t.Fatalf("TakeRecap = %d standings, %v; want %d", len(recap.Standings), err, n)
	}
	var buf bytes.Buffer
	if err := recap.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	if rows, err := csv.NewReader(&buf).ReadAll(); err != nil || len(rows) != n+1 {
		t.Errorf("CSV has %d rows, %v; want %d", len(rows), err, n+1)
	}
	// p000000 has 20 points but counts one answer: at least 10 x answers holds.
	if v, err := kuis.Audit(e.ctx, e.client, id, e.opts...); err != nil || len(v) != 0 {
		t.Errorf("Audit = %d violations (%.3v), %v; want none", len(v), v, err)
	}
}

// allowedNames holds one name per Unicode category a participant may use:
// validText refuses only invalid UTF-8, more than 64 bytes and control
// characters (Cc), so format characters (Cf, such as ZWJ and bidi
// overrides) and separators (Zs, Zl, Zp) are allowed, and must round-trip.
var allowedNames = map[string]string{
	"Latin with accents (Lu, Ll)":  "Élodie Ñúñez",
	"Greek":                        "Σωκράτης",
	"Cyrillic":                     "Дмитрий",
	"Arabic (RTL)":                 "محمد",
	"Hebrew (RTL)":                 "שׂרה",
	"Devanagari with marks (Mn)":   "प्रिया",
	"Thai":                         "สมชาย",
	"Han":                          "王小明",
	"Hiragana and Katakana (Lo)":   "さくら・サクラ",
	"Hangul":                       "김민준",
	"Modifier letter (Lm)":         "ʰaʷ",
	"Titlecase (Lt)":               "ǅemal",
	"Combining mark alone (Mn)":    "\u0301",
	"Enclosing mark (Me)":          "1\u20e3",
	"Spacing mark (Mc)":            "\u0903a",
	"Decimal digits (Nd)":          "٣٤٥ 123",
	"Letter numbers (Nl)":          "Ⅻ",
	"Other numbers (No)":           "½²",
	"Punctuation (P*)":             "¡Hola! «“Ali”», (Budi) - ‽",
	"Colon, as in the answer key":  "Ali:Budi:",
	"Symbols (S*)":                 "€ ∑ © ^ `",
	"Emoji with ZWJ and skin tone": "👩🏽‍🏫",
	"Flag (regional indicators)":   "🇮🇩",
	"No-break space (Zs)":          "Siti\u00a0Aminah",
	"Ideographic space (Zs)":       "王\u3000明",
	"Line separator (Zl)":          "A\u2028B",
	"Paragraph separator (Zp)":     "A\u2029B",
	"Zero-width space (Cf)":        "Ali\u200b",
	"Right-to-left override (Cf)":  "\u202eilA",
	"Byte order mark (Cf)":         "\ufeffAli",
	"Private use (Co)":             "\ue000",
	"Noncharacter U+FFFF":          "\uffff",
	"Plain space only":             " ",
	"64 bytes of emoji":            strings.Repeat("😀", 16),
	"Glob and brace characters":    "*?[a]{b}\\",
}

// TestHostileUnicodeNamesRoundTrip: a name of every allowed category is
// recorded, read, ranked, recapped and written to CSV byte for byte, and the
// quiz still passes Audit.
func TestHostileUnicodeNamesRoundTrip(t *testing.T) {
	e := newEnv(t)
	id, _, b := e.running(5)
	want := map[string]int64{}
	for label, name := range allowedNames {
		a, err := b.RecordAnswer(e.ctx, name, 1)
		if err != nil || a.Score != 10 {
			t.Errorf("%s: RecordAnswer(%q) = %+v, %v; want score 10", label, name, a, err)
			continue
		}
		want[name] = 10
		if s, err := b.Score(e.ctx, name); err != nil || s != 10 {
			t.Errorf("%s: Score(%q) = %d, %v", label, name, s, err)
		}
		if _, err := b.Rank(e.ctx, name); err != nil {
			t.Errorf("%s: Rank(%q): %v", label, name, err)
		}
		if around, err := b.Around(e.ctx, name, 0); err != nil || len(around) != 1 || around[0].Participant != name {
			t.Errorf("%s: Around(%q, 0) = %+v, %v", label, name, around, err)
		}
	}
	standings, err := b.Standings(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range standings {
		got[s.Participant] = s.Score
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Standings (-want +got):\n%s", diff)
	}
	rows := e.csvRows(id)
	fromCSV := map[string]int64{}
	for _, row := range rows[1:] {
		s, _ := strconv.ParseInt(row[3], 10, 64)
		fromCSV[row[2]] = s
	}
	if diff := cmp.Diff(want, fromCSV); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
	if v, err := kuis.Audit(e.ctx, e.client, id, e.opts...); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want none", v, err)
	}
}

// TestHostileInputIsRefusedTypedBeforeAnyWrite: invalid and oversized input
// to every method that takes input is refused with its sentinel, and the
// quiz's keys (and an uncreated quiz's) stay exactly as they were.
func TestHostileInputIsRefusedTypedBeforeAnyWrite(t *testing.T) {
	e := newEnv(t)
	id, m, b := e.hostileQuiz(false)
	fresh := quizID() // never created: a refused Create must leave it absent
	fm := e.meta(fresh)
	mb := strings.Repeat("x", 1<<20)
	badNames := map[string]string{
		"empty": "", "65 bytes": strings.Repeat("a", 65), "1 MB": mb, "NUL": "A\x00li", "tab": "A\tli",
		"newline": "Ali\n", "CR": "Ali\r", "DEL": "Ali\x7f", "C1 NEL": "Ali\u0085", "invalid UTF-8": "Ali\xff",
		"UTF-16 surrogate": "\xed\xa0\x80", "truncated rune": "\xe2\x82",
	}
	type tc struct {
		name    string
		call    func() error
		wantErr error
	}
	var cases []tc
	for label, name := range badNames {
		cases = append(cases,
			tc{"RecordAnswer name " + label, func() error { _, err := b.RecordAnswer(e.ctx, name, 1); return err }, kuis.ErrInvalidParticipant},
			tc{"RecordCorrect name " + label, func() error { _, err := b.RecordCorrect(e.ctx, name); return err }, kuis.ErrInvalidParticipant},
			tc{"RecordAnswers name " + label, func() error {
				_, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: "Citra", Question: 1}, {Participant: name, Question: 1}})
				return err
			}, kuis.ErrInvalidParticipant},
			tc{"Score name " + label, func() error { _, err := b.Score(e.ctx, name); return err }, kuis.ErrInvalidParticipant},
			tc{"Rank name " + label, func() error { _, err := b.Rank(e.ctx, name); return err }, kuis.ErrInvalidParticipant},
			tc{"CompetitionRank name " + label, func() error { _, err := b.CompetitionRank(e.ctx, name); return err }, kuis.ErrInvalidParticipant},
			tc{"Around name " + label, func() error { _, err := b.Around(e.ctx, name, 1); return err }, kuis.ErrInvalidParticipant},
		)
	}
	for label, title := range map[string]string{"empty": "", "201 bytes": strings.Repeat("j", 201), "1 MB": mb, "newline": "Kuis\n8", "invalid UTF-8": "Kuis\xc3"} {
		cases = append(cases, tc{"Create title " + label, func() error { return fm.Create(e.ctx, title, 3) }, kuis.ErrInvalidMeta})
	}
	for _, q := range []int{0, -1, 1001, math.MaxInt, math.MinInt} {
		cases = append(cases, tc{"Create questions " + strconv.Itoa(q), func() error { return fm.Create(e.ctx, "Kuis", q) }, kuis.ErrInvalidMeta})
	}
	for _, q := range []int{0, -1, math.MinInt, 6, 1000, math.MaxInt} {
		cases = append(cases,
			tc{"RecordAnswer question " + strconv.Itoa(q), func() error { _, err := b.RecordAnswer(e.ctx, "Ali", q); return err }, kuis.ErrInvalidQuestion},
			tc{"RecordAnswers question " + strconv.Itoa(q), func() error {
				_, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: "Citra", Question: q}})
				return err
			}, kuis.ErrInvalidQuestion})
	}
	for _, r := range []struct{ offset, limit int }{{-1, 10}, {0, 0}, {0, 1001}, {math.MinInt, 1}, {0, math.MaxInt}} {
		cases = append(cases, tc{fmt.Sprintf("Page(%d, %d)", r.offset, r.limit), func() error {
			_, err := b.Page(e.ctx, r.offset, r.limit)
			return err
		}, kuis.ErrInvalidRange})
	}
	for _, radius := range []int{-1, 501, math.MaxInt, math.MinInt} {
		cases = append(cases, tc{"Around radius " + strconv.Itoa(radius), func() error { _, err := b.Around(e.ctx, "Ali", radius); return err }, kuis.ErrInvalidRange})
	}
	badIDs := map[string]string{"empty": "", "65 bytes": strings.Repeat("q", 65), "glob": "kuis-*", "colon": "a:b", "brace": "{a}", "space": "a b", "1 MB": mb}
	for label, bad := range badIDs {
		cases = append(cases,
			tc{"NewBoard ID " + label, func() error { _, err := kuis.NewBoard(e.client, bad, e.opts...); return err }, kuis.ErrInvalidQuizID},
			tc{"NewMeta ID " + label, func() error { _, err := kuis.NewMeta(e.client, bad, e.opts...); return err }, kuis.ErrInvalidQuizID},
			tc{"TakeRecap ID " + label, func() error { _, err := kuis.TakeRecap(e.ctx, e.client, bad, e.opts...); return err }, kuis.ErrInvalidQuizID},
			tc{"Audit ID " + label, func() error { _, err := kuis.Audit(e.ctx, e.client, bad, e.opts...); return err }, kuis.ErrInvalidQuizID},
			tc{"PurgeQuiz ID " + label, func() error {
				_, err := kuis.PurgeQuiz(e.ctx, e.client, bad, func(context.Context, kuis.Recap) error { return nil }, e.opts...)
				return err
			}, kuis.ErrInvalidQuizID},
			// An invalid namespace must never widen Purge's pattern to other keys.
			tc{"Purge namespace " + label, func() error { _, err := kuis.Purge(e.ctx, e.client, kuis.WithNamespace(bad)); return err }, kuis.ErrInvalidNamespace},
			tc{"Quizzes namespace " + label, func() error { _, err := kuis.Quizzes(e.ctx, e.client, kuis.WithNamespace(bad)); return err }, kuis.ErrInvalidNamespace},
		)
	}
	cases = append(cases,
		tc{"PurgeQuiz nil archive", func() error { _, err := kuis.PurgeQuiz(e.ctx, e.client, id, nil, e.opts...); return err }, kuis.ErrNoArchive},
		tc{"NewBoard nil client", func() error { _, err := kuis.NewBoard(nil, id, e.opts...); return err }, kuis.ErrNoClient},
	)
	keys := []kuis.Keys{m.Keys(), fm.Keys()}
	snapshot := func() []map[string]string {
		var out []map[string]string
		for _, k := range keys {
			out = append(out, quizSnapshot(t, e.ctx, e.client, k))
		}
		return out
	}
	before := snapshot()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !sameSentinel(err, c.wantErr) {
				t.Errorf("err = %v, want %v", err, c.wantErr)
			}
		})
	}
	if diff := cmp.Diff(before, snapshot()); diff != "" {
		t.Errorf("refused input changed keys (-before +after):\n%s", diff)
	}
	// A page past any int64 end is empty, not a wrap-around to the top.
	if page, err := b.Page(e.ctx, math.MaxInt, 1000); err != nil || len(page) != 0 {
		t.Errorf("Page(MaxInt, 1000) = %v, %v; want empty", page, err)
	}
}
