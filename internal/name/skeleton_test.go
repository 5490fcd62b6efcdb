package name

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// TestSkeleton: Skeleton is UTS #39's skeleton (NFD, each character by its
// prototype in confusables.txt, NFD): look-alikes of other scripts, digits
// and compatibility forms share a skeleton, case does not, and m stays m
// (its prototype rn is left out) wherever the table spelled it rn.
func TestSkeleton(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"Ade", "Ade"},
		{"\u0410\u0501\u0435", "Ade"}, // Cyrillic Аԁе
		{"\u03a4\u039f\u039c", "TOM"}, // Greek ΤΟΜ
		{"Tom", "Tom"},
		{"R0bert", "RObert"},
		{"A1i", "Ali"},
		{"Ilham", "llham"},  // I looks like l
		{"Ami", "Ami"},      // not Arni
		{"\U0001d426", "m"}, // the mathematical 𝐦 is m, not rn
		{"\u217f", "m"},     // the Roman numeral ⅿ
		{"\u0271", "m\u0326"},
		{"Jos\u00e9", "Jose\u0301"}, // NFD
		{"O\u2019Brien", "O'Brien"}, // the right single quotation mark is an apostrophe
		{"\u0e41\u0e2a\u0e07", "\u0e40\u0e40\u0e2a\u0e07"}, // Thai แ is เเ: the mapping is kept
		{"\u00e6", "ae"},     // so is the ligature's
		{"\u30fb", "\u00b7"}, // the Katakana middle dot is the middle dot
		{"Ali\xff", "Ali\ufffd"},
	} {
		if got := Skeleton(tt.in); got != tt.want {
			t.Errorf("Skeleton(%+q) = %+q; want %+q", tt.in, got, tt.want)
		}
	}
}

// keyPairs are names a class would confuse, which Key makes one, and real
// names that only look alike in some fonts, which it keeps two.
var keyPairs = []struct {
	a, b string
	same bool
	why  string
}{
	{"ΤΟΜ", "TOM", true, "Greek capitals that look like Latin ones"},
	{"ΤΟΜ", "Tom", true, "and case folded"},
	{"Аԁе", "Ade", true, "Cyrillic small letters that look like Latin ones"},
	{"АДЕ", "Аде", true, "Cyrillic, case folded"},
	{"ａｄｉ　ｎｕｇｒｏｈｏ", "Adi Nugroho", true, "fullwidth, case folded"},
	{"Adi Nugroho", "ADI NUGROHO", true, "case folded"},
	{"Ilham", "ilham", true, "I is the capital of i"},
	{"Иван", "ИВАН", true, "Cyrillic case pairs whose look-alikes differ (в is ʙ, В is B)"},
	{"Νίκος", "ΝΊΚΟΣ", true, "Greek case pairs, final sigma"},
	{"Strauß", "STRAUSS", true, "full case folding"},
	{"A1i", "Ali", true, "the digit 1 is l"},
	{"R0bert", "Robert", true, "the digit 0 is O"},
	{"O’Brien", "O'Brien", true, "the right single quotation mark is an apostrophe"},
	{"Jean‐Luc", "Jean-Luc", true, "U+2010 is a hyphen"},
	{"列夫·托尔斯泰", "列夫・托尔斯泰", true, "the Katakana middle dot is the middle dot"},
	{"محـمد", "محمد", true, "the tatweel only stretches the word"},
	{"مـحـــمد", "محمد", true, "every tatweel"},
	{"Sıla", "Sila", true, "the dotless ı is i"},
	{"แสง", "เเสง", true, "Thai แ is เเ"},
	{"Ѕаѕһа", "Sasha", true, "Cyrillic dze and shha"},
	{"𝐀𝐝𝐞", "Ade", true, "mathematical letters"},

	{"Ami", "Arni", false, "m and rn: two Indonesian names"},
	{"AMI", "ARNI", false, "and in capitals"},
	{"Emi", "Erni", false, "m and rn"},
	{"Amo", "Arno", false, "m and rn"},
	{"Rina", "Rima", false, "n and m"},
	{"Clara", "Dara", false, "cl and D"},
	{"Elia", "Ella", false, "i and l"},
	{"ELIA", "ELLA", false, "I and L: case folding keeps I from being l"},
	{"Lia", "Ila", false, "l and I"},
	{"Ilham", "llham", false, "case wins over the look of I"},
	{"Jose", "José", false, "an accent"},
	{"Lukasz", "Łukasz", false, "a stroke"},
	{"Tom", "Tim", false, "two letters"},
	{"Ali", "Ali 2", false, "a digit more"},
	{"Nikos", "Νίκος", false, "an accent"},
}

// TestKey: Key makes one of names a class would confuse (look-alikes of
// other scripts, case, width, digits, the tatweel) and keeps real names two
// that only look alike in some fonts (m and rn); a key is valid UTF-8 in
// NFD and its own key.
func TestKey(t *testing.T) {
	t.Parallel()
	for _, p := range keyPairs {
		ka, kb := Key(p.a), Key(p.b)
		if (ka == kb) != p.same {
			t.Errorf("%s: Key(%+q) = %+q, Key(%+q) = %+q; want same %v", p.why, p.a, ka, p.b, kb, p.same)
		}
		for _, k := range []string{ka, kb} {
			if !utf8.ValidString(k) || !norm.NFD.IsNormalString(k) || Key(k) != k {
				t.Errorf("%s: key %+q: valid %v, NFD %v, its key %+q", p.why, k, utf8.ValidString(k), norm.NFD.IsNormalString(k), Key(k))
			}
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"Adi Nugroho", "adi nugroho"},
		{"ΤΟΜ", "tom"},
		{"Ilham", "ilham"},
		{"Ali\xff", "ali\ufffd"},
	} {
		if got := Key(tt.in); got != tt.want {
			t.Errorf("Key(%+q) = %+q; want %+q", tt.in, got, tt.want)
		}
	}
}

// TestKeyOneForEachCase: for every character, each character of its case
// orbit (unicode.SimpleFold: K, k and the Kelvin sign) has its key, and the
// key of a key is itself.
func TestKeyOneForEachCase(t *testing.T) {
	t.Parallel()
	for r := range rune(unicode.MaxRune + 1) {
		if !unicode.IsPrint(r) && !unicode.Is(unicode.Co, r) {
			continue
		}
		key := Key(string(r))
		if Key(key) != key {
			t.Errorf("Key(%+q) = %+q, whose key is %+q", string(r), key, Key(key))
		}
		for other := unicode.SimpleFold(r); other != r; other = unicode.SimpleFold(other) {
			if k := Key(string(other)); k != key {
				t.Errorf("Key(%+q) = %+q, Key(%+q) = %+q; want one key for the case pair", string(r), key, string(other), k)
			}
		}
	}
}

// TestTables: each table's characters are sorted and unique, its strings
// valid UTF-8 in NFD, every prototype its own skeleton and every key its
// own key, and no prototype spells m as rn.
func TestTables(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		from []rune
		end  []uint16
		to   string
		f    func(string) string // of a string of the table, its string itself
	}{
		{"skeleton", skeletonFrom[:], skeletonEnd[:], skeletonTo, Skeleton},
		{"key", keyFrom[:], keyEnd[:], keyTo, Key},
	} {
		if !slices.IsSorted(tt.from) || len(slices.Compact(slices.Clone(tt.from))) != len(tt.from) || len(tt.end) != len(tt.from) ||
			int(tt.end[len(tt.end)-1]) != len(tt.to) {
			t.Fatalf("%s table: not sorted, unique and whole", tt.name)
		}
		start := 0
		for i, r := range tt.from {
			s := tt.to[start:tt.end[i]]
			start = int(tt.end[i])
			if !utf8.ValidString(s) || !norm.NFD.IsNormalString(s) || tt.f(s) != s {
				t.Errorf("%s table: %U maps to %+q, which maps to %+q", tt.name, r, s, tt.f(s))
			}
		}
	}
	if got := strings.Count(skeletonTo, "rn"); got != 0 {
		t.Errorf("skeleton table: %d prototypes spell m as rn", got)
	}
}

// FuzzKey: Skeleton and Key never panic, a skeleton is its own skeleton,
// a key is valid UTF-8 in NFD and its own key, and a clean name's key is the key of its every case: the name in
// capitals and in small letters (Unicode's full mappings: İ is i and a
// combining dot).
func FuzzKey(f *testing.F) {
	for _, p := range keyPairs {
		f.Add(p.a)
		f.Add(p.b)
	}
	for _, s := range []string{"", "\xff", "ꝺ", "Ꭳꭳ", "ß", "İ", "ǅ", "\u0345", "ΐ", "ﬀ", "㎒", "\u1100\u1161", "Ꝺ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if skeleton := Skeleton(s); Skeleton(skeleton) != skeleton {
			t.Fatalf("Skeleton(%+q) = %+q, whose skeleton is %+q", s, skeleton, Skeleton(skeleton))
		}
		key := Key(s)
		if !utf8.ValidString(key) || !norm.NFD.IsNormalString(key) {
			t.Fatalf("Key(%+q) = %+q: not valid UTF-8 in NFD", s, key)
		}
		if again := Key(key); again != key {
			t.Fatalf("Key(%+q) = %+q, whose key is %+q", s, key, again)
		}
		if clean, problem := Clean(s); problem == "" {
			for _, c := range []string{cases.Upper(language.Und).String(clean), cases.Lower(language.Und).String(clean)} {
				if c, problem := Clean(c); problem == "" && Key(c) != Key(clean) {
					t.Fatalf("Key(%+q) = %+q, Key(%+q) = %+q; want one key for both cases", clean, Key(clean), c, Key(c))
				}
			}
		}
	})
}

// BenchmarkKey: the cost of a name's key, which a roster computes for each
// name it enrolls.
func BenchmarkKey(b *testing.B) {
	for _, c := range []struct{ what, name string }{
		{"ascii", "Siti Aminah"},
		{"latin", "Nguyễn Thị Lan"},
		{"han", "列夫·托尔斯泰"},
		{"cyrillic", "Дмитрий Шостакович"},
	} {
		b.Run(c.what, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Key(c.name)
			}
		})
	}
}
