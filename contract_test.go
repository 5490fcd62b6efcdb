package kuis_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestAuditPassesTheReferenceSession: the contract's own session breaks no
// rule, running or finished.
func TestAuditPassesTheReferenceSession(t *testing.T) {
	e := newEnv(t)
	id, m, _ := e.reference()
	if v, err := kuis.Audit(e.ctx, e.client, id, e.opts...); err != nil || len(v) != 0 {
		t.Errorf("Audit of the running reference quiz = %v, %v; want no violations", v, err)
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := kuis.Audit(e.ctx, e.client, id, e.opts...); err != nil || len(v) != 0 {
		t.Errorf("Audit of the finished reference quiz = %v, %v; want no violations", v, err)
	}
}

// TestAuditMissingQuizIsNotFound: no key at all is an error, not an empty
// (clean) violation list.
func TestAuditMissingQuizIsNotFound(t *testing.T) {
	e := newEnv(t)
	v, err := kuis.Audit(e.ctx, e.client, quizID(), e.opts...)
	if !errors.Is(err, kuis.ErrQuizNotFound) || v != nil {
		t.Errorf("Audit = %v, %v; want nil, ErrQuizNotFound", v, err)
	}
}

// TestAuditReportsEachViolation breaks the reference quiz one way at a time
// (raw commands, as a buggy or foreign client would) and expects exactly one
// Violation per problem, naming the key, the rule, and in the detail the
// field or member.
func TestAuditReportsEachViolation(t *testing.T) {
	// want is one expected violation: which key (m, b, a: meta, board,
	// answers), the rule, and words the detail must hold.
	type want struct {
		key, rule string
		detail    []string
	}
	tests := []struct {
		name  string
		setup func(e *env, k kuis.Keys)
		want  []want
	}{
		{"TTL on meta", func(e *env, k kuis.Keys) { e.mustRaw("PEXPIRE", k.Meta(), "600000") },
			[]want{{"m", "ttl", nil}}},
		{"TTL on board", func(e *env, k kuis.Keys) { e.mustRaw("PEXPIRE", k.Board(), "600000") },
			[]want{{"b", "ttl", nil}}},
		{"TTL on answers", func(e *env, k kuis.Keys) {
			e.mustRaw("SADD", k.Answers(), "1:Ali")
			e.mustRaw("PEXPIRE", k.Answers(), "600000")
		}, []want{{"a", "ttl", nil}}},
		{"meta is a string", func(e *env, k kuis.Keys) {
			e.mustRaw("DEL", k.Meta())
			e.mustRaw("SET", k.Meta(), "berjalan")
		}, []want{{"m", "type", []string{"string", "hash"}}}},
		{"board is a list", func(e *env, k kuis.Keys) {
			e.mustRaw("DEL", k.Board())
			e.mustRaw("RPUSH", k.Board(), "Ali")
		}, []want{{"b", "type", []string{"list", "zset"}}}},
		{"answers is a sorted set", func(e *env, k kuis.Keys) {
			e.mustRaw("ZADD", k.Answers(), "1", "1:Ali")
		}, []want{{"a", "type", []string{"zset", "set"}}}},
		{"meta missing while the board exists", func(e *env, k kuis.Keys) { e.mustRaw("DEL", k.Meta()) },
			[]want{{"m", "exists", nil}}},
		{"score 15", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "15", "Eka") },
			[]want{{"b", "score", []string{`"Eka"`, "15"}}}},
		{"score -10", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "-10", "Eka") },
			[]want{{"b", "score", []string{`"Eka"`, "-10"}}}},
		{"score 12.5 on an existing member", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "12.5", "Dewi") },
			[]want{{"b", "score", []string{`"Dewi"`, "12.5"}}}},
		{"invalid participant name", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Eka\n") },
			[]want{{"b", "member", []string{`"Eka\n"`}}}},
		{"unknown status", func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "status", "jeda") },
			[]want{{"m", "status", []string{`"jeda"`}}}},
		{"missing judul", func(e *env, k kuis.Keys) { e.mustRaw("HDEL", k.Meta(), "judul") },
			[]want{{"m", "field", []string{"judul"}}}},
		{"missing status", func(e *env, k kuis.Keys) { e.mustRaw("HDEL", k.Meta(), "status") },
			[]want{{"m", "field", []string{"status"}}}},
		{"unexpected extra field", func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "warna", "merah") },
			[]want{{"m", "field", []string{`"warna"`}}}},
		{"empty judul", func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "judul", "") },
			[]want{{"m", "judul", nil}}},
		{`jumlah_soal "x"`, func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "jumlah_soal", "x") },
			[]want{{"m", "jumlah_soal", []string{`"x"`}}}},
		{`jumlah_soal "0"`, func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "jumlah_soal", "0") },
			[]want{{"m", "jumlah_soal", []string{`"0"`}}}},
		{`answer "0:Ali"`, func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "0:Ali") },
			[]want{{"a", "answer", []string{`"0:Ali"`}}}},
		{`answer "01:Ali"`, func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "01:Ali") },
			[]want{{"a", "answer", []string{`"01:Ali"`}}}},
		{`answer "x"`, func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "x") },
			[]want{{"a", "answer", []string{`"x"`}}}},
		{`answer "1:" names no participant`, func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "1:") },
			[]want{{"a", "answer", []string{`"1:"`}}}},
		{`answer "5:Ali" above jumlah_soal 3`, func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "5:Ali") },
			[]want{{"a", "answer", []string{`"5:Ali"`, "5", "3"}}}},
		{"score below 10 x counted answers", func(e *env, k kuis.Keys) {
			e.mustRaw("SADD", k.Answers(), "1:Dewi", "2:Dewi") // Dewi has 10 points
		}, []want{{"b", "score", []string{`"Dewi"`, "10", "20"}}}},
		{"counted answers of a participant not on the board", func(e *env, k kuis.Keys) {
			e.mustRaw("SADD", k.Answers(), "1:Eka")
		}, []want{{"b", "score", []string{`"Eka"`}}}},
		{"two problems, two violations, in key order", func(e *env, k kuis.Keys) {
			e.mustRaw("ZADD", k.Board(), "15", "Eka")
			e.mustRaw("PEXPIRE", k.Meta(), "600000")
		}, []want{{"m", "ttl", nil}, {"b", "score", []string{`"Eka"`}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id, _, b := e.reference()
			k := b.Keys()
			tt.setup(e, k)
			got, err := kuis.Audit(e.ctx, e.client, id, e.opts...)
			if err != nil {
				t.Fatalf("Audit: %v", err)
			}
			names := map[string]string{"m": k.Meta(), "b": k.Board(), "a": k.Answers()}
			var wantKR, gotKR [][2]string
			for _, w := range tt.want {
				wantKR = append(wantKR, [2]string{names[w.key], w.rule})
			}
			for _, v := range got {
				gotKR = append(gotKR, [2]string{v.Key, v.Rule})
			}
			if diff := cmp.Diff(wantKR, gotKR); diff != "" {
				t.Fatalf("Audit key and rule (-want +got):\n%s\nviolations: %v", diff, got)
			}
			for i, w := range tt.want {
				for _, word := range w.detail {
					if !strings.Contains(got[i].Detail, word) {
						t.Errorf("violation %v: detail does not name %s", got[i], word)
					}
				}
			}
		})
	}
}

// TestViolationString pins the documented "key: rule: detail" format.
func TestViolationString(t *testing.T) {
	v := kuis.Violation{Key: "kuis:meta:kuis-01", Rule: "ttl", Detail: "expires in 5 ms"}
	if got, want := v.String(), "kuis:meta:kuis-01: ttl: expires in 5 ms"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

// TestContractTableNamesTheKeys: the table has the contract's header and one
// row per key, with the key names the options select.
func TestContractTableNamesTheKeys(t *testing.T) {
	tests := []struct {
		name string
		opts []kuis.Option
		want [][]string // key and type of each row
	}{
		{"default namespace", nil, [][]string{
			{"`kuis:papan:<quiz>`", "sorted set"},
			{"`kuis:meta:<quiz>`", "hash"},
			{"`kuis:jawaban:<quiz>`", "set"},
		}},
		{"WithNamespace", []kuis.Option{kuis.WithNamespace("sekolah")}, [][]string{
			{"`sekolah:papan:<quiz>`", "sorted set"},
			{"`sekolah:meta:<quiz>`", "hash"},
			{"`sekolah:jawaban:<quiz>`", "set"},
		}},
		{"WithHashTag", []kuis.Option{kuis.WithHashTag()}, [][]string{
			{"`kuis:papan:{<quiz>}`", "sorted set"},
			{"`kuis:meta:{<quiz>}`", "hash"},
			{"`kuis:jawaban:{<quiz>}`", "set"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := kuis.ContractTable(tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
			if len(lines) != 2+len(tt.want) {
				t.Fatalf("ContractTable has %d lines, want a header, a rule and %d rows:\n%s", len(lines), len(tt.want), table)
			}
			if want := "| key | type | writer | readers | content | scale | TTL |"; lines[0] != want {
				t.Errorf("header = %q; want %q", lines[0], want)
			}
			var got [][]string
			for _, line := range lines[2:] {
				cells := strings.Split(strings.Trim(line, "|"), " | ")
				if len(cells) != 7 {
					t.Fatalf("row %q has %d cells, want 7", line, len(cells))
				}
				if ttl := strings.TrimSpace(cells[6]); ttl != "none while the quiz runs" {
					t.Errorf("row %q: TTL %q", line, ttl)
				}
				got = append(got, []string{strings.TrimSpace(cells[0]), cells[1]})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ContractTable rows (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := kuis.ContractTable(kuis.WithNamespace("kuis:x")); !errors.Is(err, kuis.ErrInvalidNamespace) {
		t.Errorf("ContractTable(WithNamespace(%q)) = %v; want ErrInvalidNamespace", "kuis:x", err)
	}
}
