package kuis

import (
	"time"

	"github.com/redis/rueidis"
)

// Tuning is what the external tests may change of the library's internal
// bounds; a zero field keeps the default.
type Tuning struct {
	ScanCount    int64         // SCAN page size of Purge and Quizzes
	PageSize     int64         // SSCAN, ZSCAN and XRANGE page size of the paged reads
	RepairStep   int           // most corrections in one Repair script; more are rebuilt
	RecapInParts bool          // Recap reads every quiz in parts
	FeedBlock    time.Duration // how long one XREAD of the feed blocks
	MemberBuffer int           // batches a feed reader may fall behind
	FoldStep     int           // most pairs one course script folds or unfolds
}

// NewTuned is New with the tuning t.
func NewTuned(client rueidis.Client, t Tuning, opts ...Option) (*Store, error) {
	tune := defaultTuning
	if t.ScanCount > 0 {
		tune.scanCount = t.ScanCount
	}
	if t.PageSize > 0 {
		tune.pageSize = t.PageSize
	}
	if t.RepairStep > 0 {
		tune.repairStep = t.RepairStep
	}
	if t.RecapInParts {
		tune.recapLimit = 0
	}
	if t.FeedBlock > 0 {
		tune.feedBlock = t.FeedBlock
	}
	if t.MemberBuffer > 0 {
		tune.memberBuffer = t.MemberBuffer
	}
	if t.FoldStep > 0 {
		tune.foldStep = t.FoldStep
	}
	return newStore(client, tune, opts...)
}

// The coalescer's bounds, for the tests that fill its queues.
const (
	MaxChunk    = maxChunk
	MaxInFlight = maxInFlight
)

// Queued is how many RecordAnswer calls wait in the queue of quiz quizID's
// hash slot (every quiz's, on a server that is not a cluster).
func Queued(s *Store, quizID string) int {
	q, err := s.quiz(quizID)
	if err != nil {
		return 0
	}
	return s.rec.QueuedIn(q.slot)
}

// OperationsTable is the operations table as the package doc must show it.
func OperationsTable() string { return operationsTable() }

// OperationSends maps each method of the operations table to every command
// it may send or its scripts call.
func OperationSends() map[string][]string {
	out := map[string][]string{}
	for _, op := range operations {
		out[op.method] = op.sends()
	}
	return out
}

// OperationCommands maps each method to the plain commands the table lists.
func OperationCommands() map[string][]string {
	out := map[string][]string{}
	for _, op := range operations {
		out[op.method] = op.commands
	}
	return out
}

// ScriptCommands is what the table says each script calls.
func ScriptCommands() map[string][]string { return scriptCommands }

// CourseKeysOf is the key names of course courseID in s's namespace and form.
func CourseKeysOf(s *Store, courseID string) CourseKeys {
	return courseKeyNames(s.opts.naming, courseID)
}
