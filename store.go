package kuis

import (
	"github.com/redis/rueidis"
)

// Store is the entry value of the library: one rueidis client and the options,
// validated once by [New]. It hands out the handles of one quiz ([Store.Board]
// for the quiz application, [Store.Meta] for the teacher) and runs the
// operations on a whole quiz or namespace (Recap, PurgeQuiz, Purge, Quizzes,
// Audit). A *Store is cheap, safe for concurrent use, and holds no connections
// of its own: the caller owns the client and closes it. It keeps the queues of
// RecordAnswer calls waiting to share a script run (see Board.RecordAnswer),
// which no other Store shares, and runs no goroutine while no call waits. The
// Board.Events iterators of one Store that follow the same quiz share one
// reader (one blocking XREAD at a time), which runs only while one of them runs.
type Store struct {
	client rueidis.Client
	opts   options
	rec    *coalescer // RecordAnswer's queues, one per quiz
	feeds  *feedHubs  // Board.Events' shared readers, one per quiz followed
}

// New validates the client and the options and returns a Store. It does no
// I/O. Errors: ErrNoClient for a nil client, ErrInvalidNamespace, and
// ErrNeedsHashTag for a Redis Cluster client without WithHashTag (the
// library's scripts take several keys of a quiz, which must share a slot).
func New(client rueidis.Client, opts ...Option) (*Store, error) {
	if client == nil {
		return nil, ErrNoClient
	}
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	if client.Mode() == rueidis.ClientModeCluster && !o.hashTag {
		return nil, ErrNeedsHashTag
	}
	return &Store{client: resending{client}, opts: o, rec: newCoalescer(), feeds: newFeedHubs()}, nil
}

// Keys returns the key names of quiz quizID. It does no I/O. A quiz ID must be
// 1 to 64 bytes of ASCII letters, digits, '-', '_' or '.' (ErrInvalidQuizID
// otherwise), so that no key holds a glob, hash-tag or separator character the
// library did not put there.
func (s *Store) Keys(quizID string) (Keys, error) {
	return keysFor(quizID, s.opts)
}

// Board returns the quiz application's handle on quiz quizID: it records
// answers and reads the board, and never writes meta. It does no I/O.
// Error: ErrInvalidQuizID.
func (s *Store) Board(quizID string) (*Board, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return nil, err
	}
	return &Board{q: q}, nil
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

func (s *Store) quiz(quizID string) (quiz, error) {
	k, err := keysFor(quizID, s.opts)
	if err != nil {
		return quiz{}, err
	}
	return quiz{client: s.client, keys: k, opts: s.opts, rec: s.rec, feeds: s.feeds}, nil
}
