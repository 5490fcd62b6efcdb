package kuis

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Keys are the validated key names of one quiz. The zero value holds no keys;
// get one from [Store.Keys].
type Keys struct {
	quizID  string
	board   string
	meta    string
	answers string
	log     string
	order   string
	// What Repair rebuilds a large board in, out of readers' sight.
	repairBoard string
	repairOrder string
}

// keysFor validates quizID: 1 to 64 bytes of ASCII letters, digits, '-', '_'
// or '.' (ErrInvalidQuizID otherwise), so that no key ever holds a glob,
// hash-tag or separator character the library did not put there.
func keysFor(quizID string, o options) (Keys, error) {
	if !validID(quizID) {
		return Keys{}, fmt.Errorf("%w: %s (want 1 to %d bytes of ASCII letters, digits, '-', '_' or '.')",
			ErrInvalidQuizID, quote(quizID), maxIDLen)
	}
	return keyNames(o, quizID), nil
}

// keyNames is the one place key names are spelled. Callers pass a validated
// quiz ID, or a placeholder for documentation (ContractTable).
func keyNames(o options, quizID string) Keys {
	id := quizID
	if o.hashTag {
		id = "{" + quizID + "}"
	}
	return Keys{
		quizID:  quizID,
		board:   o.namespace + ":papan:" + id,
		meta:    o.namespace + ":meta:" + id,
		answers: o.namespace + ":jawaban:" + id,
		log:     o.namespace + ":catatan:" + id,
		order:   o.namespace + ":urutan:" + id,

		repairBoard: o.namespace + ":papan-baru:" + id,
		repairOrder: o.namespace + ":urutan-baru:" + id,
	}
}

// QuizID is the quiz identity the keys were built from, without braces.
func (k Keys) QuizID() string { return k.quizID }

// Board is the sorted set of scores: "kuis:papan:kuis-01".
func (k Keys) Board() string { return k.board }

// Meta is the hash of the quiz's title, question count and status: "kuis:meta:kuis-01".
func (k Keys) Meta() string { return k.meta }

// Answers is the set of answered (question, participant) pairs that makes
// RecordAnswer exactly-once: "kuis:jawaban:kuis-01".
func (k Keys) Answers() string { return k.answers }

// Log is the stream of counted answers, one entry per answer in the order
// counted, its ID holding the server's time, then the finish entry:
// "kuis:catatan:kuis-01". It is the quiz's feed ([Board.Events]).
func (k Keys) Log() string { return k.log }

// Order is the sorted set that orders the board by points, then by the time
// of each participant's latest counted answer: "kuis:urutan:kuis-01".
func (k Keys) Order() string { return k.order }

// RepairBoard is where Store.Repair builds a new board when its corrections
// do not fit in one atomic step, before it replaces the board with it in one:
// "kuis:papan-baru:kuis-01". It exists only while such a Repair runs.
func (k Keys) RepairBoard() string { return k.repairBoard }

// RepairOrder is RepairBoard's order set, replacing Order in the same step:
// "kuis:urutan-baru:kuis-01".
func (k Keys) RepairOrder() string { return k.repairOrder }

// every lists the keys the scripts take (all) and then the repair keys:
// everything PurgeQuiz deletes.
func (k Keys) every() []string { return append(k.all(), k.repairBoard, k.repairOrder) }

// all lists every key of the quiz, in the order the scripts take them.
func (k Keys) all() []string { return []string{k.meta, k.board, k.answers, k.log, k.order} }

// quizIDFromMeta returns the quiz ID of a meta key in the form the options
// select, or false for a key of another namespace or form.
func quizIDFromMeta(key string, o options) (string, bool) {
	id, ok := strings.CutPrefix(key, o.namespace+":meta:")
	if !ok {
		return "", false
	}
	if o.hashTag {
		if len(id) < 2 || id[0] != '{' || id[len(id)-1] != '}' {
			return "", false
		}
		id = id[1 : len(id)-1]
	}
	return id, validID(id)
}

// Limits on what callers may write. Each is checked before any I/O.
const (
	maxIDLen      = 64   // quiz IDs and namespaces (bytes): keys stay short
	maxNameRunes  = 64   // participant names (characters)
	maxStoredName = 256  // the bytes of the longest name (64 characters of 4 bytes)
	maxTitleLen   = 200  // judul (bytes)
	maxQuestions  = 1000 // jumlah_soal
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
// without control characters: the rule for titles, and what a reader of
// names already stored takes (names written before CleanParticipant's rule).
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

// validParticipant is CleanParticipant's rule.
func validParticipant(name string) bool { return nameProblem(name) == "" }

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
