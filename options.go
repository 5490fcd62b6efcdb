package kuis

import (
	"fmt"
	"time"
)

// Option configures a [Store] (given to [New]), or the key names that
// [ContractTable] and [ACLRules] print.
type Option func(*options)

// options are what a caller sets; New resolves them once and every handle of
// the Store shares them.
type options struct {
	naming                 // the key names' namespace and hash tag
	cacheTTL time.Duration // > 0: plain reads through rueidis' client-side cache; default 0, off
	ties     TieOrder      // order of equal scores; default TiesByName, the contract's

	withReplicas bool          // WithReplicas was given: replicas and replicaWait are checked
	replicas     int           // > 0: writes wait for this many replicas' acknowledgement; default 0, off
	replicaWait  time.Duration // how long a write waits for them

	silence time.Duration // how long a node may answer nothing to a waiting call; <= 0: no bound of the library's
}

// DefaultSilence is how long a node may answer nothing while a call waits
// for it, unless WithSilence says otherwise.
const DefaultSilence = 5 * time.Second

// DefaultNamespace is the contract's namespace: keys are kuis:papan:<quiz>, kuis:meta:<quiz>,
// kuis:jawaban:<quiz>, kuis:catatan:<quiz> and kuis:urutan:<quiz>.
const DefaultNamespace = "kuis"

// WithNamespace sets the first segment of every key (default "kuis"), so that
// several applications or test runs can share one server without touching each
// other's keys. It must be 1 to 64 bytes of ASCII letters, digits, '-', '_'
// or '.'; otherwise New and ContractTable return ErrInvalidNamespace and
// ACLRules returns nil.
func WithNamespace(ns string) Option {
	return func(o *options) { o.namespace = ns }
}

// WithHashTag puts the quiz ID in braces: <ns>:papan:{<quiz>}, <ns>:meta:{<quiz>},
// and so on for every key of the quiz. Redis Cluster then keeps all keys of a quiz in one
// slot, which the library's atomic scripts need. It is required on a cluster
// client (ErrNeedsHashTag otherwise) and changes the wire format, so use it from
// the first write of a deployment on.
func WithHashTag() Option {
	return func(o *options) { o.hashTag = true }
}

// WithClientCache serves the plain reads (Board.Standings, Page, Around,
// Standing, Len, Teams; Meta.Get and Meta.Status; Course.Standings, Page,
// Around, Standing, Len, Teams) from rueidis' server-assisted
// client-side cache for at most ttl: a read whose entries are all cached sends
// nothing to the server. Redis invalidates cached entries when the keys
// change, but asynchronously: a read right after a write, even the caller's
// own, may be a few milliseconds old, and the entries one read combines may
// be of slightly different moments. Writes, Recap, Audit and Repair never
// read from the cache. A ttl <= 0 turns the cache off. On a server or client
// without tracking (miniredis, DisableCache) the reads simply go to the
// server. A caller who wants a cached and an uncached view makes two Stores.
func WithClientCache(ttl time.Duration) Option {
	return func(o *options) { o.cacheTTL = ttl }
}

// TieOrder is how the reads order participants with equal scores.
type TieOrder int

// The tie orders. CompetitionRank is the same in both: equal scores share it.
const (
	// TiesByName is the contract's order, Redis's own: equal scores in reverse
	// byte order of names (Citra before Ali).
	TiesByName TieOrder = iota
	// TiesByTime puts first, among equal scores, the participant whose latest
	// counted answer came first, by the Redis server's clock (exact ties in
	// time fall back to name order), read from the quiz's order set. A quiz
	// whose order set does not hold as many members as its board (one written
	// before the answer log existed, or one whose board was changed behind the
	// library's back) is read in name order until Store.Repair completes its
	// order set; an order set tampered with but of the right size is read as
	// it is (Audit reports it, Repair mends it).
	TiesByTime
)

// WithTies sets how Board.Standings, Page, Around and Standing, and Recap,
// order equal scores (default TiesByName). A value other than TiesByName and
// TiesByTime makes New return ErrInvalidOption.
func WithTies(order TieOrder) Option {
	return func(o *options) { o.ties = order }
}

// WithReplicas makes every write of the Store (Meta.Create, Meta.Finish,
// Board.RecordAnswer, RecordAnswers and Join, Store.Repair, Store.PurgeQuiz,
// Course.Fold, Unfold, Repair and Purge) return only once n replicas
// acknowledge it (Redis WAIT on the connection that wrote), or
// ErrNotReplicated after timeout: the write was applied on the primary and
// may not survive a failover; a retry is safe (an answer answers Duplicate).
// Reads never wait.
//
// One WAIT follows each round trip of script runs (and a course's
// transaction, on its own dedicated connection), not each answer: the
// answers that share a RecordAnswer run, and the runs that one RecordAnswers
// call pipelines, share it, so a busy quiz pays one wait per run. A round
// trip whose runs all failed (an error reply for the whole script, such as
// ErrQuizExists, or never sent), or wrote nothing (answers all refused),
// sends no WAIT and returns what the runs answered: a call that wrote
// nothing never returns ErrNotReplicated. An answer refused inside a run
// that wrote keeps its refusal, after the run's WAIT.
//
// A Duplicate wrote nothing, yet its nil error means the answer is on n
// replicas, as a new answer's does. WAIT covers only writes of its own
// connection (it waits for replicas to acknowledge the replication offset
// after that connection's last write on Redis 7.2 and later; after its last
// command on 7.0), and the earlier call that counted the answer may have
// written on another connection, or client, whose WAIT timed out. So a run
// that answers a Duplicate and writes nothing else writes a no-op: XSETID of
// the quiz's log to the log's own last ID (read with XINFO STREAM in the same
// atomic run), which changes nothing and reaches the replicas as any write
// does, after the earlier write; the run's WAIT follows it. Where the no-op
// fails (the ACL user lacks XSETID or XINFO STREAM: ACLRules grants them to
// RoleApp with this option only; a server out of memory; a log deleted
// behind the library's back), the Duplicate returns ErrNotReplicated beside
// its Answer, and its run sends no WAIT.
//
// WAIT counts the acknowledgements of the writes sent before it on its own
// connection, so it must follow them there. rueidis shares connections among
// goroutines (auto-pipelining) and sends blocking commands, WAIT among them,
// on connections of a pool apart; its cluster client sends a command again on
// another node after a MOVED or ASK while a keyless WAIT beside it stays on
// the first. A plain DoMulti of the runs and WAIT is therefore not provably on
// one connection. The library sends them inside the client's Dedicated: one
// connection, held by the call alone until WAIT replies (on a Redis Cluster,
// a connection to the primary serving the runs' slot), so WAIT follows exactly
// the runs it covers, on a standalone server and on every primary of a
// cluster. A dedicated connection does not follow redirects: the library
// sends a run answered MOVED again on the node named, and one answered ASK,
// CLUSTERDOWN or a failed dial again after a pause, for at most about a
// second while ctx lives. Each write thus holds a connection of the blocking
// pool (rueidis.ClientOption.BlockingPoolSize) for one round trip more than
// without the option (BENCHMARKS.md has the cost). ctx bounds every step, the
// wait for that connection included: a call whose ctx ends before rueidis
// hands it over sends nothing and returns ctx's error.
//
// What it promises: an acknowledged write is on n replicas, so it survives a
// failover to any of them. Redis may still promote a replica that had not
// acknowledged it (one that was behind, or cut off, when the primary died),
// and then the write is lost; neither WAIT nor appendfsync can prevent that.
// With appendfsync always on every node, a write also survives a restart of
// the node that holds it.
//
// With it, New does I/O: it sends ROLE to every node of the client and refuses
// n larger than the replicas the primary with the fewest reports
// (ErrInvalidOption, saying how many it found), so that a Store never waits
// for replicas that are not there. n < 1 or timeout <= 0 is ErrInvalidOption.
// timeout is rounded up to whole milliseconds. The ACL users need WAIT, which
// ACLRules grants every role, and ROLE, which ACLRules grants when given
// WithReplicas too.
func WithReplicas(n int, timeout time.Duration) Option {
	return func(o *options) { o.withReplicas, o.replicas, o.replicaWait = true, n, timeout }
}

// WithSilence bounds how long a node may stay silent while a call waits for
// it (DefaultSilence unless given): a call on a server that stops answering
// (stopped, hung, cut off without a reset) returns ErrUnavailable, naming
// the node's slot on a cluster, within d of its last sign of life, whether
// or not the caller's ctx has a deadline. A call that has waited d/2 makes
// kuis send PING to the node on a connection of its own, again d/2 after
// each answer; any answer within d/2 (BUSY and LOADING too) shows the node
// alive. The bound is on silence, not on a call's length: a batch the
// server works through, a Lua script Redis answers BUSY about, WAIT for
// WithReplicas' timeout and the blocking read of Board.Events (which waits
// that long by design, before the bound starts) never fail for their
// length; the caller's ctx bounds those. A dedicated connection (a
// snapshot's WATCH, WithReplicas' runs) must be handed over within d. d <= 0
// leaves waiting calls to the caller's ctx and the client's own timeouts:
// rueidis ends a round trip at its ClientOption.ConnWriteTimeout (10 s by
// default) when the ctx has a deadline or is never cancelled, exempts
// blocking commands, and reports either as a context deadline.
func WithSilence(d time.Duration) Option {
	return func(o *options) { o.silence = d }
}

// resolve applies opts over the defaults and validates the result.
func resolve(opts []Option) (options, error) {
	o := options{naming: naming{namespace: DefaultNamespace}, silence: DefaultSilence}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.ties != TiesByName && o.ties != TiesByTime {
		return o, fmt.Errorf("%w: tie order %d", ErrInvalidOption, o.ties)
	}
	if o.withReplicas && (o.replicas < 1 || o.replicaWait <= 0) {
		return o, fmt.Errorf("%w: WithReplicas(%d, %v): want at least 1 replica and a timeout above 0", ErrInvalidOption, o.replicas, o.replicaWait)
	}
	return o, checkID(ErrInvalidNamespace, "", o.namespace)
}

// CreateOption sets what [Meta.Create] writes beside the title and the
// question count. Get one from [InCourse] or [ForClass].
type CreateOption interface{ apply(*createOptions) }

// createOptions are what Create writes besides judul, jumlah_soal and
// status; the zero value writes nothing more.
type createOptions struct {
	inCourse bool   // InCourse was given: course is checked and written
	course   string // the course the quiz folds into
	inClass  bool   // ForClass was given: class is checked and written
	class    string // the class whose roster grades the quiz
}

type createOption func(*createOptions)

func (f createOption) apply(o *createOptions) { f(o) }

// InCourse names the course the quiz folds into: Create stores courseID in
// the meta field kursus with the rest of the meta, in the same atomic step,
// and [Info.Course] reads it back. It is written at Create only and never
// changes: the quiz's recap carries it, so that [Course.Archive] folds the
// quiz into no other course (and kuis purge folds it into this one).
// courseID follows the quiz ID rule, as [Store.Course] takes it: Create
// returns ErrInvalidCourseID otherwise, "" included, before any I/O. Given
// more than once, the last one counts. Without InCourse the quiz names no
// course.
func InCourse(courseID string) CreateOption {
	return createOption(func(o *createOptions) { o.inCourse, o.course = true, courseID })
}

// ForClass names the class whose roster grades the quiz: Create stores
// classID in the meta field kelas with the rest of the meta, in the same
// atomic step, and [Info.Class] reads it back. It is written at Create
// only and never changes. It only names the class: nothing on the answer
// path reads the roster (a participant need not be enrolled), and grades
// join the quiz's board with the roster ([Class.Students]). classID follows
// the quiz ID rule, as [Store.Class] takes it: Create returns
// ErrInvalidClassID otherwise, "" included, before any I/O. Given more than
// once, the last one counts. Without ForClass the quiz names no class.
func ForClass(classID string) CreateOption {
	return createOption(func(o *createOptions) { o.inClass, o.class = true, classID })
}
