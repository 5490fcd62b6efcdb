package kuis_test

// Hostile data: raw writes that break the contract (keys of the wrong type,
// bad scores, malformed or huge meta, invalid or huge members, TTLs). Every
// public method on such a quiz must answer its typed error or its normal
// result, never panic, and never write when it refuses; Audit must report it.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// sentinelsOf lists the library sentinels (kuis.Sentinels, fuzz_test.go) err wraps: a
// refusal wraps exactly one.
func sentinelsOf(err error) []error {
	var out []error
	for _, s := range kuis.Sentinels {
		if errors.Is(err, s) {
			out = append(out, s)
		}
	}
	return out
}

// hostileCall is one public method, called on quiz id in a fixed, valid way.
type hostileCall struct {
	name  string
	write bool
	call  func(e *env, id string) error
}

var hostileCalls = []hostileCall{
	{"Standings", false, func(e *env, id string) error { _, err := e.board(id).Standings(e.ctx); return err }},
	{"Page", false, func(e *env, id string) error { _, err := e.board(id).Page(e.ctx, 1, 10); return err }},
	{"Around", false, func(e *env, id string) error { _, err := e.board(id).Around(e.ctx, "Ali", 1); return err }},
	{"Standing", false, func(e *env, id string) error { _, err := e.board(id).Standing(e.ctx, "Ali"); return err }},
	{"Len", false, func(e *env, id string) error { _, err := e.board(id).Len(e.ctx); return err }},
	{"Summary", false, func(e *env, id string) error { _, err := e.board(id).Summary(e.ctx); return err }},
	{"Answered", false, func(e *env, id string) error { _, err := e.board(id).Answered(e.ctx, "Ali"); return err }},
	{"Get", false, func(e *env, id string) error { _, err := e.meta(id).Get(e.ctx); return err }},
	{"Status", false, func(e *env, id string) error { _, err := e.meta(id).Status(e.ctx); return err }},
	{"Recap", false, func(e *env, id string) error { _, err := e.store.Recap(e.ctx, id); return err }},
	{"RecordAnswer", true, func(e *env, id string) error { _, err := e.board(id).RecordAnswer(e.ctx, "Ali", 3); return err }},
	{"RecordAnswers", true, func(e *env, id string) error {
		// Both for Ali, so that both meet the same corruption.
		res, err := e.board(id).RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: "Ali", Question: 3}, {Participant: "Ali", Question: 4}})
		if err != nil {
			return err
		}
		if a, b := sentinelsOf(res[0].Err), sentinelsOf(res[1].Err); len(a) != len(b) || len(a) == 1 && !errors.Is(a[0], b[0]) {
			return fmt.Errorf("entries disagree: %w and %w", res[0].Err, res[1].Err)
		}
		return res[0].Err
	}},
	{"Finish", true, func(e *env, id string) error { return e.meta(id).Finish(e.ctx) }},
	{"Create", true, func(e *env, id string) error { return e.meta(id).Create(e.ctx, "Kuis Baru", 3) }},
	{"PurgeQuiz", true, func(e *env, id string) error {
		_, err := e.store.PurgeQuiz(e.ctx, id, func(context.Context, kuis.Recap) error { return nil })
		return err
	}},
}

// Method groups for the expectations below.
var (
	boardReads = []string{"Standings", "Page", "Around", "Standing", "Len"}
	scoreReads = []string{"Standings", "Page", "Around", "Standing", "Recap", "PurgeQuiz"}
	records    = []string{"RecordAnswer", "RecordAnswers"}
	progress   = []string{"Summary", "Answered"} // both decode the whole meta hash
	metaUsers  = append([]string{"Get", "Status", "Recap", "PurgeQuiz", "Finish", "RecordAnswer", "RecordAnswers"}, progress...)
	soalUsers  = append([]string{"Get", "Recap", "PurgeQuiz", "Finish", "RecordAnswer", "RecordAnswers"}, progress...)
)

// expect maps every method of the groups to err.
func expect(err error, groups ...[]string) map[string]error {
	out := map[string]error{}
	for _, g := range groups {
		for _, name := range g {
			out[name] = err
		}
	}
	return out
}

// hostileQuiz creates a quiz of 5 questions in which Ali answered questions 1
// and 2 (20 points) and Budi question 1 (10 points), finished if asked.
func (e *env) hostileQuiz(finished bool) string {
	e.t.Helper()
	id, _, b := e.running(5)
	for _, a := range []kuis.AnswerInput{{Participant: "Ali", Question: 1}, {Participant: "Ali", Question: 2}, {Participant: "Budi", Question: 1}} {
		if _, err := b.RecordAnswer(e.ctx, a.Participant, a.Question); err != nil {
			e.t.Fatalf("RecordAnswer(%v): %v", a, err)
		}
	}
	if finished {
		e.finish(id)
	}
	return id
}

// replace writes key anew as a value of the given type.
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
	}
}

// TestHostileDataAnswersTypedAndRefusalsWriteNothing breaks a quiz in one way
// per row with raw commands, then calls every method on it. Each returns
// exactly the expected sentinel (what the healthy quiz answers unless the row
// says otherwise) and nothing else: ErrCorrupt naming the broken key,
// ErrQuizNotFound without meta, other errors naming no key at all, every text
// one line of bounded length even with 1 MB values. Reads change no key; a
// write that returns an error leaves the quiz's keys exactly as they were
// (each write gets a fresh quiz, broken the same way). Audit reports the
// row's violation, on the broken key.
func TestHostileDataAnswersTypedAndRefusalsWriteNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	type row struct {
		name     string
		finished bool
		brk      func(e *env, k kuis.Keys) string // breaks the quiz and returns the broken key
		want     map[string]error                 // overrides of the healthy quiz's answers
		rule     string                           // the Violation.Rule Audit reports on the broken key
	}
	meta := func(k kuis.Keys) string { return k.Meta() }
	board := func(k kuis.Keys) string { return k.Board() }
	answers := func(k kuis.Keys) string { return k.Answers() }
	logKey := func(k kuis.Keys) string { return k.Log() }
	order := func(k kuis.Keys) string { return k.Order() }
	raw := func(key func(kuis.Keys) string, cmd string, args ...string) func(*env, kuis.Keys) string {
		return func(e *env, k kuis.Keys) string { e.mustRaw(cmd, key(k), args...); return key(k) }
	}
	retype := func(key func(kuis.Keys) string, typ string) func(*env, kuis.Keys) string {
		return func(e *env, k kuis.Keys) string { e.replace(key(k), typ); return key(k) }
	}
	mb := strings.Repeat("x", 1<<20)
	var rows []row
	for _, typ := range []string{"string", "list", "set", "zset"} {
		rows = append(rows, row{"meta is a " + typ, false, retype(meta, typ),
			expect(kuis.ErrCorrupt, boardReads, metaUsers), "type"})
	}
	for _, typ := range []string{"string", "list", "set", "hash"} {
		rows = append(rows, row{"board is a " + typ, false, retype(board, typ),
			expect(kuis.ErrCorrupt, boardReads, []string{"Summary", "Recap", "PurgeQuiz"}, records), "type"})
	}
	rows = append(rows, row{"finished, board is a hash", true, retype(board, "hash"),
		expect(kuis.ErrCorrupt, boardReads, []string{"Summary", "Recap", "PurgeQuiz"}), "type"})
	for _, typ := range []string{"string", "list", "hash", "zset"} {
		rows = append(rows, row{"answers is a " + typ, false, retype(answers, typ),
			expect(kuis.ErrCorrupt, records, progress, []string{"Recap", "PurgeQuiz"}), "type"})
	}
	// The recap archives every answer, so a broken answers set or log refuses it, and PurgeQuiz with it.
	rows = append(rows, row{"finished, answers is a string", true, retype(answers, "string"),
		expect(kuis.ErrCorrupt, progress, []string{"Recap", "PurgeQuiz"}), "type"})
	for _, typ := range []string{"string", "hash", "zset"} {
		rows = append(rows, row{"log is a " + typ, false, retype(logKey, typ),
			expect(kuis.ErrCorrupt, records, []string{"Recap", "PurgeQuiz"}), "type"})
	}
	for _, typ := range []string{"string", "hash", "set"} {
		// Name order never reads the order set; only the writes that place a participant refuse.
		rows = append(rows, row{"order is a " + typ, false, retype(order, typ), expect(kuis.ErrCorrupt, records), "type"})
	}
	for _, score := range []string{"15", "12.5", "-10", "1e300", "inf", "-inf", "9007199254740994"} {
		rows = append(rows, row{"Ali's score is " + score, false, raw(board, "ZADD", score, "Ali"),
			expect(kuis.ErrCorrupt, scoreReads, records), "score"})
	}
	rows = append(rows,
		row{"finished, Ali's score is 15", true, raw(board, "ZADD", "15", "Ali"),
			expect(kuis.ErrCorrupt, scoreReads), "score"},
		// The error names the member cut to 64 bytes, not 1 MB of it.
		row{"a 1 MB member has score 5", false, raw(board, "ZADD", "5", mb),
			expect(kuis.ErrCorrupt, []string{"Standings", "Page", "Recap", "PurgeQuiz"}), "member"},
		row{"Ali has 10 points more than his answers", false, raw(board, "ZINCRBY", "10", "Ali"), nil, "score"},
		// Names on the board are returned as they are, but for the archive,
		// which JSON cannot keep byte for byte; Audit reports them.
		row{"board holds invalid names", false, raw(board, "ZADD", "0", "bad\x00name", "0", "\xff\xfe", "0", mb),
			expect(kuis.ErrCorrupt, []string{"Recap", "PurgeQuiz"}), "member"},
		row{"answers holds malformed members", false, raw(answers, "SADD", "x", "0:Ali", "9:Ali", "3:", ":Ali", mb),
			expect(kuis.ErrCorrupt, []string{"Recap", "PurgeQuiz"}), "answer"},
		// The write gate needs only status and jumlah_soal; the reads that return the title refuse.
		row{"meta lacks judul", false, raw(meta, "HDEL", "judul"),
			expect(kuis.ErrCorrupt, progress, []string{"Get", "Recap", "PurgeQuiz"}), "field"},
		row{"meta lacks status", false, raw(meta, "HDEL", "status"), expect(kuis.ErrCorrupt, metaUsers), "field"},
		row{"meta lacks jumlah_soal", false, raw(meta, "HDEL", "jumlah_soal"), expect(kuis.ErrCorrupt, soalUsers), "field"},
		row{"status is SELESAI", false, raw(meta, "HSET", "status", "SELESAI"), expect(kuis.ErrCorrupt, metaUsers), "status"},
		row{"status holds a newline", false, raw(meta, "HSET", "status", "selesai\nberjalan"), expect(kuis.ErrCorrupt, metaUsers), "status"},
		row{"status is 1 MB", false, raw(meta, "HSET", "status", mb), expect(kuis.ErrCorrupt, metaUsers), "status"},
		row{"jumlah_soal is 03", false, raw(meta, "HSET", "jumlah_soal", "03"), expect(kuis.ErrCorrupt, soalUsers), "jumlah_soal"},
		row{"jumlah_soal is -5", false, raw(meta, "HSET", "jumlah_soal", "-5"), expect(kuis.ErrCorrupt, soalUsers), "jumlah_soal"},
		row{"finished, jumlah_soal is lima", true, raw(meta, "HSET", "jumlah_soal", "lima"),
			expect(kuis.ErrCorrupt, soalUsers), "jumlah_soal"},
		row{"meta has a 1 MB extra field", true, raw(meta, "HSET", "catatan", mb), nil, "field"},
		// A 1 MB judul is read back as it is (reads do not judge the title).
		row{"judul is 1 MB", false, raw(meta, "HSET", "judul", mb), nil, "judul"},
		row{"meta is missing", false, raw(meta, "DEL"), expect(kuis.ErrQuizNotFound, boardReads, metaUsers), "exists"},
		row{"board has a TTL", false, raw(board, "PEXPIRE", "3600000"), nil, "ttl"},
		row{"meta has a TTL", true, raw(meta, "PEXPIRE", "3600000"), nil, "ttl"},
	)

	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			want := map[string]error{"Create": kuis.ErrQuizExists, "PurgeQuiz": kuis.ErrQuizRunning}
			if r.finished {
				want = expect(kuis.ErrQuizFinished, records)
				want["Create"] = kuis.ErrQuizExists
			}
			for name, err := range r.want {
				want[name] = err
			}
			check := func(name, broken string, err error) {
				t.Helper()
				switch got := sentinelsOf(err); {
				case want[name] == nil && err != nil, want[name] != nil && (len(got) != 1 || !errors.Is(got[0], want[name])):
					t.Errorf("%s = %v, want %v", name, err, want[name])
				case err == nil:
				case len(err.Error()) > 512 || strings.ContainsAny(err.Error(), "\r\n"):
					t.Errorf("%s: error text of %d bytes is not one short line: %.200q", name, len(err.Error()), err)
				case errors.Is(err, kuis.ErrCorrupt) && !strings.Contains(err.Error(), broken):
					t.Errorf("%s = %v, want the broken key %s named", name, err, broken)
				case !errors.Is(err, kuis.ErrCorrupt) && strings.Contains(err.Error(), e.ns):
					t.Errorf("%s = %v names a key", name, err)
				}
			}
			// The reads share one quiz.
			id := e.hostileQuiz(r.finished)
			k := e.keys(id)
			broken := r.brk(e, k)
			before := e.dump(fiveKeys(k)...)
			for _, c := range hostileCalls {
				if !c.write {
					check(c.name, broken, c.call(e, id))
				}
			}
			v, err := e.store.Audit(e.ctx, id)
			if err != nil || !hasViolation(v, broken, r.rule) {
				t.Errorf("Audit = %v, %v; want a %q violation on %s", v, err, r.rule, broken)
			}
			if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
				t.Errorf("reads and Audit changed the quiz (-before +after):\n%s", diff)
			}
			for _, c := range hostileCalls {
				if !c.write {
					continue
				}
				id := e.hostileQuiz(r.finished)
				k := e.keys(id)
				broken := r.brk(e, k)
				before := e.dump(fiveKeys(k)...)
				err := c.call(e, id)
				check(c.name, broken, err)
				if err == nil {
					continue
				}
				if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
					t.Errorf("%s refused (%v) but changed the quiz (-before +after):\n%s", c.name, err, diff)
				}
			}
		})
	}
}

// hasViolation reports whether v holds a violation of rule on key.
func hasViolation(v []kuis.Violation, key, rule string) bool {
	for _, x := range v {
		if x.Key == key && x.Rule == rule {
			return true
		}
	}
	return false
}

// TestHostileHugeBoardReadsWholeAndInOrder: a board of 100,000 participants
// written raw (scores 10 to 1,000,000) is read whole and in order, paged to
// its end, read around its last place with the largest radius, ranked,
// counted, recapped and written to CSV without truncation, and still takes
// answers.
func TestHostileHugeBoardReadsWholeAndInOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(5)
	const n = 100_000
	for start := 0; start < n; start += 10_000 {
		args := make([]string, 0, 20_000)
		for i := start; i < start+10_000; i++ {
			args = append(args, strconv.Itoa(10*(i+1)), fmt.Sprintf("p%06d", i))
		}
		e.mustRaw("ZADD", e.keys(id).Board(), args...)
	}
	// at is the standing at place r: participant n-r, with 10 x (n-r+1) points.
	at := func(r int) kuis.Standing {
		return kuis.Standing{Rank: r, CompetitionRank: r, Participant: fmt.Sprintf("p%06d", n-r), Score: int64(10 * (n - r + 1))}
	}
	standings, err := b.Standings(e.ctx)
	if err != nil || len(standings) != n {
		t.Fatalf("Standings = %d standings, %v; want %d", len(standings), err, n)
	}
	for i, s := range standings {
		if s != at(i+1) {
			t.Fatalf("Standings[%d] = %+v, want %+v", i, s, at(i+1))
		}
	}
	if page, err := b.Page(e.ctx, n-10, 1000); err != nil || !slices.Equal(page, standings[n-10:]) {
		t.Errorf("Page(%d, 1000) = %d standings, %v; want the last 10", n-10, len(page), err)
	}
	if around, err := b.Around(e.ctx, "p000000", 500); err != nil || !slices.Equal(around, standings[n-501:]) {
		t.Errorf("Around(last, 500) = %d standings, %v; want the last 501", len(around), err)
	}
	if s, err := b.Standing(e.ctx, "p050000"); err != nil || s != at(n-50000) {
		t.Errorf("Standing(p050000) = %+v, %v; want %+v", s, err, at(n-50000))
	}
	if got, err := b.Len(e.ctx); err != nil || got != n {
		t.Errorf("Len = %d, %v; want %d", got, err, n)
	}
	if a, err := b.RecordAnswer(e.ctx, "p000000", 1); err != nil || a != (kuis.Answer{Score: 20}) {
		t.Errorf("RecordAnswer on the huge board = %+v, %v; want score 20", a, err)
	}
	if rows := e.csvRows(id); len(rows) != n+1 || rows[n][2] != "p000000" {
		t.Errorf("CSV has %d rows, want the header and %d, the last for p000000", len(rows), n)
	}
}

// TestOrderSetNeverGivesScores: with TiesByTime the order set only orders
// the board. Every read takes its scores from the board, and one that finds
// the order set placing a member for other points than the board's (here a
// tampered place of the right size: 0 answers for Ali's 30 points) refuses
// with ErrCorrupt naming the order set, cached or not, read in one script or
// in parts; PurgeQuiz archives nothing and deletes nothing.
func TestOrderSetNeverGivesScores(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.reference()
	e.finish(id)
	k := e.keys(id)
	stores := map[string]*kuis.Store{
		"plain":    e.storeOn(e.client, kuis.WithTies(kuis.TiesByTime)),
		"cached":   e.storeOn(e.client, kuis.WithTies(kuis.TiesByTime), cacheMinute),
		"in parts": e.tunedOn(e.client, kuis.Tuning{RecapInParts: true}, kuis.WithTies(kuis.TiesByTime)),
	}
	for name, s := range stores { // untouched: the board's scores, in time order
		r, err := s.Recap(e.ctx, id)
		if err != nil || len(r.Standings) != 4 || r.Standings[0].Score != 30 {
			t.Errorf("%s: Recap = %+v, %v", name, r.Standings, err)
		}
	}
	e.mustRaw("ZADD", k.Order(), "5", "Ali")
	before := e.dump(fiveKeys(k)...)
	for name, s := range stores {
		b, _ := handles(t, s, id)
		reads := map[string]func() error{
			"Standings": func() error { _, err := b.Standings(e.ctx); return err },
			"Page":      func() error { _, err := b.Page(e.ctx, 2, 5); return err }, // Ali is placed last
			"Around":    func() error { _, err := b.Around(e.ctx, "Ali", 1); return err },
			"Standing":  func() error { _, err := b.Standing(e.ctx, "Ali"); return err },
			"Recap":     func() error { _, err := s.Recap(e.ctx, id); return err },
			"PurgeQuiz": func() error {
				_, err := s.PurgeQuiz(e.ctx, id, func(context.Context, kuis.Recap) error {
					t.Errorf("%s: PurgeQuiz archived a recap of a corrupt order set", name)
					return nil
				})
				return err
			},
		}
		for read, call := range reads {
			if err := call(); !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(err.Error(), k.Order()) {
				t.Errorf("%s: %s = %v; want ErrCorrupt naming %s", name, read, err, k.Order())
			}
		}
	}
	if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
		t.Errorf("keys after the refused reads (-before +after):\n%s", diff)
	}
}
