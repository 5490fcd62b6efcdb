package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What the command prints of the data on a terminal. A participant's name,
// a quiz's title or a course's ledger field is whatever was written to Redis:
// the library's rules bind only those who write through it. Printed raw, an
// ESC or OSC sequence would run in the operator's terminal, a CR or LF would
// forge a line of a listing, and a bidi control would show a line reordered.

// visible is s as the command's text output shows a string from the data:
// every printable character (any script, emoji and the joiners they are
// made of) as it is, and each character a terminal acts on or that reorders
// or breaks the line, escaped as Go's strconv writes it: the C0 controls,
// DEL and the C1 controls (\x1b, \n, \r, \t, \x00, \x7f, \u009b), the bidi
// controls and isolates (\u061c, \u200e, \u200f, \u202a to \u202e, \u2066 to
// \u2069), the line and paragraph separators (\u2028, \u2029), and each byte
// that is not UTF-8 (\xff). A backslash is written \\, so an escape in the
// output always stands for the character, never for the name's own text.
// The result holds no tab or line end, so a text/tabwriter table stays
// aligned.
func visible(s string) string { return escape(s, true) }

// visibleWords is a message whose strings from the data are quoted already
// (the library's errors and audit details, which Go-quote names and values;
// the command's own, which pass them through visible): the same escapes as
// visible, but a backslash kept as it is, since it is the quoting's own. It
// is the guard of every line on stderr.
func visibleWords(s string) string { return escape(s, false) }

// visibleJSON is a JSON document with each character visible escapes that
// encoding/json leaves raw (DEL, the C1 controls, the bidi controls) written
// as a \u escape instead: the same document to a decoder, string for
// string, and nothing a terminal acts on. encoding/json escapes the C0
// controls and U+2028 and U+2029 itself, and replaces bytes that are not
// UTF-8 with U+FFFD.
func visibleJSON(b []byte) []byte {
	if !strings.ContainsFunc(string(b), hidden) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if hidden(r) { // only ever inside a string: JSON's own syntax is printable ASCII
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// hidden reports whether the terminal acts on r, or r reorders or breaks the
// line it is on: what visible escapes.
func hidden(r rune) bool {
	switch {
	case unicode.IsControl(r): // C0, DEL, C1
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return r == '\u2028' || r == '\u2029'
}

// escape is visible (backslash set) or visibleWords.
func escape(s string, backslash bool) string {
	escaped := func(r rune) bool { return r == utf8.RuneError || hidden(r) || backslash && r == '\\' }
	if !strings.ContainsFunc(s, escaped) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' && backslash:
			b.WriteString(`\\`)
		case hidden(r):
			q := strconv.QuoteRune(r) // '\x1b', '\u202e': strconv's own escape, between quotes
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
