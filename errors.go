package kuis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/redis/rueidis"
)

// Every error the library returns wraps one of these sentinels (test with
// errors.Is), or is another error wrapped with the quiz it concerns: a context
// or network error from rueidis, a server error reply without a sentinel (e.g.
// OOM, READONLY, BUSY, as *rueidis.RedisError), a reply of an unexpected
// shape, or archive's own error from PurgeQuiz. Recap.WriteCSV returns the
// writer's error as it is.
var (
	// ErrInvalidQuizID: a quiz ID that is empty, longer than 64 bytes, or holds a
	// byte other than ASCII letters, digits, '-', '_' and '.'. Returned before any I/O.
	ErrInvalidQuizID = errors.New("kuis: invalid quiz ID")
	// ErrInvalidNamespace: the same rule as ErrInvalidQuizID, for WithNamespace.
	ErrInvalidNamespace = errors.New("kuis: invalid namespace")
	// ErrInvalidParticipant: a participant name that is empty, longer than 64
	// bytes, not valid UTF-8, or holds a control character. Returned before any I/O.
	ErrInvalidParticipant = errors.New("kuis: invalid participant")
	// ErrInvalidMeta: a title that is empty, longer than 200 bytes, not valid
	// UTF-8 or holds a control character, or a question count outside 1 to 1000.
	ErrInvalidMeta = errors.New("kuis: invalid quiz meta")
	// ErrInvalidQuestion: a question number below 1 or above the quiz's jumlah_soal.
	ErrInvalidQuestion = errors.New("kuis: invalid question")
	// ErrInvalidRange: a negative offset, or a limit or radius out of bounds.
	ErrInvalidRange = errors.New("kuis: invalid range")
	// ErrNoClient: a nil rueidis.Client.
	ErrNoClient = errors.New("kuis: nil rueidis client")
	// ErrQuizExists: Create found a key of the quiz already in Redis.
	ErrQuizExists = errors.New("kuis: quiz already exists")
	// ErrQuizNotFound: the quiz has no meta key.
	ErrQuizNotFound = errors.New("kuis: quiz not found")
	// ErrQuizFinished: the quiz's status is selesai, so it takes no more answers.
	ErrQuizFinished = errors.New("kuis: quiz is finished")
	// ErrQuizRunning: PurgeQuiz refuses a quiz whose status is still berjalan.
	ErrQuizRunning = errors.New("kuis: quiz is still running")
	// ErrNotOnBoard: the participant has no score on the board yet.
	ErrNotOnBoard = errors.New("kuis: participant not on the board")
	// ErrNoArchive: PurgeQuiz was given a nil archive function.
	ErrNoArchive = errors.New("kuis: no archive function")
	// ErrCorrupt: a key of the quiz breaks the contract (wrong type, unknown
	// status, a score that is not a non-negative multiple of 10, a missing or
	// malformed field). The message names the key and the field or member.
	ErrCorrupt = errors.New("kuis: data breaks the contract")
	// ErrNeedsHashTag: a multi-key operation on a Redis Cluster client without
	// WithHashTag, whose keys would live in different slots.
	ErrNeedsHashTag = errors.New("kuis: Redis Cluster needs WithHashTag")
	// ErrForbidden: the server's ACL refused the command, directly (NOPERM) or
	// inside one of the library's scripts. The server's text is kept.
	ErrForbidden = errors.New("kuis: forbidden by the server's ACL")
)

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
	// Server replies that mean the same as ours.
	"NOPERM":    ErrForbidden,
	"WRONGTYPE": ErrCorrupt,
}

// replyError turns an error from rueidis into the library's: a script refusal
// or a server error reply becomes its sentinel, wrapped with subject (the quiz
// and, where it matters, the participant); anything else (context, network)
// keeps its own chain under the same subject. A nil err stays nil.
func replyError(err error, subject string) error {
	if err == nil {
		return nil
	}
	// errors.As, not rueidis.IsRedisErr: a server reply may come wrapped with
	// the node that sent it (ROLE in purge.go), and must still map.
	var re *rueidis.RedisError
	if errors.As(err, &re) && !re.IsNil() {
		msg := re.Error()
		code, rest, _ := strings.Cut(msg, " ")
		if sentinel, ok := scriptCodes[code]; ok {
			if strings.HasPrefix(code, "KUIS_") {
				msg = rest
			}
			return fmt.Errorf("%w: %s: %s", sentinel, subject, msg)
		}
		// Redis 7.0 words an ACL refusal inside a script without the NOPERM code:
		// "can't run this command" for a command, "can't access" for a key.
		if strings.Contains(msg, "can't run this command") || strings.Contains(msg, "can't access") ||
			strings.Contains(msg, "no permissions") {
			return fmt.Errorf("%w: %s: %s", ErrForbidden, subject, msg)
		}
	}
	// The network layer may report the caller's deadline as os.ErrDeadlineExceeded
	// ("i/o timeout": a dial or handshake cut short when the poller fires before the
	// context does) instead of the context's error. Callers test one thing for a
	// timeout, errors.Is(err, context.DeadlineExceeded), so both are wrapped.
	if errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("kuis: %s: %w (%w)", subject, err, context.DeadlineExceeded)
	}
	return fmt.Errorf("kuis: %s: %w", subject, err)
}

// corrupt reports data that breaks the contract, naming the key and the detail.
func corrupt(key, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, key, fmt.Sprintf(format, args...))
}

// errNotFound reports a quiz whose meta key does not exist.
func errNotFound(key string) error {
	return fmt.Errorf("%w: %s does not exist", ErrQuizNotFound, key)
}
