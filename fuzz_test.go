package kuis

// Fuzz targets for everything that turns outside bytes into keys, names,
// decoded meta or CSV. Seed corpora live in testdata/fuzz/<Target>/; run one
// target with `go test -run '^$' -fuzz '^FuzzQuizKeys$' -fuzztime 10s .`.

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzQuizKeys: for any namespace and quiz ID, NewKeys either refuses with
// ErrInvalidNamespace or ErrInvalidQuizID, or builds exactly <ns>:papan:<id>,
// <ns>:meta:<id> and <ns>:jawaban:<id> (the id braced once with WithHashTag),
// holding no glob character, no brace but the hash tag's, no ':' but the two
// separators, and no space or control byte.
func FuzzQuizKeys(f *testing.F) {
	f.Add("kuis", "kuis-01", false)
	f.Add("kuis", "kuis-01", true)
	f.Fuzz(func(t *testing.T, ns, id string, hashTag bool) {
		opts := []Option{WithNamespace(ns)}
		if hashTag {
			opts = append(opts, WithHashTag())
		}
		k, err := NewKeys(id, opts...)
		if err != nil {
			switch {
			case errors.Is(err, ErrInvalidNamespace):
				if idRule(ns) {
					t.Fatalf("namespace %q refused though it keeps the rule: %v", ns, err)
				}
			case errors.Is(err, ErrInvalidQuizID):
				if !idRule(ns) || idRule(id) {
					t.Fatalf("quiz ID %q (namespace %q) refused wrongly: %v", id, ns, err)
				}
			default:
				t.Fatalf("NewKeys(%q, ns %q): untyped error %v", id, ns, err)
			}
			return
		}
		if !idRule(ns) || !idRule(id) {
			t.Fatalf("NewKeys accepted namespace %q, quiz ID %q", ns, id)
		}
		want := id
		if hashTag {
			want = "{" + id + "}"
		}
		got := map[string]string{"papan": k.Board(), "meta": k.Meta(), "jawaban": k.Answers()}
		for object, key := range got {
			if key != ns+":"+object+":"+want {
				t.Fatalf("%s key = %q, want %q", object, key, ns+":"+object+":"+want)
			}
			if strings.ContainsAny(key, `*?[]\`) {
				t.Fatalf("key %q holds a glob character", key)
			}
			if strings.Count(key, ":") != 2 {
				t.Fatalf("key %q has %d ':' separators, want 2", key, strings.Count(key, ":"))
			}
			braces := strings.Count(key, "{") + strings.Count(key, "}")
			switch {
			case !hashTag && braces != 0:
				t.Fatalf("key %q holds a brace without WithHashTag", key)
			case hashTag && (braces != 2 || !strings.HasSuffix(key, "}") || strings.Index(key, "{") != len(ns)+len(object)+2):
				t.Fatalf("key %q: want exactly one {} pair around the quiz ID", key)
			}
			for i := 0; i < len(key); i++ {
				if c := key[i]; c <= ' ' || c >= 0x7f {
					t.Fatalf("key %q holds byte %#x", key, c)
				}
			}
		}
		if k.QuizID() != id {
			t.Fatalf("QuizID() = %q, want %q", k.QuizID(), id)
		}
		// A meta key found by SCAN maps back to the same quiz, in the same form only.
		o, _ := resolve(opts)
		if back, ok := quizIDFromMeta(k.Meta(), o); !ok || back != id {
			t.Fatalf("quizIDFromMeta(%q) = %q, %v; want %q", k.Meta(), back, ok, id)
		}
	})
}

// idRule is the documented rule for quiz IDs and namespaces, written apart
// from validID: 1 to 64 bytes of ASCII letters, digits, '-', '_' and '.'.
func idRule(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == ""
}

// FuzzParticipant: a participant name is accepted exactly when it is 1 to 64
// bytes of valid UTF-8 without a control character; and the answers-set member
// RecordAnswer builds from an accepted (name, question) splits back, on its
// first ':', into the same question and name, whatever ':' the name holds.
func FuzzParticipant(f *testing.F) {
	f.Add("Ali", 1)
	f.Add("a:b", 12)
	f.Fuzz(func(t *testing.T, name string, question int) {
		err := checkAnswer(name, question)
		nameOK := len(name) >= 1 && len(name) <= 64 && utf8.ValidString(name) &&
			strings.IndexFunc(name, unicode.IsControl) < 0
		switch {
		case err == nil:
			if !nameOK || question < 1 {
				t.Fatalf("checkAnswer(%q, %d) accepted", name, question)
			}
		case errors.Is(err, ErrInvalidParticipant):
			if nameOK {
				t.Fatalf("checkAnswer(%q, %d) refused the name: %v", name, question, err)
			}
			return
		case errors.Is(err, ErrInvalidQuestion):
			if !nameOK || question >= 1 {
				t.Fatalf("checkAnswer(%q, %d) refused the question: %v", name, question, err)
			}
			return
		default:
			t.Fatalf("checkAnswer(%q, %d): untyped error %v", name, question, err)
		}
		// record_answer.lua's member: ARGV[2] .. ':' .. ARGV[1], ARGV[2] = strconv.Itoa.
		member := strconv.Itoa(question) + ":" + name
		q, p, ok := strings.Cut(member, ":")
		n, convErr := strconv.Atoi(q)
		if !ok || convErr != nil || n != question || p != name {
			t.Fatalf("member %q splits into %q, %q; want %d, %q", member, q, p, question, name)
		}
	})
}

// FuzzDecodeInfo: decodeInfo never panics on any hash; it returns Info, or
// ErrQuizNotFound exactly for an empty hash, or ErrCorrupt; and an accepted
// hash's contract fields are exactly what the Info would be written as.
func FuzzDecodeInfo(f *testing.F) {
	f.Add(uint8(7), "Kuis Matematika Kelas 8", "3", "berjalan", "", "")
	f.Fuzz(func(t *testing.T, present uint8, title, questions, status, extraField, extraValue string) {
		fields := map[string]string{}
		for i, kv := range [][2]string{{fieldTitle, title}, {fieldQuestions, questions}, {fieldStatus, status}} {
			if present&(1<<i) != 0 {
				fields[kv[0]] = kv[1]
			}
		}
		if present&8 != 0 {
			fields[extraField] = extraValue // may overwrite a contract field, as a raw HSET could
		}
		info, err := decodeInfo("k", fields)
		switch {
		case err == nil:
		case errors.Is(err, ErrQuizNotFound):
			if len(fields) != 0 {
				t.Fatalf("decodeInfo(%q) = ErrQuizNotFound for a non-empty hash", fields)
			}
			return
		case errors.Is(err, ErrCorrupt):
			if len(fields) == 0 {
				t.Fatal("decodeInfo of an empty hash is ErrCorrupt, want ErrQuizNotFound")
			}
			return
		default:
			t.Fatalf("decodeInfo(%q): untyped error %v", fields, err)
		}
		got := map[string]string{
			fieldTitle:     info.Title,
			fieldQuestions: strconv.Itoa(info.Questions),
			fieldStatus:    string(info.Status),
		}
		want := map[string]string{}
		for _, f := range metaFields {
			want[f] = fields[f]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("re-encoded Info (-hash +Info):\n%s", diff)
		}
		if info.Questions < 1 || (info.Status != StatusRunning && info.Status != StatusFinished) {
			t.Fatalf("decodeInfo accepted %+v", info)
		}
	})
}

// FuzzDecodeScore: a board score is accepted exactly when it is a
// non-negative multiple of 10 that a float64 holds exactly, and then it is
// returned unchanged.
func FuzzDecodeScore(f *testing.F) {
	f.Add(30.0)
	f.Add(15.0)
	f.Fuzz(func(t *testing.T, score float64) {
		got, err := decodeScore("k", "m", score)
		ok := score >= 0 && score <= 1<<53 && score == math.Floor(score) && math.Mod(score, 10) == 0
		switch {
		case err == nil && !ok:
			t.Fatalf("decodeScore(%v) accepted as %d", score, got)
		case err != nil && ok:
			t.Fatalf("decodeScore(%v) refused: %v", score, err)
		case err != nil && !errors.Is(err, ErrCorrupt):
			t.Fatalf("decodeScore(%v): untyped error %v", score, err)
		case err == nil && float64(got) != score:
			t.Fatalf("decodeScore(%v) = %d", score, got)
		}
	})
}

// FuzzRecapCSV: any recap of valid participants, written by WriteCSV and read
// back with encoding/csv, gives back the header and, per standing, rank,
// competition rank ("1224"), name, score and score/10, byte for byte.
func FuzzRecapCSV(f *testing.F) {
	f.Add("Citra\nAli\nBudi\nDewi", []byte{3, 3, 2, 1})
	f.Fuzz(func(t *testing.T, names string, points []byte) {
		// Names arrive '\n'-separated: a control character is never a valid name.
		seen := map[string]bool{}
		var standings []Standing
		for i, name := range strings.Split(names, "\n") {
			if checkParticipant(name) != nil || seen[name] {
				continue
			}
			seen[name] = true
			var p int64
			if i < len(points) {
				p = int64(points[i])
			}
			standings = append(standings, Standing{Participant: name, Score: 10 * p})
		}
		// Board order: highest first, equal scores in reverse byte order of names.
		sort.Slice(standings, func(i, j int) bool {
			if standings[i].Score != standings[j].Score {
				return standings[i].Score > standings[j].Score
			}
			return standings[i].Participant > standings[j].Participant
		})
		want := [][]string{CSVHeader}
		for i := range standings {
			standings[i].Rank = i + 1
			comp := 1
			for _, s := range standings {
				if s.Score > standings[i].Score {
					comp++
				}
			}
			s := standings[i]
			want = append(want, []string{strconv.Itoa(s.Rank), strconv.Itoa(comp), s.Participant,
				strconv.FormatInt(s.Score, 10), strconv.FormatInt(s.Score/10, 10)})
		}
		var buf bytes.Buffer
		if err := (Recap{QuizID: "q", Standings: standings}).WriteCSV(&buf); err != nil {
			t.Fatalf("WriteCSV: %v", err)
		}
		got, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatalf("reading WriteCSV's output back: %v\n%s", err, buf.String())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("CSV round trip (-want +got):\n%s", diff)
		}
	})
}

// TestReplyErrorNetworkTimeoutIsDeadlineExceeded: a caller's deadline that the
// network layer reports as os.ErrDeadlineExceeded ("dial tcp …: i/o timeout",
// seen when reconnecting to a stalled server) still satisfies
// errors.Is(err, context.DeadlineExceeded), and keeps its own chain.
func TestReplyErrorNetworkTimeoutIsDeadlineExceeded(t *testing.T) {
	netErr := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"dial i/o timeout", netErr},
		{"wrapped i/o timeout", fmt.Errorf("ROLE on x: %w", netErr)},
		{"context deadline", context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := replyError(tc.err, "quiz")
			if !errors.Is(got, context.DeadlineExceeded) || !errors.Is(got, tc.err) {
				t.Errorf("replyError(%v) = %v: want it to wrap both context.DeadlineExceeded and the original", tc.err, got)
			}
		})
	}
	if got := replyError(errors.New("connection reset"), "quiz"); errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("replyError(connection reset) = %v wraps context.DeadlineExceeded", got)
	}
}
