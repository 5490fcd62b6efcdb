package wire

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Question decodes a question number as a stored log entry or answers set
// member holds it: a positive decimal integer without sign or leading
// zeros, at most questions (the quiz's jumlah_soal, itself at most
// MaxQuestions).
func Question(s string, questions int) (int, bool) {
	return number(s, min(questions, MaxQuestions))
}

// MaxName bounds a stored participant name, in bytes: 64 characters of 4
// bytes each.
const MaxName = 256

// StoredName reports whether s may be a participant name a reader takes from
// Redis: non-empty valid UTF-8 of at most MaxName bytes without control
// characters. It is weaker than the rule for new names (the kuis package's
// CleanParticipant): names written before that rule still read.
func StoredName(s string) bool {
	return Text(s, MaxName)
}

// Text reports whether s is non-empty valid UTF-8 of at most most bytes
// without control characters: the rule for stored names and for titles.
func Text(s string, most int) bool {
	if len(s) == 0 || len(s) > most || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// Pair is the answers set member of question's answer by participant,
// "<question>:<participant>".
func Pair(question int, participant string) string {
	return strconv.Itoa(question) + ":" + participant
}

// ParsePair decodes an answers set member: a question number (Question's
// rule, at most questions) and a stored name (StoredName), joined by ':'.
func ParsePair(member string, questions int) (question int, participant string, ok bool) {
	q, p, found := strings.Cut(member, ":")
	n, valid := Question(q, questions)
	if !found || !valid || !StoredName(p) {
		return 0, "", false
	}
	return n, p, true
}
