package kuis

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

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
// On a cluster the primaries are found with CLUSTER NODES (replicas are never
// needed, so a dead one fails nothing), and a key that moves between them
// during the call is not missed: when a slot moved or a migration opened or
// closed while the primaries were scanned, the scan starts again after a
// short pause, until one whole scan saw the layout hold still (a migration
// open throughout is fine). A long resharding therefore delays the call
// (11 s during a 5,000-slot `redis-cli --cluster reshard`); ctx bounds it.
func (s *Store) Purge(ctx context.Context) (int64, error) {
	client, o := s.client, s.opts
	var deleted int64
	err := s.scanKeys(ctx, o.namespace+":*", func(keys []string) error {
		cmds := make(rueidis.Commands, len(keys))
		for i, k := range keys {
			cmds[i] = client.B().Unlink().Key(k).Build()
		}
		for _, res := range send(ctx, client, cmds...) {
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
	err := s.scanKeys(ctx, pattern, func(keys []string) error {
		for _, k := range keys {
			if id, ok := quizIDFromMeta(k, o); ok {
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
// ErrNoArchive (a nil archive) and ErrInvalidQuizID.
func (s *Store) PurgeQuiz(ctx context.Context, quizID string, archive func(context.Context, Recap) error) (int64, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return 0, err
	}
	if archive == nil {
		return 0, ErrNoArchive
	}
	recap, err := q.recap(ctx, "purge")
	if err != nil {
		return 0, err
	}
	if recap.Info.Status != StatusFinished {
		return 0, fmt.Errorf("%w: %s: finish it before purging", ErrQuizRunning, q.about(""))
	}
	if err := archive(ctx, recap); err != nil {
		return 0, fmt.Errorf("kuis: %s: archive failed, nothing deleted: %w", q.about(""), err)
	}
	n, err := run(ctx, q.client, script.PurgeQuiz, q.keys.every(), nil).AsInt64()
	if err != nil {
		return 0, q.fail(err, "", q.keys.meta)
	}
	return n, nil
}

// scanKeys calls page with every page of SCAN ... MATCH pattern, on the one
// server of a standalone client or on each primary of a cluster (replicas hold
// copies of the same keys and are never asked; SCAN itself may still repeat a
// key). On a cluster it reads the layout before and after scanning every
// primary (clusterLayout) and scans everything again, after a pause, until
// the two readings agree: a key that moved to another primary while the
// primaries were scanned one after the other would otherwise be missed, and
// a migration that stays open throughout is safe because its source is
// scanned before its target. Each page is then seen in every attempt; page
// must tolerate that. Only ctx ends a resharding that never settles.
func (s *Store) scanKeys(ctx context.Context, pattern string, page func([]string) error) error {
	client := s.client
	if client.Mode() != rueidis.ClientModeCluster {
		return s.scanNode(ctx, client, "", pattern, page)
	}
	pause := 10 * time.Millisecond
	for {
		before, err := clusterLayout(ctx, client)
		if err == nil {
			for _, sh := range before.shards {
				if err := s.scanNode(ctx, sh.client, sh.addr, pattern, page); err != nil {
					return err
				}
			}
			var after layout
			after, err = clusterLayout(ctx, client)
			if err == nil && after.fingerprint == before.fingerprint {
				return nil
			}
		}
		if err != nil && !errors.Is(err, errUnsettled) {
			return err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("cluster layout kept changing during the scan: %w", ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, 500*time.Millisecond)
	}
}

// scanNode pages through one node's SCAN, cursor to 0.
func (s *Store) scanNode(ctx context.Context, node rueidis.Client, addr string, pattern string, page func([]string) error) error {
	var cursor uint64
	for {
		entry, err := sendOne(ctx, node, node.B().Scan().Cursor(cursor).Match(pattern).Count(s.tune.scanCount).Build()).AsScanEntry()
		if err != nil {
			if addr != "" {
				return fmt.Errorf("SCAN on %s: %w", addr, err)
			}
			return err
		}
		if len(entry.Elements) > 0 {
			if err := page(entry.Elements); err != nil {
				return err
			}
		}
		if s.tune.scanHook != nil {
			s.tune.scanHook(addr)
		}
		if cursor = entry.Cursor; cursor == 0 {
			return nil
		}
	}
}
