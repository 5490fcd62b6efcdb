package wire

import (
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is how many bytes of a stored or given string a message shows.
const MaxQuoted = 64

// Quote is s as messages show it: Go-quoted, cut to its first MaxQuoted
// bytes (at a rune boundary) with an ellipsis, so a 10 KB value stays one
// short line.
func Quote(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	cut := MaxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}
