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
	// RoleApp is the quiz application: it records answers, reads board and
	// meta, follows the feed and recaps; it never writes meta.
	RoleApp Role = iota + 1
	// RoleTeacher creates and finishes quizzes (the finish appends the log's
	// finish entry), reads everything, recaps and audits; it never touches
	// scores, the answers set or the order set.
	RoleTeacher
	// RoleOperator repairs boards, purges and lists quizzes, reads
	// everything, recaps and audits: the only role with deletes, renames and
	// SCAN. It never writes meta or the log.
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

// clientBase is what rueidis itself sends on every connection: the RESP3
// handshake and cluster discovery.
var clientBase = []string{"-@all", "+hello", "+ping", "+client|setname", "+cluster|slots", "+cluster|shards"}

// clientCache is what rueidis adds for client-side caching: CLIENT TRACKING
// at connect, then CLIENT CACHING, MULTI, PTTL, the read and EXEC for each
// cached read. Only WithClientCache grants it: CLIENT TRACKING also lets the
// user ask for BCAST invalidations of every key of the server.
var clientCache = []string{"+client|tracking", "+client|caching", "+multi", "+exec", "+pttl"}

// ACLRules returns the rules that make a Redis 7 ACL user of the role, to put
// after `ACL SETUSER <name> reset on >password`, one argument each. They follow
// WithNamespace; WithHashTag needs nothing more. Each role is granted exactly
// the commands of the operations it may run (the package doc's operations
// table): any other call of the library answers ErrForbidden and writes
// nothing, and Repair and PurgeQuiz refuse before they read (PurgeQuiz never
// calls archive then). With WithClientCache the rules also allow client-side
// caching (CLIENT TRACKING, CLIENT CACHING, MULTI, EXEC, PTTL); without it
// they do not, so build the user's client with rueidis.ClientOption.DisableCache:
// otherwise rueidis sends CLIENT TRACKING as it connects and the server
// refuses the connection. Grant the cache only where it is used: a user
// allowed CLIENT TRACKING can turn on BCAST tracking without a prefix, and a
// server without redis/redis#15371 (Redis 7.0.15 still leaks) then sends it
// an invalidation naming every key that changes, other applications' included.
//
// Scripts run with the caller's rights, so a role also holds, at top level,
// every command its scripts call: the app can send ZADD to its board
// directly, and the teacher can append entries to the log. EVAL declares
// every key of a script read-write; a selector lets the app and the teacher
// name the quiz's keys in their scripts while the commands inside stay
// checked against the role's own key rules.
//
// ACLRules returns nil for an unknown role or an invalid namespace.
func ACLRules(role Role, opts ...Option) []string {
	o, err := resolve(opts)
	if err != nil {
		return nil
	}
	k := keyNames(options{namespace: o.namespace}, "*") // "*" matches a braced quiz ID too
	quiz := "~" + k.meta + " ~" + k.board + " ~" + k.answers + " ~" + k.log + " ~" + k.order
	var rules []string
	switch role {
	case RoleApp:
		rules = []string{"~" + k.board, "~" + k.answers, "~" + k.log, "~" + k.order, "%R~" + k.meta}
	case RoleTeacher:
		rules = []string{"~" + k.meta, "~" + k.log, "%R~" + k.board, "%R~" + k.answers, "%R~" + k.order,
			"%R~" + k.repairBoard, "%R~" + k.repairOrder}
	case RoleOperator:
		rules = []string{"~" + o.namespace + ":*"}
	default:
		return nil
	}
	rules = append([]string{"resetkeys", "resetchannels"}, rules...)
	rules = append(rules, clientBase...)
	if o.cacheTTL > 0 {
		rules = append(rules, clientCache...)
	}
	var cmds []string
	for _, op := range operations {
		if slices.Contains(op.roles, role) {
			cmds = append(cmds, op.sends()...)
		}
	}
	slices.Sort(cmds)
	for _, c := range slices.Compact(cmds) {
		if r := "+" + strings.ToLower(c); !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	if role != RoleOperator { // the operator holds every key of the namespace already
		rules = append(rules, "("+quiz+" +evalsha +eval)")
	}
	return rules
}
