package wire_test

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis/internal/wire"
)

// FuzzQuote: Quote, which every error message uses to show a caller's
// string, is one line of valid UTF-8 whatever the input, and unquotes to a
// prefix of it: all of it up to 64 bytes, else at most 64 bytes cut at a
// rune boundary (for valid UTF-8, at most 3 bytes short) followed by "…".
// Printable input therefore stays within 64 + 2 quotes + "…" = 69 bytes.
func FuzzQuote(f *testing.F) {
	f.Add("Ali")
	f.Add(strings.Repeat("é", 40))
	f.Fuzz(func(t *testing.T, s string) {
		q := wire.Quote(s)
		if strings.ContainsAny(q, "\r\n") || !utf8.ValidString(q) || len(q) > 2+4*wire.MaxQuoted+len("…") { // an escaped byte takes at most 4
			t.Fatalf("Quote(%q) = %s: not one short line of valid UTF-8", s, q)
		}
		body, cut := strings.CutSuffix(q, "…")
		prefix, err := strconv.Unquote(body)
		if err != nil || !strings.HasPrefix(s, prefix) || len(prefix) > wire.MaxQuoted || cut != (len(s) > wire.MaxQuoted) {
			t.Fatalf("Quote(%q) = %s: not a quoted prefix of at most %d bytes, cut %v", s, q, wire.MaxQuoted, cut)
		}
		if !cut {
			if prefix != s {
				t.Fatalf("Quote(%q) = %s, want the whole string", s, q)
			}
			return
		}
		if !utf8.RuneStart(s[len(prefix)]) && len(prefix) > 0 {
			t.Fatalf("Quote(%q) = %s cuts inside a rune", s, q)
		}
		if utf8.ValidString(s) && len(prefix) < wire.MaxQuoted-3 {
			t.Fatalf("Quote(%q) = %s keeps %d bytes, want at least %d", s, q, len(prefix), wire.MaxQuoted-3)
		}
		if printable := strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) || r == '"' || r == '\\' }) < 0; printable &&
			utf8.ValidString(s) && len(q) > wire.MaxQuoted+2+len("…") {
			t.Fatalf("quote of printable input is %d bytes: %s", len(q), q)
		}
	})
}

// TestParseID: two decimal numbers of at most 2^64 - 1 joined by '-', and
// nothing else; String gives the same text back, Next the ID right after,
// none after the greatest.
func TestParseID(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want wire.ID
		ok   bool
	}{
		{"0-0", wire.ID{}, true},
		{"1700000000000-3", wire.ID{MS: 1700000000000, Seq: 3}, true},
		{"18446744073709551615-18446744073709551615", wire.ID{MS: math.MaxUint64, Seq: math.MaxUint64}, true},
		{"18446744073709551616-0", wire.ID{}, false},
		{"1-", wire.ID{}, false},
		{"-1", wire.ID{}, false},
		{"+1-2", wire.ID{}, false},
		{"1-2-3", wire.ID{}, false},
		{"12", wire.ID{}, false},
		{"", wire.ID{}, false},
	} {
		got, ok := wire.ParseID(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseID(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && got.String() != tt.in {
			t.Errorf("ParseID(%q).String() = %q", tt.in, got.String())
		}
	}
	for _, tt := range []struct {
		id, next wire.ID
		ok       bool
	}{
		{wire.ID{MS: 5, Seq: 1}, wire.ID{MS: 5, Seq: 2}, true},
		{wire.ID{MS: 5, Seq: math.MaxUint64}, wire.ID{MS: 6}, true},
		{wire.ID{MS: math.MaxUint64, Seq: math.MaxUint64}, wire.ID{MS: math.MaxUint64, Seq: math.MaxUint64}, false},
	} {
		if next, ok := tt.id.Next(); next != tt.next || ok != tt.ok || ok && !tt.id.Less(next) {
			t.Errorf("%v.Next() = %v, %v; want %v, %v", tt.id, next, ok, tt.next, tt.ok)
		}
	}
	if got := (wire.ID{MS: 1700000000123}).Time(); !got.Equal(time.UnixMilli(1700000000123)) || got.Location() != time.UTC {
		t.Errorf("Time() = %v", got)
	}
}

// TestQuestionRule: one rule for jumlah_soal and question numbers: a
// positive decimal without sign, leading zeros or anything else, at most its
// bound (MaxQuestions for jumlah_soal, the quiz's jumlah_soal for a question).
func TestQuestionRule(t *testing.T) {
	for _, tt := range []struct {
		in        string
		questions int // the quiz's jumlah_soal
		want      int // 0: refused
	}{
		{"1", 3, 1}, {"3", 3, 3}, {"4", 3, 0}, {"0", 3, 0}, {"04", 3, 0}, {"+4", 5, 0}, {"-1", 3, 0},
		{" 1", 3, 0}, {"1 ", 3, 0}, {"1e2", 1000, 0}, {"1000", 1000, 1000}, {"1001", 2000, 0}, {"", 3, 0},
		{"١", 3, 0}, // an Arabic-Indic digit one
	} {
		if got, ok := wire.Question(tt.in, tt.questions); got != tt.want || ok != (tt.want > 0) {
			t.Errorf("Question(%q, %d) = %d, %v; want %d", tt.in, tt.questions, got, ok, tt.want)
		}
		if tt.questions != 1000 {
			continue
		}
		if got, ok := wire.Questions(tt.in); got != tt.want || ok != (tt.want > 0) {
			t.Errorf("Questions(%q) = %d, %v; want %d", tt.in, got, ok, tt.want)
		}
	}
	for _, s := range []string{"1000", "999", "1"} {
		if _, ok := wire.Questions(s); !ok {
			t.Errorf("Questions(%q) refused", s)
		}
	}
	for _, s := range []string{"1001", "2048", "999999999999999", "0", "01"} {
		if n, ok := wire.Questions(s); ok {
			t.Errorf("Questions(%q) = %d, want a refusal", s, n)
		}
	}
}

// TestPair: a pair is "<question>:<participant>"; ParsePair takes back only
// what Pair makes of a question of the quiz and a stored name, and splits at
// the first ':' (a name may hold one).
func TestPair(t *testing.T) {
	for _, tt := range []struct {
		member string
		q      int
		p      string
	}{
		{"1:Ali", 1, "Ali"}, {"3:12:34", 3, "12:34"}, {"4:Ali", 0, ""}, {"04:Ali", 0, ""}, {"+1:Ali", 0, ""},
		{"1:", 0, ""}, {"Ali", 0, ""}, {"1:Ali\n", 0, ""}, {"1:Ali\xff", 0, ""}, {":Ali", 0, ""},
	} {
		q, p, ok := wire.ParsePair(tt.member, 3)
		if q != tt.q || p != tt.p || ok != (tt.q > 0) {
			t.Errorf("ParsePair(%q, 3) = %d, %q, %v; want %d, %q", tt.member, q, p, ok, tt.q, tt.p)
		}
		if ok && wire.Pair(q, p) != tt.member {
			t.Errorf("Pair(%d, %q) = %q, want %q", q, p, wire.Pair(q, p), tt.member)
		}
	}
}

// TestPlace: a place holds up to MaxPlaceCount answers and a time below
// PlaceUnit, exactly in a double; more answers come first, then the earlier
// time; a place agrees with a board score of 10 points per answer and with
// nothing else.
func TestPlace(t *testing.T) {
	if wire.MaxPlaceCount != 2047 || float64(wire.MaxPlaceCount*wire.PlaceUnit+wire.PlaceUnit-1) != 1<<53-1 {
		t.Fatalf("MaxPlaceCount %d does not fill 2^53 - 1 with PlaceUnit", wire.MaxPlaceCount)
	}
	for _, tt := range []struct {
		count, ms int64
		ok        bool
	}{
		{0, 0, true}, {1, 1, true}, {2047, wire.PlaceUnit - 1, true}, {1000, 1764662400000, true},
		{2048, 1, false}, {-1, 1, false}, {1, -1, false}, {1, wire.PlaceUnit, false}, {1, 5000000000000, false},
	} {
		place, ok := wire.Place(tt.count, tt.ms)
		if ok != tt.ok {
			t.Errorf("Place(%d, %d) = %d, %v; want ok %v", tt.count, tt.ms, place, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if count, ok := wire.PlaceCount(float64(place)); !ok || count != tt.count || float64(place) != float64(int64(float64(place))) {
			t.Errorf("PlaceCount(Place(%d, %d)) = %d, %v", tt.count, tt.ms, count, ok)
		}
		if !wire.Agrees(float64(place), float64(tt.count*wire.Points)) || wire.Agrees(float64(place), float64((tt.count+1)*wire.Points)) {
			t.Errorf("Agrees(Place(%d, %d)) with %d points is not the only agreement", tt.count, tt.ms, tt.count*wire.Points)
		}
	}
	earlier, _ := wire.Place(3, 1000)
	later, _ := wire.Place(3, 2000)
	untimed, _ := wire.Place(3, 0)
	fewer, _ := wire.Place(2, 1)
	if earlier <= later || later <= untimed || untimed <= fewer {
		t.Errorf("places out of order: earlier %d, later %d, no time %d, fewer answers %d", earlier, later, untimed, fewer)
	}
	for _, p := range []float64{-1, 1 << 53, 1.5, math.NaN(), math.Inf(1), -4398046511104} {
		if count, ok := wire.PlaceCount(p); ok {
			t.Errorf("PlaceCount(%v) = %d, want no place", p, count)
		}
		if wire.Agrees(p, 0) || wire.Agrees(p, 10) {
			t.Errorf("Agrees(%v, ...) = true", p)
		}
	}
}

// TestScore: a sound score is a non-negative multiple of 10 of at most
// 2^53 - 2.
func TestScore(t *testing.T) {
	for _, tt := range []struct {
		f  float64
		ok bool
	}{
		{0, true}, {10, true}, {wire.MaxScore, true}, {wire.MaxScore + 10, false}, {15, false}, {-10, false},
		{12.5, false}, {math.NaN(), false}, {math.Inf(1), false}, {1e20, false},
	} {
		if got, ok := wire.Score(tt.f); ok != tt.ok || ok && float64(got) != tt.f {
			t.Errorf("Score(%v) = %d, %v; want ok %v", tt.f, got, ok, tt.ok)
		}
	}
}

// TestDecodeEntry: exactly peserta and skor 0 is a join; any other entry
// with peserta is an answer and must be whole; the single field status =
// berjalan is the start, = selesai the finish; the rest is Other.
func TestDecodeEntry(t *testing.T) {
	answer := func(p, q, s string) map[string]string {
		return map[string]string{wire.LogParticipant: p, wire.LogQuestion: q, wire.LogScore: s}
	}
	join := func(p string) map[string]string {
		return map[string]string{wire.LogParticipant: p, wire.LogScore: wire.JoinScore}
	}
	for _, tt := range []struct {
		name   string
		id     string
		fields map[string]string
		want   wire.Entry
		bad    bool
	}{
		{"answer", "5-1", answer("Ali", "2", "20"), wire.Entry{ID: wire.ID{MS: 5, Seq: 1}, Kind: wire.Answer, Participant: "Ali", Question: 2, Score: 20}, false},
		{"start", "5-9223372036854775808", map[string]string{"status": "berjalan"}, wire.Entry{ID: wire.ID{MS: 5, Seq: 1 << 63}, Kind: wire.Start}, false},
		{"finish", "6-0", map[string]string{"status": "selesai"}, wire.Entry{ID: wire.ID{MS: 6}, Kind: wire.Finish}, false},
		{"status beside another field", "6-0", map[string]string{"status": "selesai", "x": "y"}, wire.Entry{ID: wire.ID{MS: 6}, Kind: wire.Other}, false},
		{"a note", "6-0", map[string]string{"note": "x"}, wire.Entry{ID: wire.ID{MS: 6}, Kind: wire.Other}, false},
		{"leading zero", "5-1", answer("Ali", "02", "20"), wire.Entry{ID: wire.ID{MS: 5, Seq: 1}, Kind: wire.Answer, Participant: "Ali"}, true},
		{"question above jumlah_soal", "5-1", answer("Ali", "4", "20"), wire.Entry{ID: wire.ID{MS: 5, Seq: 1}, Kind: wire.Answer, Participant: "Ali"}, true},
		{"no question", "5-1", map[string]string{wire.LogParticipant: "Ali"}, wire.Entry{ID: wire.ID{MS: 5, Seq: 1}, Kind: wire.Answer, Participant: "Ali"}, true},
		{"control character", "5-1", answer("Ali\n", "1", "10"), wire.Entry{ID: wire.ID{MS: 5, Seq: 1}, Kind: wire.Answer, Participant: "Ali\n"}, true},
		{"score 15", "5-1", answer("Ali", "1", "15"), wire.Entry{ID: wire.ID{MS: 5, Seq: 1}, Kind: wire.Answer, Participant: "Ali", Question: 1}, true},
		{"score 0", "5-1", answer("Ali", "1", "0"), wire.Entry{ID: wire.ID{MS: 5, Seq: 1}, Kind: wire.Answer, Participant: "Ali", Question: 1}, true},
		{"an ID past any time", "18446744073709551615-0", answer("Ali", "1", "10"),
			wire.Entry{ID: wire.ID{MS: math.MaxUint64}, Kind: wire.Answer, Participant: "Ali", Question: 1, Score: 10}, true},
		{"no ID", "x", answer("Ali", "1", "10"), wire.Entry{}, true},
		{"join", "7-2", join("Ali"), wire.Entry{ID: wire.ID{MS: 7, Seq: 2}, Kind: wire.Join, Participant: "Ali"}, false},
		{"join of no name", "7-2", join(""), wire.Entry{ID: wire.ID{MS: 7, Seq: 2}, Kind: wire.Join}, true},
		{"join of a control character", "7-2", join("Ali\x7f"), wire.Entry{ID: wire.ID{MS: 7, Seq: 2}, Kind: wire.Join, Participant: "Ali\x7f"}, true},
		{"join past any time", "18446744073709551615-0", join("Ali"), wire.Entry{ID: wire.ID{MS: math.MaxUint64}, Kind: wire.Join, Participant: "Ali"}, true},
		// Anything more or other than peserta and skor 0 is an answer, and a broken one.
		{"join with a question", "7-2", answer("Ali", "1", "0"), wire.Entry{ID: wire.ID{MS: 7, Seq: 2}, Kind: wire.Answer, Participant: "Ali", Question: 1}, true},
		{"join with another field", "7-2", map[string]string{wire.LogParticipant: "Ali", wire.LogScore: "0", "x": "y"},
			wire.Entry{ID: wire.ID{MS: 7, Seq: 2}, Kind: wire.Answer, Participant: "Ali"}, true},
		{"join scored 00", "7-2", map[string]string{wire.LogParticipant: "Ali", wire.LogScore: "00"},
			wire.Entry{ID: wire.ID{MS: 7, Seq: 2}, Kind: wire.Answer, Participant: "Ali"}, true},
		{"join scored 10", "7-2", map[string]string{wire.LogParticipant: "Ali", wire.LogScore: "10"},
			wire.Entry{ID: wire.ID{MS: 7, Seq: 2}, Kind: wire.Answer, Participant: "Ali"}, true},
	} {
		got, err := wire.DecodeEntry(tt.id, tt.fields, 3)
		if diff := cmp.Diff(tt.want, got); diff != "" || (err != nil) != tt.bad {
			t.Errorf("%s: DecodeEntry = %v (-want +got):\n%s", tt.name, err, diff)
		}
		if err != nil && (strings.ContainsAny(err.Error(), "\n\r") || !utf8.ValidString(err.Error())) {
			t.Errorf("%s: error is not one line: %q", tt.name, err)
		}
	}
	if got, want := (wire.Entry{Question: 3, Participant: "Ali"}).Pair(), "3:Ali"; got != want {
		t.Errorf("Pair() = %q, want %q", got, want)
	}
}
