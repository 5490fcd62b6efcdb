package kuis

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// CleanParticipant returns name as kuis stores it, or an error that
// errors.Is ErrInvalidParticipant: it trims the white space around name
// (Unicode's, U+00A0 and U+3000 included) and normalizes it to Unicode NFC,
// then checks it as every method that takes a participant does. Call it
// when a student joins: the methods themselves never clean a name, they
// refuse one that is not clean, and compare names byte for byte ("ali" and
// "Ali" are two students). It does no I/O.
//
// A valid name is valid UTF-8 in NFC, 1 to 64 characters long, without white
// space around it, with at least one letter, digit or symbol, and without
// control characters, line or paragraph separators, bidirectional controls
// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) or invisible
// fillers (U+00AD, U+200B, U+2060, U+FEFF). Joiners inside a name (U+200C,
// U+200D: Persian names, emoji sequences) are kept.
func CleanParticipant(name string) (string, error) {
	clean := norm.NFC.String(strings.TrimFunc(name, unicode.IsSpace))
	if problem := nameProblem(clean); problem != "" {
		return "", fmt.Errorf("%w: %s %s", ErrInvalidParticipant, quote(name), problem)
	}
	return clean, nil
}

// nameProblem says what breaks CleanParticipant's rule in name, in words a
// student can act on, or "" when it holds.
func nameProblem(name string) string {
	switch {
	case name == "":
		return "is empty"
	case !utf8.ValidString(name):
		return "is not valid UTF-8"
	case utf8.RuneCountInString(name) > maxNameRunes:
		return "is longer than 64 characters"
	case !norm.NFC.IsNormalString(name):
		return "is not in Unicode NFC (CleanParticipant composes it)"
	}
	first, _ := utf8.DecodeRuneInString(name)
	last, _ := utf8.DecodeLastRuneInString(name)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return "has white space around it (CleanParticipant trims it)"
	}
	visible := false
	for _, r := range name {
		switch {
		case unicode.IsControl(r), unicode.In(r, unicode.Zl, unicode.Zp),
			r == 0x061C, r == 0x200E, r == 0x200F, 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069,
			r == 0x00AD, r == 0x200B, r == 0x2060, r == 0xFEFF:
			return "holds a hidden, line-breaking or direction-changing character"
		case unicode.In(r, unicode.L, unicode.N, unicode.S):
			visible = true
		}
	}
	if !visible {
		return "has no letter, digit or symbol"
	}
	return ""
}

func (q quiz) checkParticipant(name string) error {
	if problem := nameProblem(name); problem != "" {
		// Not q.about(name), which leaves out an empty participant.
		return fmt.Errorf("%w: %s: participant %s %s", ErrInvalidParticipant, q.about(""), quote(name), problem)
	}
	return nil
}
