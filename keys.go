package kuis

import (
	"fmt"
	"strings"
	"time"
)

// Option configures a [Store] (given to [New]), or the key names that
// [ContractTable] and [ACLRules] print. Options live here, in one place.
type Option func(*options)

// options are the settings a Store resolves once and shares with every handle.
// The zero value is never used directly: resolve fills in the defaults.
type options struct {
	// namespace is the first segment of every key. Default "kuis", as in the contract.
	namespace string
	// hashTag wraps the quiz ID in {braces} so that all keys of one quiz share
	// one Redis Cluster slot. Default off: the contract's byte-exact key names.
	hashTag bool
	// cacheTTL > 0 serves plain reads from rueidis' client-side cache for at most
	// that long. Default 0: every read goes to the server.
	cacheTTL time.Duration
	// ties orders equal scores in every read. Default TiesByName: the contract's order.
	ties TieOrder
	// scanCount is the COUNT hint of every SCAN page: large enough to keep round
	// trips few, small enough that no UNLINK batch stalls the server. Tests vary it.
	scanCount int64
	// repairStep is the most participants Repair corrects in one atomic
	// script; more corrections than that rebuild the board instead. Tests
	// lower it.
	repairStep int
	// recapLimit is the most board members, answers and log entries, together,
	// that Recap reads in one script; a bigger quiz is read in parts. Tests
	// lower it.
	recapLimit int
	// scanHook, when set, is called after every SCAN page with the address of
	// the node scanned ("" on a standalone server). Tests use it to move
	// slots in the middle of a scan.
	scanHook func(addr string)
}

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

// WithClientCache serves the reads (Board.Standings, Page, Around, Standing,
// Len; Meta.Get and Meta.Status) from rueidis' server-assisted client-side
// cache (DoMultiCache) for at most ttl: a read whose entries are all cached
// sends nothing to the server. Redis invalidates cached entries when the keys
// change, but asynchronously: a read right after a write, even the caller's
// own, may be a few milliseconds old, and the entries one read combines may be
// of slightly different moments. Writes, the status gate inside them, Recap
// and Audit are never cached. A ttl <= 0 turns the cache off. On a server or
// client without tracking (miniredis, DisableCache) the reads simply go to the
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
	// time fall back to name order). It reads the quiz's order set instead of
	// its board, at the same cost. A quiz whose order set holds a different
	// number of members than its board (one written before the answer log
	// existed, or one whose board was changed behind the library's back) is
	// read in name order until Store.Repair completes its order set; an order
	// set tampered with but of the right size is read as it is (Audit reports
	// it, Repair mends it).
	TiesByTime
)

// WithTies sets how Board.Standings, Page, Around and Standing, and Recap,
// order equal scores (default TiesByName); CompetitionRank is the same either
// way. A value other than TiesByName and TiesByTime makes New return
// ErrInvalidOption.
func WithTies(order TieOrder) Option {
	return func(o *options) { o.ties = order }
}

// withScanCount sets the SCAN page size hint; tests use it (export_test.go)
// to prove Purge and Quizzes correct for any paging.
func withScanCount(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.scanCount = n
		}
	}
}

// withRepairStep sets repairStep; tests use it (export_test.go) to rebuild
// small boards.
func withRepairStep(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.repairStep = n
		}
	}
}

// withRecapLimit sets recapLimit; tests use it (export_test.go) to read small
// quizzes in parts.
func withRecapLimit(n int) Option {
	return func(o *options) {
		if n >= 0 {
			o.recapLimit = n
		}
	}
}

// withScanHook sets scanHook; tests use it (export_test.go).
func withScanHook(hook func(addr string)) Option {
	return func(o *options) { o.scanHook = hook }
}

// resolve applies opts over the defaults and validates the result.
func resolve(opts []Option) (options, error) {
	o := options{namespace: DefaultNamespace, scanCount: 1000, repairStep: 500, recapLimit: 20000}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.ties != TiesByName && o.ties != TiesByTime {
		return o, fmt.Errorf("%w: tie order %d", ErrInvalidOption, o.ties)
	}
	if !validID(o.namespace) {
		return o, fmt.Errorf("%w: %s (want 1 to %d bytes of ASCII letters, digits, '-', '_' or '.')",
			ErrInvalidNamespace, quote(o.namespace), maxIDLen)
	}
	return o, nil
}

// Keys are the validated key names of one quiz. The zero value holds no keys;
// get one from [Store.Keys].
type Keys struct {
	quizID  string
	board   string
	meta    string
	answers string
	log     string
	order   string
	// What Repair rebuilds a large board in, out of readers' sight.
	repairBoard string
	repairOrder string
}

// keysFor validates quizID: 1 to 64 bytes of ASCII letters, digits, '-', '_'
// or '.' (ErrInvalidQuizID otherwise), so that no key ever holds a glob,
// hash-tag or separator character the library did not put there.
func keysFor(quizID string, o options) (Keys, error) {
	if !validID(quizID) {
		return Keys{}, fmt.Errorf("%w: %s (want 1 to %d bytes of ASCII letters, digits, '-', '_' or '.')",
			ErrInvalidQuizID, quote(quizID), maxIDLen)
	}
	return keyNames(o, quizID), nil
}

// keyNames is the one place key names are spelled. Callers pass a validated
// quiz ID, or a placeholder for documentation (ContractTable).
func keyNames(o options, quizID string) Keys {
	id := quizID
	if o.hashTag {
		id = "{" + quizID + "}"
	}
	return Keys{
		quizID:  quizID,
		board:   o.namespace + ":papan:" + id,
		meta:    o.namespace + ":meta:" + id,
		answers: o.namespace + ":jawaban:" + id,
		log:     o.namespace + ":catatan:" + id,
		order:   o.namespace + ":urutan:" + id,

		repairBoard: o.namespace + ":papan-baru:" + id,
		repairOrder: o.namespace + ":urutan-baru:" + id,
	}
}

// QuizID is the quiz identity the keys were built from, without braces.
func (k Keys) QuizID() string { return k.quizID }

// Board is the sorted set of scores: "kuis:papan:kuis-01".
func (k Keys) Board() string { return k.board }

// Meta is the hash of the quiz's title, question count and status: "kuis:meta:kuis-01".
func (k Keys) Meta() string { return k.meta }

// Answers is the set of answered (question, participant) pairs that makes
// RecordAnswer exactly-once: "kuis:jawaban:kuis-01".
func (k Keys) Answers() string { return k.answers }

// Log is the stream of counted answers, one entry per answer in the order
// counted, its ID holding the server's time, then the finish entry:
// "kuis:catatan:kuis-01". It is the quiz's feed ([Board.Events]).
func (k Keys) Log() string { return k.log }

// Order is the sorted set that orders the board by points, then by the time
// of each participant's latest counted answer: "kuis:urutan:kuis-01".
func (k Keys) Order() string { return k.order }

// RepairBoard is where Store.Repair builds a new board when its corrections
// do not fit in one atomic step, before it replaces the board with it in one:
// "kuis:papan-baru:kuis-01". It exists only while such a Repair runs.
func (k Keys) RepairBoard() string { return k.repairBoard }

// RepairOrder is RepairBoard's order set, replacing Order in the same step:
// "kuis:urutan-baru:kuis-01".
func (k Keys) RepairOrder() string { return k.repairOrder }

// every lists the keys the scripts take (all) and then the repair keys:
// everything PurgeQuiz deletes.
func (k Keys) every() []string { return append(k.all(), k.repairBoard, k.repairOrder) }

// all lists every key of the quiz, in the order the scripts take them.
func (k Keys) all() []string { return []string{k.meta, k.board, k.answers, k.log, k.order} }

// quizIDFromMeta returns the quiz ID of a meta key in the form the options
// select, or false for a key of another namespace or form.
func quizIDFromMeta(key string, o options) (string, bool) {
	id, ok := strings.CutPrefix(key, o.namespace+":meta:")
	if !ok {
		return "", false
	}
	if o.hashTag {
		if len(id) < 2 || id[0] != '{' || id[len(id)-1] != '}' {
			return "", false
		}
		id = id[1 : len(id)-1]
	}
	return id, validID(id)
}
