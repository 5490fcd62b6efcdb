// Package kuis runs classroom-quiz leaderboards on Redis, through rueidis,
// and turns the quiz data contract into API invariants: keys are built and
// validated here, scores only move by +10, ranks are 1-based, answers are
// refused atomically on the server once a quiz is finished, and the
// application's handle ([Board]) cannot write meta while the teacher's handle
// ([Meta]) cannot touch scores.
//
// # Key schema
//
// With the default namespace "kuis" and quiz ID "kuis-01":
//
//	kuis:papan:kuis-01    sorted set  member = participant, score = points (10 per correct answer)
//	kuis:meta:kuis-01     hash        judul, jumlah_soal, status (berjalan | selesai)
//	kuis:jawaban:kuis-01  set         "<question>:<participant>" per counted answer (revision 2)
//
// No key ever has a TTL: the end of a quiz's data is a decision ([PurgeQuiz],
// [Purge]), not a timer. [WithNamespace] changes the first segment and
// [WithHashTag] braces the quiz ID ({kuis-01}) for Redis Cluster.
// [ContractTable] prints the table, [Audit] checks live keys against it.
//
// # A quiz in ten lines
//
//	meta, _ := kuis.NewMeta(client, "kuis-01")
//	board, _ := kuis.NewBoard(client, "kuis-01")
//	_ = meta.Create(ctx, "Kuis Matematika Kelas 8", 3)
//	answer, _ := board.RecordAnswer(ctx, "Ali", 1) // {Score: 10, Duplicate: false}
//	standings, _ := board.Standings(ctx)            // highest first, Rank 1-based
//	rank, _ := board.Rank(ctx, "Ali")
//	_ = meta.Finish(ctx)                            // later answers: ErrQuizFinished
//	recap, _ := kuis.TakeRecap(ctx, client, "kuis-01")
//	_ = recap.WriteCSV(os.Stdout)
//	_, _ = kuis.PurgeQuiz(ctx, client, "kuis-01", archive)
//
// The caller owns the rueidis client. Every error wraps a sentinel of this
// package (errors.Is), or is another error wrapped with the quiz it concerns:
// a context or network error, a server error reply without a sentinel (e.g.
// OOM, READONLY, BUSY, as *rueidis.RedisError), a reply of an unexpected
// shape, or archive's own error from PurgeQuiz. Recap.WriteCSV returns the
// writer's error as it is.
package kuis
