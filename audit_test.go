package kuis_test

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

func TestAuditCleanAndMissing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.reference()
	empty, _, _ := e.running(3)
	for _, step := range []string{"running", "finished"} {
		for _, q := range []string{id, empty} {
			if got, err := e.store.Audit(e.ctx, q); err != nil || got == nil || len(got) != 0 {
				t.Errorf("Audit of the %s quiz %s = %#v, %v; want an empty, non-nil slice", step, q, got, err)
			}
		}
		e.finish(id)
		e.finish(empty)
	}
	if got, err := e.store.Audit(e.ctx, quizID()); !errors.Is(err, kuis.ErrQuizNotFound) || got != nil {
		t.Errorf("Audit of a quiz without keys = %v, %v; want nil, ErrQuizNotFound", got, err)
	}
}

// TestAuditViolations breaks the reference quiz (Citra 30, Ali 30, Budi 20,
// Dewi 10, with their nine answers, logged and placed) with raw commands, as
// a buggy or foreign client would, and expects exactly these violations, in
// Audit's order. In a detail, T(name) stands for the time in ms of name's
// latest answer in the reference session's log, and Pn(name) for the order
// set's score of n answers at that time: n x 2^42 + 2^42 - 1 - T(name).
func TestAuditViolations(t *testing.T) {
	t.Parallel()
	const ttl = "expires in N ms; the contract allows no TTL"
	const later = "4000000000000-0" // a log entry ID after every real one (the year 2096)
	tests := []struct {
		name  string
		setup func(e *env, k kuis.Keys)
		want  [][3]string // key ("m", "b", "a", "l", "o": meta, board, answers, log, order), rule, detail
	}{
		{"10 points more than answers", func(e *env, k kuis.Keys) { e.mustRaw("ZINCRBY", k.Board(), "10", "Dewi") },
			[][3]string{{"b", "score", `member "Dewi" has 20 points for 1 counted answers, want 10`}}},
		{"fewer points than answers", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "2:Dewi") }, [][3]string{
			{"b", "score", `member "Dewi" has 10 points for 2 counted answers, want 20`},
			{"l", "log", `answer "2:Dewi" is counted but not logged`},
			{"o", "order", `member "Dewi" has score P1(Dewi), want P2(Dewi) for 2 answers, the latest at T(Dewi) ms`}}},
		{"points but no answers", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Eka") }, [][3]string{
			{"b", "score", `member "Eka" has 10 points for 0 counted answers, want 0`},
			{"o", "order", `board member "Eka" has no place`}}},
		{"answers but not on the board", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "1:Eka") }, [][3]string{
			{"b", "score", `member "Eka" has 0 points for 1 counted answers, want 10`},
			{"l", "log", `answer "1:Eka" is counted but not logged`}}},
		{"score 15", func(e *env, k kuis.Keys) { e.mustRaw("ZINCRBY", k.Board(), "5", "Dewi") }, [][3]string{
			{"b", "score", `member "Dewi" has score 15, want a non-negative multiple of 10`},
			{"b", "score", `member "Dewi" has 15 points for 1 counted answers, want 10`}}},
		{"score -10 of an invalid name", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "-10", "Eka\n") }, [][3]string{
			{"b", "member", `participant "Eka\n" has white space around it (CleanParticipant trims it)`},
			{"b", "score", `member "Eka\n" has score -10, want a non-negative multiple of 10`},
			{"b", "score", `member "Eka\n" has -10 points for 0 counted answers, want 0`},
			{"o", "order", `board member "Eka\n" has no place`}}},
		{"TTLs", func(e *env, k kuis.Keys) {
			for _, key := range []string{k.Meta(), k.Answers(), k.Log(), k.Order()} {
				e.mustRaw("PEXPIRE", key, "600000")
			}
		}, [][3]string{{"m", "ttl", ttl}, {"a", "ttl", ttl}, {"l", "ttl", ttl}, {"o", "ttl", ttl}}},
		{"meta string", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Meta()); e.mustRaw("SET", k.Meta(), "berjalan") },
			[][3]string{{"m", "type", "is a string, want a hash"}}},
		{"board list", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Board()); e.mustRaw("RPUSH", k.Board(), "Ali") },
			[][3]string{{"b", "type", "is a list, want a zset"}}},
		{"answers sorted set", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Answers()); e.mustRaw("ZADD", k.Answers(), "1", "1:Ali") },
			[][3]string{{"a", "type", "is a zset, want a set"}}},
		{"log string, order stream", func(e *env, k kuis.Keys) {
			e.mustRaw("DEL", k.Log(), k.Order())
			e.mustRaw("SET", k.Log(), "catatan")
			e.mustRaw("XADD", k.Order(), "*", "peserta", "Ali")
		}, [][3]string{{"l", "type", "is a string, want a stream"}, {"o", "type", "is a stream, want a zset"}}},
		{"no meta", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Meta()) },
			[][3]string{{"m", "exists", "missing while other keys of the quiz exist"}}},
		{"meta fields", func(e *env, k kuis.Keys) {
			e.mustRaw("HDEL", k.Meta(), "status")
			e.mustRaw("HSET", k.Meta(), "warna", "merah", "judul", "", "jumlah_soal", "03")
		}, [][3]string{
			{"m", "field", "field status is missing"},
			{"m", "field", `unexpected field "warna"`},
			{"m", "judul", `judul "" is not 1 to 200 bytes of UTF-8 without control characters`},
			{"m", "jumlah_soal", `jumlah_soal is "03", want a positive integer of at most 1000`}}},
		// Revision 5's fields: valid ones are no violation.
		{"course, class and view", func(e *env, k kuis.Keys) {
			e.mustRaw("HSET", k.Meta(), "kursus", "mat-8a", "kelas", "8a", "tampilan", "akhir")
		}, nil},
		{"view tampil", func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "tampilan", "tampil") }, nil},
		{"view sembunyi", func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "tampilan", "sembunyi") }, nil},
		{"course, class and view out of form", func(e *env, k kuis.Keys) {
			e.mustRaw("HSET", k.Meta(), "kursus", "mat:8a", "kelas", "", "tampilan", "Tampil", "Kursus", "mat")
		}, [][3]string{
			{"m", "field", `unexpected field "Kursus"`},
			{"m", "kelas", `kelas is "", want a class ID`},
			{"m", "kursus", `kursus is "mat:8a", want a course ID`},
			{"m", "tampilan", `tampilan is "Tampil", want "tampil", "sembunyi" or "akhir"`}}},
		{"unknown status", func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "status", "jeda") },
			[][3]string{{"m", "status", `status is "jeda", want "berjalan" or "selesai"`}}},
		{"malformed answers", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "0:Ali", "01:Ali", "x", "1:") }, [][3]string{
			{"a", "answer", `member "01:Ali" is not <question>:<participant>`},
			{"a", "answer", `member "0:Ali" is not <question>:<participant>`},
			{"a", "answer", `member "1:" names an invalid participant`},
			{"a", "answer", `member "x" is not <question>:<participant>`}}},
		// A question number above jumlah_soal is no answer of the quiz: it counts for nothing.
		{"an answer above jumlah_soal", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "5:Ali") }, [][3]string{
			{"a", "answer", `member "5:Ali" answers question 5 of 3`}}},
		{"a log entry of an answer never counted", func(e *env, k kuis.Keys) {
			e.mustRaw("XADD", k.Log(), later, "peserta", "Eka", "soal", "1", "skor", "10")
		}, [][3]string{{"l", "log", `entry ` + later + ` logs answer "1:Eka", which the answers set does not hold`}}},
		{"an answer logged twice", func(e *env, k kuis.Keys) {
			e.mustRaw("XADD", k.Log(), later, "peserta", "Dewi", "soal", "3", "skor", "10")
		}, [][3]string{
			// Only an answer's first entry places its participant: Dewi's place stands.
			{"l", "log", `entry ` + later + ` logs answer "3:Dewi" a second time`}}},
		{"an entry without participant", func(e *env, k kuis.Keys) { e.mustRaw("XADD", k.Log(), later, "soal", "1") },
			[][3]string{{"l", "log", `entry ` + later + ` has no valid peserta and soal`}}},
		{"a finish entry while the quiz runs", func(e *env, k kuis.Keys) { e.mustRaw("XADD", k.Log(), later, "status", "selesai") },
			[][3]string{{"l", "log", `finish entry ` + later + ` while the status is berjalan`}}},
		{"an entry after the finish", func(e *env, k kuis.Keys) {
			e.mustRaw("HSET", k.Meta(), "status", "selesai")
			e.mustRaw("XADD", k.Log(), later, "status", "selesai")
			e.mustRaw("XADD", k.Log(), "4000000000001-0", "peserta", "Dewi", "soal", "2", "skor", "20")
		}, [][3]string{
			{"l", "log", `entry 4000000000001-0 follows the finish entry ` + later},
			{"l", "log", `entry 4000000000001-0 logs answer "2:Dewi", which the answers set does not hold`}}},
		{"a counted answer not logged", func(e *env, k kuis.Keys) {
			e.mustRaw("SADD", k.Answers(), "2:Dewi")
			e.mustRaw("ZINCRBY", k.Board(), "10", "Dewi")
		}, [][3]string{
			{"l", "log", `answer "2:Dewi" is counted but not logged`},
			{"o", "order", `member "Dewi" has score P1(Dewi), want P2(Dewi) for 2 answers, the latest at T(Dewi) ms`}}},
		{"an order member not on the board", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Order(), "4398046511104", "Eka") },
			[][3]string{{"o", "order", `member "Eka" is not on the board`}}},
		{"a board member with no place", func(e *env, k kuis.Keys) { e.mustRaw("ZREM", k.Order(), "Dewi", "Ali") }, [][3]string{
			{"o", "order", `board member "Ali" has no place`},
			{"o", "order", `board member "Dewi" has no place`}}},
		// 2 answers at time 0: 3 x 2^42 - 1.
		{"the right points at the wrong time", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Order(), "13194139533311", "Budi") },
			[][3]string{{"o", "order", `member "Budi" has score 13194139533311, want P2(Budi) for 2 answers, the latest at T(Budi) ms`}}},
		{"a quiz written before the log and the order set existed", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Log(), k.Order()) }, [][3]string{
			{"l", "exists", "missing while 9 answers are counted: they have no time (written before the answer log)"},
			{"o", "exists", "missing while the board has 4 members: TiesByTime reads name order until Repair"}}},
		{"no order set", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Order()) },
			[][3]string{{"o", "exists", "missing while the board has 4 members: TiesByTime reads name order until Repair"}}},
	}
	digits := regexp.MustCompile(`in \d+ ms`)
	e := newEnv(t)
	for _, tt := range tests {
		id, _, _ := e.reference()
		k := e.keys(id)
		times := referenceTimes(e, k)
		tt.setup(e, k)
		got, err := e.store.Audit(e.ctx, id)
		if err != nil {
			t.Fatalf("%s: Audit: %v", tt.name, err)
		}
		names := map[string]string{"m": k.Meta(), "b": k.Board(), "a": k.Answers(), "l": k.Log(), "o": k.Order()}
		want := []kuis.Violation{}
		for _, w := range tt.want {
			want = append(want, kuis.Violation{Key: names[w[0]], Rule: w[1], Detail: times.Replace(w[2])})
		}
		for i := range got {
			got[i].Detail = digits.ReplaceAllString(got[i].Detail, "in N ms")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Audit (-want +got):\n%s", tt.name, diff)
		}
	}
}

// referenceTimes reads the log of a reference quiz and returns the replacer
// of TestAuditViolations: T(name) by the time in ms of name's latest entry,
// Pn(name) by the order set's score for n answers at that time.
func referenceTimes(e *env, k kuis.Keys) *strings.Replacer {
	e.t.Helper()
	latest := map[string]int64{}
	for _, l := range answerLog(e, k) {
		latest[l.Participant] = l.ms()
	}
	var pairs []string
	for name, ms := range latest {
		pairs = append(pairs, "T("+name+")", strconv.FormatInt(ms, 10))
		for n := int64(0); n <= 4; n++ {
			pairs = append(pairs, "P"+strconv.FormatInt(n, 10)+"("+name+")", place(n, ms))
		}
	}
	return strings.NewReplacer(pairs...)
}
