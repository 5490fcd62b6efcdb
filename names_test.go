package kuis_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// What CleanParticipant's refusals say of a name.
const (
	long       = "is longer than 64 characters"
	empty      = "is empty"
	noLetter   = "has no letter, digit or symbol"
	vsAlone    = "holds a variation selector (U+FE0F) that follows no emoji"
	notUTF8    = "is not valid UTF-8"
	hiddenText = "holds a hidden, blank, line-breaking or direction-changing character"
)

func hidden(r rune) string       { return fmt.Sprintf("%s (%U)", hiddenText, r) }
func endJoiner(r rune) string    { return fmt.Sprintf("starts or ends with a joiner (%U)", r) }
func joinsNothing(r rune) string { return fmt.Sprintf("holds a joiner (%U) that joins nothing", r) }
func notAllowed(r rune) string {
	return fmt.Sprintf("holds %U, a character names may not use (unassigned, private-use or an old Hangul letter)", r)
}
func mixes(a, b, c, d string) string {
	return fmt.Sprintf("mixes letters of two scripts (%s %q, %s %q)", a, b, c, d)
}

// TestCleanParticipant: CleanParticipant maps a name as the PRECIS Nickname
// profile does (white space around it trimmed, spaces mapped to U+0020 and
// collapsed, NFKC: fullwidth "Ａｌｉ" is "Ali") and drops a variation selector
// that changes nothing; it refuses, with ErrInvalidParticipant and words
// that say what to change, a name that would show as nothing or pass for
// another: every character the profile disallows (Default_Ignorable ones,
// controls, separators, fillers), blank symbols, letters of two scripts,
// joiners at the ends or joining nothing, U+FE0F after no emoji, more than
// 64 characters. Cleaning a clean name returns it unchanged.
func TestCleanParticipant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string // want "" for a refusal
		problem  string // what the refusal says of the name
	}{
		// Mapped to the name it looks like.
		{"Ali", "Ali", ""},
		{"  Ali\u00a0", "Ali", ""},
		{"\u3000Ali Baba\u3000", "Ali Baba", ""},
		{"Ali\n", "Ali", ""}, // Unicode's white space around a name goes too
		{"Jose\u0301", "Jos\u00e9", ""},
		{"Ａｌｉ", "Ali", ""},
		{"Ali  Baba", "Ali Baba", ""},
		{"Ali\u00a0Baba", "Ali Baba", ""},
		{"Ali \u2003\u3000\u202f Baba", "Ali Baba", ""},
		{"\ufb01tri", "fitri", ""},        // the ligature ﬁ
		{"\uff7b\uff84\uff73", "サトウ", ""}, // halfwidth katakana
		{"Ali\u00b2", "Ali2", ""},
		{"\u00a8Ali", "\u0308Ali", ""}, // NFKC's space before the diaeresis is trimmed
		{"😀\ufe0f", "😀", ""},           // U+FE0F after an emoji shown as emoji changes nothing
		{"👍🏽\ufe0f", "👍🏽", ""},
		{"🇮🇩\ufe0f", "🇮🇩", ""},
		{"★\ufe0f Budi", "★ Budi", ""}, // ★ has no emoji form
		{" " + strings.Repeat("a", 64) + " ", strings.Repeat("a", 64), ""},
		{strings.Repeat("Ａ", 64), strings.Repeat("A", 64), ""},

		// Blank, or "Ali" with something hidden after it.
		{"\u3164", "", hidden('\u1160')}, // NFKC maps the Hangul filler U+3164 to U+1160
		{"\u115f", "", hidden('\u115f')},
		{"\u1160", "", hidden('\u1160')},
		{"\uffa0", "", hidden('\u1160')},
		{"\u2800", "", hidden('\u2800')},
		{"Ali\u2800", "", hidden('\u2800')},
		{"Ali\u2800Baba", "", hidden('\u2800')},
		{"\U0001d159", "", hidden('\U0001d159')},
		{"Ali\u034f", "", hidden('\u034f')},
		{"Ali\u180e", "", hidden('\u180e')},
		{"Ali\u2061", "", hidden('\u2061')},
		{"Ali\u2062", "", hidden('\u2062')},
		{"Ali\u2063", "", hidden('\u2063')},
		{"Ali\u2064", "", hidden('\u2064')},
		{"Ali\u206a", "", hidden('\u206a')},
		{"Ali\ufe0f", "", vsAlone},
		{"Ali\U000e0020", "", hidden('\U000e0020')},
		{"Ali\U000e0041\U000e006c\U000e0069", "", hidden('\U000e0041')},
		{"Ali\U0001bca0", "", hidden('\U0001bca0')},
		{"Ali\U0001d173", "", hidden('\U0001d173')},
		{"Ali\ufff9", "", hidden('\ufff9')},
		{"Ali\u17b4", "", hidden('\u17b4')},
		{"Ali\u200d", "", endJoiner('\u200d')},
		{"Ali\u200b", "", hidden('\u200b')},
		{"Ali\u2029Baba", "", hidden('\u2029')},
		{"\ufeffAli", "", hidden('\ufeff')},
		{"\u202eilA", "", hidden('\u202e')},
		{"Ali\u2066", "", hidden('\u2066')},
		{"Al\u00adi", "", hidden('\u00ad')},
		{"A\u2060li", "", hidden('\u2060')},
		{"\u061cAli", "", hidden('\u061c')},
		{"\u200eAli", "", hidden('\u200e')},
		{"Ali\nBaba", "", hidden('\n')},
		{"Ali\ufe0e", "", hidden('\ufe0e')},
		{"Ali\U000e0100", "", hidden('\U000e0100')},

		// Letters of two scripts.
		{"\u0410li", "", mixes("Cyrillic", "А", "Latin", "l")},
		{"Ali\u0430", "", mixes("Latin", "A", "Cyrillic", "а")},
		{"Ali 李", "", mixes("Latin", "A", "Han", "李")},
		{"Αli", "", mixes("Greek", "Α", "Latin", "l")},
		{"あ한", "", mixes("Hiragana", "あ", "Hangul", "한")},
		{"李민준 アキ", "", mixes("Hangul", "민", "Katakana", "ア")},

		// Joiners and variation selectors out of place.
		{"\u200dAli", "", endJoiner('\u200d')},
		{"Ali\u200c", "", endJoiner('\u200c')},
		{"\u0915\u094d\u200d", "", endJoiner('\u200d')}, // after a virama, but at the end
		{"👩\u200d", "", endJoiner('\u200d')},
		{"Ali\u200dBaba", "", joinsNothing('\u200d')},
		{"Ali\u200cBaba", "", joinsNothing('\u200c')},
		{"👩\u200dAli", "", joinsNothing('\u200d')},
		{"Ali\u200d👩", "", joinsNothing('\u200d')},
		{"👩\u200d\u200d🎓", "", joinsNothing('\u200d')},
		{"\ufe0fAli", "", vsAlone},
		{"1\ufe0f", "", vsAlone}, // a keycap's digit takes U+FE0F only before U+20E3
		{"❤\ufe0f\ufe0f", "", vsAlone},
		{"\u2139\ufe0f", "", vsAlone},                       // NFKC maps the emoji ℹ to the letter i
		{"🏴\U000e0067\U000e0062", "", hidden('\U000e0067')}, // not one of the three subdivision flags

		// Nothing else to see, too long, not text, not allowed.
		{"", "", empty},
		{"   ", "", empty},
		{"\u00a0", "", empty},
		{"\u2028", "", empty},
		{"Ali\xff", "", notUTF8},
		{"\u0301", "", noLetter}, // a mark alone
		{"\u00a8", "", noLetter}, // NFKC: a space and a combining diaeresis
		{"...", "", noLetter},
		{strings.Repeat("李", 65), "", long},
		{strings.Repeat("🎓", 65), "", long},
		{strings.Repeat("Ａ", 65), "", long},
		{"Ali\ue000", "", notAllowed('\ue000')},
		{"Ali\U000f0000", "", notAllowed('\U000f0000')},
		{"\u314b\u314b", "", notAllowed('\u110f')}, // NFKC maps a lone compatibility jamo to an old one
		{"a\u00b7b", "", fmt.Sprintf("holds %q (U+00B7) where its script's rule does not allow it", "·")},
		{"\u30fb", "", fmt.Sprintf("holds %q (U+30FB) where its script's rule does not allow it", "・")},
	}
	for _, tt := range tests {
		got, err := kuis.CleanParticipant(tt.in)
		switch {
		case tt.want == "" && (!errors.Is(err, kuis.ErrInvalidParticipant) || !strings.HasSuffix(err.Error(), " "+tt.problem)):
			t.Errorf("CleanParticipant(%+q) = %+q, %v; want ErrInvalidParticipant saying it %s", tt.in, got, err, tt.problem)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("CleanParticipant(%+q) = %+q, %v; want %+q", tt.in, got, err, tt.want)
		case tt.want != "":
			if again, err := kuis.CleanParticipant(got); err != nil || again != got {
				t.Errorf("CleanParticipant(%+q) = %+q, %v; want the clean name itself", got, again, err)
			}
		}
	}
}

// classNames are names of real classes, each as a student types it and as
// CleanParticipant returns it.
var classNames = []struct{ what, name string }{
	{"Latin with diacritics", "Nguyễn Thị Lan"},
	{"Latin with diacritics", "José Álvarez"},
	{"Latin with diacritics", "Zoë Ødegård"},
	{"Latin with diacritics", "Łukasz Wójcik"},
	{"Latin with diacritics", "Çağla Şahin"},
	{"Latin with punctuation", "O'Brien-Smith, Jr."},
	{"Catalan middle dot", "Gal·la"},
	{"Cyrillic", "Анна Петрова"},
	{"Cyrillic", "Ђорђе Јовановић"},
	{"Greek", "Αλέξανδρος Παπαδόπουλος"},
	{"Arabic", "محمد علي"},
	{"Arabic with harakat", "\u0645\u064f\u062d\u064e\u0645\u064e\u0651\u062f"},
	{"Persian with ZWNJ", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645"},
	{"Persian with ZWNJ", "علی\u200cرضا"},
	{"Hebrew", "דוד כהן"},
	{"Hebrew with geresh", "ג׳ורג׳"},
	{"Devanagari", "अर्जुन शर्मा"},
	{"Devanagari, ZWJ after a virama", "अक्\u200dषय"},
	{"Devanagari, ZWNJ after a virama", "अक्\u200cषय"},
	{"Thai", "สมชาย ใจดี"},
	{"Chinese", "王小明"},
	{"Chinese", "李雷"},
	{"Japanese, kanji with hiragana", "山田 はなこ"},
	{"Japanese, kanji with katakana", "佐藤タロウ"},
	{"Japanese, kanji, hiragana and katakana", "田中ゆう子・アン"},
	{"Korean", "김민준"},
	{"Korean with hanja", "金민준"},
	{"digits", "Ali 2"},
	{"emoji", "Dewi 🎉"},
	{"emoji with a skin tone", "👍🏽 Budi"},
	{"profession with a skin tone", "👩🏾\u200d🎓 Siti"},
	{"profession", "👩\u200d🎓"},
	{"family", "👨\u200d👩\u200d👧 Keluarga"},
	{"couple with skin tones", "🧑🏻\u200d❤\ufe0f\u200d💋\u200d🧑🏼"},
	{"rainbow flag", "🏳\ufe0f\u200d🌈 Rani"},
	{"regional-indicator flag", "🇮🇩 Agus"},
	{"England's flag", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f Harry"},
	{"emoji shown as text by default, with U+FE0F", "❤\ufe0f Ayu"},
	{"keycap", "1\ufe0f\u20e3 Budi"},
	{"emoji sequence of text emoji", "👁\ufe0f\u200d🗨\ufe0f"},
	{"black cat", "🐈\u200d⬛"},
	{"emoji only, 64 of them", strings.Repeat("🎓", 64)},
	{"Han only, 64 of them", strings.Repeat("李", 64)},
}

// TestClassNamesStay: the names of real classes, in every script a class
// writes and with emoji, are clean as typed, and every method takes them
// and reads them back byte for byte.
func TestClassNamesStay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, b := e.running(1)
	for _, c := range classNames {
		if got, err := kuis.CleanParticipant(c.name); err != nil || got != c.name {
			t.Errorf("%s: CleanParticipant(%+q) = %+q, %v; want the name as typed", c.what, c.name, got, err)
			continue
		}
		if a, err := b.RecordAnswer(e.ctx, c.name, 1); err != nil || a != (kuis.Answer{Score: 10}) {
			t.Errorf("%s: RecordAnswer(%+q) = %+v, %v; want {Score: 10}", c.what, c.name, a, err)
		}
		if s, err := b.Standing(e.ctx, c.name); err != nil || s.Participant != c.name {
			t.Errorf("%s: Standing(%+q) = %+v, %v; want the name back", c.what, c.name, s, err)
		}
	}
}

// TestNamesAreNeverCleanedSilently: every method that takes a participant
// refuses a name CleanParticipant would change or refuses, with nothing
// written, and says so ("Ａｌｉ" is not clean: CleanParticipant maps it to
// "Ali"); names are compared byte for byte; members written outside the
// library, whatever they hold, still read back through Standings and Page,
// and Audit names each that breaks the rule.
func TestNamesAreNeverCleanedSilently(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(3)
	k := e.keys(id)
	for _, name := range []string{"Ali ", "Jose\u0301", "\u202eilA", "Ali\u200b", "Ａｌｉ", "Ali\u00a0Baba", "Ali  Baba",
		"\u0410li", "Ali\ufe0f", "\u3164", "😀\ufe0f"} {
		before := e.dump(fiveKeys(k)...)
		if _, err := b.RecordAnswer(e.ctx, name, 1); !errors.Is(err, kuis.ErrInvalidParticipant) {
			t.Errorf("RecordAnswer(%+q) = %v; want ErrInvalidParticipant", name, err)
		}
		if _, err := b.Standing(e.ctx, name); !errors.Is(err, kuis.ErrInvalidParticipant) {
			t.Errorf("Standing(%+q) = %v; want ErrInvalidParticipant", name, err)
		}
		if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
			t.Errorf("a refused %+q wrote (-before +after):\n%s", name, diff)
		}
	}
	_, err := b.RecordAnswer(e.ctx, "Ａｌｉ", 1)
	if want := `participant "Ａｌｉ" is not clean (CleanParticipant maps it to "Ali")`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("RecordAnswer(Ａｌｉ) = %v; want it to end %s", err, want)
	}
	for _, name := range []string{"ali", "Ali"} {
		if a, err := b.RecordAnswer(e.ctx, name, 1); err != nil || a.Duplicate {
			t.Errorf("RecordAnswer(%q) = %+v, %v; want a counted answer: two students", name, a, err)
		}
	}
	e.mustRaw("ZADD", k.Board(), "20", "Ali ", "30", "\u202eilA", "40", "Ａｌｉ")
	want := []string{"Ａｌｉ", "\u202eilA", "Ali ", "ali", "Ali"}
	for _, read := range []func() ([]kuis.Standing, error){
		func() ([]kuis.Standing, error) { return b.Standings(e.ctx) },
		func() ([]kuis.Standing, error) { return b.Page(e.ctx, 0, 10) },
	} {
		s, err := read()
		var got []string
		for _, x := range s {
			got = append(got, x.Participant)
		}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("read: %v (-want +got):\n%s", err, diff)
		}
	}
	v, err := e.store.Audit(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range v {
		if x.Rule == "member" {
			got = append(got, x.Detail)
		}
	}
	slices.Sort(got)
	wantMembers := []string{
		`participant "Ali " has white space around it (CleanParticipant trims it)`,
		`participant "\u202eilA" holds a hidden, blank, line-breaking or direction-changing character (U+202E)`,
		`participant "Ａｌｉ" is not clean (CleanParticipant maps it to "Ali")`,
	}
	slices.Sort(wantMembers)
	if diff := cmp.Diff(wantMembers, got); diff != "" {
		t.Errorf("Audit's member violations (-want +got):\n%s", diff)
	}
}

// BenchmarkCleanParticipant: the cost of CleanParticipant by kind of name.
// For a clean name it does exactly the check every method that takes a
// participant makes (RecordAnswer's among them); "fullwidth" is a name
// cleaning maps.
func BenchmarkCleanParticipant(b *testing.B) {
	for _, c := range []struct{ what, name string }{
		{"ascii", "Siti Aminah"},
		{"latin", "Nguyễn Thị Lan"},
		{"han", "王小明"},
		{"japanese", "田中ゆう子"},
		{"arabic", "محمد علي"},
		{"emoji-zwj", "👩🏾\u200d🎓 Siti"},
		{"fullwidth", "Ｓｉｔｉ"},
	} {
		b.Run(c.what, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kuis.CleanParticipant(c.name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
