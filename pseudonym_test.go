package kuis

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pseudonymSecret is the tests' secret.
var pseudonymSecret = []byte("kelas-8a-rahasia-2026")

// bannedWords are roots no word of an alias may hold, in any case: animals
// used as insults, insults themselves, and words a child would be mocked
// with (slow, fat, ugly, dirty; slang).
var bannedWords = []string{
	"anjing", "babi", "monyet", "kera", "beruk", "lutung", "kunyuk", "keledai", "kerbau", "sapi", "kambing",
	"tikus", "curut", "cacing", "kecoa", "lintah", "kutu", "lalat", "ular", "buaya", "kadal", "bunglon", "bajing",
	"kampret", "bangsat", "jangkrik", "celeng", "musang", "bodoh", "goblok", "tolol", "dungu", "bego", "gendut",
	"gemuk", "jelek", "bau", "busuk", "setan", "iblis", "banci", "bencong", "lonte", "sundal", "udik", "pelit",
	"culun", "lemot", "lambat", "gila", "sinting", "pesek", "hitam", "putih", "cokelat", "coklat", "kupu",
	"cupang", "tuna", "udang", "bebek", "ayam", "gajah", "paus",
}

// TestPseudonymWords: each list holds at least 128 words, none twice (in
// any case), each one capitalised word (hyphens join a reduplication), and
// none holding a banned root.
func TestPseudonymWords(t *testing.T) {
	word := regexp.MustCompile(`^[A-Z][a-z]+(-[a-z]+)*$`)
	for name, list := range map[string][]string{"animals": pseudonymAnimals[:], "modifiers": pseudonymModifiers[:]} {
		if len(list) < 128 {
			t.Errorf("%s: %d words, want at least 128", name, len(list))
		}
		seen := map[string]bool{}
		for _, w := range list {
			lower := strings.ToLower(w)
			if seen[lower] {
				t.Errorf("%s: %q twice", name, w)
			}
			seen[lower] = true
			if !word.MatchString(w) {
				t.Errorf("%s: %q is not one capitalised word", name, w)
			}
			for _, b := range bannedWords {
				if strings.Contains(lower, b) {
					t.Errorf("%s: %q holds the banned %q", name, w, b)
				}
			}
		}
	}
	for _, w := range pseudonymAnimals {
		if slices.Contains(pseudonymModifiers[:], w) {
			t.Errorf("%q is in both lists", w)
		}
	}
}

// TestPseudonymGolden: fixed names under a fixed secret give the same
// aliases in every run and on every machine (the HMAC, the byte order and the
// lists are the alias: a change to any changes a class's aliases).
func TestPseudonymGolden(t *testing.T) {
	golden := map[string]string{
		"Ali":            "Merpati Ajaib 63",
		"Budi":           "Harimau Bahagia 81",
		"Citra":          "Srigunting Terang 17",
		"Dewi":           "Tawon Cermat 45",
		"Siti Nurhaliza": "Kangkareng Koral 99",
		"Nguyễn Văn An":  "Laba-laba Benderang 55",
		"王小明":            "Merak Rubi 43",
	}
	got := map[string]string{}
	for name := range golden {
		got[name] = Pseudonym(pseudonymSecret, name)
	}
	if diff := cmp.Diff(golden, got); diff != "" {
		t.Errorf("aliases (-golden +got):\n%s", diff)
	}
}

// TestPseudonymForm: every alias is an animal, a modifier and a number of
// 10 to 99; a name and its cleaned form share one; another secret gives
// other aliases.
func TestPseudonymForm(t *testing.T) {
	same, other := 0, []byte("kelas-8b-rahasia-2026")
	for i := range 1000 {
		name := fmt.Sprintf("Siswa %04d", i)
		alias := Pseudonym(pseudonymSecret, name)
		parts := strings.Split(alias, " ")
		n, err := strconv.Atoi(parts[len(parts)-1])
		if len(parts) != 3 || !slices.Contains(pseudonymAnimals[:], parts[0]) || !slices.Contains(pseudonymModifiers[:], parts[1]) ||
			err != nil || n < 10 || n > 99 {
			t.Fatalf("Pseudonym(%q) = %q; want an animal, a modifier and a number of 10 to 99", name, alias)
		}
		if Pseudonym(other, name) == alias {
			same++
		}
	}
	if same > 2 {
		t.Errorf("%d of 1000 names have the same alias under another secret; want almost none", same)
	}
	for _, tt := range []struct{ raw, clean string }{{"Ali ", "Ali"}, {" Budi", "Budi"}, {"Ｃｉｔｒａ", "Citra"}} {
		if got, want := Pseudonym(pseudonymSecret, tt.raw), Pseudonym(pseudonymSecret, tt.clean); got != want {
			t.Errorf("Pseudonym(%q) = %q; want %q, the alias of %q", tt.raw, got, want, tt.clean)
		}
	}
	if Pseudonym(pseudonymSecret, "ali") == Pseudonym(pseudonymSecret, "Ali") {
		t.Errorf("ali and Ali, two participants, share an alias")
	}
}

// TestPseudonymStableAsOthersJoin: a board's aliases, read again after
// others joined, among them three namesakes of Ali's two words (found by
// search), are the same: an alias depends on its name alone. The namesakes
// are told apart from Ali by their numbers, but for the chance of 1 in 90
// that one shares Ali's.
func TestPseudonymStableAsOthersJoin(t *testing.T) {
	board := []string{"Ali", "Budi", "Citra", "Dewi"}
	before := map[string]string{}
	for _, n := range board {
		before[n] = Pseudonym(pseudonymSecret, n)
	}
	words := func(alias string) string { return alias[:strings.LastIndexByte(alias, ' ')] }
	var namesakes []string
	for i := 0; len(namesakes) < 3 && i < 1_000_000; i++ {
		joined := fmt.Sprintf("Murid %d", i)
		if i < 500 || words(Pseudonym(pseudonymSecret, joined)) == words(before["Ali"]) {
			board = append(board, joined)
		}
		if words(Pseudonym(pseudonymSecret, joined)) == words(before["Ali"]) {
			namesakes = append(namesakes, joined)
		}
	}
	if len(namesakes) < 3 {
		t.Fatalf("found %d namesakes of %s in a million names; want 3 (one in 17,810)", len(namesakes), before["Ali"])
	}
	after := map[string]string{}
	for _, n := range board[:4] {
		after[n] = Pseudonym(pseudonymSecret, n)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("aliases changed as others joined (-before +after):\n%s", diff)
	}
	distinct := map[string]bool{before["Ali"]: true}
	for _, n := range namesakes {
		distinct[Pseudonym(pseudonymSecret, n)] = true
	}
	if len(distinct) < 3 {
		t.Errorf("Ali and the namesakes %q have %d aliases; want them told apart by number", namesakes, len(distinct))
	}
}

// TestPseudonymUniform: over 10,000 names each animal, modifier and number
// is chosen about equally often: the chi-square statistic of each stays
// within 6 standard deviations of its mean (its degrees of freedom), and
// every word is used.
func TestPseudonymUniform(t *testing.T) {
	const names = 10000
	animals, modifiers, numbers := map[string]int{}, map[string]int{}, map[string]int{}
	for i := range names {
		parts := strings.Split(Pseudonym(pseudonymSecret, fmt.Sprintf("Peserta %05d", i)), " ")
		animals[parts[0]]++
		modifiers[parts[1]]++
		numbers[parts[2]]++
	}
	for _, c := range []struct {
		name   string
		counts map[string]int
		k      int
	}{
		{"animals", animals, len(pseudonymAnimals)},
		{"modifiers", modifiers, len(pseudonymModifiers)},
		{"numbers", numbers, 90},
	} {
		if len(c.counts) != c.k {
			t.Errorf("%s: %d of %d used", c.name, len(c.counts), c.k)
		}
		expected, chi := float64(names)/float64(c.k), 0.0
		for _, n := range c.counts {
			chi += (float64(n) - expected) * (float64(n) - expected) / expected
		}
		chi += float64(c.k-len(c.counts)) * expected // the unused, each 0
		df := float64(c.k - 1)
		if limit := df + 6*math.Sqrt(2*df); chi > limit {
			t.Errorf("%s: chi-square %.1f over %d values, above %.1f: not uniform", c.name, chi, c.k, limit)
		}
	}
}
