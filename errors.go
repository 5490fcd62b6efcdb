package kuis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// Every error the library returns wraps one of these sentinels (test with
// errors.Is), or is another error wrapped with the quiz it concerns: a context
// or network error from rueidis, a server error reply without a sentinel (e.g.
// OOM, as *rueidis.RedisError), a reply of an unexpected
// shape, or archive's own error from PurgeQuiz. Recap.WriteCSV returns the
// writer's error as it is.
var (
	// ErrInvalidQuizID: a quiz ID that is empty, longer than 64 bytes, or holds a
	// byte other than ASCII letters, digits, '-', '_' and '.'. Returned before any I/O.
	ErrInvalidQuizID = errors.New("kuis: invalid quiz ID")
	// ErrInvalidNamespace: the same rule as ErrInvalidQuizID, for WithNamespace.
	ErrInvalidNamespace = errors.New("kuis: invalid namespace")
	// ErrInvalidOption: an option outside its documented values (WithTies, a
	// TeamScoring, WithReplicas, a Visibility), or WithReplicas asking for more replicas
	// than a primary has; a line item or class sourcedId Recap.WriteOneRoster
	// cannot write.
	ErrInvalidOption = errors.New("kuis: invalid option")
	// ErrInvalidParticipant: a participant name that breaks CleanParticipant's
	// rule: empty, over 64 characters, not what CleanParticipant returns for it
	// (white space around it, spaces, width or form it maps), nothing visible,
	// a character the PRECIS Nickname profile refuses (hidden, blank,
	// line-breaking or direction-changing ones among them; U+00B7 passes
	// between letters, U+0640 within an Arabic word), letters of two scripts
	// (but Latin with Han and kana, Bopomofo or Hangul), or a joiner or
	// variation selector out of place. The message says which. Returned
	// before any I/O.
	ErrInvalidParticipant = errors.New("kuis: invalid participant")
	// ErrInvalidMeta: a title that is empty, longer than 200 bytes, not valid
	// UTF-8 or holds a control character, or a question count outside 1 to 1000.
	ErrInvalidMeta = errors.New("kuis: invalid quiz meta")
	// ErrInvalidQuestion: a question number below 1 or above the quiz's jumlah_soal.
	ErrInvalidQuestion = errors.New("kuis: invalid question")
	// ErrInvalidRange: a negative offset, or a limit or radius out of bounds;
	// a Live top or interval out of bounds; an Events start that is not an
	// event ID. Returned before any I/O.
	ErrInvalidRange = errors.New("kuis: invalid range")
	// ErrNoClient: a nil rueidis.Client.
	ErrNoClient = errors.New("kuis: nil rueidis client")
	// ErrQuizExists: Create found a key of the quiz already in Redis.
	ErrQuizExists = errors.New("kuis: quiz already exists")
	// ErrQuizNotFound: the quiz has no meta key, whatever else of it exists.
	ErrQuizNotFound = errors.New("kuis: quiz not found")
	// ErrQuizFinished: the quiz's status is selesai, so it takes no more answers.
	ErrQuizFinished = errors.New("kuis: quiz is finished")
	// ErrQuizRunning: PurgeQuiz refuses a quiz whose status is still
	// berjalan, Course.Fold the recap of one, and Erase a participant a
	// running quiz holds.
	ErrQuizRunning = errors.New("kuis: quiz is still running")
	// ErrNotOnBoard: the participant has no score on the board yet (the quiz
	// exists), or no points in the course.
	ErrNotOnBoard = errors.New("kuis: participant not on the board")
	// ErrQuizChanged: PurgeQuiz found, when it came to delete, that the
	// quiz it recapped and archived was purged and another created under its
	// ID meanwhile; nothing was deleted, and the new quiz's grades are not in
	// the archive.
	ErrQuizChanged = errors.New("kuis: quiz changed since its recap")
	// ErrNoArchive: PurgeQuiz or Course.Purge was given a nil archive function.
	ErrNoArchive = errors.New("kuis: no archive function")
	// ErrCorrupt: a key of the quiz or course breaks the contract (wrong
	// type, unknown status, a score that is not a non-negative multiple of
	// 10, a missing or malformed field), or Course.Fold was given a recap
	// Recap cannot return. The message names the key and the field or member.
	ErrCorrupt = errors.New("kuis: data breaks the contract")
	// ErrNeedsHashTag: New was given a Redis Cluster client without
	// WithHashTag, so the keys of a quiz would live in different slots.
	ErrNeedsHashTag = errors.New("kuis: Redis Cluster needs WithHashTag")
	// ErrForbidden: the server's ACL refused the command, directly (NOPERM) or
	// inside one of the library's scripts.
	ErrForbidden = errors.New("kuis: forbidden by the server's ACL")
	// ErrUnavailable: the server cannot be reached or is not ready: the
	// connection failed or broke; the node answered nothing for the silence
	// bound (WithSilence); the server answered LOADING, BUSY (a script holds
	// it), MASTERDOWN, CLUSTERDOWN, READONLY (a replica, during a failover)
	// or TRYAGAIN; or, on a cluster client, the cluster kept redirecting the
	// quiz's slot (MOVED, ASK: a failover or a slot migration) past the
	// library's retries. The error of rueidis or of the server stays wrapped
	// beside it; a service answers 503 and may try again later (the package
	// doc says which calls are safe to send again). A call cut short by its
	// own ctx answers ctx's error instead.
	ErrUnavailable = errors.New("kuis: server unavailable")
	// ErrNeedsClusterClient: New was given a client that is not a cluster
	// client (rueidis.ClientOption.ForceSingleClient) for a server that is a
	// Redis Cluster node, whose every write of a quiz would fail with MOVED
	// or CROSSSLOT; a call of a Store whose client is not a cluster client
	// answered so answers this too. A cluster client never sees it after New.
	ErrNeedsClusterClient = errors.New("kuis: a Redis Cluster node needs a cluster client")
	// ErrBusy: Store.Repair gave up rebuilding a board because other Repairs
	// of the quiz kept taking the rebuild over, or Store.Recap (and so
	// PurgeQuiz) gave up reading a big finished quiz in parts because it
	// changed every time it was read, or a Course's Recap, Audit, Repair or
	// Purge found the course changed by a fold every time it was read (Purge:
	// while it was archived). Nothing was replaced or deleted, and trying
	// again is safe.
	ErrBusy = errors.New("kuis: quiz busy")
	// ErrNotReplicated: with WithReplicas, fewer replicas than asked
	// acknowledged a write within the timeout, or the wait for them failed
	// (ctx ended, the connection broke; that error is wrapped too). The write
	// was applied on the primary and may not survive a failover; a retry is
	// safe (an answer answers Duplicate).
	ErrNotReplicated = errors.New("kuis: not acknowledged by enough replicas")
	// ErrInvalidCourseID: the same rule as ErrInvalidQuizID, for a course ID.
	// Returned before any I/O.
	ErrInvalidCourseID = errors.New("kuis: invalid course ID")
	// ErrConflict: a course refused a call that disagrees with what it holds
	// (the error is a *ConflictError saying why), or Class.Enroll a student
	// whose ID is enrolled under another name (an *EnrollError); nothing was
	// written.
	ErrConflict = errors.New("kuis: conflicts with what the course holds")
	// ErrInvalidTeam: Board.Teams or Course.Teams was given no teams, more than
	// 1,000 teams or 10,000 members, a team without a name or members, a team
	// name twice, or a member listed twice (in one team or two). Returned
	// before any I/O.
	ErrInvalidTeam = errors.New("kuis: invalid team")
	// ErrInvalidClassID: the same rule as ErrInvalidQuizID, for a class ID.
	// Returned before any I/O.
	ErrInvalidClassID = errors.New("kuis: invalid class ID")
	// ErrInvalidStudent: a Student whose ID or name breaks Class.Enroll's
	// rule; the message says which field and which character. Returned
	// before any I/O (by Recap.WriteOneRoster, for an ID it cannot write).
	ErrInvalidStudent = errors.New("kuis: invalid student")
	// ErrNameTaken: Class.Enroll was given a name that is, or that a class
	// would confuse with, the name of another student of the class; nothing
	// was written.
	ErrNameTaken = errors.New("kuis: name taken in the class")
	// ErrNotEnrolled: the class has no such student.
	ErrNotEnrolled = errors.New("kuis: student not enrolled")
)

// ConflictReason says why a course refused a call (ConflictError.Reason).
type ConflictReason string

// The reasons of a ConflictError.
const (
	// ConflictPoints: the instance's ledger holds Participant with Held
	// points, and the recap gives Given.
	ConflictPoints ConflictReason = "points"
	// ConflictParticipants: the folded instance's ledger holds Participant
	// (Held their points) whom the recap lacks, or the recap lists
	// Participant (Given their points) whom the ledger lacks.
	ConflictParticipants ConflictReason = "participants"
	// ConflictQuestions: the instance was folded as worth Held points, and
	// the recap makes it Given.
	ConflictQuestions ConflictReason = "questions"
	// ConflictRecap: another recap of this instance is folded in part: fold
	// that one again to finish it, or UnfoldInstance it.
	ConflictRecap ConflictReason = "recap"
	// ConflictInstances: Unfold of a quiz ID the course holds in several
	// instances, listed in Instances: UnfoldInstance one of them.
	ConflictInstances ConflictReason = "instances"
	// ConflictCourse: the quiz's meta names course Held, and it was archived
	// into course Given.
	ConflictCourse ConflictReason = "course"
)

// ConflictError is the ErrConflict of a course: which course, quiz and
// instance, why, and what the course holds against what was given, so that
// a caller reads fields, never the message.
type ConflictError struct {
	Course, Quiz, Instance string
	Reason                 ConflictReason
	Participant            string   // the participant concerned, for ConflictPoints and ConflictParticipants
	Held, Given            string   // what the course holds and what the call gave, as the reason says
	Instances              []string // ConflictInstances: the quiz's instances in the course
}

// Error words the conflict: "kuis: conflict: course ..., quiz ... (instance
// ...): " and the reason's words.
func (e *ConflictError) Error() string {
	subject := about(e.Course, e.Quiz, "")
	if e.Instance != "" {
		subject += " (instance " + e.Instance + ")"
	}
	var why string
	switch e.Reason {
	case ConflictPoints:
		why = fmt.Sprintf("participant %s was folded with %s points, and the recap gives %s; UnfoldInstance it to fold the new recap",
			quote(e.Participant), e.Held, e.Given)
	case ConflictParticipants:
		switch {
		case e.Participant == "":
			why = "the instance's ledger holds participants the recap lacks"
		case e.Given == "":
			why = fmt.Sprintf("the instance is folded with participant %s, whom the recap lacks", quote(e.Participant))
		default:
			why = fmt.Sprintf("the recap lists participant %s, whom the folded instance lacks", quote(e.Participant))
		}
		why += "; UnfoldInstance it to fold the new recap"
	case ConflictQuestions:
		why = fmt.Sprintf("the instance was folded as worth %s points, and the recap makes it %s; UnfoldInstance it to fold the new recap",
			e.Held, e.Given)
	case ConflictRecap:
		why = "another recap of this instance is folded in part: fold that one again to finish it, or UnfoldInstance it"
	case ConflictInstances:
		why = fmt.Sprintf("the course holds the quiz in %d instances (%s): UnfoldInstance one of them",
			len(e.Instances), strings.Join(e.Instances, ", "))
	case ConflictCourse:
		why = fmt.Sprintf("the quiz belongs to course %s, not to course %s: archive it with its own course", quote(e.Held), quote(e.Given))
	default:
		why = string(e.Reason)
	}
	return "kuis: conflict: " + subject + ": " + why
}

// Is reports whether target is ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// notReplicated is the error of a run applied on the primary that fewer
// replicas than asked acknowledged: ErrNotReplicated, with the run's own
// result (for the callers that read it: RecordAnswer's refusals stay
// refusals and its answers keep their Answer), and WAIT's own error when
// WAIT failed, or why no WAIT could cover the run.
type notReplicated struct {
	result   rueidis.RedisResult
	acked    int64
	want     int
	timeout  time.Duration
	cause    error
	unwaited string // why the run gave WAIT nothing to follow
}

func (e *notReplicated) Error() string { return e.about("a write").Error() }

func (e *notReplicated) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrNotReplicated}
	}
	return []error{ErrNotReplicated, e.cause}
}

// about is the error as the library returns it, naming subject.
func (e *notReplicated) about(subject string) error {
	if e.unwaited != "" {
		return fmt.Errorf("%w: %s: %s", ErrNotReplicated, subject, e.unwaited)
	}
	if e.cause != nil {
		return fmt.Errorf("%w: %s: WAIT failed: %w", ErrNotReplicated, subject, timedOut(e.cause))
	}
	return fmt.Errorf("%w: %s: %d of %d replicas acknowledged within %v", ErrNotReplicated, subject, e.acked, e.want, e.timeout)
}

// unavailableError is ErrUnavailable as the send layer decides it: a node
// that answered nothing within the silence bound, or, on a cluster client, a
// slot the cluster did not serve within the library's retries (err: the
// MOVED, ASK, TRYAGAIN or CLUSTERDOWN reply).
type unavailableError struct {
	why string
	err error
}

func (e *unavailableError) Error() string {
	if e.err == nil {
		return e.why
	}
	return e.why + ": " + e.err.Error()
}

func (e *unavailableError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrUnavailable}
	}
	return []error{ErrUnavailable, e.err}
}

// scriptCodes maps the first word of a script's error_reply to its sentinel.
// The scripts in internal/script use exactly these codes.
var scriptCodes = map[string]error{
	"KUIS_NOTFOUND":  ErrQuizNotFound,
	"KUIS_FINISHED":  ErrQuizFinished,
	"KUIS_RUNNING":   ErrQuizRunning,
	"KUIS_EXISTS":    ErrQuizExists,
	"KUIS_QUESTION":  ErrInvalidQuestion,
	"KUIS_CORRUPT":   ErrCorrupt,
	"KUIS_FORBIDDEN": ErrForbidden,
	"KUIS_BUSY":      ErrBusy,
	"KUIS_CHANGED":   ErrQuizChanged,
	"KUIS_CONFLICT":  ErrConflict,
	"KUIS_NAMETAKEN": ErrNameTaken,
	// A server reply that means the same as ours.
	"NOPERM": ErrForbidden,
}

// replyError turns an error from rueidis into the library's, one line that
// names what it is about (subject: the quiz and, where it matters, the
// participant) and no key, but for ErrCorrupt:
//   - a write too few replicas acknowledged becomes ErrNotReplicated;
//   - a script refusal becomes its sentinel, with the script's detail, which
//     names a key only for KUIS_CORRUPT (then the key is the subject);
//   - WRONGTYPE becomes ErrCorrupt naming key, the key the command read;
//   - an ACL refusal becomes ErrForbidden, with the server's text;
//   - anything else (context, network, other server replies) keeps its own
//     chain under the subject.
//
// A nil err stays nil.
func replyError(err error, subject, key string) error {
	if err == nil {
		return nil
	}
	var nr *notReplicated
	if errors.As(err, &nr) {
		return nr.about(subject)
	}
	var un *unavailableError
	if errors.As(err, &un) {
		return fmt.Errorf("%w: %s: %w", ErrUnavailable, subject, un)
	}
	// errors.As, not rueidis.IsRedisErr: a server reply may come wrapped with
	// the node that sent it (SCAN in purge.go), and must still map.
	var re *rueidis.RedisError
	if errors.As(err, &re) && !re.IsNil() {
		msg := re.Error()
		code, rest, _ := strings.Cut(msg, " ")
		switch sentinel, ok := scriptCodes[code]; {
		case code == "KUIS_CORRUPT":
			return fmt.Errorf("%w: %s", sentinel, rest)
		case code == "WRONGTYPE":
			return corrupt(key, "holds the wrong type")
		case ok && rest != "":
			return fmt.Errorf("%w: %s: %s", sentinel, subject, rest)
		case ok:
			return fmt.Errorf("%w: %s", sentinel, subject)
		}
		// A reply's code decides before its words: a redirect or a server not
		// ready is that, whatever text follows the code.
		if code == "MOVED" || code == "ASK" || code == "CROSSSLOT" { // a cluster client's were made ErrUnavailable as sent
			return fmt.Errorf("%w: %s: %w (leave rueidis.ClientOption.ForceSingleClient unset, and use WithHashTag)",
				ErrNeedsClusterClient, subject, err)
		}
		if notReady[code] {
			return fmt.Errorf("%w: %s: %w", ErrUnavailable, subject, err)
		}
		// Redis 7.0 words an ACL refusal inside a script without the NOPERM code,
		// naming the script and the line: worded as the scripts' own refusals.
		switch {
		case strings.Contains(msg, "can't run this command"):
			return fmt.Errorf("%w: %s: the ACL user may not run a command the call needs", ErrForbidden, subject)
		case strings.Contains(msg, "can't access"):
			return fmt.Errorf("%w: %s: the ACL user may not use a key the call needs", ErrForbidden, subject)
		case strings.Contains(msg, "no permissions"):
			return fmt.Errorf("%w: %s: %s", ErrForbidden, subject, msg)
		}
	}
	if unreachable(err) || handshakeNotReady(err) {
		return fmt.Errorf("%w: %s: %w", ErrUnavailable, subject, err)
	}
	return fmt.Errorf("kuis: %s: %w", subject, timedOut(err))
}

// timedOut is err, with context.DeadlineExceeded wrapped beside it when it is
// the network layer's os.ErrDeadlineExceeded ("i/o timeout": a dial or
// handshake cut short when the poller fires before the context does) instead
// of the context's error. Callers test one thing for a timeout,
// errors.Is(err, context.DeadlineExceeded), so both are wrapped.
func timedOut(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (%w)", err, context.DeadlineExceeded)
	}
	return err
}

// notReady lists the server's error codes of a server that is not ready.
var notReady = map[string]bool{"LOADING": true, "BUSY": true, "MASTERDOWN": true, "CLUSTERDOWN": true,
	"READONLY": true, "TRYAGAIN": true}

// unreachable reports whether err says the server could not be reached: a
// failed dial, or a connection that broke, but not the caller's ctx ending.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// handshakeNotReady reports whether err is a new connection's handshake
// that a server not ready refused (BUSY, LOADING...): rueidis words it with
// the reply's text and ErrNoCache, not the reply itself.
func handshakeNotReady(err error) bool {
	code, _, _ := strings.Cut(err.Error(), " ")
	return errors.Is(err, rueidis.ErrNoCache) && notReady[code]
}

// archiveFailed is the error of a purge whose archive function failed with
// err: nothing was deleted.
func archiveFailed(subject string, err error) error {
	return fmt.Errorf("kuis: %s: archive failed, nothing deleted: %w", subject, err)
}

// corrupt reports data that breaks the contract, naming the key and the detail.
func corrupt(key, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, key, fmt.Sprintf(format, args...))
}

// about is the subject of an error message: the course, the quiz and the
// participant, each that is not "", quoted and cut by quote.
func about(courseID, quizID, participant string) string {
	var parts []string
	for _, p := range [...][2]string{{"course ", courseID}, {"quiz ", quizID}, {"participant ", participant}} {
		if p[1] != "" {
			parts = append(parts, p[0]+quote(p[1]))
		}
	}
	return strings.Join(parts, ", ")
}

// quote is s as error messages show it: Go-quoted, cut to its first 64
// bytes (at a rune boundary) with an ellipsis.
func quote(s string) string { return wire.Quote(s) }

// number prints a score for a message: whole numbers in full
// (100000000000000000000, not 1e+20), others as short decimals.
func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
