package kuis

import (
	"context"
	"fmt"
	"sort"

	"github.com/kuisboard/kuis/internal/cluster"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Purge deletes every key of the store's namespace (<ns>:*, the contract's
// end of life) and returns how many it deleted. It pages through SCAN ... MATCH <ns>:*
// (never KEYS) on every primary, cursor to 0, and deletes each page with one
// UNLINK per key sent pipelined (O(1) each; memory is freed in the background),
// so it works on Redis Cluster and never blocks the server for long. A key that
// does not start with "<ns>:" is never touched. Purge does not look at quiz
// status: use PurgeQuiz to delete one finished quiz after archiving its recap.
//
// On a cluster the primaries are found with CLUSTER SHARDS, and each one's
// own CLUSTER NODES line gives its slots, config epoch and open migrations
// (replicas are never needed, so a dead one fails nothing). A key that moves
// between primaries during the call is not missed: when a slot moved or a
// migration opened or closed while the primaries were scanned, the scan
// starts again after a short pause, until one whole scan saw the layout hold
// still; the targets of a migration open throughout are scanned a second
// time, after every primary. A long resharding therefore delays the call;
// ctx bounds it.
func (s *Store) Purge(ctx context.Context) (int64, error) {
	client, o := s.client, s.opts
	var deleted int64
	err := s.scanner().Scan(ctx, o.namespace+":*", func(keys []string) error {
		cmds := make(rueidis.Commands, len(keys))
		for i, k := range keys {
			cmds[i] = client.B().Unlink().Key(k).Build()
		}
		for _, res := range s.send(ctx, client, cmds...) {
			n, err := res.AsInt64()
			if err != nil {
				return err
			}
			deleted += n // 0 for a key SCAN returned twice or another client deleted
		}
		return nil
	})
	if err != nil {
		return deleted, replyError(err, "purge of namespace "+quote(o.namespace), "")
	}
	return deleted, nil
}

// Quizzes lists, sorted, the IDs of the quizzes of the store's namespace that
// have a meta key in the form the options select (with WithHashTag, the braced form;
// IDs are returned without braces). It pages through SCAN ... MATCH
// <ns>:meta:* (<ns>:meta:{*} with WithHashTag) on every primary: O(K), K the
// number of keys in the database, in pages. On a cluster it sees every quiz
// that exists for the whole call, whatever moves between primaries meanwhile,
// as Purge does.
func (s *Store) Quizzes(ctx context.Context) ([]string, error) {
	o := s.opts
	pattern := o.namespace + ":meta:*"
	if o.hashTag {
		pattern = o.namespace + ":meta:{*}"
	}
	seen := map[string]bool{}
	err := s.scanner().Scan(ctx, pattern, func(keys []string) error {
		for _, k := range keys {
			if id, ok := quizIDFromMeta(k, o.naming); ok {
				seen[id] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, replyError(err, "quiz list of namespace "+quote(o.namespace), "")
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// scanner pages through SCAN on every primary (internal/cluster), each
// command sent as every command of the library is.
func (s *Store) scanner() cluster.Scanner {
	return cluster.Scanner{Client: s.client, Count: s.tune.scanCount, Send: func(ctx context.Context, node rueidis.Client, cmd rueidis.Completed) rueidis.RedisResult {
		return s.sendOne(ctx, node, cmd)
	}}
}

// PurgeQuiz deletes one finished quiz's keys, and only after its grades are
// safe: it takes the recap (as Recap), calls archive with it, and only if
// archive returns nil deletes every key of the quiz (meta, board, answers,
// log, order, and the repair keys a stopped Repair may have left) in one
// atomic step that checks the status again: O(1) per key, big values freed in
// the background. It returns the number of keys deleted.
//
// Nothing is deleted, and archive is not called, when the ACL user may not
// delete the keys (ErrForbidden), the quiz is still berjalan (ErrQuizRunning),
// has no meta (ErrQuizNotFound; leftover keys remain for Purge) or breaks the
// contract (ErrCorrupt), or Recap gives up (ErrBusy). When archive fails its
// error is returned, wrapped, and every key stays. Errors before any I/O:
// ErrNoArchive (a nil archive) and ErrInvalidQuizID. With WithReplicas,
// ErrNotReplicated: the keys were deleted on the primary, after archive, but
// too few replicas acknowledged the delete in time. A PurgeQuiz sent again
// after ErrUnavailable or a deadline answers ErrQuizNotFound when the first
// deleted the quiz: the first call's archive holds it.
func (s *Store) PurgeQuiz(ctx context.Context, quizID string, archive func(context.Context, Recap) error) (int64, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return 0, err
	}
	if archive == nil {
		return 0, ErrNoArchive
	}
	recap, mark, err := q.recap(ctx, "purge")
	if err != nil {
		return 0, err
	}
	if recap.Info.Status != StatusFinished {
		return 0, fmt.Errorf("%w: %s: finish it before purging", ErrQuizRunning, q.about(""))
	}
	if err := archive(ctx, recap); err != nil {
		return 0, archiveFailed(q.about(""), err)
	}
	n, err := q.s.run(ctx, script.PurgeQuiz, q.keys.withRepair(), []string{mark}).AsInt64()
	if err != nil {
		return 0, q.fail(err, "", q.keys.meta)
	}
	return n, nil
}
