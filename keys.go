package kuis

import (
	"fmt"
	"strings"

	"github.com/kuisboard/kuis/internal/wire"
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

// naming is how key names are spelled: the options' part that keys.go reads.
type naming struct {
	namespace string // first segment of every key; default DefaultNamespace
	hashTag   bool   // brace the quiz ID; default off: the contract's byte-exact names
}

// keysFor validates quizID (checkID: ErrInvalidQuizID), so that no key ever
// holds a glob, hash-tag or separator character the library did not put
// there.
func keysFor(quizID string, n naming) (Keys, error) {
	if err := checkID(ErrInvalidQuizID, "", quizID); err != nil {
		return Keys{}, err
	}
	return keyNames(n, quizID), nil
}

// keyNames is the one place key names are spelled. Callers pass a validated
// quiz ID, or a placeholder for documentation (ContractTable).
func keyNames(n naming, quizID string) Keys {
	return Keys{
		quizID:  quizID,
		board:   n.key("papan", quizID),
		meta:    n.key("meta", quizID),
		answers: n.key("jawaban", quizID),
		log:     n.key("catatan", quizID),
		order:   n.key("urutan", quizID),

		repairBoard: n.key("papan-baru", quizID),
		repairOrder: n.key("urutan-baru", quizID),
	}
}

// key is the name of an object's key for id: <namespace>:<object>:<id>, the
// ID braced with WithHashTag.
func (n naming) key(object, id string) string {
	if n.hashTag {
		id = "{" + id + "}"
	}
	return n.namespace + ":" + object + ":" + id
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

// quizKeys lists the five keys of the quiz, meta first, in the order the
// scripts take them: meta, board, answers, log, order.
func (k Keys) quizKeys() []string { return []string{k.meta, k.board, k.answers, k.log, k.order} }

// withRepair lists quizKeys and then the repair keys: everything PurgeQuiz
// deletes.
func (k Keys) withRepair() []string { return append(k.quizKeys(), k.repairBoard, k.repairOrder) }

// CourseKeys are the key names of one course, beside the quizzes and never
// inside them: its board, its quiz index and one ledger per folded quiz
// instance, all in the course's hash slot with WithHashTag. The zero value
// holds no keys.
type CourseKeys struct {
	courseID string
	board    string
	quizzes  string
	ledgers  string // every ledger's name up to its index field
}

// courseKeyNames is the one place course key names are spelled. Callers pass
// a validated course ID (the quiz ID rule), or a placeholder (ContractTable,
// ACLRules).
func courseKeyNames(n naming, courseID string) CourseKeys {
	return CourseKeys{
		courseID: courseID,
		board:    n.key("kursus", courseID),
		quizzes:  n.key("kursus-kuis", courseID),
		ledgers:  n.key("kursus-rincian", courseID) + ":",
	}
}

// CourseID is the course identity the keys were built from, without braces.
func (k CourseKeys) CourseID() string { return k.courseID }

// Board is the course's sorted set: member = participant, score = the points
// of every quiz instance folded into the course; its members are exactly the
// participants the ledgers hold, 0-point ones included: "kuis:kursus:ipa-8a".
func (k CourseKeys) Board() string { return k.board }

// Quizzes is the course's quiz index, a hash: field "<quiz>@<instance>" (the
// instance the quiz log's start entry names) = the instance's marker
// "<possible> <participants> <points> <digest> <folded_ms>":
// "kuis:kursus-kuis:ipa-8a".
func (k CourseKeys) Quizzes() string { return k.quizzes }

// Ledger is the hash of one folded quiz instance: participant = the points
// the instance gave them: "kuis:kursus-rincian:ipa-8a:kuis-02@1733299200000-0".
// It does no I/O and checks nothing: pass a valid quiz ID and instance.
func (k CourseKeys) Ledger(quizID, instance string) string {
	return k.ledgers + wire.IndexField(quizID, instance)
}

// ClassKeys are the key names of one class's roster, beside the quizzes and
// courses and never inside them, all in the class's hash slot with
// WithHashTag. The zero value holds no keys.
type ClassKeys struct {
	classID    string
	roster     string
	names      string
	lookalikes string
}

// classKeyNames is the one place class key names are spelled. Callers pass
// a validated class ID (the quiz ID rule), or a placeholder (ContractTable,
// ACLRules).
func classKeyNames(n naming, classID string) ClassKeys {
	return ClassKeys{
		classID:    classID,
		roster:     n.key("kelas", classID),
		names:      n.key("kelas-nama", classID),
		lookalikes: n.key("kelas-mirip", classID),
	}
}

// ClassID is the class identity the keys were built from, without braces.
func (k ClassKeys) ClassID() string { return k.classID }

// Roster is the hash of the class's students: student ID = name:
// "kuis:kelas:8a".
func (k ClassKeys) Roster() string { return k.roster }

// Names is the hash that finds a student by name: name = student ID, one
// field per field of Roster: "kuis:kelas-nama:8a".
func (k ClassKeys) Names() string { return k.names }

// Lookalikes is the hash that keeps names a class would confuse apart: the
// name's confusable key (see Class.Enroll) = student ID, one field per field
// of Roster: "kuis:kelas-mirip:8a".
func (k ClassKeys) Lookalikes() string { return k.lookalikes }

// all lists the class's keys in the order the roster scripts take them:
// roster, names, look-alikes.
func (k ClassKeys) all() []string { return []string{k.roster, k.names, k.lookalikes} }

// quizIDFromMeta returns the quiz ID of a meta key in the form n spells,
// or false for a key of another namespace or form.
func quizIDFromMeta(key string, n naming) (string, bool) {
	id, ok := strings.CutPrefix(key, n.namespace+":meta:")
	if !ok {
		return "", false
	}
	if n.hashTag {
		if len(id) < 2 || id[0] != '{' || id[len(id)-1] != '}' {
			return "", false
		}
		id = id[1 : len(id)-1]
	}
	return id, validID(id)
}

// Limits on what callers may write. Each is checked before any I/O.
const (
	maxIDLen    = 64  // quiz IDs and namespaces (bytes): keys stay short
	maxTitleLen = 200 // judul (bytes)
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

// checkID is nil for an ID that follows the ID rule (validID), else the one
// wording of the rule: sentinel, subject (what the ID was given as; none for
// ""), then the ID.
func checkID(sentinel error, subject, id string) error {
	if validID(id) {
		return nil
	}
	if subject != "" {
		subject += ": "
	}
	return fmt.Errorf("%w: %s%s (want 1 to %d bytes of ASCII letters, digits, '-', '_' or '.')", sentinel, subject, quote(id), maxIDLen)
}
