package name

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
)

// What Clean's refusals say of a name.
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
func dotAlone(at int) string {
	return fmt.Sprintf("holds %q (U+00B7) at character %d, which goes only between two letters", "·", at)
}
func tatweelAlone(at int) string {
	return fmt.Sprintf("holds the Arabic tatweel (U+0640) at character %d, which goes only within an Arabic word", at)
}
func mixes(a, b string, atB int, c, d string, atD int) string {
	return fmt.Sprintf("mixes letters of two scripts (%s %q at character %d, %s %q at character %d)", a, b, atB, c, d, atD)
}

// TestClean: Clean maps a name as the PRECIS Nickname profile does (white
// space around it trimmed, spaces mapped to U+0020 and collapsed, NFKC:
// fullwidth "Ａｌｉ" is "Ali") and drops a variation selector that changes
// nothing; it refuses, in words that say what to change (naming a character
// as the caller typed it and where, in characters from 1), a name that would
// show as nothing or pass for another: every character the profile disallows
// (Default_Ignorable ones, controls, separators, fillers), blank symbols,
// letters of two scripts, joiners at the ends or joining nothing, U+FE0F
// after no emoji, more than 64 characters. Cleaning a clean name returns it
// unchanged.
func TestClean(t *testing.T) {
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
		{"Αli", "", mixes("Greek", "Α", 1, "Latin", "l", 2)},
		{"あ한", "", mixes("Hiragana", "あ", 1, "Hangul", "한", 2)},
		{"李민준 アキ", "", mixes("Hangul", "민", 2, "Katakana", "ア", 5)},
		{"Taroあ한", "", mixes("Hiragana", "あ", 5, "Hangul", "한", 6)}, // Latin goes with each, they not with each other
		{"ㄌㄧㄣ あき", "", mixes("Bopomofo", "ㄌ", 1, "Hiragana", "あ", 5)},
		{"王ㄌ민", "", mixes("Bopomofo", "ㄌ", 2, "Hangul", "민", 3)},
		{"Ali علي", "", mixes("Latin", "A", 1, "Arabic", "ع", 5)},
		{"Somchai สมชาย", "", mixes("Latin", "S", 1, "Thai", "ส", 9)},
		{"Ivan Иван", "", mixes("Latin", "I", 1, "Cyrillic", "И", 6)},
		{"李 Иван", "", mixes("Han", "李", 1, "Cyrillic", "И", 3)},

		// Letters of the scripts one language writes together, as UTS #39's
		// Highly Restrictive level allows: Latin, Han and kana; Latin, Han
		// and Bopomofo; Latin, Han and Hangul.
		{"田中Taro", "田中Taro", ""},
		{"Ali 李", "Ali 李", ""},
		{"Kenji 渡辺 けんじ カタカナ", "Kenji 渡辺 けんじ カタカナ", ""},
		{"김Jisoo", "김Jisoo", ""},
		{"金민준 Kim", "金민준 Kim", ""},
		{"ㄌㄧㄣˊ Lin 林", "ㄌㄧㄣˊ Lin 林", ""},

		// A middle dot between letters, a tatweel within an Arabic word.
		{"列夫·托尔斯泰", "列夫·托尔斯泰", ""},
		{"a\u00b7b", "a\u00b7b", ""},
		{"Gal·la", "Gal·la", ""},
		{"Jose\u0301·Maria", "José·Maria", ""},                                                           // a letter and its mark before it
		{"\u0645\u062d\u0640\u0645\u062f", "\u0645\u062d\u0640\u0645\u062f", ""},                         // محـمد
		{"\u0645\u062d\u0640\u0640\u0640\u0645\u062f", "\u0645\u062d\u0640\u0640\u0640\u0645\u062f", ""}, // a run of them
		{"\u0645\u064f\u062d\u064e\u0640\u0645\u064e\u0651\u062f", "\u0645\u064f\u062d\u064e\u0640\u0645\u064e\u0651\u062f", ""}, // after a haraka
		{"\u0645\u062d\u0640\u064e\u0645\u062f", "\u0645\u062d\u0640\u064e\u0645\u062f", ""},                                     // a haraka on it

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
		{"\u30fb", "", fmt.Sprintf("holds %q (U+30FB) at character 1 where its script's rule does not allow it", "・")},
		{"\u00b7Ali", "", dotAlone(1)},
		{"Ali\u00b7", "", dotAlone(4)},
		{"Ali \u00b7Baba", "", dotAlone(5)},
		{"Ali\u00b7 Baba", "", dotAlone(4)},
		{"Ali\u00b7\u00b7Baba", "", dotAlone(4)},
		{"1\u00b72", "", dotAlone(2)},
		{"😀\u00b7Ali", "", dotAlone(2)},
		{"Ali\u00b7\u0301Baba", "", dotAlone(4)}, // a mark after it is no letter
		{"\u0640", "", tatweelAlone(1)},
		{"\u0640\u0645\u062d\u0645\u062f", "", tatweelAlone(1)},
		{"\u0645\u062d\u0645\u062f\u0640", "", tatweelAlone(5)},
		{"\u0645\u062d\u0645\u062f\u0640\u0640", "", tatweelAlone(5)},
		{"\u0645\u062d\u0645\u062f \u0640\u0639\u0644\u064a", "", tatweelAlone(6)},
		{"Al\u0640i", "", tatweelAlone(3)},
		{"\u0645\u0640i", "", tatweelAlone(2)},
		{"\u0645\u0640\u0661", "", tatweelAlone(2)}, // an Arabic-Indic digit is no letter
	}
	for _, tt := range tests {
		got, problem := Clean(tt.in)
		if got != tt.want || problem != tt.problem {
			t.Errorf("Clean(%+q) = %+q, %q; want %+q, %q", tt.in, got, problem, tt.want, tt.problem)
		}
		if again, problem := Clean(got); got != "" && (again != got || problem != "") {
			t.Errorf("Clean(%+q) = %+q, %q; want the clean name itself", got, again, problem)
		}
	}
}

// namedChar is a character a refusal names: U+XXXX, or a quoted letter
// ("А" at character 1), then where.
var namedChar = regexp.MustCompile(`(?:U\+([0-9A-F]{4,6})\)?|("(?:[^"\\]|\\.)*")) at character (\d+)`)

// FuzzRefusalNamesWhatWasTyped: whatever name Clean refuses, each
// character its refusal names is the name's own character at the position
// it gives, never one cleaning made.
func FuzzRefusalNamesWhatWasTyped(f *testing.F) {
	for _, name := range []string{"Siti\u3164", "  Siti\uffa0", "Ｓｉｔｉ\u0410", "\ufb01tri\u0430", "Jose\u0301\u0430",
		"😀\ufe0f\u200b", "Ali\u200d\u3000", "a\u00b7b", "\u314b\u314b", "Ali\u2029Baba", "\u00a8\u0410li", "👩\u200d\u200d🎓",
		"\u1100\u1161\u11a8\u0410", "\u2474\u0430", "\u3300\u0410", "Ali\u00b7 Baba", "\u0645\u062d\u0645\u062f\u0640", "Taroあ한",
		"Ｔａｒｏ\u00b7\u0640"} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		_, problem := Clean(name)
		runes := []rune(name)
		for _, m := range namedChar.FindAllStringSubmatch(problem, -1) {
			pos, _ := strconv.Atoi(m[3])
			var want rune
			if m[1] != "" {
				code, _ := strconv.ParseInt(m[1], 16, 32)
				want = rune(code)
			} else {
				q, uerr := strconv.Unquote(m[2])
				if uerr != nil || utf8.RuneCountInString(q) != 1 {
					t.Fatalf("Clean(%+q): %q: %s is not one quoted character", name, problem, m[2])
				}
				want, _ = utf8.DecodeRuneInString(q)
			}
			if pos < 1 || pos > len(runes) || runes[pos-1] != want {
				t.Fatalf("Clean(%+q): %q: the name holds no %U at character %d", name, problem, want, pos)
			}
		}
	})
}

// TestProblem: a clean name has no problem; a name the rule refuses has
// Clean's; a name cleaning changes is named by what cleaning does, through
// the cleaner the caller's users know, with the clean name when it is short.
func TestProblem(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"Ali", ""},
		{"Nguyễn Thị Lan", ""},
		{"Ali ", "has white space around it (Cleaner trims it)"},
		{"\u3000Ａｌｉ", "has white space around it (Cleaner trims it)"},
		{"Ali  Baba", `is not clean (Cleaner maps it to "Ali Baba")`},
		{"Ａｌｉ", `is not clean (Cleaner maps it to "Ali")`},
		{strings.Repeat("Ａ", 30), `is not clean (Cleaner maps it to "` + strings.Repeat("A", 30) + `")`},
		{strings.Repeat("Ａ", 31), "is not clean (Cleaner maps it)"}, // the quote of the clean name would be 33 bytes
		{"Ali\u200b", hidden('\u200b', 4)},
	} {
		if got := Problem(tt.in, "Cleaner"); got != tt.want {
			t.Errorf("Problem(%+q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzClean: cleaning is idempotent, and a name Clean returns is clean and
// holds what the rule's godoc (CleanParticipant's) promises
// (documentedName); the fast path for plain ASCII names agrees with the full
// rule; the mapping is the Nickname profile's wherever the profile accepts
// the name, and the rule's shortcut past the profile's own run agrees with
// that run.
func FuzzClean(f *testing.F) {
	for _, name := range []string{"Ali", "12:34", "", "Ali\n", "A\tli", "A\x00li", "\x7f", "\xff\xfe", "\xed\xa0\x80", "A\u0085",
		"A\u2028B", "\u202eilA", "Siti\u00a0Aminah", "é", "王小明", "👩🏽\u200d🏫", "Ａｌｉ", "Ali  Baba", "\u0410li", "\u3164",
		"\u115f", "\u1160", "\uffa0", "\u2800", "Ali\u034f", "Ali\u180e", "Ali\u2061", "Ali\u206a", "Ali\ufe0f",
		"Ali\U000e0020", "Ali\U0001bca0", "Ali\U0001d173", "Ali\ufff9", "Ali\u17b4", "Ali\u200d", "👨\u200d👩\u200d👧",
		"👩🏽\u200d🎓", "🏳\ufe0f\u200d🌈", "🇮🇩", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645", "अक्\u200dषय", "山田 はなこ",
		"金민준", "😀\ufe0f", "1\ufe0f\u20e3", strings.Repeat("é", 32) + "x", "列夫·托尔斯泰", "Gal·la", "·Ali", "田中Taro", "김Jisoo",
		"ㄌㄧㄣˊ Lin 林", "Taroあ한", "\u0645\u062d\u0640\u0645\u062f", "\u0645\u062d\u0640\u064e\u0645\u062f", "\u0640\u0645", "Al\u0640i",
		strings.Repeat("🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f\u00a0", 3) + "x"} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		clean, problem := Clean(name)
		if problem == "" {
			if again, p := Clean(clean); again != clean || p != "" {
				t.Fatalf("Clean(%+q) = %+q, %q; want the clean name itself", clean, again, p)
			}
			if p := Problem(clean, "Cleaner"); p != "" || !documentedName(clean) {
				t.Fatalf("clean name %+q: Problem %q, documentedName %v", clean, p, documentedName(clean))
			}
		}
		if ascii := strings.IndexFunc(name, func(r rune) bool { return r >= utf8.RuneSelf }) < 0; ascii && plainName(name) != (problem == "" && clean == name) {
			t.Fatalf("plainName(%q) = %v; the full rule says %+q, %q", name, plainName(name), clean, problem)
		}
		if out, err := precis.Nickname.String(name); err == nil {
			if mapped, ok := mapName(strings.TrimFunc(name, unicode.IsSpace)); !ok || mapped != out {
				t.Fatalf("mapName(%+q) = %+q, %v; the Nickname profile maps it to %+q", name, mapped, ok, out)
			}
		}
		if mapped, ok := mapName(name); ok && mapped != "" && utf8.ValidString(mapped) {
			out, err := precis.Nickname.String(mapped)
			if want := err == nil && out == mapped; profileAccepts(mapped, nil) != want {
				t.Fatalf("profileAccepts(%+q) = %v; the Nickname profile says %v (%+q, %v)", mapped, !want, want, out, err)
			}
		}
	})
}

// documentedName holds for every name Clean returns, as CleanParticipant's godoc
// words the rule (all but the scripts of its letters and the context rules
// of the few characters that have them): valid UTF-8 in NFKC, 1 to 64
// characters, U+0020 its only space and never at either end or twice in a
// row, no character of the categories the profile refuses (control, format
// but the joiners inside and the tags of the three subdivision flags,
// separators, private use, unassigned), no variation selector but U+FE0F,
// which follows an emoji or a keycap's base, no blank symbol, and a letter,
// digit or symbol.
func documentedName(name string) bool {
	if !utf8.ValidString(name) || !norm.NFKC.IsNormalString(name) {
		return false
	}
	runes := []rune(name)
	if len(runes) < 1 || len(runes) > 64 || runes[0] == ' ' || runes[len(runes)-1] == ' ' || strings.Contains(name, "  ") ||
		slices.Contains([]rune{0x200C, 0x200D}, runes[0]) || slices.Contains([]rune{0x200C, 0x200D}, runes[len(runes)-1]) {
		return false
	}
	shows := false
	for i, r := range runes {
		switch {
		case r == 0x200C, r == 0x200D, r == 0xFE0F && i > 0:
		case 0xE0020 <= r && r <= 0xE007F && slices.Contains(runes[:i], 0x1F3F4):
		case r == 0x2800, r == 0x1D159, r != ' ' && unicode.Is(unicode.Zs, r), unicode.Is(unicode.Variation_Selector, r),
			unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs),
			!unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs):
			return false
		case unicode.In(r, unicode.L, unicode.N, unicode.S):
			shows = true
		}
	}
	return shows
}
