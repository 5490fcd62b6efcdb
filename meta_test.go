package kuis_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// rawState describes each key as the server holds it (type, TTL and full
// content), read with plain commands, so a test can prove a refused call
// changed nothing and created nothing, not even an empty key.
func rawState(e *env, keys ...string) map[string]string {
	e.t.Helper()
	out := make(map[string]string, len(keys))
	for _, key := range keys {
		typ, err := e.mustRaw("TYPE", key).ToString()
		if err != nil {
			e.t.Fatalf("TYPE %s: %v", key, err)
		}
		if typ == "none" {
			out[key] = "none"
			continue
		}
		ttl, err := e.mustRaw("PTTL", key).AsInt64()
		if err != nil {
			e.t.Fatalf("PTTL %s: %v", key, err)
		}
		var content any
		switch typ {
		case "string":
			content, err = e.mustRaw("GET", key).ToString()
		case "list":
			content, err = e.mustRaw("LRANGE", key, "0", "-1").AsStrSlice()
		case "set":
			var members []string
			members, err = e.mustRaw("SMEMBERS", key).AsStrSlice()
			sort.Strings(members)
			content = members
		case "hash":
			content, err = e.mustRaw("HGETALL", key).AsStrMap() // fmt prints maps sorted
		case "zset":
			content, err = e.mustRaw("ZRANGE", key, "0", "-1", "WITHSCORES").AsZScores()
		default:
			e.t.Fatalf("%s: unexpected type %s", key, typ)
		}
		if err != nil {
			e.t.Fatalf("reading %s %s: %v", typ, key, err)
		}
		expiry := "no TTL"
		if ttl != -1 {
			expiry = "a TTL" // not its value: it counts down between two reads
		}
		out[key] = fmt.Sprintf("%s, %s: %v", typ, expiry, content)
	}
	return out
}

// quizKeys returns the three keys of quiz id under the env's options.
func quizKeys(e *env, id string) kuis.Keys {
	e.t.Helper()
	k, err := kuis.NewKeys(id, e.opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}

// allKeys lists a quiz's keys for rawState.
func allKeys(k kuis.Keys) []string { return []string{k.Meta(), k.Board(), k.Answers()} }

// TestCreateWritesExactlyTheContractFields: one hash with the three fields,
// status berjalan, no TTL, and no board or answers key yet.
func TestCreateWritesExactlyTheContractFields(t *testing.T) {
	e := newEnv(t)
	id := quizID()
	k := quizKeys(e, id)
	if err := e.meta(id).Create(e.ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		t.Fatal(err)
	}
	fields, err := e.mustRaw("HGETALL", k.Meta()).AsStrMap()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"judul": "Kuis Matematika Kelas 8", "jumlah_soal": "3", "status": "berjalan"}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("HGETALL %s (-want +got):\n%s", k.Meta(), diff)
	}
	if ttl, err := e.mustRaw("PTTL", k.Meta()).AsInt64(); err != nil || ttl != -1 {
		t.Errorf("PTTL %s = %d, %v; want -1", k.Meta(), ttl, err)
	}
	for _, key := range []string{k.Board(), k.Answers()} {
		if e.exists(key) {
			t.Errorf("Create wrote %s", key)
		}
	}
}

// TestCreateRefusesAnExistingQuiz: any key of the quiz, of any type, makes
// Create refuse with ErrQuizExists and leaves every key as it was.
func TestCreateRefusesAnExistingQuiz(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *env, k kuis.Keys)
	}{
		{"meta hash from an earlier Create", func(e *env, k kuis.Keys) {
			if err := e.meta(k.QuizID()).Create(e.ctx, "Lama", 5); err != nil {
				e.t.Fatal(err)
			}
		}},
		{"finished quiz", func(e *env, k kuis.Keys) {
			m := e.meta(k.QuizID())
			if err := m.Create(e.ctx, "Lama", 5); err != nil {
				e.t.Fatal(err)
			}
			if err := m.Finish(e.ctx); err != nil {
				e.t.Fatal(err)
			}
		}},
		{"meta hash with other fields", func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "x", "y") }},
		{"meta string", func(e *env, k kuis.Keys) { e.mustRaw("SET", k.Meta(), "teks") }},
		{"meta list", func(e *env, k kuis.Keys) { e.mustRaw("RPUSH", k.Meta(), "a", "b") }},
		{"meta set", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Meta(), "a") }},
		{"meta sorted set", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Meta(), "10", "a") }},
		{"meta with a TTL", func(e *env, k kuis.Keys) { e.mustRaw("SET", k.Meta(), "teks", "PX", "600000") }},
		{"board only", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "30", "Ali") }},
		{"board of the wrong type", func(e *env, k kuis.Keys) { e.mustRaw("SET", k.Board(), "teks") }},
		{"answers only", func(e *env, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "1:Ali") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := quizID()
			k := quizKeys(e, id)
			tt.setup(e, k)
			before := rawState(e, allKeys(k)...)
			err := e.meta(id).Create(e.ctx, "Baru", 3)
			if !errors.Is(err, kuis.ErrQuizExists) {
				t.Errorf("Create = %v; want ErrQuizExists", err)
			}
			if diff := cmp.Diff(before, rawState(e, allKeys(k)...)); diff != "" {
				t.Errorf("keys changed by a refused Create (-before +after):\n%s", diff)
			}
		})
	}
}

// TestCreateValidatesMetaBeforeWriting: a bad title or question count is
// ErrInvalidMeta and no key of the quiz appears.
func TestCreateValidatesMetaBeforeWriting(t *testing.T) {
	tests := []struct {
		name      string
		title     string
		questions int
		wantErr   error
	}{
		{"empty title", "", 3, kuis.ErrInvalidMeta},
		{"201-byte title", strings.Repeat("a", 201), 3, kuis.ErrInvalidMeta},
		{"201-byte title of multi-byte runes", strings.Repeat("é", 100) + "a", 3, kuis.ErrInvalidMeta},
		{"invalid UTF-8", "Kuis \xff", 3, kuis.ErrInvalidMeta},
		{"truncated rune", "Kuis \xc3", 3, kuis.ErrInvalidMeta},
		{"newline", "Kuis\nMatematika", 3, kuis.ErrInvalidMeta},
		{"only a newline", "\n", 3, kuis.ErrInvalidMeta},
		{"NUL", "Kuis\x00", 3, kuis.ErrInvalidMeta},
		{"tab", "Kuis\tMatematika", 3, kuis.ErrInvalidMeta},
		{"DEL", "Kuis\x7f", 3, kuis.ErrInvalidMeta},
		{"U+0085 next line", "Kuis\u0085Matematika", 3, kuis.ErrInvalidMeta},
		{"0 questions", "Kuis", 0, kuis.ErrInvalidMeta},
		{"-1 questions", "Kuis", -1, kuis.ErrInvalidMeta},
		{"1001 questions", "Kuis", 1001, kuis.ErrInvalidMeta},
		{"200-byte title", strings.Repeat("a", 200), 3, nil},
		{"200-byte title of multi-byte runes", strings.Repeat("é", 100), 3, nil},
		{"1 question", "Kuis", 1, nil},
		{"1000 questions", "Kuis", 1000, nil},
		{"Unicode title", "Kuis Bahasa 日本語 🎌", 7, nil},
	}
	e := newEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := quizID()
			k := quizKeys(e, id)
			m := e.meta(id)
			err := m.Create(e.ctx, tt.title, tt.questions)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Create(%q, %d) = %v; want %v", tt.title, tt.questions, err, tt.wantErr)
			}
			if tt.wantErr != nil {
				want := map[string]string{k.Meta(): "none", k.Board(): "none", k.Answers(): "none"}
				if diff := cmp.Diff(want, rawState(e, allKeys(k)...)); diff != "" {
					t.Errorf("a refused Create wrote (-want +got):\n%s", diff)
				}
				return
			}
			info, err := m.Get(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := kuis.Info{Title: tt.title, Questions: tt.questions, Status: kuis.StatusRunning}
			if diff := cmp.Diff(want, info); diff != "" {
				t.Errorf("Get after Create (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFinish covers the status transition and every refusal, and that a
// refusal or a repeat leaves the meta byte for byte as it was.
func TestFinish(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(e *env, k kuis.Keys)
		wantErr error
		// wantMeta is the meta's HGETALL afterwards; nil: unchanged.
		wantMeta map[string]string
	}{
		{"running becomes finished", func(e *env, k kuis.Keys) {
			if err := e.meta(k.QuizID()).Create(e.ctx, "Kuis", 3); err != nil {
				e.t.Fatal(err)
			}
		}, nil, map[string]string{"judul": "Kuis", "jumlah_soal": "3", "status": "selesai"}},
		{"finished twice changes nothing", func(e *env, k kuis.Keys) {
			m := e.meta(k.QuizID())
			if err := m.Create(e.ctx, "Kuis", 3); err != nil {
				e.t.Fatal(err)
			}
			if err := m.Finish(e.ctx); err != nil {
				e.t.Fatal(err)
			}
		}, nil, nil},
		{"missing meta", func(*env, kuis.Keys) {}, kuis.ErrQuizNotFound, nil},
		{"board without meta", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Ali") }, kuis.ErrQuizNotFound, nil},
		{"unknown status", func(e *env, k kuis.Keys) {
			e.mustRaw("HSET", k.Meta(), "judul", "Kuis", "jumlah_soal", "3", "status", "jeda")
		}, kuis.ErrCorrupt, nil},
		{"status in capitals", func(e *env, k kuis.Keys) {
			e.mustRaw("HSET", k.Meta(), "judul", "Kuis", "jumlah_soal", "3", "status", "BERJALAN")
		}, kuis.ErrCorrupt, nil},
		{"missing status", func(e *env, k kuis.Keys) {
			e.mustRaw("HSET", k.Meta(), "judul", "Kuis", "jumlah_soal", "3")
		}, kuis.ErrCorrupt, nil},
		{"meta is a string", func(e *env, k kuis.Keys) { e.mustRaw("SET", k.Meta(), "berjalan") }, kuis.ErrCorrupt, nil},
		{"meta is a list", func(e *env, k kuis.Keys) { e.mustRaw("RPUSH", k.Meta(), "berjalan") }, kuis.ErrCorrupt, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := quizID()
			k := quizKeys(e, id)
			tt.setup(e, k)
			before := rawState(e, allKeys(k)...)
			err := e.meta(id).Finish(e.ctx)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Finish = %v; want %v", err, tt.wantErr)
			}
			if tt.wantMeta != nil {
				got, err := e.mustRaw("HGETALL", k.Meta()).AsStrMap()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.wantMeta, got); diff != "" {
					t.Errorf("HGETALL after Finish (-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff(before, rawState(e, allKeys(k)...)); diff != "" {
				t.Errorf("Finish changed keys (-before +after):\n%s", diff)
			}
		})
	}
}

// TestGetAndStatusDecodeStrictly: Get and Status accept only the contract's
// shapes; everything else is ErrQuizNotFound or an ErrCorrupt that names the
// key and the field.
func TestGetAndStatusDecodeStrictly(t *testing.T) {
	good := []string{"judul", "Kuis", "jumlah_soal", "3", "status", "berjalan"}
	// with returns good with field set to value, or removed when value is "".
	with := func(field, value string) []string {
		var out []string
		for i := 0; i < len(good); i += 2 {
			if good[i] == field {
				if value != "" {
					out = append(out, field, value)
				}
				continue
			}
			out = append(out, good[i], good[i+1])
		}
		if field != "judul" && field != "jumlah_soal" && field != "status" {
			out = append(out, field, value)
		}
		return out
	}
	hset := func(fields []string) func(e *env, k kuis.Keys) {
		return func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), fields...) }
	}
	type result struct {
		Info    kuis.Info
		Status  kuis.Status
		Err     error
		Mention []string // words the ErrCorrupt message must hold besides the key
	}
	tests := []struct {
		name       string
		setup      func(e *env, k kuis.Keys)
		get        result
		statusWant result
	}{
		{"valid", hset(good),
			result{Info: kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusRunning}},
			result{Status: kuis.StatusRunning}},
		{"finished", hset(with("status", "selesai")),
			result{Info: kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusFinished}},
			result{Status: kuis.StatusFinished}},
		{"extra field ignored", hset(with("warna", "merah")),
			result{Info: kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusRunning}},
			result{Status: kuis.StatusRunning}},
		{"missing key", func(*env, kuis.Keys) {},
			result{Err: kuis.ErrQuizNotFound}, result{Err: kuis.ErrQuizNotFound}},
		{"board but no meta", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Ali") },
			result{Err: kuis.ErrQuizNotFound}, result{Err: kuis.ErrQuizNotFound}},
		{"meta is a string", func(e *env, k kuis.Keys) { e.mustRaw("SET", k.Meta(), "berjalan") },
			result{Err: kuis.ErrCorrupt}, result{Err: kuis.ErrCorrupt}},
		{"meta is a sorted set", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Meta(), "1", "status") },
			result{Err: kuis.ErrCorrupt}, result{Err: kuis.ErrCorrupt}},
		{"unknown status", hset(with("status", "jeda")),
			result{Err: kuis.ErrCorrupt, Mention: []string{"status", "jeda"}},
			result{Err: kuis.ErrCorrupt, Mention: []string{"status", "jeda"}}},
		{"empty status", hset([]string{"judul", "Kuis", "jumlah_soal", "3", "status", ""}),
			result{Err: kuis.ErrCorrupt, Mention: []string{"status"}},
			result{Err: kuis.ErrCorrupt, Mention: []string{"status"}}},
		{"missing status", hset(with("status", "")),
			result{Err: kuis.ErrCorrupt, Mention: []string{"status"}},
			result{Err: kuis.ErrCorrupt, Mention: []string{"status"}}},
		{"missing judul", hset(with("judul", "")),
			result{Err: kuis.ErrCorrupt, Mention: []string{"judul"}}, result{Status: kuis.StatusRunning}},
		{"missing jumlah_soal", hset(with("jumlah_soal", "")),
			result{Err: kuis.ErrCorrupt, Mention: []string{"jumlah_soal"}}, result{Status: kuis.StatusRunning}},
	}
	for _, bad := range []string{"abc", "0", "-3", "03", "1.5", "+3", " 3", "3 ", "1e3", "9999999999999999", "99999999999999999999"} {
		tests = append(tests, struct {
			name       string
			setup      func(e *env, k kuis.Keys)
			get        result
			statusWant result
		}{"jumlah_soal " + fmt.Sprintf("%q", bad), hset(with("jumlah_soal", bad)),
			result{Err: kuis.ErrCorrupt, Mention: []string{"jumlah_soal", fmt.Sprintf("%q", bad)}},
			result{Status: kuis.StatusRunning}})
	}
	// check compares one call's outcome with want.
	check := func(t *testing.T, call, key string, want result, info kuis.Info, status kuis.Status, err error) {
		t.Helper()
		if !errors.Is(err, want.Err) {
			t.Errorf("%s = %v; want %v", call, err, want.Err)
			return
		}
		if want.Err != nil {
			if errors.Is(want.Err, kuis.ErrCorrupt) {
				for _, word := range append([]string{key}, want.Mention...) {
					if !strings.Contains(err.Error(), word) {
						t.Errorf("%s error %q does not name %q", call, err, word)
					}
				}
			}
			return
		}
		if diff := cmp.Diff(want.Info, info); diff != "" {
			t.Errorf("%s (-want +got):\n%s", call, diff)
		}
		if status != want.Status {
			t.Errorf("%s status = %q; want %q", call, status, want.Status)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := quizID()
			k := quizKeys(e, id)
			tt.setup(e, k)
			before := rawState(e, allKeys(k)...)
			m := e.meta(id)
			info, err := m.Get(e.ctx)
			check(t, "Get", k.Meta(), tt.get, info, "", err)
			status, err := m.Status(e.ctx)
			check(t, "Status", k.Meta(), tt.statusWant, kuis.Info{}, status, err)
			if diff := cmp.Diff(before, rawState(e, allKeys(k)...)); diff != "" {
				t.Errorf("a read changed keys (-before +after):\n%s", diff)
			}
		})
	}
}
