package kuis_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// What CleanParticipant's refusals say of a name.
const (
	long       = "is longer than 64 characters"
	empty      = "is empty"
	noLetter   = "has no letter, digit or symbol"
	notUTF8    = "is not valid UTF-8"
	hiddenText = "holds a hidden, blank, line-breaking or direction-changing character"
)

// Each names a character as the caller typed it, and its position in the
// caller's name, in characters from 1.
func hidden(r rune, at int) string { return fmt.Sprintf("%s (%U at character %d)", hiddenText, r, at) }
func endJoiner(r rune, at int) string {
	return fmt.Sprintf("starts or ends with a joiner (%U at character %d)", r, at)
}
func joinsNothing(r rune, at int) string {
	return fmt.Sprintf("holds a joiner (%U at character %d) that joins nothing", r, at)
}
func vsAlone(at int) string {
	return fmt.Sprintf("holds a variation selector (U+FE0F at character %d) that follows no emoji", at)
}
func notAllowed(r rune, at int) string {
	return fmt.Sprintf("holds %U at character %d, a character names may not use (unassigned, private-use or an old Hangul letter)", r, at)
}
func mixes(a, b string, atB int, c, d string, atD int) string {
	return fmt.Sprintf("mixes letters of two scripts (%s %q at character %d, %s %q at character %d)", a, b, atB, c, d, atD)
}

// TestCleanParticipant: CleanParticipant maps a name as the PRECIS Nickname
// profile does (white space around it trimmed, spaces mapped to U+0020 and
// collapsed, NFKC: fullwidth "Ａｌｉ" is "Ali") and drops a variation selector
// that changes nothing; it refuses, with ErrInvalidParticipant and words
// that say what to change (naming a character as the caller typed it and
// where, in characters from 1), a name that would show as nothing or pass for
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
		{"\u3164", "", hidden('\u3164', 1)}, // NFKC maps the Hangul filler U+3164 to U+1160
		{"\u115f", "", hidden('\u115f', 1)},
		{"\u1160", "", hidden('\u1160', 1)},
		{"\uffa0", "", hidden('\uffa0', 1)},
		{"\u2800", "", hidden('\u2800', 1)},
		{"Ali\u2800", "", hidden('\u2800', 4)},
		{"Ali\u2800Baba", "", hidden('\u2800', 4)},
		{"\U0001d159", "", hidden('\U0001d159', 1)},
		{"Ali\u034f", "", hidden('\u034f', 4)},
		{"Ali\u180e", "", hidden('\u180e', 4)},
		{"Ali\u2061", "", hidden('\u2061', 4)},
		{"Ali\u2062", "", hidden('\u2062', 4)},
		{"Ali\u2063", "", hidden('\u2063', 4)},
		{"Ali\u2064", "", hidden('\u2064', 4)},
		{"Ali\u206a", "", hidden('\u206a', 4)},
		{"Ali\ufe0f", "", vsAlone(4)},
		{"Ali\U000e0020", "", hidden('\U000e0020', 4)},
		{"Ali\U000e0041\U000e006c\U000e0069", "", hidden('\U000e0041', 4)},
		{"Ali\U0001bca0", "", hidden('\U0001bca0', 4)},
		{"Ali\U0001d173", "", hidden('\U0001d173', 4)},
		{"Ali\ufff9", "", hidden('\ufff9', 4)},
		{"Ali\u17b4", "", hidden('\u17b4', 4)},
		{"Ali\u200d", "", endJoiner('\u200d', 4)},
		{"Ali\u200b", "", hidden('\u200b', 4)},
		{"Ali\u2029Baba", "", hidden('\u2029', 4)},
		{"\ufeffAli", "", hidden('\ufeff', 1)},
		{"\u202eilA", "", hidden('\u202e', 1)},
		{"Ali\u2066", "", hidden('\u2066', 4)},
		{"Al\u00adi", "", hidden('\u00ad', 3)},
		{"A\u2060li", "", hidden('\u2060', 2)},
		{"\u061cAli", "", hidden('\u061c', 1)},
		{"\u200eAli", "", hidden('\u200e', 1)},
		{"Ali\nBaba", "", hidden('\u000a', 4)},
		{"Ali\ufe0e", "", hidden('\ufe0e', 4)},
		{"Ali\U000e0100", "", hidden('\U000e0100', 4)},

		// The character named is the one the caller typed, where they typed it:
		// before cleaning maps it, trims the white space around the name,
		// collapses spaces and drops idle selectors.
		{"Siti\u3164", "", hidden('\u3164', 5)}, // not the U+1160 NFKC makes of it
		{"  Siti\u3164", "", hidden('\u3164', 7)},
		{"Siti \u3000 \uffa0", "", hidden('\uffa0', 8)},
		{strings.Repeat(" ", 1000) + "Ali\u200b", "", hidden('\u200b', 1004)},
		{"😀\ufe0f\u200b", "", hidden('\u200b', 3)},
		{"Ali\u200d\u3000", "", endJoiner('\u200d', 4)},
		{"Ｓｉｔｉ\u0410", "", mixes("Latin", "Ｓ", 1, "Cyrillic", "А", 5)},
		{"\ufb01tri\u0430", "", mixes("Latin", "ﬁ", 1, "Cyrillic", "а", 5)},
		{"Jose\u0301\u0430", "", mixes("Latin", "J", 1, "Cyrillic", "а", 6)},
		{"e\u0301\u0430", "", mixes("Latin", "e", 1, "Cyrillic", "а", 3)}, // é is e and U+0301 as typed
		{"\u314b\u3131\ue000", "", notAllowed('\u314b', 1)},

		// Letters of two scripts.
		{"\u0410li", "", mixes("Cyrillic", "А", 1, "Latin", "l", 2)},
		{"Ali\u0430", "", mixes("Latin", "A", 1, "Cyrillic", "а", 4)},
		{"Ali 李", "", mixes("Latin", "A", 1, "Han", "李", 5)},
		{"Αli", "", mixes("Greek", "Α", 1, "Latin", "l", 2)},
		{"あ한", "", mixes("Hiragana", "あ", 1, "Hangul", "한", 2)},
		{"李민준 アキ", "", mixes("Hangul", "민", 2, "Katakana", "ア", 5)},

		// Joiners and variation selectors out of place.
		{"\u200dAli", "", endJoiner('\u200d', 1)},
		{"Ali\u200c", "", endJoiner('\u200c', 4)},
		{"\u0915\u094d\u200d", "", endJoiner('\u200d', 3)}, // after a virama, but at the end
		{"👩\u200d", "", endJoiner('\u200d', 2)},
		{"Ali\u200dBaba", "", joinsNothing('\u200d', 4)},
		{"Ali\u200cBaba", "", joinsNothing('\u200c', 4)},
		{"👩\u200dAli", "", joinsNothing('\u200d', 2)},
		{"Ali\u200d👩", "", joinsNothing('\u200d', 4)},
		{"👩\u200d\u200d🎓", "", joinsNothing('\u200d', 2)},
		{"\ufe0fAli", "", vsAlone(1)},
		{"1\ufe0f", "", vsAlone(2)}, // a keycap's digit takes U+FE0F only before U+20E3
		{"❤\ufe0f\ufe0f", "", vsAlone(3)},
		{"\u2139\ufe0f", "", vsAlone(2)},                       // NFKC maps the emoji ℹ to the letter i
		{"🏴\U000e0067\U000e0062", "", hidden('\U000e0067', 2)}, // not one of the three subdivision flags

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
		{"Ali\ue000", "", notAllowed('\ue000', 4)},
		{"Ali\U000f0000", "", notAllowed('\U000f0000', 4)},
		{"\u314b\u314b", "", notAllowed('\u314b', 1)}, // NFKC maps a lone compatibility jamo to an old one
		{"a\u00b7b", "", fmt.Sprintf("holds %q (U+00B7) at character 2 where its script's rule does not allow it", "·")},
		{"\u30fb", "", fmt.Sprintf("holds %q (U+30FB) at character 1 where its script's rule does not allow it", "・")},
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

// namedChar is a character a refusal names: U+XXXX, or a quoted letter
// ("А" at character 1), then where.
var namedChar = regexp.MustCompile(`(?:U\+([0-9A-F]{4,6})\)?|("(?:[^"\\]|\\.)*")) at character (\d+)`)

// FuzzRefusalNamesWhatWasTyped: whatever name CleanParticipant refuses, each
// character its refusal names is the name's own character at the position
// it gives, never one cleaning made.
func FuzzRefusalNamesWhatWasTyped(f *testing.F) {
	for _, name := range []string{"Siti\u3164", "  Siti\uffa0", "Ｓｉｔｉ\u0410", "\ufb01tri\u0430", "Jose\u0301\u0430",
		"😀\ufe0f\u200b", "Ali\u200d\u3000", "a\u00b7b", "\u314b\u314b", "Ali\u2029Baba", "\u00a8\u0410li", "👩\u200d\u200d🎓",
		"\u1100\u1161\u11a8\u0410", "\u2474\u0430", "\u3300\u0410"} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		_, err := kuis.CleanParticipant(name)
		if err == nil {
			return
		}
		runes := []rune(name)
		for _, m := range namedChar.FindAllStringSubmatch(err.Error(), -1) {
			pos, _ := strconv.Atoi(m[3])
			var want rune
			if m[1] != "" {
				code, _ := strconv.ParseInt(m[1], 16, 32)
				want = rune(code)
			} else {
				q, uerr := strconv.Unquote(m[2])
				if uerr != nil || utf8.RuneCountInString(q) != 1 {
					t.Fatalf("CleanParticipant(%+q) = %v: %s is not one quoted character", name, err, m[2])
				}
				want, _ = utf8.DecodeRuneInString(q)
			}
			if pos < 1 || pos > len(runes) || runes[pos-1] != want {
				t.Fatalf("CleanParticipant(%+q) = %v: the name holds no %U at character %d", name, err, want, pos)
			}
		}
	})
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
		`participant "\u202eilA" holds a hidden, blank, line-breaking or direction-changing character (U+202E at character 1)`,
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
