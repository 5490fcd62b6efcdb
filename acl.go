package kuis

import "strconv"

// Role is a kind of Redis ACL user the contract knows: the quiz application,
// which writes scores, and the teacher, who writes meta.
type Role int

// The roles of the contract's key table.
const (
	RoleApp     Role = iota + 1 // records answers; reads board and meta
	RoleTeacher                 // creates and finishes quizzes, reads everything, recaps and purges
)

// String returns "app" or "teacher".
func (r Role) String() string {
	switch r {
	case RoleApp:
		return "app"
	case RoleTeacher:
		return "teacher"
	default:
		return "Role(" + strconv.Itoa(int(r)) + ")"
	}
}

// clientBase is what rueidis itself sends on every connection: the RESP3
// handshake and cluster discovery.
var clientBase = []string{"-@all", "+hello", "+ping", "+client|setname", "+cluster|slots", "+cluster|shards"}

// clientCache is what rueidis sends for client-side caching: CLIENT TRACKING
// at connect, then CLIENT CACHING, MULTI, PTTL and the read, EXEC for each
// cached read. Only WithClientCache grants it: CLIENT TRACKING also lets the
// user ask for BCAST invalidations of every key of the server.
var clientCache = []string{"+client|tracking", "+client|caching", "+multi", "+exec", "+pttl"}

// ACLRules returns the rules that make a Redis 7 ACL user of the role, to put
// after `ACL SETUSER <name> reset on >password`, one argument each. They follow
// WithNamespace; WithHashTag needs nothing more. With WithClientCache they
// also allow client-side caching (CLIENT TRACKING, CLIENT CACHING, MULTI,
// EXEC, PTTL); without it they do not, so build the user's client with
// rueidis.ClientOption.DisableCache: otherwise rueidis sends CLIENT TRACKING
// as it connects and the server refuses the connection. Grant the cache only
// where it is used: a user allowed CLIENT TRACKING can turn on BCAST
// tracking without a prefix, and a server without redis/redis#15371 (merged
// in 2026; Redis 7.0.15 still leaks) then sends it an invalidation naming
// every key that changes, other applications' included.
//
// RoleApp may record answers (RecordAnswer, RecordAnswers) and run every Board
// and Meta read (Events and Live included), and Recap; Meta.Create, Meta.Finish, Purge, PurgeQuiz and any key outside
// the namespace are refused (ErrForbidden). RoleTeacher may create and finish
// quizzes (Finish appends to the answer log, so the teacher may write the log,
// never the board), read everything, Audit, Recap, Repair, Purge and PurgeQuiz, and
// never record an answer: the record scripts answer ErrForbidden. Repair
// needs ZADD and ZREM on the board and order set, so a teacher user can also
// send those directly; RoleApp is refused Repair. Scripts run with the caller's rights, so each
// role also holds, at top level, the commands its scripts call: an app user can
// send ZADD on the board directly, with any score; the ACL cannot forbid
// that without forbidding the script too.
//
// ACLRules returns nil for an unknown role or an invalid namespace.
func ACLRules(role Role, opts ...Option) []string {
	o, err := resolve(opts)
	if err != nil {
		return nil
	}
	ns := o.namespace
	board, meta, answers := "~"+ns+":papan:*", "~"+ns+":meta:*", "~"+ns+":jawaban:*"
	log, order := "~"+ns+":catatan:*", "~"+ns+":urutan:*"
	base := clientBase
	if o.cacheTTL > 0 {
		base = append(append([]string{}, clientBase...), clientCache...)
	}
	var rules []string
	switch role {
	case RoleApp:
		rules = []string{"resetkeys", "resetchannels", board, answers, log, order, "%R" + meta}
		rules = append(rules, base...)
		rules = append(rules,
			// Board and meta reads, the Standing and Recap scripts included.
			"+hlen", "+zrange", "+zrevrank", "+zscore", "+zcount", "+zcard", "+hgetall",
			"+smembers", "+xrange",
			// Recap of a big quiz, in pages inside WATCH.
			"+scard", "+watch", "+unwatch", "+zscan", "+sscan",
			// The feed: Board.Events and Board.Live.
			"+xread", "+xrevrange",
			// What the record script calls.
			"+hmget", "+exists", "+zmscore", "+sismember", "+smismember", "+sadd", "+xadd", "+xlen", "+zadd",
			// EVAL declares every key read-write; this selector lets the
			// scripts name meta, while the commands inside stay checked above.
			"("+board+" "+answers+" "+log+" "+order+" "+meta+" +evalsha +eval +evalsha_ro +eval_ro)")
	case RoleTeacher:
		rules = []string{"resetkeys", "resetchannels", meta, log, "%R" + board, "%R" + answers, "%R" + order}
		rules = append(rules, base...)
		rules = append(rules,
			// Reads of meta, board and answers, Audit included.
			"+hlen", "+hmget", "+hgetall", "+exists", "+type",
			"+zrange", "+zrevrank", "+zscore", "+zcount", "+zcard", "+smembers", "+sismember",
			"+xrange", "+xrevrange", "+xlen", "+scard", "+sscan", "+zscan", "+watch", "+unwatch",
			// The feed: Board.Events and Board.Live.
			"+xread",
			// What the create and finish scripts write: meta, and the
			// log's finish entry.
			"+hset", "+xadd",
			// Purge and Quizzes: SCAN on every primary (CLUSTER SHARDS, in
			// clientBase, finds them; each one's CLUSTER NODES tells whether
			// a slot moved or migrates meanwhile).
			"+scan", "+cluster|nodes",
			// Scripts, the deletes of Purge and PurgeQuiz, and Repair's
			// corrections and rebuilds (the repair keys, then RENAME onto
			// board and order set), on the whole namespace.
			"(~"+ns+":* +evalsha +eval +evalsha_ro +eval_ro +unlink +zadd +zrem +zscore +exists +rename)")
	default:
		return nil
	}
	return rules
}
