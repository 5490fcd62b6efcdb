package kuis

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Limits on what callers may write. Each is checked before any I/O.
const (
	maxIDLen          = 64   // quiz IDs and namespaces (bytes): keys stay short
	maxParticipantLen = 64   // participant names (bytes)
	maxTitleLen       = 200  // judul (bytes)
	maxQuestions      = 1000 // jumlah_soal
)

// validID reports whether s may be a quiz ID or a namespace: 1 to 64 bytes of
// ASCII letters, digits, '-', '_' and '.'. None of them is a key separator
// (':'), a glob character (* ? [ ] \) or a hash-tag brace.
func validID(s string) bool {
	if len(s) == 0 || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// validText reports whether s is non-empty valid UTF-8 of at most max bytes
// without control characters: the rule for participant names and titles.
func validText(s string, maxLen int) bool {
	if len(s) == 0 || len(s) > maxLen || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// maxQuoted is how many bytes of a caller's string an error message shows.
const maxQuoted = 64

// quote is s as error messages show it: Go-quoted, cut to its first 64 bytes
// (at a rune boundary) with an ellipsis, so a 10 KB input stays one short line.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

func (q quiz) checkParticipant(name string) error {
	if !validText(name, maxParticipantLen) {
		// Not q.about(name), which leaves out an empty participant.
		return fmt.Errorf("%w: %s, participant %s (want 1 to %d bytes of UTF-8 without control characters)",
			ErrInvalidParticipant, q.about(""), quote(name), maxParticipantLen)
	}
	return nil
}

func (q quiz) checkAnswer(participant string, question int) error {
	if err := q.checkParticipant(participant); err != nil {
		return err
	}
	if question < 1 {
		return fmt.Errorf("%w: %s: question %d (want 1 to jumlah_soal)", ErrInvalidQuestion, q.about(participant), question)
	}
	return nil
}

func (q quiz) checkMeta(title string, questions int) error {
	if !validText(title, maxTitleLen) {
		return fmt.Errorf("%w: %s: title %s (want 1 to %d bytes of UTF-8 without control characters)",
			ErrInvalidMeta, q.about(""), quote(title), maxTitleLen)
	}
	if questions < 1 || questions > maxQuestions {
		return fmt.Errorf("%w: %s: %d questions (want 1 to %d)", ErrInvalidMeta, q.about(""), questions, maxQuestions)
	}
	return nil
}
