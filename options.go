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
	namespace string        // first segment of every key; default DefaultNamespace
	hashTag   bool          // brace the quiz ID; default off: the contract's byte-exact names
	cacheTTL  time.Duration // > 0: plain reads through rueidis' client-side cache; default 0, off
	ties      TieOrder      // order of equal scores; default TiesByName, the contract's
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

// resolve applies opts over the defaults and validates the result.
func resolve(opts []Option) (options, error) {
	o := options{namespace: DefaultNamespace}
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
