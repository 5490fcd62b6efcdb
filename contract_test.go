package kuis_test

import (
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

func TestContractTable(t *testing.T) {
	table := func(board, meta, answers string) string {
		return "| key | type | writer | readers | content | scale | TTL |\n" +
			"|---|---|---|---|---|---|---|\n" +
			"| `" + board + "` | sorted set | quiz application | students and teacher | " +
			"member = participant name, score = cumulative points (10 per correct answer) | " +
			"one key per quiz, one member per participant | none while the quiz runs |\n" +
			"| `" + meta + "` | hash | teacher | teacher and quiz application | " +
			"fields `judul` (title), `jumlah_soal` (question count), `status` (`berjalan` or `selesai`) | " +
			"one key per quiz, three fields | none while the quiz runs |\n" +
			"| `" + answers + "` | set | quiz application | quiz application and teacher (audit) | " +
			"member = `<question>:<participant>` per counted answer | " +
			"one key per quiz, one member per counted answer | none while the quiz runs |\n"
	}
	tests := []struct {
		name string
		opts []kuis.Option
		want string
	}{
		{"default", nil, table("kuis:papan:<quiz>", "kuis:meta:<quiz>", "kuis:jawaban:<quiz>")},
		{"namespaced and hash-tagged", []kuis.Option{kuis.WithNamespace("sekolah"), kuis.WithHashTag()},
			table("sekolah:papan:{<quiz>}", "sekolah:meta:{<quiz>}", "sekolah:jawaban:{<quiz>}")},
	}
	for _, tt := range tests {
		got, err := kuis.ContractTable(tt.opts...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: ContractTable (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestAuditCleanAndMissing(t *testing.T) {
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
// Dewi 10, with their nine answers) with raw commands, as a buggy or foreign
// client would, and expects exactly these violations, in Audit's order.
func TestAuditViolations(t *testing.T) {
	const ttl = "expires in N ms; the contract allows no TTL"
	tests := []struct {
		name  string
		setup func(e *env, k kuis.Keys)
		want  [][3]string // key ("m", "b", "a": meta, board, answers), rule, detail
	}{
		{"10 points more than answers", func(e *env, k kuis.Keys) { e.mustRaw("ZINCRBY", k.Board(), "10", "Dewi") },
			[][3]string{{"b", "score", `member "Dewi" has 20 points for 1 counted answers, want 10`}}},
		{"fewer points than answers", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "2:Dewi") },
			[][3]string{{"b", "score", `member "Dewi" has 10 points for 2 counted answers, want 20`}}},
		{"points but no answers", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Eka") },
			[][3]string{{"b", "score", `member "Eka" has 10 points for 0 counted answers, want 0`}}},
		{"answers but not on the board", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "1:Eka") },
			[][3]string{{"b", "score", `member "Eka" has 0 points for 1 counted answers, want 10`}}},
		{"score 15", func(e *env, k kuis.Keys) { e.mustRaw("ZINCRBY", k.Board(), "5", "Dewi") }, [][3]string{
			{"b", "score", `member "Dewi" has score 15, want a non-negative multiple of 10`},
			{"b", "score", `member "Dewi" has 15 points for 1 counted answers, want 10`}}},
		{"score -10 of an invalid name", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "-10", "Eka\n") }, [][3]string{
			{"b", "member", `participant "Eka\n" is not 1 to 64 bytes of UTF-8 without control characters`},
			{"b", "score", `member "Eka\n" has score -10, want a non-negative multiple of 10`},
			{"b", "score", `member "Eka\n" has -10 points for 0 counted answers, want 0`}}},
		{"TTLs", func(e *env, k kuis.Keys) {
			e.mustRaw("PEXPIRE", k.Meta(), "600000")
			e.mustRaw("PEXPIRE", k.Answers(), "600000")
		}, [][3]string{{"m", "ttl", ttl}, {"a", "ttl", ttl}}},
		{"meta string", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Meta()); e.mustRaw("SET", k.Meta(), "berjalan") },
			[][3]string{{"m", "type", "is a string, want a hash"}}},
		{"board list", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Board()); e.mustRaw("RPUSH", k.Board(), "Ali") },
			[][3]string{{"b", "type", "is a list, want a zset"}}},
		{"answers sorted set", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Answers()); e.mustRaw("ZADD", k.Answers(), "1", "1:Ali") },
			[][3]string{{"a", "type", "is a zset, want a set"}}},
		{"no meta", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Meta()) },
			[][3]string{{"m", "exists", "missing while other keys of the quiz exist"}}},
		{"meta fields", func(e *env, k kuis.Keys) {
			e.mustRaw("HDEL", k.Meta(), "status")
			e.mustRaw("HSET", k.Meta(), "warna", "merah", "judul", "", "jumlah_soal", "03")
		}, [][3]string{
			{"m", "field", "field status is missing"},
			{"m", "field", `unexpected field "warna"`},
			{"m", "judul", `judul "" is not 1 to 200 bytes of UTF-8 without control characters`},
			{"m", "jumlah_soal", `jumlah_soal is "03", want a positive integer`}}},
		{"unknown status", func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "status", "jeda") },
			[][3]string{{"m", "status", `status is "jeda", want "berjalan" or "selesai"`}}},
		{"malformed answers", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "0:Ali", "01:Ali", "x", "1:") }, [][3]string{
			{"a", "answer", `member "01:Ali" is not <question>:<participant>`},
			{"a", "answer", `member "0:Ali" is not <question>:<participant>`},
			{"a", "answer", `member "1:" names an invalid participant`},
			{"a", "answer", `member "x" is not <question>:<participant>`}}},
		{"an answer above jumlah_soal still counts", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "5:Ali") }, [][3]string{
			{"a", "answer", `member "5:Ali" answers question 5 of 3`},
			{"b", "score", `member "Ali" has 30 points for 4 counted answers, want 40`}}},
	}
	digits := regexp.MustCompile(`in \d+ ms`)
	e := newEnv(t)
	for _, tt := range tests {
		id, _, _ := e.reference()
		k := e.keys(id)
		tt.setup(e, k)
		got, err := e.store.Audit(e.ctx, id)
		if err != nil {
			t.Fatalf("%s: Audit: %v", tt.name, err)
		}
		names := map[string]string{"m": k.Meta(), "b": k.Board(), "a": k.Answers()}
		want := []kuis.Violation{}
		for _, w := range tt.want {
			want = append(want, kuis.Violation{Key: names[w[0]], Rule: w[1], Detail: w[2]})
		}
		for i := range got {
			got[i].Detail = digits.ReplaceAllString(got[i].Detail, "in N ms")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Audit (-want +got):\n%s", tt.name, diff)
		}
	}
}
