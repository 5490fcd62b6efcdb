package kuis

import (
	"context"
	"fmt"

	"github.com/redis/rueidis"
)

// quiz is what Board, Meta and the Store's operations on one quiz share: the
// Store, the quiz's validated keys and their hash slot (the same for every
// quiz on a server that is not a cluster).
type quiz struct {
	s    *Store
	keys Keys
	slot uint16
}

// quiz validates quizID (ErrInvalidQuizID) and returns the quiz. It does no
// I/O.
func (s *Store) quiz(quizID string) (quiz, error) {
	k, err := keysFor(quizID, s.opts.naming)
	if err != nil {
		return quiz{}, err
	}
	q := quiz{s: s, keys: k}
	if s.client.Mode() == rueidis.ClientModeCluster {
		probe := s.client.B().Hlen().Key(k.meta).Build() // never sent: only its slot is read
		q.slot = probe.Slot()
	}
	return q, nil
}

// about is the subject of the quiz's error messages.
func (q quiz) about(participant string) string { return about("", q.keys.quizID, participant) }

// fail maps err (from a command on key) to the library's error about the quiz
// and participant.
func (q quiz) fail(err error, participant, key string) error {
	return replyError(err, q.about(participant), key)
}

// errNotFound is the error of a quiz without meta.
func (q quiz) errNotFound() error {
	return fmt.Errorf("%w: %s", ErrQuizNotFound, q.about(""))
}

// errRecreated is the error of a reader that met another quiz's start entry
// in the log it follows: the quiz was purged and created again under its ID.
func (q quiz) errRecreated() error {
	return fmt.Errorf("%w: %s: purged, and created again", ErrQuizNotFound, q.about(""))
}

// ctxError prefers ctx's own error to err when ctx ended during a read.
func (q quiz) ctxError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return q.fail(ctx.Err(), "", "")
	}
	return err
}

// read sends reads of the board in one round trip, behind HLEN of the meta
// hash, so that every read tells a quiz that does not exist (ErrQuizNotFound)
// from an empty one, without a second, separate call. With WithClientCache
// the commands go through the client-side cache. It returns the replies of
// cmds, in order; their errors are the caller's to map, since only the caller
// knows what a nil reply means.
func (q quiz) read(ctx context.Context, cmds ...rueidis.Cacheable) ([]rueidis.RedisResult, error) {
	all := make([]rueidis.Cacheable, 0, len(cmds)+1)
	all = append(all, q.s.client.B().Hlen().Key(q.keys.meta).Cache())
	res := q.s.sendReads(ctx, append(all, cmds...)...)
	n, err := res[0].AsInt64()
	if err != nil {
		return nil, q.fail(err, "", q.keys.meta)
	}
	if n == 0 {
		return nil, q.errNotFound()
	}
	return res[1:], nil
}
