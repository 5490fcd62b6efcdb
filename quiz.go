package kuis

import (
	"context"
	"fmt"

	"github.com/redis/rueidis"
)

// quiz is what Board and Meta share: the store's client and options and the
// quiz's validated keys.
type quiz struct {
	client rueidis.Client
	keys   Keys
	opts   options
	rec    *coalescer
	feeds  *feedHubs // the Store's shared feed readers
}

// about is the subject of the quiz's error messages.
func (q quiz) about(participant string) string { return about(q.keys.quizID, participant) }

// fail maps err (from a command on key) to the library's error about the quiz
// and participant.
func (q quiz) fail(err error, participant, key string) error {
	return replyError(err, q.about(participant), key)
}

// errNotFound is the error of a quiz without meta.
func (q quiz) errNotFound() error {
	return fmt.Errorf("%w: %s", ErrQuizNotFound, q.about(""))
}

// read sends reads of the board in one round trip, behind HLEN of the meta
// hash, so that every read tells a quiz that does not exist (ErrQuizNotFound)
// from an empty one, without a second, separate call. With WithClientCache the
// commands go through DoMultiCache: entries in the cache are not sent at all.
// It returns the replies of cmds, in order; their errors are the caller's to
// map, since only the caller knows what a nil reply means.
func (q quiz) read(ctx context.Context, cmds ...rueidis.Cacheable) ([]rueidis.RedisResult, error) {
	all := make([]rueidis.Cacheable, 0, len(cmds)+1)
	all = append(all, q.client.B().Hlen().Key(q.keys.meta).Cache())
	all = append(all, cmds...)
	var res []rueidis.RedisResult
	if q.opts.cacheTTL > 0 {
		ct := make([]rueidis.CacheableTTL, len(all))
		for i, c := range all {
			ct[i] = rueidis.CT(c, q.opts.cacheTTL)
		}
		res = q.client.DoMultiCache(ctx, ct...)
	} else {
		cs := make(rueidis.Commands, len(all))
		for i, c := range all {
			cs[i] = rueidis.Completed(c)
		}
		res = q.client.DoMulti(ctx, cs...)
	}
	n, err := res[0].AsInt64()
	if err != nil {
		return nil, q.fail(err, "", q.keys.meta)
	}
	if n == 0 {
		return nil, q.errNotFound()
	}
	return res[1:], nil
}

// readOne is read of one command, through the cache with WithClientCache.
func (q quiz) readOne(ctx context.Context, cmd rueidis.Cacheable) rueidis.RedisResult {
	if q.opts.cacheTTL == 0 {
		return q.client.Do(ctx, rueidis.Completed(cmd))
	}
	return q.client.DoCache(ctx, cmd, q.opts.cacheTTL)
}
