// Package name is the rule for the names students go by: what cleaning
// makes of a name (the PRECIS Nickname profile of RFC 8266, and each
// variation selector that changes nothing dropped), which names it refuses
// because they would show as nothing or pass for another's, and what to
// change in one, in words a student can act on; and the key under which a
// class compares two clean names (Key: UTS #39's confusable skeleton with
// case and width folded), which a rule that sees one name at a time cannot
// do. It does no I/O; the kuis package's CleanParticipant words the rule
// for callers.
package name

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
)

const (
	maxRunes    = 64 // characters of a name
	maxMappings = 4  // RFC 8266 maps a name until it stops changing, at most three times after the first
	maxQuoted   = 32 // bytes of a clean name's quote that Problem shows: half the 64 a message shows of the name it follows
)

// Clean returns name as the rule cleans it, or "" and what breaks the rule,
// worded to follow a quote of name: a character it refuses is named as name
// holds it, with its position in name in characters from 1 ("Siti\u3164"
// holds U+3164 at character 5, whatever cleaning makes of it). Cleaning a
// clean name returns it unchanged.
func Clean(name string) (clean, problem string) {
	if plainName(name) {
		return name, ""
	}
	if !utf8.ValidString(name) {
		return "", "is not valid UTF-8"
	}
	s, ok := mapName(strings.TrimFunc(name, unicode.IsSpace))
	if !ok {
		return "", "keeps changing when it is cleaned"
	}
	if f := checkName(s); f.words != "" {
		return "", f.say(name, s)
	}
	return s, ""
}

// Problem says what keeps name from being clean, worded as Clean's problem,
// or "" when name is exactly what Clean returns for it. For a name cleaning
// changes, the words cite cleaner, the function by which the caller's users
// know Clean: "has white space around it (CleanParticipant trims it)".
func Problem(name, cleaner string) string {
	clean, problem := Clean(name)
	switch {
	case problem != "":
		return problem
	case clean == name:
		return ""
	case strings.TrimFunc(name, unicode.IsSpace) != name:
		return "has white space around it (" + cleaner + " trims it)"
	}
	if q := strconv.Quote(clean); len(q) <= maxQuoted {
		return "is not clean (" + cleaner + " maps it to " + q + ")"
	}
	return "is not clean (" + cleaner + " maps it)"
}

// plainName reports whether name is a clean name of printable ASCII, as most
// names are, without the cost of the full rule, which a caller that checks a
// name on every call would pay each time. The profile allows every
// printable ASCII character, cleaning changes none but spaces, and ASCII's
// letters are all Latin.
func plainName(name string) bool {
	if name == "" || len(name) > maxRunes {
		return false
	}
	shows := false
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == ' ':
			if i == 0 || i == len(name)-1 || name[i-1] == ' ' {
				return false
			}
		case c < ' ' || c > '~':
			return false
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("$+<=>^`|~", c) >= 0:
			shows = true // a letter, digit or symbol
		}
	}
	return shows
}

// flaw is what breaks the rule in a name cleaning no longer changes: words a
// student can act on, and the byte offsets in that name of the characters
// the words name. The words take, for the i-th character named (from 0),
// the arguments 3i+1 to 3i+3 of fmt's explicit indexes: the character as a
// string, as a rune, and its position in the caller's name; say fills them.
// The zero flaw is no flaw.
type flaw struct {
	words string
	at    []int
}

// say is f's words for name, which cleans to clean: each character named as
// the caller gave it and where, in characters from 1 of name, so that a
// student finds what they typed ("Siti\u3164" holds U+3164 at character 5,
// not the U+1160 NFKC makes of it).
func (f flaw) say(name, clean string) string {
	args := make([]any, 0, 3*len(f.at))
	for _, at := range f.at {
		r, pos := typed(name, clean, at)
		args = append(args, string(r), r, pos)
	}
	return fmt.Sprintf(f.words, args...)
}

// typed is the character of name that became the character at byte at of
// clean (what Clean makes of name), and its position in name, in
// characters from 1: the last character of the shortest prefix of name
// that cleans to more characters than clean holds before at. A character
// added to a prefix never takes one away from its cleaning (at most it
// composes with the characters before it, or is dropped), so a binary search
// over the prefixes finds it: O(n log n) for a name of n bytes, paid only
// when a name is refused.
func typed(name, clean string, at int) (rune, int) {
	before := utf8.RuneCountInString(clean[:at])
	end := func(i int) int { // the end of the rune that holds byte i of name
		for i++; i < len(name) && !utf8.RuneStart(name[i]); i++ {
		}
		return i
	}
	i := sort.Search(len(name), func(i int) bool {
		// Not trimmed at the right: a prefix may end in the middle of a name
		// with a character that is white space, such as U+2029.
		prefix, _ := mapName(strings.TrimLeftFunc(name[:end(i)], unicode.IsSpace))
		return utf8.RuneCountInString(prefix) > before
	})
	if i == len(name) { // cannot be: name cleans to clean
		r, _ := utf8.DecodeRuneInString(clean[at:])
		return r, before + 1
	}
	prefix := name[:end(i)]
	r, _ := utf8.DecodeLastRuneInString(prefix)
	return r, utf8.RuneCountInString(prefix)
}

// mapName maps s as the Nickname profile does, and drops idle selectors,
// until s stops changing; false if it still changes after maxMappings.
func mapName(s string) (string, bool) {
	for n := 1; ; n++ {
		next := dropIdleSelectors(norm.NFKC.String(mapSpaces(s)))
		if next == s {
			return s, true
		}
		if n == maxMappings {
			return s, false
		}
		s = next
	}
}

// mapSpaces is RFC 8266's additional mapping: every space (Unicode's Zs)
// becomes U+0020, those at either end go and a run of them inside becomes one.
func mapSpaces(s string) string {
	if !strings.HasPrefix(s, " ") && !strings.HasSuffix(s, " ") && !strings.Contains(s, "  ") &&
		strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf && unicode.Is(unicode.Zs, r) }) < 0 {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.Is(unicode.Zs, r) }), " ")
}

// Characters the rule treats apart from the profile.
const (
	zwnj        = '\u200C'     // ZERO WIDTH NON-JOINER
	zwj         = '\u200D'     // ZERO WIDTH JOINER: joins emoji into one
	vs16        = '\uFE0F'     // VARIATION SELECTOR-16: show the character before as emoji
	keycap      = '\u20E3'     // COMBINING ENCLOSING KEYCAP: 1️⃣ is 1, U+FE0F, U+20E3
	blackFlag   = '\U0001F3F4' // the base of the tag sequences of subdivision flags
	placeholder = '\u25CC'     // DOTTED CIRCLE: what the profile sees in place of an emoji sequence's part it does not know
	middleDot   = '\u00B7'     // MIDDLE DOT: between the parts of a transliterated name (列夫·托尔斯泰), and Catalan's l·l
	tatweel     = '\u0640'     // ARABIC TATWEEL: stretches an Arabic word (محـمد)
)

// subdivisionFlags are the tags after blackFlag that spell Unicode's
// recommended subdivision flags: England, Scotland, Wales.
var subdivisionFlags = [...]string{
	"\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F",
	"\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F",
	"\U000E0067\U000E0062\U000E0077\U000E006C\U000E0073\U000E007F",
}

// idleBefore reports whether U+FE0F after r changes nothing: r shows as
// emoji already (😀, a skin tone, a flag's regional indicator) or has no
// emoji form (★).
func idleBefore(r rune) bool {
	return unicode.Is(extendedPictographic, r) && !unicode.Is(textEmoji, r) ||
		'\U0001F1E6' <= r && r <= '\U0001F1FF' || isSkinTone(r)
}

func isSkinTone(r rune) bool { return '\U0001F3FB' <= r && r <= '\U0001F3FF' }

// dropIdleSelectors drops each U+FE0F that changes nothing.
func dropIdleSelectors(s string) string {
	if !strings.ContainsRune(s, vs16) {
		return s
	}
	prev := rune(0)
	return strings.Map(func(r rune) rune {
		if r == vs16 && idleBefore(prev) {
			return -1 // prev stays: a second U+FE0F is idle too
		}
		prev = r
		return r
	}, s)
}

// The words of the flaws that name a character found in two places: a
// hidden one, and one names may not use.
const (
	hiddenWords     = "holds a hidden, blank, line-breaking or direction-changing character (%[2]U at character %[3]d)"
	disallowedWords = "holds %[2]U at character %[3]d, a character names may not use (unassigned, private-use or an old Hangul letter)"
)

// checkName says what breaks the rule in s, a name cleaning no longer
// changes, or the zero flaw when it holds.
func checkName(s string) flaw {
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		return flaw{words: "is empty"}
	case n > maxRunes:
		return flaw{words: "is longer than 64 characters"}
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, size := utf8.DecodeLastRuneInString(s)
	for _, c := range [...]struct {
		r  rune
		at int
	}{{first, 0}, {last, len(s) - size}} {
		if c.r == zwj || c.r == zwnj {
			return flaw{words: "starts or ends with a joiner (%[2]U at character %[3]d)", at: []int{c.at}}
		}
	}
	var (
		shows   bool                   // a letter, digit or symbol
		blank   = -1                   // the byte offset of the first blank symbol
		letters scriptSet              // of the letters so far
		mixed   flaw                   // letters.add's first complaint
		parts   = make([][2]int, 0, 4) // byte spans of the joiners, selectors and tags of emoji sequences, and of the characters the rule allows beyond the profile
		prev    rune                   // the rune before
		base    rune                   // the last rune before that is neither a selector nor a skin tone
	)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		next, _ := utf8.DecodeRuneInString(s[i+size:])
		switch {
		case r == vs16 && (unicode.Is(textEmoji, prev) || next == keycap && strings.ContainsRune("0123456789#*", prev)):
			parts = append(parts, [2]int{i, i + size})
		case r == zwj && unicode.Is(extendedPictographic, base) && unicode.Is(extendedPictographic, next):
			parts = append(parts, [2]int{i, i + size})
		case r == blackFlag:
			for _, tags := range subdivisionFlags {
				if strings.HasPrefix(s[i+size:], tags) {
					parts = append(parts, [2]int{i + size, i + size + len(tags)})
					size += len(tags)
					break
				}
			}
		case r == middleDot && betweenLetters(s, i, size), r == tatweel && inArabicWord(s, i, size):
			parts = append(parts, [2]int{i, i + size})
		case (r == '\u2800' || r == '\U0001D159') && blank < 0: // BRAILLE PATTERN BLANK, MUSICAL SYMBOL NULL NOTEHEAD
			blank = i
		}
		if !shows && shown(r) {
			shows = true
		}
		if mixed.words == "" {
			mixed = letters.add(r, i)
		}
		if r != vs16 && !isSkinTone(r) {
			base = r
		}
		prev = r
		i += size
	}
	if !profileAccepts(s, parts) {
		return refusal(s, parts)
	}
	switch {
	case blank >= 0:
		return flaw{words: hiddenWords, at: []int{blank}}
	case !shows:
		return flaw{words: "has no letter, digit or symbol"}
	}
	return mixed
}

// betweenLetters reports whether the character at s[i:i+size] stands
// between two letters: a letter (and the marks on it) before, a letter
// right after.
func betweenLetters(s string, i, size int) bool {
	before, after := baseBefore(s, i, func(rune) bool { return false }), rune(-1)
	if r, n := utf8.DecodeRuneInString(s[i+size:]); n > 0 {
		after = r
	}
	return unicode.IsLetter(before) && unicode.IsLetter(after)
}

// inArabicWord reports whether the tatweel at s[i:i+size] stands within an
// Arabic word: between two Arabic letters, with only tatweels and marks
// between them.
func inArabicWord(s string, i, size int) bool {
	skip := func(r rune) bool { return r == tatweel || unicode.Is(unicode.M, r) }
	after := rune(-1)
	for _, r := range s[i+size:] {
		if !skip(r) {
			after = r
			break
		}
	}
	arabic := func(r rune) bool { return unicode.Is(unicode.Arabic, r) && unicode.IsLetter(r) }
	return arabic(baseBefore(s, i, skip)) && arabic(after)
}

// baseBefore is the character before byte i of s, past the marks and the
// characters skip skips; -1 if there is none.
func baseBefore(s string, i int, skip func(rune) bool) rune {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.Is(unicode.M, r) && !skip(r) {
			return r
		}
		i -= size
	}
	return -1
}

// nickname is the set of characters the Nickname profile allows anywhere
// (the PRECIS Freeform class): all but the joiners and the few characters
// RFC 5892 allows by their context only.
var nickname = precis.Nickname.Allowed()

// profileAccepts reports whether the Nickname profile accepts s, a
// non-empty name its mapping no longer changes, with a placeholder in place
// of each span of parts. The profile's check is the class of each character
// and the context rules of the few that have one: without those few, the
// class of each character decides, and the profile's own run, which
// allocates, is left to the names that need it.
func profileAccepts(s string, parts [][2]int) bool {
	for _, r := range outside(s, parts) {
		if ' ' <= r && r <= '~' {
			continue // the profile allows printable ASCII
		}
		if r == zwj || r == zwnj || contextual(r) || !nickname.Contains(r) {
			seen := profiled(s, parts)
			out, err := precis.Nickname.String(seen)
			return err == nil && out == seen
		}
	}
	return true
}

// profiled is s with a placeholder in place of each span of parts: what the
// profile sees of a name, the parts of emoji sequences it does not know
// replaced by a character it takes anywhere and that changes no neighbour.
func profiled(s string, parts [][2]int) string {
	if len(parts) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, span := range parts {
		b.WriteString(s[at:span[0]])
		b.WriteRune(placeholder)
		at = span[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// outside yields each rune of s outside the spans of parts, and its byte
// offset in s.
func outside(s string, parts [][2]int) iter.Seq2[int, rune] {
	return func(yield func(int, rune) bool) {
		rest := parts
		for i := 0; i < len(s); {
			if len(rest) > 0 && i == rest[0][0] {
				i, rest = rest[0][1], rest[1:]
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if !yield(i, r) {
				return
			}
			i += size
		}
	}
}

// shown reports whether r is a letter, digit or symbol other than a blank one.
func shown(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("$+<=>^`|~", r)
	}
	return unicode.In(r, unicode.L, unicode.N, unicode.S) && r != '\u2800' && r != '\U0001D159'
}

// refusal says why the Nickname profile refuses s, which it sees with a
// placeholder in place of each span of parts.
func refusal(s string, parts [][2]int) flaw {
	for pass := range 2 {
		for i, r := range outside(s, parts) {
			if words := refused(r, pass); words != "" {
				return flaw{words: words, at: []int{i}}
			}
		}
	}
	return flaw{words: "is refused by the PRECIS Nickname profile (RFC 8266)"}
}

// refused is the words of refusal for r: in the first pass, for a character
// the profile refuses anywhere; in the second, for one it refuses where it
// stands, once no character of the first kind was found.
func refused(r rune, pass int) string {
	switch {
	case r == zwj || r == zwnj:
		if pass == 1 {
			return "holds a joiner (%[2]U at character %[3]d) that joins nothing"
		}
	case r == middleDot:
		if pass == 1 {
			return "holds %[1]q (%[2]U) at character %[3]d, which goes only between two letters"
		}
	case r == tatweel:
		if pass == 1 {
			return "holds the Arabic tatweel (%[2]U) at character %[3]d, which goes only within an Arabic word"
		}
	case contextual(r):
		if pass == 1 {
			return "holds %[1]q (%[2]U) at character %[3]d where its script's rule does not allow it"
		}
	case pass == 1:
	case r == vs16:
		return "holds a variation selector (%[2]U at character %[3]d) that follows no emoji"
	case nickname.Contains(r):
	case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return hiddenWords
	default:
		return disallowedWords
	}
	return ""
}

// contextual reports whether r is one of the characters RFC 5892 allows by
// their context only (CONTEXTO): the Catalan middle dot between two l, the
// Greek keraia, the Hebrew geresh and gershayim, the Katakana middle dot, and
// Arabic-Indic digits of one kind only.
func contextual(r rune) bool {
	switch {
	case r == '\u00B7', r == '\u0375', r == '\u05F3', r == '\u05F4', r == '\u30FB',
		'\u0660' <= r && r <= '\u0669', '\u06F0' <= r && r <= '\u06F9':
		return true
	}
	return false
}

// scriptSet collects the scripts of a name's letters: at most four (Latin,
// Han, Hiragana, Katakana) can go together.
type scriptSet struct {
	seen [4]writing
	n    int
}

type writing struct {
	name  string
	table *unicode.RangeTable
	first int // the byte offset of the name's first letter in the script
}

// add takes in r, at byte at of the name, and says how the name now mixes
// scripts, or the zero flaw.
func (s *scriptSet) add(r rune, at int) flaw {
	if r < utf8.RuneSelf && (r < 'A' || 'Z' < r && r < 'a' || 'z' < r) {
		return flaw{} // ASCII's letters are Latin, the rest Common
	}
	for _, seen := range s.seen[:s.n] {
		if unicode.Is(seen.table, r) {
			return flaw{}
		}
	}
	if unicode.In(r, unicode.Common, unicode.Inherited) {
		return flaw{}
	}
	i := slices.IndexFunc(scriptTables, func(sc writing) bool { return unicode.Is(sc.table, r) })
	if i < 0 {
		return flaw{} // unassigned: the profile refuses it
	}
	found := scriptTables[i]
	found.first = at
	for _, seen := range s.seen[:s.n] {
		if !together(seen.name, found.name) {
			return flaw{
				words: fmt.Sprintf("mixes letters of two scripts (%s %%[1]q at character %%[3]d, %s %%[4]q at character %%[6]d)", seen.name, found.name),
				at:    []int{seen.first, at},
			}
		}
	}
	if s.n < len(s.seen) { // always: no five scripts go together
		s.seen[s.n] = found
		s.n++
	}
	return flaw{}
}

// together reports whether a name may hold letters of scripts a and b, two
// scripts apart: as UTS #39's Highly Restrictive level allows, when both
// are of the scripts one language writes together, Latin among them:
// Japanese (Latin, Han, Hiragana, Katakana: 田中Taro), Chinese with
// Bopomofo (Latin, Han, Bopomofo), Korean (Latin, Han, Hangul). Since any
// two of those sets share only Latin and Han, scripts that go together two
// by two are all of one set.
func together(a, b string) bool {
	for _, set := range [...][]string{
		{"Latin", "Han", "Hiragana", "Katakana"},
		{"Latin", "Han", "Bopomofo"},
		{"Latin", "Han", "Hangul"},
	} {
		if slices.Contains(set, a) && slices.Contains(set, b) {
			return true
		}
	}
	return false
}

// scriptTables is every script of Unicode but Common and Inherited, the
// scripts of class names first: a name's first letter finds its script early.
var scriptTables = func() []writing {
	first := []string{"Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Thai",
		"Han", "Hiragana", "Katakana", "Hangul", "Bengali", "Tamil", "Telugu", "Georgian", "Armenian"}
	var out []writing
	for _, name := range first {
		out = append(out, writing{name: name, table: unicode.Scripts[name]})
	}
	rest := make([]string, 0, len(unicode.Scripts))
	for name := range unicode.Scripts {
		if !slices.Contains(first, name) && name != "Common" && name != "Inherited" {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		out = append(out, writing{name: name, table: unicode.Scripts[name]})
	}
	return out
}()
