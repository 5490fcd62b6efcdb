package name

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

//go:generate go run gen_confusables.go

// Skeleton returns the confusable skeleton of s as Unicode's Security
// Mechanisms (UTS #39) define it: s in NFD, each character replaced by its
// prototype in confusables.txt (version 13.0.0: the Cyrillic "Аԁе" is
// "Ade", the Greek "ΤΟΜ" is "TOM", the digit 0 is O), and NFD again. Two
// strings with one skeleton look alike; the skeleton is for comparing, not
// for showing. Case counts: "TOM" and "Tom" have two skeletons (Key folds
// case too).
//
// One kind of mapping is left out, so that names a class tells apart by
// their letters keep two skeletons: a basic letter of the Latin, Greek or
// Cyrillic alphabet (a to z, Α to ω, А to я) mapped to two or more such
// letters of its own script, since both spell real names. In version 13.0.0
// that is m, whose prototype is rn: "Ami" and "Arni" are both common
// Indonesian names, and stay two. Every other prototype that spelled m as rn
// (the mathematical 𝐦, the Roman numeral ⅿ) spells it m. Mappings to letters
// of another script, or from letters outside the basic alphabets (the
// ligature æ to ae, Thai แ to เเ), are kept.
//
// Skeleton of a skeleton is the skeleton itself. It returns "" for "", and
// replaces each byte of invalid UTF-8 with U+FFFD.
func Skeleton(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD") // NFD leaves a character after invalid bytes composed
	return norm.NFD.String(mapEach(norm.NFD.String(s), skeletonFrom[:], skeletonEnd[:], skeletonTo))
}

// maxKeyRounds bounds Key's rounds: each character's key is a key already
// (the generator checks it), so the second round finds nothing to change.
const maxKeyRounds = 4

// Key returns the form under which a class compares names: two names with
// one key are one name to a class, which should refuse the second. It is
// the confusable skeleton (Skeleton) with case and width folded too:
// NFKC first (the fullwidth "ａｄｉ　ｎｕｇｒｏｈｏ" is "adi nugroho"), then
// each character replaced by its key, in NFD, until nothing changes. A
// character's key is its prototype's, case folded (full Unicode case
// folding: "ß" is "ss"), and the same for the capital and the small letter
// of a pair: the capital's prototype when it has one (Greek Τ and τ both
// key as t, since Τ looks like T), else the small letter's (Cyrillic Ԁ and
// ԁ both key as d, since ԁ looks like d). So "ΤΟΜ", "TOM" and "Tom" have one
// key, as have "Аԁе" and "Ade", and "Adi Nugroho" and "ａｄｉ　ｎｕｇｒｏｈｏ".
//
// Where a look-alike and a case pair disagree, case wins: I looks like l,
// yet is the capital of i, so I, Greek Ι and Cyrillic І key as i, and
// "Ilham" is "ilham" while "Ilham" and "llham" (two l) are two names. The
// mappings Skeleton leaves out are left out here: "Ami" and "Arni" have two
// keys.
//
// Key is meant for names as Clean returns them; for any other string it
// still returns a key, and never panics. The key is a string of valid UTF-8
// in NFD, for storing and comparing, not for showing; Key of a key is the
// key itself.
func Key(name string) string {
	s := strings.ToValidUTF8(name, "\uFFFD")
	for range maxKeyRounds {
		next := norm.NFD.String(mapEach(norm.NFD.String(norm.NFKC.String(s)), keyFrom[:], keyEnd[:], keyTo))
		if next == s {
			break
		}
		s = next
	}
	return s
}

// mapEach replaces each character of s found in from with its string in
// to (from[i]'s is to[end[i-1]:end[i]]) and each byte of invalid UTF-8 with
// U+FFFD.
func mapEach(s string, from []rune, end []uint16, to string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		i, found := slices.BinarySearch(from, r)
		if !found {
			b.WriteRune(r)
			continue
		}
		start := 0
		if i > 0 {
			start = int(end[i-1])
		}
		b.WriteString(to[start:end[i]])
	}
	return b.String()
}
