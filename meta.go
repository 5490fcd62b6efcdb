package kuis

import (
	"context"
	"strconv"

	"github.com/kuisboard/kuis/internal/script"
)

// Status is the meta hash's status field: it decides whether the quiz still
// takes answers.
type Status string

// The two statuses the contract allows.
const (
	StatusRunning  Status = "berjalan" // answers are recorded
	StatusFinished Status = "selesai"  // answers are refused; the quiz may be recapped and purged
)

// Info is the decoded meta hash of a quiz.
type Info struct {
	Title     string `json:"title"`     // judul
	Questions int64  `json:"questions"` // jumlah_soal, a positive integer of at most 15 digits (Create writes 1 to 1000)
	Status    Status `json:"status"`    // status
}

// Meta is the teacher's handle on one quiz, from [Store.Meta]: it creates,
// reads and finishes the meta hash and never touches scores. It is safe for
// concurrent use.
type Meta struct {
	q quiz
}

// Create writes a new quiz's meta, judul, jumlah_soal and status=berjalan, in
// one atomic step, O(1), unless any key of the quiz already exists, of any
// type: nothing is ever overwritten, and a new quiz never inherits an old
// board. No TTL is set. Errors: ErrInvalidMeta (a title that is not 1 to 200
// bytes of UTF-8 without control characters, or questions outside 1 to 1000)
// before any I/O, ErrQuizExists, ErrForbidden; nothing is written then.
func (m *Meta) Create(ctx context.Context, title string, questions int) error {
	if err := m.q.checkMeta(title, questions); err != nil {
		return err
	}
	err := run(ctx, m.q.s.client, script.Create, m.q.keys.all(), []string{title, strconv.Itoa(questions)}).Error()
	return m.q.fail(err, "", m.q.keys.meta)
}

// Get reads the whole meta hash and decodes it strictly, O(1). Extra fields
// are ignored here (Audit reports them). With WithClientCache it may be served
// from the cache. Errors: ErrQuizNotFound (no meta), ErrCorrupt (naming the
// field: a key of the wrong type, a missing field, an unknown status or a
// jumlah_soal that is not a positive integer), ErrForbidden.
func (m *Meta) Get(ctx context.Context) (Info, error) {
	fields, err := m.fields(ctx)
	if err != nil {
		return Info{}, err
	}
	return decodeInfo(m.q.keys.meta, fields)
}

// Status reads the quiz's status, O(1), from the whole hash, so that a
// missing field and a missing key are told apart at the same moment; unlike
// Get it does not check the other fields. With WithClientCache it may be
// served from the cache. Errors: ErrQuizNotFound, ErrCorrupt (a key of the
// wrong type, a missing or unknown status), ErrForbidden.
func (m *Meta) Status(ctx context.Context) (Status, error) {
	fields, err := m.fields(ctx)
	if err != nil {
		return "", err
	}
	s, ok := fields[fieldStatus]
	if !ok {
		return "", corrupt(m.q.keys.meta, "field status is missing")
	}
	return decodeStatus(m.q.keys.meta, s)
}

// fields reads the meta hash, refusing a missing one.
func (m *Meta) fields(ctx context.Context) (map[string]string, error) {
	k := m.q.keys.meta
	fields, err := m.q.s.sendReads(ctx, m.q.s.client.B().Hgetall().Key(k).Cache())[0].AsStrMap()
	if err != nil {
		return nil, m.q.fail(err, "", k)
	}
	if len(fields) == 0 {
		return nil, m.q.errNotFound()
	}
	return fields, nil
}

// Finish sets the status to selesai and appends the finish entry (the single
// field status = selesai) to the answer log in one atomic step, O(1): from
// then on the quiz takes no new answer, and [Board.Events] ends with an
// EventFinished. A quiz whose answers were counted before the log existed
// (answers, no log) gets no entry, so that no log claims its answers were
// never logged, and neither does one whose log or answers set has the wrong
// type (Audit reports those); their feed ends on the status. Finishing a
// finished quiz succeeds and changes nothing. Errors: ErrQuizNotFound
// (nothing is created), ErrCorrupt (an unknown status or malformed meta),
// ErrForbidden; nothing is written then.
func (m *Meta) Finish(ctx context.Context) error {
	k := m.q.keys
	err := run(ctx, m.q.s.client, script.Finish, []string{k.meta, k.log, k.answers}, nil).Error()
	return m.q.fail(err, "", m.q.keys.meta)
}

// Meta hash field names, as the contract spells them.
const (
	fieldTitle     = "judul"
	fieldQuestions = "jumlah_soal"
	fieldStatus    = "status"
)

// metaFields lists the contract's meta fields in the contract's order.
var metaFields = []string{fieldTitle, fieldQuestions, fieldStatus}

// decodeInfo reads a meta hash strictly: every contract field present and well
// formed, or ErrCorrupt naming the key and field. Extra fields are ignored
// (Audit reports them). The caller tells an empty hash (a missing key) apart.
func decodeInfo(key string, fields map[string]string) (Info, error) {
	for _, f := range metaFields {
		if _, ok := fields[f]; !ok {
			return Info{}, corrupt(key, "field %s is missing", f)
		}
	}
	status, err := decodeStatus(key, fields[fieldStatus])
	if err != nil {
		return Info{}, err
	}
	questions, err := decodeQuestions(key, fields[fieldQuestions])
	if err != nil {
		return Info{}, err
	}
	return Info{Title: fields[fieldTitle], Questions: questions, Status: status}, nil
}

func decodeStatus(key, s string) (Status, error) {
	switch st := Status(s); st {
	case StatusRunning, StatusFinished:
		return st, nil
	default:
		return "", corrupt(key, "field status is %s, want %q or %q", quote(s), StatusRunning, StatusFinished)
	}
}

// maxQuestionsDigits bounds jumlah_soal's length so that the Lua gate (whose
// numbers are float64) and Go read the same values: 15 digits stay exact.
const maxQuestionsDigits = 15

// decodeQuestions accepts a positive decimal integer of at most 15 digits
// without sign or leading zeros, the only form Create writes (prelude.lua's
// questions applies the same rule).
// It parses to int64 on every platform: a 32-bit int would refuse counts
// of 10 or more digits that the gate accepts.
func decodeQuestions(key, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || len(s) > maxQuestionsDigits || strconv.FormatInt(n, 10) != s {
		return 0, corrupt(key, "field jumlah_soal is %s, want a positive integer", quote(s))
	}
	return n, nil
}
