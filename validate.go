package kuis

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Limits on what callers may write. Each is checked before any I/O.
const (
	maxIDLen          = 64   // quiz IDs and namespaces (bytes); keys stay short (seed 003)
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
func validText(s string, max int) bool {
	if len(s) == 0 || len(s) > max || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func checkParticipant(name string) error {
	if !validText(name, maxParticipantLen) {
		return fmt.Errorf("%w: %q (want 1 to %d bytes of UTF-8 without control characters)",
			ErrInvalidParticipant, name, maxParticipantLen)
	}
	return nil
}

func checkMeta(title string, questions int) error {
	if !validText(title, maxTitleLen) {
		return fmt.Errorf("%w: title %q (want 1 to %d bytes of UTF-8 without control characters)",
			ErrInvalidMeta, title, maxTitleLen)
	}
	if questions < 1 || questions > maxQuestions {
		return fmt.Errorf("%w: %d questions (want 1 to %d)", ErrInvalidMeta, questions, maxQuestions)
	}
	return nil
}
