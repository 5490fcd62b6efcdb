package kuis

import (
	"slices"
	"strconv"
	"strings"
)

// Role is a kind of Redis ACL user the contract knows.
type Role int

// The roles of the contract's key table.
const (
	// RoleApp is the quiz application: it records answers (writing board,
	// answers set, log and order set), reads meta, course boards and class
	// rosters, follows the feed and recaps; it never writes meta.
	RoleApp Role = iota + 1
	// RoleTeacher creates and finishes quizzes (writing meta and the log),
	// keeps class rosters (enrolls and withdraws students), reads
	// everything, recaps and audits; it never touches scores, the answers
	// set or the order set.
	RoleTeacher
	// RoleOperator repairs boards, purges and lists quizzes, erases
	// participants, reads everything, recaps and audits: the only role with
	// deletes, renames and SCAN. It writes the board, the order set, the
	// repair keys and course keys, and deletes any key of the namespace; of
	// the answers set, the log and class rosters it may only remove members,
	// entries and fields (SREM, XDEL, HDEL: Erase), never add or change one,
	// and it never writes meta. Those removals let it uncount an answer
	// consistently (the pair, the entry, and the board and order set set
	// back), which Audit cannot tell from an answer never given, and
	// withdraw a student from a roster.
	RoleOperator
)

// String returns "app", "teacher" or "operator".
func (r Role) String() string {
	switch r {
	case RoleApp:
		return "app"
	case RoleTeacher:
		return "teacher"
	case RoleOperator:
		return "operator"
	default:
		return "Role(" + strconv.Itoa(int(r)) + ")"
	}
}

// clientBase is what rueidis itself sends on every connection (the RESP3
// handshake and cluster discovery), and New's question (CLUSTER INFO).
var clientBase = []string{"-@all", "+hello", "+ping", "+client|setname", "+cluster|slots", "+cluster|shards", "+cluster|info"}

// clientCache is what rueidis adds for client-side caching: CLIENT TRACKING
// at connect, then CLIENT CACHING, MULTI, PTTL, the read and EXEC for each
// cached read. Only WithClientCache grants it: CLIENT TRACKING also lets the
// user ask for BCAST invalidations of every key of the server.
var clientCache = []string{"+client|tracking", "+client|caching", "+multi", "+exec", "+pttl"}

// replicasOnly are the commands a script calls only with WithReplicas (the
// record script's no-op after a repeat), each with its rule.
var replicasOnly = map[string]string{"XINFO": "+xinfo|stream", "XSETID": "+xsetid"}

// ACLRules returns the rules that make a Redis 7 ACL user of the role, to put
// after `ACL SETUSER <name> reset on >password`, one argument each. They follow
// WithNamespace; WithHashTag needs nothing more. Each role is granted exactly
// the commands of the operations it may run (the package doc's operations
// table), writes only the keys those operations write, reads only those they
// read, and nothing outside the namespace: any other call of the library
// answers ErrForbidden and writes nothing, and Repair and PurgeQuiz refuse
// before they read (PurgeQuiz never calls archive then). With WithClientCache
// the rules also allow client-side caching (CLIENT TRACKING, CLIENT CACHING,
// MULTI, EXEC, PTTL); without it they do not, so build the user's client with
// rueidis.ClientOption.DisableCache: otherwise rueidis sends CLIENT TRACKING
// as it connects and the server refuses the connection. Grant the cache only
// where it is used: a user allowed CLIENT TRACKING can turn on BCAST tracking
// without a prefix, and a server without redis/redis#15371 (Redis 7.0.15
// still leaks) then sends it an invalidation naming every key that changes,
// other applications' included. Every role may send WAIT, which its writes
// send with WithReplicas; with WithReplicas the rules also allow ROLE, which
// New then sends to count the replicas, and RoleApp's also XSETID and XINFO
// STREAM (on the logs it writes), which a repeated answer's run sends then
// (WithReplicas' godoc).
//
// Scripts run with the caller's rights, so a role also holds, at top level,
// every command its scripts call, on the keys it writes: the app can send
// ZADD to its board directly, and the teacher can append entries to the log.
// The operator deletes whole quizzes (PurgeQuiz) and every key of the
// namespace (Purge), which no rule can limit to finished quizzes. The
// README's "What ACL cannot close" lists these writes and what Audit reports
// of each. EVAL and EVALSHA take every key a script declares as read and
// written; a selector lets a role declare any key of the namespace, and each
// command the script runs is checked against the rules, as at top level.
//
// ACL users belong to each server: ACL SETUSER changes the node it is sent
// to, and neither replication nor the cluster bus carries it. Create the users
// on a standalone server, or on every node of a cluster, replicas included
// (a replica serves reads and becomes a primary at a failover), and on every
// node that joins later. A client connects although a node lacks the user:
// only the quizzes whose hash slots that node holds fail (WRONGPASS), and
// only once the client first reaches that node, which may be long after
// start-up. To keep the users over a restart, ask each node CONFIG GET
// aclfile: when it names a file, ACL SAVE writes the users there; when it is
// empty, the users live in redis.conf, as `user <name> reset on >password
// <rules>` lines (a selector's parenthesised group written as it is), which
// CONFIG REWRITE writes there, together with every other setting changed at
// runtime. The deploy example prints a script that does all of it.
//
// ACLRules returns nil for an unknown role or an invalid namespace.
func ACLRules(role Role, opts ...Option) []string {
	o, err := resolve(opts)
	if err != nil {
		return nil
	}
	plain := naming{namespace: o.namespace}
	k, c := keyNames(plain, "*"), courseKeyNames(plain, "*") // "*" matches a braced ID too
	roster := classKeyNames(plain, "*").all()
	// The keys the role's operations write, and those they only read.
	var writes, reads []string
	switch role {
	case RoleApp:
		writes = []string{k.board, k.answers, k.log, k.order}
		reads = append([]string{k.meta, c.board, c.quizzes, c.ledgers + "*"}, roster...)
	case RoleTeacher:
		writes = append([]string{k.meta, k.log}, roster...)
		reads = []string{k.board, k.answers, k.order, k.repairBoard, k.repairOrder, c.board, c.quizzes, c.ledgers + "*"}
	case RoleOperator:
		writes = []string{k.board, k.order, k.repairBoard, k.repairOrder, c.board, c.quizzes, c.ledgers + "*"}
		reads = append([]string{k.meta, k.answers, k.log}, roster...)
	default:
		return nil
	}
	rules := []string{"resetkeys", "resetchannels"}
	for _, key := range writes {
		rules = append(rules, "~"+key)
	}
	for _, key := range reads {
		rules = append(rules, "%R~"+key)
	}
	rules = append(rules, clientBase...)
	if o.cacheTTL > 0 {
		rules = append(rules, clientCache...)
	}
	if o.replicas > 0 {
		rules = append(rules, "+role") // New's check of the replicas
	}
	var cmds []string
	for _, op := range operations {
		if slices.Contains(op.roles, role) {
			cmds = append(cmds, op.sends()...)
		}
	}
	slices.Sort(cmds)
	for _, cmd := range slices.Compact(cmds) {
		r, only := replicasOnly[cmd]
		switch {
		case only && o.replicas == 0:
			continue
		case !only:
			r = "+" + strings.ToLower(cmd)
		}
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	namespace := o.namespace + ":*"
	// EVAL and EVALSHA may declare any key of the namespace: the server
	// checks each command a script runs against the rules above.
	rules = append(rules, "(~"+namespace+" +evalsha +eval)")
	if role == RoleOperator {
		// Purge and PurgeQuiz delete whole quizzes, and Purge every key of
		// the namespace: deleting is all this selector allows.
		rules = append(rules, "(%W~"+namespace+" +unlink)")
		// Erase removes a participant's members, entries and fields from
		// the keys the operator otherwise only reads: those removals are
		// all this selector allows.
		erased := "("
		for _, key := range append([]string{k.answers, k.log}, roster...) {
			erased += "~" + key + " "
		}
		rules = append(rules, erased+"+srem +xdel +hdel)")
	}
	return rules
}
