package wire

import (
	"strconv"
	"strings"
)

// The course ledger is a hash. Field "<quiz>:<participant>" holds the points
// the quiz gave the participant; field "<quiz>:", the quiz's marker, holds 10 x
// the quiz's jumlah_soal and is written once every standing of the quiz is in.
// A quiz ID never holds ':', so a field's first ':' ends its quiz ID, and a
// participant's name is never empty, so the marker is told apart. Every value
// is a positive multiple of Points of at most MaxScore, in decimal
// without sign or leading zeros. course.lua's field and points are the Lua twin.

// LedgerSeparator ends the quiz ID of a ledger field.
const LedgerSeparator = ":"

// maxLedgerDigits is the length of MaxScore in decimal.
const maxLedgerDigits = 16

// LedgerField is the field of the points quizID gave participant.
func LedgerField(quizID, participant string) string {
	return quizID + LedgerSeparator + participant
}

// LedgerMarker is the field that marks quizID folded.
func LedgerMarker(quizID string) string { return quizID + LedgerSeparator }

// ParseLedgerField splits a field at its first ':' into the quiz ID and the
// participant, "" for the quiz's marker. ok is false for a field without ':'
// or with nothing before it. Whether the quiz ID and the name follow their
// rules is the caller's to check.
func ParseLedgerField(field string) (quizID, participant string, ok bool) {
	quizID, participant, ok = strings.Cut(field, LedgerSeparator)
	if !ok || quizID == "" {
		return "", "", false
	}
	return quizID, participant, true
}

// FormatLedgerPoints writes a ledger value in its one form: decimal, without
// sign or leading zeros.
func FormatLedgerPoints(points int64) string { return strconv.FormatInt(points, 10) }

// ParseLedgerPoints reads a ledger value: ok only for the form
// FormatLedgerPoints writes of a positive multiple of Points of at most
// MaxScore, so that a value read back is written back byte for byte.
func ParseLedgerPoints(s string) (points int64, ok bool) {
	if len(s) < 2 || len(s) > maxLedgerDigits || s[0] < '1' || s[0] > '9' || s[len(s)-1] != '0' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > MaxScore {
		return 0, false
	}
	return n, true
}
