package kuis

import (
	"fmt"
	"strings"

	"github.com/kuisboard/kuis/internal/script"
)

// The contract's keys, as ContractTable prints them.
type contractRow struct {
	key                                  func(Keys) string
	typ, writer, readers, content, scale string
}

var contractRows = []contractRow{
	{Keys.Board, "sorted set", "quiz application (operator: Repair, Erase)", "students and teacher",
		"member = participant name, score = cumulative points (10 per correct answer)",
		"one key per quiz, one member per participant"},
	{Keys.Meta, "hash", "teacher", "teacher and quiz application",
		"fields `judul` (title), `jumlah_soal` (question count), `status` (`berjalan` or `selesai`); " +
			"when set, `kursus` (the course it folds into) and `kelas` (the class), written by Create only, and `tampilan` (`tampil`, `sembunyi` or `akhir`)",
		"one key per quiz, three to six fields"},
	{Keys.Answers, "set", "quiz application (operator: Erase removes)", "quiz application, teacher and operator (recap, audit)",
		"member = `<question>:<participant>` per counted answer",
		"one key per quiz, one member per counted answer"},
	{Keys.Log, "stream", "quiz application (teacher: the start and finish entries; operator: Erase removes)", "teacher (recap, audit) and quiz application (the feed)",
		"first, the start entry: the single field `status` = `berjalan`, written by Create; then one entry per counted answer, in the order counted: " +
			"fields `peserta`, `soal`, `skor` (score after it), and among them one join entry per participant Join put on the board: " +
			"fields `peserta` and `skor` = `0`; the entry ID is the server's time in ms; " +
			"last, the finish entry: the single field `status` = `selesai`, written with the status change; every reader of answers skips both",
		"one key per quiz, one entry per counted answer and per join, plus the start and the finish"},
	{Keys.Order, "sorted set", "quiz application (operator: Repair, Erase)", "students and teacher",
		"member = participant name, score = answers x 2^42 + (2^42 - 1 - ms of the latest answer, or of the join before any): points, then the earlier time",
		"one key per quiz, one member per participant"},
	{Keys.RepairBoard, "sorted set", "operator (Repair)", "none: Repair renames it to the board",
		"a board being rebuilt by Repair, as the board, plus one token member starting with a NUL byte; it exists only while Repair rebuilds",
		"at most one key per quiz, for the length of a Repair"},
	{Keys.RepairOrder, "sorted set", "operator (Repair)", "none: Repair renames it to the order set",
		"the order set being rebuilt with the board above, as the order set",
		"at most one key per quiz, for the length of a Repair"},
}

// The course keys, beside the quizzes and never inside them.
type courseContractRow struct {
	key                                  func(CourseKeys) string
	typ, writer, readers, content, scale string
}

var courseContractRows = []courseContractRow{
	{CourseKeys.Board, "sorted set", "operator (Fold, Unfold, Repair, Erase)", "students, teacher and quiz application",
		"member = participant name, score = the points of every quiz instance folded into the course, each (instance, participant) once; " +
			"its members are exactly the participants the ledgers hold, 0-point ones included",
		"one key per course, one member per participant"},
	{CourseKeys.Quizzes, "hash", "operator (Fold, Unfold, Erase)", "teacher, operator and quiz application (quizzes, recap, audit, repair)",
		"the quiz index: field `<quiz>@<instance>` (the instance the quiz log's start entry names) = the instance's marker " +
			"`<possible> <participants> <points> <digest> <folded_ms>`: 10 x `jumlah_soal`, the recap's standings and their points, " +
			"the recap's digest, and the server's time in ms when the fold was complete (0 while it is in parts)",
		"one key per course, one field per folded quiz instance"},
	{func(k CourseKeys) string { return k.Ledger("<quiz>", "<instance>") }, "hash", "operator (Fold, Unfold, Erase)",
		"teacher, operator and quiz application (recap, audit, repair)",
		"the ledger of one folded quiz instance: participant = the points it gave them (a multiple of 10, 0 included), " +
			"written with the total in one step",
		"one key per folded quiz instance, one field per participant of its recap"},
}

// A class's roster, beside the quizzes and courses and never inside them.
type classContractRow struct {
	key                                  func(ClassKeys) string
	typ, writer, readers, content, scale string
}

var classContractRows = []classContractRow{
	{ClassKeys.Roster, "hash", "teacher (Enroll, Withdraw; operator: Erase)", "every role (students, lookup, audit, grades)",
		"the roster: student ID (1 to 64 bytes of printable ASCII without spaces) = the student's name on boards, " +
			"in `CleanParticipant`'s form, no two names of a class alike",
		"one key per class, one field per enrolled student"},
	{ClassKeys.Names, "hash", "teacher (Enroll, Withdraw; operator: Erase)", "every role (lookup, audit)",
		"the roster turned around: name = student ID, written with the roster in one step",
		"one key per class, one field per enrolled student"},
	{ClassKeys.Lookalikes, "hash", "teacher (Enroll, Withdraw; operator: Erase)", "every role (audit)",
		"a name's confusable key (its UTS #39 skeleton, case and width folded) = student ID, written with the roster in one step, " +
			"so that no name a class would confuse with an enrolled one is enrolled",
		"one key per class, one field per enrolled student"},
}

// ContractTable returns the contract's key table as Markdown,
// with the key names the options select, <quiz> standing for the quiz ID,
// <course> for the course ID and <class> for the class ID. It does no I/O. Errors:
// ErrInvalidNamespace, ErrInvalidOption.
func ContractTable(opts ...Option) (string, error) {
	o, err := resolve(opts)
	if err != nil {
		return "", err
	}
	k := keyNames(o.naming, "<quiz>")
	var b strings.Builder
	b.WriteString("| key | type | writer | readers | content | scale | TTL |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range contractRows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | none while the quiz runs |\n",
			r.key(k), r.typ, r.writer, r.readers, r.content, r.scale)
	}
	ck := courseKeyNames(o.naming, "<course>")
	for _, r := range courseContractRows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | none |\n",
			r.key(ck), r.typ, r.writer, r.readers, r.content, r.scale)
	}
	kk := classKeyNames(o.naming, "<class>")
	for _, r := range classContractRows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | none |\n",
			r.key(kk), r.typ, r.writer, r.readers, r.content, r.scale)
	}
	return b.String(), nil
}

// operation is one method of the library as the package doc's operations
// table states it: the contract's action, the commands the method sends and
// the scripts it runs, its complexity, and the roles ACLRules allows it.
// ACLRules grants each role exactly the commands of its operations; a test
// checks the scripts' calls against scriptCommands and the package doc
// against this table.
type operation struct {
	action, method string
	commands       []string // plain commands, in the order first sent
	scripts        []script.Script
	complexity     string
	roles          []Role
}

var (
	everyone     = []Role{RoleApp, RoleTeacher, RoleOperator}
	app          = []Role{RoleApp}
	teacher      = []Role{RoleTeacher}
	operator     = []Role{RoleOperator}
	overseers    = []Role{RoleTeacher, RoleOperator}
	rankedRead   = []string{"HLEN", "ZCARD", "ZRANGE", "ZMSCORE"}
	pageRead     = []string{"HLEN", "ZCARD", "ZRANGE", "ZMSCORE", "ZCOUNT"}
	ranked       = []script.Script{script.Ranked}
	recapInParts = []string{"WATCH", "HGETALL", "ZCARD", "ZSCAN", "SSCAN", "XRANGE", "MULTI", "EXEC", "UNWATCH"}
	waited       = []string{"WAIT"} // after a script that writes, with WithReplicas
	courseWhole  = []string{"WATCH", "HSCAN", "ZSCAN", "MULTI", "EXEC", "UNWATCH"}
	course       = []script.Script{script.CourseCheck, script.Course}
	courseCheck  = []script.Script{script.CourseCheck}
	erasureReads = []string{"SCAN", "CLUSTER|SHARDS", "CLUSTER|NODES", "HGETALL", "ZSCORE", "SMISMEMBER", "HSCAN", "HEXISTS",
		"HGET", "XRANGE", "WAIT", "HMGET"}
	erasure = []script.Script{script.Erase, script.Course, script.Withdraw}
)

var operations = []operation{
	{"create a quiz", "Meta.Create", waited, []script.Script{script.Create}, "O(1)", teacher},
	{"read all meta", "Meta.Get", []string{"HGETALL"}, nil, "O(1)", everyone},
	{"read the status", "Meta.Status", []string{"HGETALL"}, nil, "O(1)", everyone},
	{"finish the quiz", "Meta.Finish", waited, []script.Script{script.Finish}, "O(1)", teacher},
	{"set who sees the board", "Meta.SetVisibility", waited, []script.Script{script.Visibility}, "O(1)", teacher},
	{"record a correct answer", "Board.RecordAnswer", waited, []script.Script{script.RecordAnswer}, "O(log N)", app},
	{"record many answers", "Board.RecordAnswers", waited, []script.Script{script.RecordAnswer}, "O(log N) each", app},
	{"join a participant", "Board.Join", waited, []script.Script{script.Join}, "O(log N)", app},
	{"read the whole board", "Board.Standings", rankedRead, ranked, "O(log N + M)", everyone},
	{"read a page of the board", "Board.Page", pageRead, ranked, "O(log N + M)", everyone},
	{"read one's neighbours", "Board.Around", append([]string{"ZREVRANK"}, pageRead...), ranked, "O(log N + M)", everyone},
	{"read one's own rank", "Board.Standing", []string{"HLEN", "ZCARD", "ZSCORE", "ZREVRANK", "ZCOUNT"},
		[]script.Script{script.Standing}, "O(log N)", everyone},
	{"count the participants", "Board.Len", []string{"HLEN", "ZCARD"}, nil, "O(1)", everyone},
	{"show the quiz's progress", "Board.Summary", []string{"HGETALL", "ZCARD", "SCARD"}, nil, "O(1)", everyone},
	{"list one's correct answers", "Board.Answered", []string{"HGETALL", "SMISMEMBER"}, nil, "O(jumlah_soal)", everyone},
	{"follow the feed", "Board.Events", []string{"HGETALL", "XRANGE", "XREVRANGE", "XREAD"}, nil, "O(1) + O(M) per read", everyone},
	{"follow the top of the board", "Board.Live", append([]string{"HGETALL", "XRANGE", "XREVRANGE"}, rankedRead...), ranked,
		"O(1) + O(log N + M) per change", everyone},
	{"recap the grades", "Store.Recap", recapInParts, []script.Script{script.Recap}, "O(N)", everyone},
	{"audit the keys", "Store.Audit", []string{"TYPE", "PTTL", "EXISTS", "HGETALL", "ZSCAN", "SSCAN", "XRANGE"}, nil,
		"O(N)", overseers},
	{"repair the board", "Store.Repair", []string{"HGETALL", "XRANGE", "XREVRANGE", "ZSCAN", "SSCAN", "WAIT"},
		[]script.Script{script.Repair, script.RepairStage, script.RepairSwap}, "O(N)", operator},
	{"archive and purge a quiz", "Store.PurgeQuiz", append(recapInParts[:len(recapInParts):len(recapInParts)], "WAIT"),
		[]script.Script{script.Recap, script.PurgeQuiz}, "O(N)", operator},
	{"purge the namespace", "Store.Purge", []string{"SCAN", "UNLINK", "CLUSTER|SHARDS", "CLUSTER|NODES"}, nil, "O(K)", operator},
	{"list the quizzes", "Store.Quizzes", []string{"SCAN", "CLUSTER|SHARDS", "CLUSTER|NODES"}, nil, "O(K)", operator},
	{"list the courses", "Store.Courses", []string{"SCAN", "CLUSTER|SHARDS", "CLUSTER|NODES"}, nil, "O(K)", operator},
	{"rank teams on the board", "Board.Teams", []string{"HLEN", "ZMSCORE"}, nil, "O(M)", everyone},
	{"fold a finished quiz into a course", "Course.Fold", []string{"HGET", "HMGET", "HSCAN", "WAIT"}, course, "O(M log N)", operator},
	{"take a quiz out of a course", "Course.Unfold", []string{"HSCAN", "HGET", "WAIT"}, course, "O(Q + M log N)", operator},
	{"take a quiz instance out of a course", "Course.UnfoldInstance", []string{"HGET", "HSCAN", "WAIT"}, course, "O(M log N)", operator},
	{"read the whole course board", "Course.Standings", []string{"ZRANGE"}, nil, "O(log N + M)", everyone},
	{"read a page of the course board", "Course.Page", []string{"ZRANGE", "ZCOUNT"}, nil, "O(log N + M)", everyone},
	{"read one's course neighbours", "Course.Around", []string{"ZREVRANK", "ZRANGE", "ZCOUNT"}, nil, "O(log N + M)", everyone},
	{"read one's course rank", "Course.Standing", []string{"ZSCORE", "ZREVRANK", "ZCOUNT"}, []script.Script{script.Standing},
		"O(log N)", everyone},
	{"count the course's participants", "Course.Len", []string{"ZCARD"}, nil, "O(1)", everyone},
	{"list the course's quizzes", "Course.Quizzes", []string{"HSCAN"}, nil, "O(Q)", everyone},
	{"rank teams in the course", "Course.Teams", []string{"ZMSCORE"}, nil, "O(M)", everyone},
	{"recap the course", "Course.Recap", courseWhole, nil, "O(L + N)", everyone},
	{"audit the course", "Course.Audit", []string{"TYPE", "PTTL", "WATCH", "HSCAN", "ZSCAN", "MULTI", "EXEC"}, nil, "O(L + N)", overseers},
	{"repair the course board", "Course.Repair",
		[]string{"WATCH", "HSCAN", "ZSCAN", "MULTI", "ZADD", "ZREM", "EXEC", "UNWATCH", "WAIT"}, courseCheck,
		"O(L + N)", operator},
	{"archive and purge a course", "Course.Purge",
		[]string{"WATCH", "HSCAN", "ZSCAN", "MULTI", "UNLINK", "EXEC", "UNWATCH", "WAIT"}, courseCheck,
		"O(L + N)", operator},
	{"erase a participant everywhere", "Store.Erase", erasureReads, erasure, "O(K + S + L + M + Q)", operator},
	{"erase a student where their class was", "Class.Erase", erasureReads, erasure, "O(K + S + L + M + Q)", operator},
	{"enroll students in a class", "Class.Enroll", waited, []script.Script{script.Enroll}, "O(M)", teacher},
	{"withdraw students from a class", "Class.Withdraw", []string{"HMGET", "WAIT"}, []script.Script{script.Withdraw}, "O(M)", teacher},
	{"list a class's students", "Class.Students", []string{"HSCAN"}, nil, "O(N)", everyone},
	{"read one student", "Class.Student", []string{"HGET"}, nil, "O(1)", everyone},
	{"find a student by name", "Class.Lookup", []string{"HGET"}, nil, "O(1)", everyone},
	{"audit a class's roster", "Class.Audit", []string{"MULTI", "TYPE", "PTTL", "HGETALL", "EXEC"}, nil,
		"O(N)", overseers},
}

// scriptCommands lists what each script calls (prelude.lua's helpers it
// uses included), as a test reads it from the sources.
var scriptCommands = map[string][]string{
	script.Create.Name():       {"EXISTS", "HSET", "TIME", "XADD"},
	script.Finish.Name():       {"HMGET", "EXISTS", "XLEN", "SCARD", "XADD", "HSET"},
	script.Visibility.Name():   {"HMGET", "EXISTS", "HSET"},
	script.RecordAnswer.Name(): {"TIME", "HMGET", "EXISTS", "ZCARD", "SISMEMBER", "ZSCORE", "XLEN", "XADD", "XREVRANGE", "SADD", "ZADD", "XINFO", "XSETID"},
	script.Join.Name():         {"HMGET", "EXISTS", "ZCARD", "SCARD", "XLEN", "ZSCORE", "TIME", "XADD", "XREVRANGE", "ZADD", "ZREVRANK", "ZCOUNT", "XINFO", "XSETID"},
	script.Standing.Name():     {"HLEN", "ZCARD", "ZSCORE", "ZREVRANK", "ZCOUNT"},
	script.Ranked.Name():       {"HLEN", "ZCARD", "ZRANGE", "ZMSCORE"},
	script.Recap.Name():        {"HGETALL", "ZCARD", "SCARD", "XLEN", "ZRANGE", "SMEMBERS", "XRANGE"},
	script.Repair.Name():       {"HMGET", "EXISTS", "ZCARD", "SCARD", "XLEN", "XRANGE", "SISMEMBER", "ZSCORE", "ZADD", "ZREM", "UNLINK"},
	script.RepairStage.Name():  {"UNLINK", "ZADD", "ZSCORE"},
	script.RepairSwap.Name():   {"HMGET", "EXISTS", "ZCARD", "SCARD", "XLEN", "ZSCORE", "XRANGE", "SISMEMBER", "ZADD", "ZREM", "UNLINK", "RENAME"},
	script.PurgeQuiz.Name():    {"UNLINK", "HMGET", "EXISTS", "XRANGE"},
	script.Course.Name():       {"ZCARD", "HLEN", "HGET", "HMGET", "ZMSCORE", "HSET", "ZADD", "TIME", "HKEYS", "HEXISTS", "HDEL", "ZREM", "ZSCORE"},
	script.CourseCheck.Name():  {},
	script.Enroll.Name():       {"HMGET", "HGET", "HSET"},
	script.Withdraw.Name():     {"HMGET", "HDEL"},
	script.Erase.Name():        {"HMGET", "ZCARD", "SCARD", "XLEN", "XRANGE", "ZSCORE", "SREM", "XDEL", "ZREM"},
}

// sends lists every command the operation sends or its scripts call,
// EVALSHA and EVAL (or their read-only forms) for each script.
func (op operation) sends() []string {
	out := append([]string{}, op.commands...)
	for _, s := range op.scripts {
		if s.ReadOnly() {
			out = append(out, "EVALSHA_RO", "EVAL_RO")
		} else {
			out = append(out, "EVALSHA", "EVAL")
		}
		out = append(out, scriptCommands[s.Name()]...)
	}
	return out
}

// operationsTable renders the operations table as the package doc shows it.
func operationsTable() string {
	var b strings.Builder
	b.WriteString("| action | method | commands | complexity |\n|---|---|---|---|\n")
	for _, op := range operations {
		parts := []string{}
		if len(op.commands) > 0 {
			parts = append(parts, strings.ReplaceAll(strings.Join(op.commands, ", "), "|", " "))
		}
		for _, s := range op.scripts {
			parts = append(parts, s.Name()+" ("+strings.Join(scriptCommands[s.Name()], ", ")+")")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", op.action, op.method, strings.Join(parts, "; "), op.complexity)
	}
	return b.String()
}
