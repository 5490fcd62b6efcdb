package kuis

import (
	"context"

	"github.com/redis/rueidis"
)

// quiz is what Board and Meta share: the caller's client, the quiz's validated
// keys and the resolved options. The caller owns the client's lifecycle.
type quiz struct {
	client rueidis.Client
	keys   Keys
	opts   options
}

// newQuiz validates everything a handle needs before it does any I/O.
func newQuiz(client rueidis.Client, quizID string, opts []Option) (quiz, error) {
	o, err := resolve(opts)
	if err != nil {
		return quiz{}, err
	}
	k, err := keysFor(quizID, o)
	if err != nil {
		return quiz{}, err
	}
	if err := checkClient(client, o); err != nil {
		return quiz{}, err
	}
	return quiz{client: client, keys: k, opts: o}, nil
}

// checkClient refuses a nil client, and a cluster client without hash tags:
// the library's scripts take several keys of a quiz, which must share a slot
// (rueidis would panic on a cross-slot call before sending it).
func checkClient(client rueidis.Client, o options) error {
	if client == nil {
		return ErrNoClient
	}
	if client.Mode() == rueidis.ClientModeCluster && !o.hashTag {
		return ErrNeedsHashTag
	}
	return nil
}

// read sends a plain read command, through the client-side cache when
// WithClientCache is set.
func (q quiz) read(ctx context.Context, cmd rueidis.Cacheable) rueidis.RedisResult {
	if q.opts.cacheTTL > 0 {
		return q.client.DoCache(ctx, cmd, q.opts.cacheTTL)
	}
	return q.client.Do(ctx, rueidis.Completed(cmd))
}
