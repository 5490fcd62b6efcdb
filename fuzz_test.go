package kuis

// Fuzz targets: every one calls the library code that turns outside bytes into
// keys, names, error text, decoded meta, scores, ranks or CSV. Seed corpora
// live in testdata/fuzz/<Target>/; run one target with
// `go test -run '^$' -fuzz '^FuzzQuizKeys$' -fuzztime 10s .`. The targets that
// need a server use an in-process miniredis of their own.

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// Sentinels are all the library's sentinel errors: one list for the tests
// inside the package and those of package kuis_test.
var Sentinels = []error{
	ErrInvalidQuizID, ErrInvalidNamespace, ErrInvalidParticipant, ErrInvalidMeta, ErrInvalidQuestion,
	ErrInvalidRange, ErrNoClient, ErrQuizExists, ErrQuizNotFound, ErrQuizFinished, ErrQuizRunning,
	ErrNotOnBoard, ErrNoArchive, ErrCorrupt, ErrNeedsHashTag, ErrForbidden,
	ErrInvalidCourseID, ErrConflict, ErrInvalidTeam, ErrQuizChanged, ErrBusy, ErrUnavailable,
	ErrNeedsClusterClient, ErrInvalidOption, ErrNotReplicated,
	ErrInvalidClassID, ErrInvalidStudent, ErrNameTaken, ErrNotEnrolled,
}

// matched lists the sentinels err wraps.
func matched(err error) []error {
	var out []error
	for _, s := range Sentinels {
		if errors.Is(err, s) {
			out = append(out, s)
		}
	}
	return out
}

// maxErrLen bounds an error text: a quoted input is at most 2+4*64+3 bytes.
const maxErrLen = 400

// oneLine fails t unless msg is one line of valid UTF-8 of at most max bytes.
func oneLine(t *testing.T, msg string, maxLen int) {
	t.Helper()
	if strings.ContainsAny(msg, "\r\n") || !utf8.ValidString(msg) || len(msg) > maxLen {
		t.Fatalf("error text of %d bytes is not one line of valid UTF-8 within %d bytes: %q", len(msg), maxLen, msg)
	}
}

// idRule is the documented rule for quiz IDs and namespaces, written apart
// from validID: 1 to 64 bytes of ASCII letters, digits, '-', '_' and '.'.
func idRule(s string) bool {
	return s != "" && len(s) <= 64 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == ""
}

// FuzzQuizKeys: for any namespace and quiz ID, the options and keysFor either
// refuse with ErrInvalidNamespace or ErrInvalidQuizID, exactly as the rule
// says, or build exactly <ns>:papan:<id>, <ns>:meta:<id> and <ns>:jawaban:<id>
// (the ID braced once with WithHashTag), and a meta key maps back to the same
// quiz ID in that form only.
func FuzzQuizKeys(f *testing.F) {
	f.Add("kuis", "kuis-01", false)
	f.Add("kuis", "kuis-01", true)
	f.Fuzz(func(t *testing.T, ns, id string, hashTag bool) {
		opts := []Option{WithNamespace(ns)}
		if hashTag {
			opts = append(opts, WithHashTag())
		}
		o, err := resolve(opts)
		if (err == nil) != idRule(ns) || (err != nil && !errors.Is(err, ErrInvalidNamespace)) {
			t.Fatalf("namespace %q: resolve error %v", ns, err)
		}
		if err != nil {
			oneLine(t, err.Error(), maxErrLen)
			return
		}
		k, err := keysFor(id, o.naming)
		if (err == nil) != idRule(id) || (err != nil && !errors.Is(err, ErrInvalidQuizID)) {
			t.Fatalf("quiz ID %q: keysFor error %v", id, err)
		}
		if err != nil {
			oneLine(t, err.Error(), maxErrLen)
			return
		}
		tagged := id
		if hashTag {
			tagged = "{" + id + "}"
		}
		want := []string{ns + ":papan:" + tagged, ns + ":meta:" + tagged, ns + ":jawaban:" + tagged, id}
		if diff := cmp.Diff(want, []string{k.Board(), k.Meta(), k.Answers(), k.QuizID()}); diff != "" {
			t.Fatalf("keys (-want +got):\n%s", diff)
		}
		if back, ok := quizIDFromMeta(k.Meta(), o.naming); !ok || back != id {
			t.Fatalf("quizIDFromMeta(%q) = %q, %v; want %q", k.Meta(), back, ok, id)
		}
		o.hashTag = !o.hashTag
		if back, ok := quizIDFromMeta(k.Meta(), o.naming); ok {
			t.Fatalf("quizIDFromMeta(%q) with hashTag %v = %q, want no match", k.Meta(), o.hashTag, back)
		}
	})
}

// FuzzParticipant: a name and question are accepted exactly when the name
// is what CleanParticipant returns for it and the question is at least 1; a
// refusal is one sentinel in one line (internal/name's FuzzClean fuzzes the
// rule itself). An accepted pair is recorded by record_answer.lua, which
// builds the answers member "<question>:<name>", and Audit parses that
// member back in Go: the quiz passes Audit (the name and count came back
// intact), the board holds the name byte for byte, and a question above
// jumlah_soal is refused by the server with ErrInvalidQuestion, writing
// nothing.
func FuzzParticipant(f *testing.F) {
	f.Add("Ali", 1)
	f.Add("12:34", 12)
	for _, name := range []string{"Ａｌｉ", "Ali  Baba", "\u0410li", "\u3164", "Ali\u200d", "👨\u200d👩\u200d👧", "😀\ufe0f", "1\ufe0f\u20e3"} {
		f.Add(name, 1)
	}
	_, client := redistest.Miniredis(f)
	store, err := New(client, WithNamespace("fuzz"))
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	quizzes := 0
	f.Fuzz(func(t *testing.T, name string, question int) {
		quizzes++
		id := "q" + strconv.Itoa(quizzes)
		b, _ := store.Board(id)
		clean, cleanErr := CleanParticipant(name)
		nameOK := cleanErr == nil && clean == name
		if cleanErr != nil {
			if !slices.Equal(matched(cleanErr), []error{ErrInvalidParticipant}) {
				t.Fatalf("CleanParticipant(%+q) = %v; want ErrInvalidParticipant alone", name, cleanErr)
			}
			oneLine(t, cleanErr.Error(), maxErrLen)
		}
		err := b.q.checkAnswer(name, question)
		switch got := matched(err); {
		case err == nil && (!nameOK || question < 1),
			err != nil && !nameOK && !slices.Equal(got, []error{ErrInvalidParticipant}),
			err != nil && nameOK && (question >= 1 || !slices.Equal(got, []error{ErrInvalidQuestion})):
			t.Fatalf("checkAnswer(%+q, %d) = %v", name, question, err)
		}
		if err != nil {
			oneLine(t, err.Error(), maxErrLen)
			return
		}
		m, _ := store.Meta(id)
		k, _ := store.Keys(id)
		defer client.Do(ctx, client.B().Del().Key(k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()).Build())
		if err := m.Create(ctx, "Kuis", 5); err != nil {
			t.Fatal(err)
		}
		a, err := b.RecordAnswer(ctx, name, question)
		if question > 5 {
			if !errors.Is(err, ErrInvalidQuestion) || !strings.HasSuffix(err.Error(), fmt.Sprintf(": question %d of 5", question)) {
				t.Fatalf("RecordAnswer(%q, %d) on 5 questions = %+v, %v; want ErrInvalidQuestion", name, question, a, err)
			}
			if n, err := b.Len(ctx); err != nil || n != 0 {
				t.Fatalf("after a refused answer Len = %d, %v; want 0", n, err)
			}
			return
		}
		if err != nil || a != (Answer{Score: 10}) {
			t.Fatalf("RecordAnswer(%q, %d) = %+v, %v; want score 10", name, question, a, err)
		}
		v, err := store.Audit(ctx, id)
		if err != nil || len(v) != 0 {
			t.Fatalf("Audit after RecordAnswer(%q, %d) = %v, %v; want no violation", name, question, v, err)
		}
		got, err := b.Standings(ctx)
		if want := []Standing{{Rank: 1, CompetitionRank: 1, Participant: name, Score: 10}}; err != nil || !slices.Equal(got, want) {
			t.Fatalf("Standings = %+v, %v; want %+v", got, err, want)
		}
	})
}

// FuzzDecodeInfo: decodeMeta never panics on any hash; it returns an Info
// whose contract fields re-encode to exactly the hash's, or ErrCorrupt alone
// in one short line that names the key and field, or, for an empty hash,
// ErrQuizNotFound.
func FuzzDecodeInfo(f *testing.F) {
	f.Add(uint8(7), "Kuis Matematika Kelas 8", "3", "berjalan", "", "")
	_, client := redistest.Miniredis(f)
	store, err := New(client, WithNamespace("ns"))
	if err != nil {
		f.Fatal(err)
	}
	q, err := store.quiz("q")
	if err != nil {
		f.Fatal(err)
	}
	contract := []string{wire.FieldTitle, wire.FieldQuestions, wire.FieldStatus}
	f.Fuzz(func(t *testing.T, present uint8, title, questions, status, extraField, extraValue string) {
		fields := map[string]string{}
		for i, v := range []string{title, questions, status} {
			if present&(1<<i) != 0 {
				fields[contract[i]] = v
			}
		}
		if present&8 != 0 {
			fields[extraField] = extraValue // may overwrite a contract field, as a raw HSET could
		}
		info, err := q.decodeMeta(fields, nil, needAll)
		if len(fields) == 0 {
			if !slices.Equal(matched(err), []error{ErrQuizNotFound}) {
				t.Fatalf("decodeMeta of an empty hash: %v, want ErrQuizNotFound", err)
			}
			return
		}
		if err != nil {
			if !slices.Equal(matched(err), []error{ErrCorrupt}) || !strings.Contains(err.Error(), "ns:meta:q: field ") {
				t.Fatalf("decodeMeta(%q): %v, want ErrCorrupt naming the key and field", fields, err)
			}
			oneLine(t, err.Error(), maxErrLen)
			return
		}
		got := map[string]string{wire.FieldTitle: info.Title, wire.FieldQuestions: strconv.FormatInt(info.Questions, 10),
			wire.FieldStatus: string(info.Status)}
		want := map[string]string{}
		for _, f := range contract {
			want[f] = fields[f]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("re-encoded Info (-hash +Info):\n%s", diff)
		}
		if info.Questions < 1 || info.Questions > wire.MaxQuestions || (info.Status != StatusRunning && info.Status != StatusFinished) {
			t.Fatalf("decodeMeta accepted %+v", info)
		}
	})
}

// FuzzDecodeQuestions: Go (wire.Questions, behind Meta.Get) and the Lua
// prelude's metaState, behind the record script, accept the same jumlah_soal
// values: a positive decimal integer of at most 1000, without sign or
// leading zeros. A raw meta hash
// with the fuzzed jumlah_soal is read with Meta.Get and answered with
// RecordAnswer(question 1): both succeed or both are ErrCorrupt.
func FuzzDecodeQuestions(f *testing.F) {
	f.Add("3")
	_, client := redistest.Miniredis(f)
	store, err := New(client, WithNamespace("fuzz"))
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := wire.Questions(s)
		if ok && (n < 1 || n > 1000 || strconv.Itoa(n) != s) {
			t.Fatalf("wire.Questions(%q) accepted %d", s, n)
		}
		var decodeErr error
		if !ok {
			decodeErr = ErrCorrupt
		}
		k, _ := store.Keys("q")
		defer client.Do(ctx, client.B().Del().Key(k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()).Build())
		client.Do(ctx, client.B().Hset().Key(k.Meta()).FieldValue().
			FieldValue(wire.FieldTitle, "Kuis").FieldValue(wire.FieldQuestions, s).FieldValue(wire.FieldStatus, "berjalan").Build())
		m, _ := store.Meta("q")
		b, _ := store.Board("q")
		_, getErr := m.Get(ctx)
		_, recordErr := b.RecordAnswer(ctx, "Ali", 1)
		if (getErr == nil) != (decodeErr == nil) || (recordErr == nil) != (decodeErr == nil) ||
			(recordErr != nil && !errors.Is(recordErr, ErrCorrupt)) {
			t.Fatalf("jumlah_soal %q: wire.Questions %v, Meta.Get %v, RecordAnswer %v; want all nil or all ErrCorrupt",
				s, decodeErr, getErr, recordErr)
		}
	})
}

// FuzzDecodeScore: a board score is accepted exactly when it is a
// non-negative multiple of 10 that a float64 holds exactly, and then it is
// returned unchanged; otherwise ErrCorrupt names key and member in one line.
func FuzzDecodeScore(f *testing.F) {
	f.Add(30.0)
	f.Add(15.0)
	f.Fuzz(func(t *testing.T, score float64) {
		got, err := decodeScore("ns:papan:q", "Ali", score)
		ok := score >= 0 && score <= 1<<53 && score == math.Floor(score) && math.Mod(score, 10) == 0
		switch {
		case err == nil && (!ok || float64(got) != score):
			t.Fatalf("decodeScore(%v) = %d, want ErrCorrupt", score, got)
		case err != nil && (ok || !slices.Equal(matched(err), []error{ErrCorrupt}) || !strings.Contains(err.Error(), `ns:papan:q: member "Ali"`)):
			t.Fatalf("decodeScore(%v): %v", score, err)
		}
	})
}

// FuzzDecodeStandings: for any board (scores highest first, as ZRANGE ... REV
// returns them) and any first rank, each standing has Rank first+i,
// CompetitionRank <= Rank, equal scores share the competition rank, and the
// first of each group of equal scores has CompetitionRank == Rank; a score
// that is not a multiple of 10 is ErrCorrupt naming its member.
func FuzzDecodeStandings(f *testing.F) {
	f.Add(uint16(0), []byte{6, 6, 4, 2})
	f.Add(uint16(41), []byte{4, 4, 4, 3, 2, 2})
	f.Fuzz(func(t *testing.T, offset uint16, halves []byte) {
		sort.Slice(halves, func(i, j int) bool { return halves[i] > halves[j] })
		zs := make([]rueidis.ZScore, len(halves))
		bad := -1
		for i, h := range halves {
			zs[i] = rueidis.ZScore{Member: fmt.Sprintf("p%03d", i), Score: 5 * float64(h)}
			if h%2 == 1 && bad < 0 {
				bad = i
			}
		}
		first := int(offset) + 1
		got, err := decodeStandings("k", zs, first)
		if bad >= 0 {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), strconv.Quote(zs[bad].Member)) {
				t.Fatalf("decodeStandings(%v) = %v, want ErrCorrupt naming %s", zs, err, zs[bad].Member)
			}
			return
		}
		if err != nil || len(got) != len(zs) {
			t.Fatalf("decodeStandings(%v) = %d standings, %v", zs, len(got), err)
		}
		for i, s := range got {
			newGroup := i == 0 || s.Score != got[i-1].Score
			if s.Rank != first+i || s.Participant != zs[i].Member || float64(s.Score) != zs[i].Score ||
				s.CompetitionRank > s.Rank || (newGroup && s.CompetitionRank != s.Rank) ||
				(!newGroup && s.CompetitionRank != got[i-1].CompetitionRank) {
				t.Fatalf("standing %d of %+v (first rank %d)", i, got, first)
			}
		}
	})
}

// FuzzRecapCSV: standings decoded from any board of valid names, written by
// Recap.WriteCSV and read back with encoding/csv, give the header and, per
// standing, rank, competition rank ("1224", counted here from the scores),
// name, score and score/10, byte for byte.
func FuzzRecapCSV(f *testing.F) {
	f.Add("Citra\nAli\nBudi\nDewi", []byte{3, 3, 2, 1})
	f.Fuzz(func(t *testing.T, names string, points []byte) {
		// Names arrive '\n'-separated: a control character is never a valid name.
		seen := map[string]bool{}
		var zs []rueidis.ZScore
		for i, name := range strings.Split(names, "\n") {
			if clean, err := CleanParticipant(name); err != nil || clean != name || seen[name] {
				continue
			}
			seen[name] = true
			z := rueidis.ZScore{Member: name}
			if i < len(points) {
				z.Score = 10 * float64(points[i])
			}
			zs = append(zs, z)
		}
		// Board order: highest first, equal scores in reverse byte order of names.
		sort.Slice(zs, func(i, j int) bool {
			if zs[i].Score != zs[j].Score {
				return zs[i].Score > zs[j].Score
			}
			return zs[i].Member > zs[j].Member
		})
		want := [][]string{{"rank", "competition_rank", "participant", "score", "correct_answers"}}
		for i, z := range zs {
			comp := 1
			for _, other := range zs {
				if other.Score > z.Score {
					comp++
				}
			}
			want = append(want, []string{strconv.Itoa(i + 1), strconv.Itoa(comp), z.Member,
				strconv.Itoa(int(z.Score)), strconv.Itoa(int(z.Score) / 10)})
		}
		standings, err := decodeStandings("k", zs, 1)
		if err != nil {
			t.Fatal(err)
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

// FuzzReplyError: a server error reply with any text (made by a real server
// reply from miniredis, code word chosen from the mapped ones or fuzzed) maps
// to at most one sentinel: the script code's (KUIS_*, NOPERM), ErrCorrupt for
// WRONGTYPE (naming the key), ErrForbidden for an ACL refusal worded in text;
// any other reply wraps no sentinel and keeps the *rueidis.RedisError in its
// chain. Every mapped message names the subject, and only ErrCorrupt may name
// the key it was given.
func FuzzReplyError(f *testing.F) {
	codes := []string{"KUIS_NOTFOUND", "KUIS_FINISHED", "KUIS_RUNNING", "KUIS_EXISTS", "KUIS_QUESTION",
		"KUIS_CORRUPT", "KUIS_FORBIDDEN", "NOPERM", "WRONGTYPE", "ERR", "OOM", "NOSCRIPT", "KUIS_CONFLICT",
		"KUIS_CHANGED", "KUIS_BUSY", "KUIS_NAMETAKEN", "LOADING", "BUSY", "MASTERDOWN", "CLUSTERDOWN", "READONLY", "TRYAGAIN", "MOVED", "CROSSSLOT"}
	mapping := map[string]error{"KUIS_NOTFOUND": ErrQuizNotFound, "KUIS_FINISHED": ErrQuizFinished,
		"KUIS_RUNNING": ErrQuizRunning, "KUIS_EXISTS": ErrQuizExists, "KUIS_QUESTION": ErrInvalidQuestion,
		"KUIS_CORRUPT": ErrCorrupt, "KUIS_FORBIDDEN": ErrForbidden, "NOPERM": ErrForbidden, "WRONGTYPE": ErrCorrupt,
		"KUIS_CONFLICT": ErrConflict, "KUIS_CHANGED": ErrQuizChanged, "KUIS_BUSY": ErrBusy, "KUIS_NAMETAKEN": ErrNameTaken,
		"LOADING": ErrUnavailable, "BUSY": ErrUnavailable, "MASTERDOWN": ErrUnavailable, "CLUSTERDOWN": ErrUnavailable,
		"READONLY": ErrUnavailable, "TRYAGAIN": ErrUnavailable, "MOVED": ErrNeedsClusterClient, "ASK": ErrNeedsClusterClient,
		"CROSSSLOT": ErrNeedsClusterClient}
	f.Add(uint8(5), "ns:meta:q: field status is missing")
	f.Add(uint8(255), "ERR user can't run this command")
	_, client := redistest.Miniredis(f)
	ctx := context.Background()
	const subject, key = `quiz "q", participant "Ali"`, "ns:papan:{q}"
	f.Fuzz(func(t *testing.T, pick uint8, rest string) {
		msg := strings.NewReplacer("\r", " ", "\n", " ").Replace(rest) // a RESP error reply is one line
		if int(pick) < len(codes) {
			msg = codes[pick] + " " + msg
		}
		reply := client.Do(ctx, client.B().Eval().Script("return redis.error_reply(ARGV[1])").Numkeys(0).Arg(msg).Build()).Error()
		re, ok := rueidis.IsRedisErr(reply)
		if !ok {
			t.Fatalf("miniredis answered %v, want an error reply", reply)
		}
		msg = re.Error()
		code, detail, _ := strings.Cut(msg, " ")
		var want []error
		switch sentinel, mapped := mapping[code]; {
		case mapped:
			want = []error{sentinel}
		case strings.Contains(msg, "can't run this command") || strings.Contains(msg, "can't access") || strings.Contains(msg, "no permissions"):
			want = []error{ErrForbidden}
		}
		err := replyError(re, subject, key)
		if got := matched(err); !slices.Equal(got, want) {
			t.Fatalf("replyError(%q) = %v: sentinels %v, want %v", msg, err, got, want)
		}
		var chained *rueidis.RedisError
		switch text := err.Error(); {
		case want == nil && !errors.As(err, &chained):
			t.Fatalf("replyError(%q) = %v lost the server's reply from its chain", msg, err)
		case code == "WRONGTYPE" && !strings.Contains(text, key):
			t.Fatalf("replyError(%q) = %q, want the key %s named", msg, text, key)
		case code == "KUIS_CORRUPT" && text != ErrCorrupt.Error()+": "+detail:
			t.Fatalf("replyError(%q) = %q, want the script's detail after the sentinel", msg, text)
		case code != "KUIS_CORRUPT" && code != "WRONGTYPE" && !strings.Contains(text, subject):
			t.Fatalf("replyError(%q) = %q does not name the subject", msg, text)
		case code != "KUIS_CORRUPT" && code != "WRONGTYPE" && !strings.Contains(msg, key) && strings.Contains(text, key):
			t.Fatalf("replyError(%q) = %q names the key", msg, text)
		}
	})
}

// TestReplyErrorNetworkTimeoutIsDeadlineExceeded: a caller's deadline that the
// network layer reports as os.ErrDeadlineExceeded ("dial tcp …: i/o timeout",
// seen when reconnecting to a stalled server) still satisfies
// errors.Is(err, context.DeadlineExceeded), and keeps its own chain; other
// network errors do not.
func TestReplyErrorNetworkTimeoutIsDeadlineExceeded(t *testing.T) {
	netErr := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, err := range []error{netErr, fmt.Errorf("ROLE on x: %w", netErr), context.DeadlineExceeded} {
		if got := replyError(err, "quiz", ""); !errors.Is(got, context.DeadlineExceeded) || !errors.Is(got, err) {
			t.Errorf("replyError(%v) = %v: want it to wrap both context.DeadlineExceeded and the original", err, got)
		}
	}
	if got := replyError(errors.New("connection reset"), "quiz", ""); errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("replyError(connection reset) = %v wraps context.DeadlineExceeded", got)
	}
}

// TestReplyErrorHandshakeNotReady: a new connection's handshake that a server
// not ready refused, which rueidis words with the reply's text and
// ErrNoCache, is ErrUnavailable; a handshake refused for another reason is not.
func TestReplyErrorHandshakeNotReady(t *testing.T) {
	handshake := func(reply string) error {
		return fmt.Errorf("%s: %v\n%w", reply, []string{"CLIENT", "TRACKING", "ON", "OPTIN"}, rueidis.ErrNoCache)
	}
	for reply, want := range map[string]bool{
		"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.": true,
		"LOADING Redis is loading the dataset in memory":                                         true,
		"ERR unknown command 'CLIENT'":                                                           false,
	} {
		if got := errors.Is(replyError(handshake(reply), "quiz", ""), ErrUnavailable); got != want {
			t.Errorf("replyError(handshake refused with %q) is ErrUnavailable: %v, want %v", reply, got, want)
		}
	}
}
