// Package kuis runs classroom-quiz leaderboards on Redis, through rueidis,
// and turns the quiz data contract into API invariants: keys are built and
// validated here, scores only move by +10, once per question and participant,
// ranks are 1-based, answers are refused atomically on the server once a quiz
// is finished, and the application's handle ([Board]) cannot write meta while
// the teacher's handle ([Meta]) cannot touch scores.
//
// [New] validates a rueidis client and the options once and returns a
// [Store], the one entry value: it hands out the handles of a quiz and runs
// the operations on a whole quiz or namespace ([Store.Recap],
// [Store.PurgeQuiz], [Store.Purge], [Store.Quizzes], [Store.Audit],
// [Store.Repair]).
//
// # Key schema
//
// With the default namespace "kuis" and quiz ID "kuis-01":
//
//	kuis:papan:kuis-01    sorted set  member = participant, score = points (10 per correct answer)
//	kuis:meta:kuis-01     hash        judul, jumlah_soal, status (berjalan | selesai)
//	kuis:jawaban:kuis-01  set         "<question>:<participant>" per counted answer
//	kuis:catatan:kuis-01  stream      one entry per counted answer (peserta, soal, skor), its ID the server's time; then the finish (status)
//	kuis:urutan:kuis-01   sorted set  participant by points, then time of the latest answer ([WithTies])
//
// No key ever has a TTL: the end of a quiz's data is a decision
// ([Store.PurgeQuiz], [Store.Purge]), not a timer. [WithNamespace] changes the
// first segment and [WithHashTag] braces the quiz ID ({kuis-01}) for Redis
// Cluster. [ContractTable] prints the table, [Store.Audit] checks live keys
// against it, [ACLRules] makes the two roles' Redis ACL users.
//
// # Live screens
//
// [Board.Events] is the quiz's resumable feed, read from the answer log: each
// counted answer and the finish, in order, resumed after the last ID a screen
// saw. [Board.Live] yields the top of the board at a human rate: at most once
// per interval, and only when the quiz changed.
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
// OOM, READONLY, BUSY, as *rueidis.RedisError), a reply of an unexpected
// shape, or archive's own error from PurgeQuiz. Messages are one line; they
// name the quiz and the participant, quoted and cut to 64 bytes, and no Redis
// key, except ErrCorrupt, which names the key and field an operator must look
// at. Recap.WriteCSV returns the writer's error as it is.
package kuis
