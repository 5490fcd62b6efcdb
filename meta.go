package kuis

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
)

// Status is the meta hash's status field: it decides whether the quiz still
// takes answers.
type Status string

// The two statuses the contract allows.
const (
	StatusRunning  Status = wire.Running  // answers are recorded
	StatusFinished Status = wire.Finished // answers are refused; the quiz may be recapped and purged
)

// Info is the decoded meta hash of a quiz.
type Info struct {
	Title     string `json:"title"`     // judul
	Questions int64  `json:"questions"` // jumlah_soal, 1 to 1000
	Status    Status `json:"status"`    // status
	// Course is the course the quiz folds into (kursus), named at Create
	// with InCourse; "" when it names none.
	Course string `json:"course,omitempty"`
	// Class is the class whose roster grades the quiz (kelas), named at
	// Create with ForClass; "" when it names none.
	Class string `json:"class,omitempty"`
	// Visibility is who sees the board (tampilan): VisibilityShown for a
	// meta without the field. Get returns it; a Recap leaves it empty, since
	// who saw the board is no part of the grades.
	Visibility Visibility `json:"visibility,omitempty"`
}

// Meta is the teacher's handle on one quiz, from [Store.Meta]: it creates,
// reads and finishes the meta hash and never touches scores. It is safe for
// concurrent use.
type Meta struct {
	q quiz
}

// Meta returns the teacher's handle on quiz quizID: it creates, reads and
// finishes the meta hash and never touches scores. It does no I/O.
// Error: ErrInvalidQuizID.
func (s *Store) Meta(quizID string) (*Meta, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return nil, err
	}
	return &Meta{q: q}, nil
}

// Create writes a new quiz's meta, judul, jumlah_soal and status=berjalan,
// and what opts add (kursus with InCourse, kelas with ForClass), in one
// atomic step, O(1), unless any key of the quiz already exists, of any
// type: nothing is ever overwritten, and a new quiz never inherits an old
// board. No TTL is set. Errors: ErrInvalidMeta (a title that is not 1 to
// 200 bytes of UTF-8 without control characters, or questions outside 1 to
// 1000), ErrInvalidCourseID (InCourse given an invalid course ID) and
// ErrInvalidClassID (ForClass given an invalid class ID) before any I/O,
// ErrQuizExists, ErrForbidden; nothing is written then. With WithReplicas,
// ErrNotReplicated: the quiz was created on the primary. A Create sent again
// after ErrUnavailable or a deadline answers ErrQuizExists when the first
// reached the server: Get tells whether the quiz is the one meant.
func (m *Meta) Create(ctx context.Context, title string, questions int, opts ...CreateOption) error {
	var o createOptions
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&o)
		}
	}
	if err := m.q.checkMeta(title, questions, o); err != nil {
		return err
	}
	args := []string{title, strconv.Itoa(questions), startSequence()}
	if o.inCourse {
		args = append(args, wire.FieldCourse, o.course)
	}
	if o.inClass {
		args = append(args, wire.FieldClass, o.class)
	}
	err := m.q.s.run(ctx, script.Create, m.q.keys.quizKeys(), args).Error()
	return m.q.fail(err, "", m.q.keys.meta)
}

// startSequence is the sequence of a new quiz's start entry: 2^63 or more,
// so that the entry sorts after every entry an earlier quiz of the same ID
// logged in the same millisecond, and random, so that its ID marks this
// quiz alone (10 followed by 18 random digits: below 2^64 - 1).
func startSequence() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return fmt.Sprintf("10%018d", binary.BigEndian.Uint64(b[:])%1e18)
}

// Get reads the whole meta hash and decodes it strictly, O(1), tampilan
// included (VisibilityShown when the field is missing). Extra fields are
// ignored here (Audit reports them). With WithClientCache it may be served
// from the cache. Errors: ErrQuizNotFound (no meta), ErrCorrupt (naming the
// field: a key of the wrong type, a missing field, an unknown status or
// tampilan, or a jumlah_soal that is not an integer of 1 to 1000),
// ErrForbidden.
func (m *Meta) Get(ctx context.Context) (Info, error) {
	return m.read(ctx, needAll|needView)
}

// Status reads the quiz's status, O(1), from the whole hash, so that a
// missing field and a missing key are told apart at the same moment; unlike
// Get it does not check the other fields. With WithClientCache it may be
// served from the cache. Errors: ErrQuizNotFound, ErrCorrupt (a key of the
// wrong type, a missing or unknown status), ErrForbidden.
func (m *Meta) Status(ctx context.Context) (Status, error) {
	info, err := m.read(ctx, needStatus)
	return info.Status, err
}

// read reads the meta hash and decodes what is needed.
func (m *Meta) read(ctx context.Context, need metaNeeds) (Info, error) {
	fields, err := m.q.s.sendReads(ctx, m.q.s.client.B().Hgetall().Key(m.q.keys.meta).Cache())[0].AsStrMap()
	return m.q.decodeMeta(fields, err, need)
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
// ErrForbidden; nothing is written then. With WithReplicas, ErrNotReplicated:
// the quiz was finished on the primary.
func (m *Meta) Finish(ctx context.Context) error {
	k := m.q.keys
	err := m.q.s.run(ctx, script.Finish, []string{k.meta, k.log, k.answers}, nil).Error()
	return m.q.fail(err, "", m.q.keys.meta)
}

// The meta fields a reader needs decoded.
type metaNeeds int

const (
	needStatus    metaNeeds = 1 << iota // the status: every reader
	needQuestions                       // jumlah_soal: whoever checks question numbers
	needTitle                           // judul: whoever returns it
	needView                            // tampilan: Get alone, so that a recap never depends on it
	needAll       = needStatus | needQuestions | needTitle
)

// decodeMeta is the one decode of the quiz's meta hash, from HGETALL's
// reply (or a script's copy of it) and its error: every field in need
// present and well formed, or ErrCorrupt naming the key and field (the
// fields not needed are left zero when they do not decode); an empty hash is
// a quiz that does not exist (ErrQuizNotFound). Extra fields are ignored
// (Audit reports them).
func (q quiz) decodeMeta(fields map[string]string, err error, need metaNeeds) (Info, error) {
	key := q.keys.meta
	switch {
	case err != nil:
		return Info{}, q.fail(err, "", key)
	case len(fields) == 0:
		return Info{}, q.errNotFound()
	}
	var info Info
	var problems [4]error
	title, ok := fields[wire.FieldTitle]
	if info.Title = title; !ok {
		problems[0] = corrupt(key, "field %s is missing", wire.FieldTitle)
	}
	switch s, ok := fields[wire.FieldQuestions]; {
	case !ok:
		problems[1] = corrupt(key, "field %s is missing", wire.FieldQuestions)
	default:
		n, ok := wire.Questions(s)
		if !ok {
			problems[1] = corrupt(key, "field jumlah_soal is %s, want a positive integer of at most %d", quote(s), wire.MaxQuestions)
		}
		info.Questions = int64(n)
	}
	switch s, ok := fields[wire.FieldStatus]; {
	case !ok:
		problems[2] = corrupt(key, "field %s is missing", wire.FieldStatus)
	case s != wire.Running && s != wire.Finished:
		problems[2] = corrupt(key, "field status is %s, want %q or %q", quote(s), StatusRunning, StatusFinished)
	default:
		info.Status = Status(s)
	}
	info.Course = fields[wire.FieldCourse]
	info.Class = fields[wire.FieldClass]
	if need&needView != 0 {
		switch v, ok := fields[wire.FieldView]; {
		case !ok:
			info.Visibility = VisibilityShown
		case !Visibility(v).Valid():
			problems[3] = corrupt(key, "field %s is %s, want %q, %q or %q", wire.FieldView, quote(v),
				VisibilityShown, VisibilityHidden, VisibilityAtEnd)
		default:
			info.Visibility = Visibility(v)
		}
	}
	for i, n := range []metaNeeds{needTitle, needQuestions, needStatus, needView} {
		if need&n != 0 && problems[i] != nil {
			return Info{}, problems[i]
		}
	}
	return info, nil
}

// checkMeta checks what Create writes, before any I/O.
func (q quiz) checkMeta(title string, questions int, o createOptions) error {
	if !wire.Text(title, maxTitleLen) {
		return fmt.Errorf("%w: %s: title %s (want 1 to %d bytes of UTF-8 without control characters)",
			ErrInvalidMeta, q.about(""), quote(title), maxTitleLen)
	}
	if questions < 1 || questions > wire.MaxQuestions {
		return fmt.Errorf("%w: %s: %d questions (want 1 to %d)", ErrInvalidMeta, q.about(""), questions, wire.MaxQuestions)
	}
	if o.inCourse {
		if err := checkID(ErrInvalidCourseID, q.about("")+": InCourse", o.course); err != nil {
			return err
		}
	}
	if o.inClass {
		return checkID(ErrInvalidClassID, q.about("")+": ForClass", o.class)
	}
	return nil
}
