package kuis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kuisboard/kuis/internal/batch"
	"github.com/redis/rueidis"
)

// Store is the entry value of the library: one rueidis client and the options,
// validated once by [New]. It hands out the handles of one quiz ([Store.Board]
// for the quiz application, [Store.Meta] for the teacher) and runs the
// operations on a whole quiz or namespace (Recap, Audit, Repair, PurgeQuiz,
// Purge, Quizzes). A *Store is cheap, safe for concurrent use, and holds no
// connections of its own: the caller owns the client and closes it. It keeps
// the queue of RecordAnswer calls waiting to share a script run and the
// readers that its Board.Events iterators share, and runs a goroutine only
// while a call waits or an iterator runs.
type Store struct {
	sender
	tune   tuning
	rec    *recorder // RecordAnswer's lanes
	feeds  *feedHubs // Board.Events' shared readers, one per quiz followed
	counts counters  // what Stats reads
}

// tuning holds the library's internal bounds. Only tests change them, through
// newStore; New always uses defaultTuning.
type tuning struct {
	scanCount    int64         // COUNT of every SCAN page of Purge and Quizzes
	pageSize     int64         // COUNT of every SSCAN, ZSCAN and XRANGE page of a paged read
	repairStep   int           // most participants Repair corrects in one script; more are rebuilt
	recapLimit   int           // most members, answers and entries together that Recap reads in one script
	feedBlock    time.Duration // how long one XREAD of the feed blocks before it checks the status
	feedGap      time.Duration // least time between two XREADs of one feed hub
	memberBuffer int           // batches a feed reader may fall behind before it catches up alone
	foldStep     int           // most (quiz, participant) pairs one course script folds or unfolds
}

var defaultTuning = tuning{
	scanCount:    1000,
	pageSize:     1000,
	repairStep:   500,
	recapLimit:   10000,
	feedBlock:    5 * time.Second,
	feedGap:      5 * time.Millisecond,
	memberBuffer: 64,
	foldStep:     250,
}

// New validates the client and the options and returns a Store. Its one
// I/O is a question to the server of a client that is not a cluster client
// (CLUSTER INFO, bounded by half a second; a server that does not answer in
// time passes, and is refused at its first MOVED reply instead): is it a
// Redis Cluster node? With WithReplicas it also sends ROLE to every node of
// the client, for up to 10 s in all, and refuses more replicas than a
// primary has. Errors: ErrNoClient for a nil client, ErrInvalidNamespace,
// ErrInvalidOption, ErrNeedsHashTag for a Redis Cluster client without
// WithHashTag (the library's scripts take several keys of a quiz, which must
// share a slot), and ErrNeedsClusterClient for a cluster node reached through
// a client that is not a cluster client (rueidis's ForceSingleClient), whose
// writes would all fail; with WithReplicas also ErrForbidden (the ACL user
// may not send ROLE) and ErrUnavailable (no primary answered).
//
// The library never wraps the client. rueidis shares the dial and handshake
// of a new connection among the callers waiting for it, under the first
// caller's context: when that context ends first, the others fail with its
// error although nothing of theirs was sent. The library sends such commands
// again while the caller's own context lives, and never sends again a command
// that may have reached the server. On rueidis itself, ClientOption.Dialer.Timeout
// bounds a dial and handshake that no caller's deadline bounds, and leaving
// DisableRetry unset lets rueidis retry the reads on a broken connection.
func New(client rueidis.Client, opts ...Option) (*Store, error) {
	return newStore(client, defaultTuning, opts...)
}

func newStore(client rueidis.Client, tune tuning, opts ...Option) (*Store, error) {
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
	if client.Mode() != rueidis.ClientModeCluster && clusterNode(client) {
		return nil, fmt.Errorf("%w: the server is a Redis Cluster node; leave rueidis.ClientOption.ForceSingleClient unset "+
			"so that rueidis makes a cluster client, and give New WithHashTag", ErrNeedsClusterClient)
	}
	if o.replicas > 0 {
		if err := (&sender{client, o}).checkReplicas(); err != nil {
			return nil, err
		}
	}
	s := &Store{sender: sender{client, o}, tune: tune, feeds: newFeedHubs()}
	s.rec = batch.New[uint16](maxChunk, maxInFlight, s.runRecord)
	return s, nil
}

// probeTimeout bounds New's one question to the server.
const probeTimeout = 500 * time.Millisecond

// clusterNode reports whether the server of a client that is not a cluster
// client says it is a Redis Cluster node (CLUSTER INFO answers its state;
// a server without cluster support refuses it). A server that does not
// answer, or a user the ACL refuses it to, counts as none: New cannot tell.
func clusterNode(client rueidis.Client) bool {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	info, err := client.Do(ctx, client.B().ClusterInfo().Build()).ToString()
	return err == nil && strings.Contains(info, "cluster_state:")
}

// Keys returns the key names of quiz quizID. It does no I/O. A quiz ID must be
// 1 to 64 bytes of ASCII letters, digits, '-', '_' or '.' (ErrInvalidQuizID
// otherwise), so that no key holds a glob, hash-tag or separator character the
// library did not put there.
func (s *Store) Keys(quizID string) (Keys, error) {
	return keysFor(quizID, s.opts.naming)
}

// replicaCheck bounds New's check of the replicas.
const replicaCheck = 10 * time.Second

// checkReplicas asks every node of the client for its role (ROLE) and refuses
// want above the replicas of the primary with the fewest: ErrInvalidOption.
// A node that cannot be reached is left out (a replica that is down, or a
// primary whose writes fail anyway until a failover), but at least one
// primary must answer; an error reply (an ACL refusal) fails the check.
func (s *sender) checkReplicas() error {
	client, want := s.client, s.opts.replicas
	ctx, cancel := context.WithTimeout(context.Background(), replicaCheck)
	defer cancel()
	nodes := client.Nodes()
	fewest, at := -1, ""
	var unreached error
	for _, addr := range slices.Sorted(maps.Keys(nodes)) {
		node := nodes[addr]
		role, err := s.sendOne(ctx, node, node.B().Role().Build()).ToArray()
		if _, server := rueidis.IsRedisErr(err); err != nil && !server && client.Mode() == rueidis.ClientModeCluster {
			unreached = errors.Join(unreached, replyError(err, "ROLE on "+addr, ""))
			continue
		}
		if err != nil {
			return replyError(err, "ROLE on "+addr, "")
		}
		if len(role) < 3 {
			continue // not a primary's reply: a replica's has 5 elements, a sentinel's 2
		}
		if kind, _ := role[0].ToString(); kind != "master" {
			continue
		}
		replicas, err := role[2].ToArray()
		if err != nil {
			return replyError(err, "ROLE on "+addr, "")
		}
		if fewest < 0 || len(replicas) < fewest {
			fewest, at = len(replicas), addr
		}
	}
	switch {
	case fewest < 0 && unreached != nil:
		return unreached
	case fewest < 0:
		return fmt.Errorf("%w: WithReplicas(%d): no node of the client is a primary", ErrInvalidOption, want)
	case want > fewest:
		return fmt.Errorf("%w: WithReplicas(%d): primary %s has %d replica(s)", ErrInvalidOption, want, at, fewest)
	}
	return nil
}
