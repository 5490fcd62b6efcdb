// Package kuis runs classroom-quiz leaderboards on Redis through rueidis,
// and turns the quiz data contract into invariants a caller cannot break:
// scores move only by +10, once per question and participant, and a finished
// quiz refuses answers atomically, on the server.
//
// [New] returns a [Store], the one entry value. It hands out a quiz's [Board]
// (the quiz application's handle) and [Meta] (the teacher's), and a [Course]
// that counts each finished quiz of a class once (a quiz names its course
// when it is created: [InCourse]), and a [Class]'s roster of students,
// each a stable ID and a name no other in the class looks like ([ForClass]
// names a quiz's class); it runs the operations on
// a whole quiz or namespace that an operator needs (Recap, Audit, Repair,
// PurgeQuiz, Purge, Quizzes, Courses, Stats), and erases one student
// everywhere when a school must ([Store.Erase], [Class.Erase]). [ACLRules] makes the Redis users of the
// three roles, so that the server holds the contract's separation too.
//
// # Key schema
//
// With the default namespace "kuis" and quiz ID "kuis-01":
//
//	kuis:papan:kuis-01    sorted set  member = participant, score = points (10 per correct answer)
//	kuis:meta:kuis-01     hash        judul, jumlah_soal, status (berjalan | selesai); kursus, kelas, tampilan when set
//	kuis:jawaban:kuis-01  set         "<question>:<participant>" per counted answer
//	kuis:catatan:kuis-01  stream      the start (status); one entry per join (peserta, skor 0) and per counted answer (peserta, soal, skor), its ID the server's time; the finish (status)
//	kuis:urutan:kuis-01   sorted set  participant by points, then time of the latest answer or the join ([WithTies])
//
// and, beside the quizzes, with course ID "ipa-8a":
//
//	kuis:kursus:ipa-8a                                  sorted set  member = participant, score = the points of every quiz instance folded into the course
//	kuis:kursus-kuis:ipa-8a                             hash        "<quiz>@<instance>" = the instance's marker "<possible> <participants> <points> <digest> <folded_ms>"
//	kuis:kursus-rincian:ipa-8a:kuis-02@1733299200000-0  hash        participant = the points that quiz instance gave (0 included)
//
// and a class's roster, with class ID "8a" ([Store.Class]):
//
//	kuis:kelas:8a        hash  student ID = name
//	kuis:kelas-nama:8a   hash  name = student ID
//	kuis:kelas-mirip:8a  hash  the name's confusable key = student ID
//
// No key ever has a TTL: the end of a quiz's data is a decision
// ([Store.PurgeQuiz], [Course.Purge], [Store.Purge]), not a timer.
// [WithNamespace] changes the first segment and [WithHashTag] braces the
// quiz ID ({kuis-01}), the course ID ({ipa-8a}) and the class ID ({8a}) for
// Redis Cluster.
// [ContractTable] prints the table and [Store.Audit], [Course.Audit] and
// [Class.Audit] check live keys against it.
//
// # Operations
//
// What each method sends, in the contract's form. A script (file name, then
// the commands it calls) runs as EVALSHA, EVALSHA_RO for the read-only ones,
// and as EVAL (EVAL_RO) when the server answers NOSCRIPT. N is the members
// of the board (or course board), M the members or entries read, K the keys
// of the database, L the entries of a course's ledgers, Q its quiz instances;
// for a class, N is its students and M the students a call gives; for an
// erasure, S a quiz's questions, L its log entries, M a ledger's entries.
// Which commands a call sends among those listed depends on its options and
// on the quiz (WithTies, WithClientCache, a big quiz read in parts, a Repair
// that rebuilds): the method's doc says when. WAIT follows the scripts that
// write, on their connection, only with [WithReplicas] (with which New also
// sends ROLE).
//
//	| action | method | commands | complexity |
//	|---|---|---|---|
//	| create a quiz | Meta.Create | WAIT; create.lua (EXISTS, HSET, TIME, XADD) | O(1) |
//	| read all meta | Meta.Get | HGETALL | O(1) |
//	| read the status | Meta.Status | HGETALL | O(1) |
//	| finish the quiz | Meta.Finish | WAIT; finish.lua (HMGET, EXISTS, XLEN, SCARD, XADD, HSET) | O(1) |
//	| set who sees the board | Meta.SetVisibility | WAIT; visibility.lua (HMGET, EXISTS, HSET) | O(1) |
//	| record a correct answer | Board.RecordAnswer | WAIT; record_answer.lua (TIME, HMGET, EXISTS, ZCARD, SISMEMBER, ZSCORE, XLEN, XADD, XREVRANGE, SADD, ZADD, XINFO, XSETID) | O(log N) |
//	| record many answers | Board.RecordAnswers | WAIT; record_answer.lua (TIME, HMGET, EXISTS, ZCARD, SISMEMBER, ZSCORE, XLEN, XADD, XREVRANGE, SADD, ZADD, XINFO, XSETID) | O(log N) each |
//	| join a participant | Board.Join | WAIT; join.lua (HMGET, EXISTS, ZCARD, SCARD, XLEN, ZSCORE, TIME, XADD, XREVRANGE, ZADD, ZREVRANK, ZCOUNT, XINFO, XSETID) | O(log N) |
//	| read the whole board | Board.Standings | HLEN, ZCARD, ZRANGE, ZMSCORE; ranked.lua (HLEN, ZCARD, ZRANGE, ZMSCORE) | O(log N + M) |
//	| read a page of the board | Board.Page | HLEN, ZCARD, ZRANGE, ZMSCORE, ZCOUNT; ranked.lua (HLEN, ZCARD, ZRANGE, ZMSCORE) | O(log N + M) |
//	| read one's neighbours | Board.Around | ZREVRANK, HLEN, ZCARD, ZRANGE, ZMSCORE, ZCOUNT; ranked.lua (HLEN, ZCARD, ZRANGE, ZMSCORE) | O(log N + M) |
//	| read one's own rank | Board.Standing | HLEN, ZCARD, ZSCORE, ZREVRANK, ZCOUNT; standing.lua (HLEN, ZCARD, ZSCORE, ZREVRANK, ZCOUNT) | O(log N) |
//	| count the participants | Board.Len | HLEN, ZCARD | O(1) |
//	| show the quiz's progress | Board.Summary | HGETALL, ZCARD, SCARD | O(1) |
//	| list one's correct answers | Board.Answered | HGETALL, SMISMEMBER | O(jumlah_soal) |
//	| follow the feed | Board.Events | HGETALL, XRANGE, XREVRANGE, XREAD | O(1) + O(M) per read |
//	| follow the top of the board | Board.Live | HGETALL, XRANGE, XREVRANGE, HLEN, ZCARD, ZRANGE, ZMSCORE; ranked.lua (HLEN, ZCARD, ZRANGE, ZMSCORE) | O(1) + O(log N + M) per change |
//	| recap the grades | Store.Recap | WATCH, HGETALL, ZCARD, ZSCAN, SSCAN, XRANGE, MULTI, EXEC, UNWATCH; recap.lua (HGETALL, ZCARD, SCARD, XLEN, ZRANGE, SMEMBERS, XRANGE) | O(N) |
//	| audit the keys | Store.Audit | TYPE, PTTL, EXISTS, HGETALL, ZSCAN, SSCAN, XRANGE | O(N) |
//	| repair the board | Store.Repair | HGETALL, XRANGE, XREVRANGE, ZSCAN, SSCAN, WAIT; repair.lua (HMGET, EXISTS, ZCARD, SCARD, XLEN, XRANGE, SISMEMBER, ZSCORE, ZADD, ZREM, UNLINK); repair_stage.lua (UNLINK, ZADD, ZSCORE); repair_swap.lua (HMGET, EXISTS, ZCARD, SCARD, XLEN, ZSCORE, XRANGE, SISMEMBER, ZADD, ZREM, UNLINK, RENAME) | O(N) |
//	| archive and purge a quiz | Store.PurgeQuiz | WATCH, HGETALL, ZCARD, ZSCAN, SSCAN, XRANGE, MULTI, EXEC, UNWATCH, WAIT; recap.lua (HGETALL, ZCARD, SCARD, XLEN, ZRANGE, SMEMBERS, XRANGE); purge_quiz.lua (UNLINK, HMGET, EXISTS, XRANGE) | O(N) |
//	| purge the namespace | Store.Purge | SCAN, UNLINK, CLUSTER SHARDS, CLUSTER NODES | O(K) |
//	| list the quizzes | Store.Quizzes | SCAN, CLUSTER SHARDS, CLUSTER NODES | O(K) |
//	| list the courses | Store.Courses | SCAN, CLUSTER SHARDS, CLUSTER NODES | O(K) |
//	| rank teams on the board | Board.Teams | HLEN, ZMSCORE | O(M) |
//	| fold a finished quiz into a course | Course.Fold | HGET, HMGET, HSCAN, WAIT; course_check.lua (); course.lua (ZCARD, HLEN, HGET, HMGET, ZMSCORE, HSET, ZADD, TIME, HKEYS, HEXISTS, HDEL, ZREM, ZSCORE) | O(M log N) |
//	| take a quiz out of a course | Course.Unfold | HSCAN, HGET, WAIT; course_check.lua (); course.lua (ZCARD, HLEN, HGET, HMGET, ZMSCORE, HSET, ZADD, TIME, HKEYS, HEXISTS, HDEL, ZREM, ZSCORE) | O(Q + M log N) |
//	| take a quiz instance out of a course | Course.UnfoldInstance | HGET, HSCAN, WAIT; course_check.lua (); course.lua (ZCARD, HLEN, HGET, HMGET, ZMSCORE, HSET, ZADD, TIME, HKEYS, HEXISTS, HDEL, ZREM, ZSCORE) | O(M log N) |
//	| read the whole course board | Course.Standings | ZRANGE | O(log N + M) |
//	| read a page of the course board | Course.Page | ZRANGE, ZCOUNT | O(log N + M) |
//	| read one's course neighbours | Course.Around | ZREVRANK, ZRANGE, ZCOUNT | O(log N + M) |
//	| read one's course rank | Course.Standing | ZSCORE, ZREVRANK, ZCOUNT; standing.lua (HLEN, ZCARD, ZSCORE, ZREVRANK, ZCOUNT) | O(log N) |
//	| count the course's participants | Course.Len | ZCARD | O(1) |
//	| list the course's quizzes | Course.Quizzes | HSCAN | O(Q) |
//	| rank teams in the course | Course.Teams | ZMSCORE | O(M) |
//	| recap the course | Course.Recap | WATCH, HSCAN, ZSCAN, MULTI, EXEC, UNWATCH | O(L + N) |
//	| audit the course | Course.Audit | TYPE, PTTL, WATCH, HSCAN, ZSCAN, MULTI, EXEC | O(L + N) |
//	| repair the course board | Course.Repair | WATCH, HSCAN, ZSCAN, MULTI, ZADD, ZREM, EXEC, UNWATCH, WAIT; course_check.lua () | O(L + N) |
//	| archive and purge a course | Course.Purge | WATCH, HSCAN, ZSCAN, MULTI, UNLINK, EXEC, UNWATCH, WAIT; course_check.lua () | O(L + N) |
//	| erase a participant everywhere | Store.Erase | SCAN, CLUSTER SHARDS, CLUSTER NODES, HGETALL, ZSCORE, SMISMEMBER, HSCAN, HEXISTS, HGET, XRANGE, WAIT, HMGET; erase.lua (HMGET, ZCARD, SCARD, XLEN, XRANGE, ZSCORE, SREM, XDEL, ZREM); course.lua (ZCARD, HLEN, HGET, HMGET, ZMSCORE, HSET, ZADD, TIME, HKEYS, HEXISTS, HDEL, ZREM, ZSCORE); withdraw.lua (HMGET, HDEL) | O(K + S + L + M + Q) |
//	| erase a student where their class was | Class.Erase | SCAN, CLUSTER SHARDS, CLUSTER NODES, HGETALL, ZSCORE, SMISMEMBER, HSCAN, HEXISTS, HGET, XRANGE, WAIT, HMGET; erase.lua (HMGET, ZCARD, SCARD, XLEN, XRANGE, ZSCORE, SREM, XDEL, ZREM); course.lua (ZCARD, HLEN, HGET, HMGET, ZMSCORE, HSET, ZADD, TIME, HKEYS, HEXISTS, HDEL, ZREM, ZSCORE); withdraw.lua (HMGET, HDEL) | O(K + S + L + M + Q) |
//	| enroll students in a class | Class.Enroll | WAIT; enroll.lua (HMGET, HGET, HSET) | O(M) |
//	| withdraw students from a class | Class.Withdraw | HMGET, WAIT; withdraw.lua (HMGET, HDEL) | O(M) |
//	| list a class's students | Class.Students | HSCAN | O(N) |
//	| read one student | Class.Student | HGET | O(1) |
//	| find a student by name | Class.Lookup | HGET | O(1) |
//	| audit a class's roster | Class.Audit | MULTI, TYPE, PTTL, HGETALL, EXEC | O(N) |
//
// # Live screens
//
// [Board.Events] is the quiz's resumable feed, read from the answer log: each
// join ([Board.Join]: a student's screen opened), counted answer and the
// finish, in order, resumed after the last ID a screen saw. [Board.Live] yields the top of the board at a human rate: at most once
// per interval, and only when the quiz changed.
// The teacher decides who sees the board ([Meta.SetVisibility]: shown,
// hidden, or shown at the end), which a screen reads in [Info.Visibility];
// [Pseudonym] gives a projector a stable alias for each name.
//
// # A quiz in ten lines
//
//	store, _ := kuis.New(client)
//	meta, _ := store.Meta("kuis-01")
//	board, _ := store.Board("kuis-01")
//	_ = meta.Create(ctx, "Kuis Matematika Kelas 8", 3)
//	answer, _ := board.RecordAnswer(ctx, "Ali", 1)    // {Score: 10, Duplicate: false}
//	mine, _ := board.Standing(ctx, "Ali")             // Rank, CompetitionRank, Score
//	_ = meta.Finish(ctx)                              // later answers: ErrQuizFinished
//	_, _ = store.PurgeQuiz(ctx, "kuis-01", archive)   // archive gets the Recap first
//
// # Errors
//
// Every error wraps exactly one sentinel of this package (test with
// errors.Is), or is another error wrapped with the quiz it concerns: a context
// or network error from rueidis, a server error reply without a sentinel (e.g.
// OOM, as *rueidis.RedisError), a reply of an unexpected
// shape, or archive's own error from PurgeQuiz. Messages are one line; they
// name the quiz and the participant, quoted and cut to 64 bytes, and no Redis
// key, except ErrCorrupt, which names the key and field an operator must look
// at. The CSV writers return the writer's error as it is.
//
// # Retries
//
// What a service does with an error depends on the error and on the call.
// ErrUnavailable (a node unreachable, silent past [WithSilence], loading, or
// a cluster still moving the quiz's slot after a failover), ErrBusy,
// ErrNotReplicated and a deadline of the caller's own say the call may not
// have happened, or happened only in part on the way; the library sends
// nothing again that may have reached the server, so whether to call again
// is the service's:
//
//	Call                            after ErrUnavailable, ErrBusy, ErrNotReplicated or a deadline
//	reads: Standings, Page, Around, retry: a read changes nothing
//	  Standing, Len, Summary,
//	  Answered, Teams, Get, Status,
//	  Quizzes, Recap, Audit, Events,
//	  Live, a Course's reads, a
//	  Class's reads
//	RecordAnswer, RecordAnswers     retry: an answer counted before answers Duplicate, with its score
//	Enroll, Withdraw                retry: a student enrolled (withdrawn) before changes nothing
//	Finish, Repair, Purge, Fold,    retry: the second call finishes what the first began, or changes
//	  Archive, Unfold,                nothing (an Unfold of an instance gone returns an empty slice,
//	  UnfoldInstance, Erase           an Erase done before an empty Erasure)
//	Create                          retry, then check: one whose reply was lost answers ErrQuizExists;
//	                                  Meta.Get tells whether the quiz is the one meant
//	PurgeQuiz, Course.Purge         retry, then check: one whose reply was lost answers
//	                                  ErrQuizNotFound (PurgeQuiz) or archives an empty course and
//	                                  returns 0 (Course.Purge): the first call's archive holds the data
//
// The other sentinels are answers, not accidents: ErrQuizFinished,
// ErrQuizExists, ErrQuizNotFound, ErrNotOnBoard, ErrQuizRunning,
// ErrConflict and ErrQuizChanged describe the quiz (ErrConflict a course
// or a class too), ErrNameTaken and ErrNotEnrolled a class; the ErrInvalid
// ones the input; ErrForbidden, ErrNeedsHashTag, ErrNeedsClusterClient, ErrNoClient
// and ErrNoArchive the setup (fix it; the same call fails again); ErrCorrupt
// data an operator must look at (Audit, Repair). A call on a cluster client
// follows the cluster through a failover: a redirect (MOVED, ASK, TRYAGAIN,
// CLUSTERDOWN) is followed or waited out, a bounded number of times, on
// every path (scripts, pipelines, the dedicated connections of a snapshot
// and of WithReplicas), and what is still not served is ErrUnavailable.
package kuis
