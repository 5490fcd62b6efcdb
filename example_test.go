package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// Every example starts its own in-process miniredis so that it runs anywhere:
// ExampleNewBoard shows how, the others call exampleClient. Against a real
// Redis 7 neither DisableCache nor ForceSingleClient is needed.

// referenceQuiz replays the writes of the contract's reference session, as
// ExampleNewBoard does, and returns the quiz's handles.
func referenceQuiz(ctx context.Context, client rueidis.Client) (*kuis.Meta, *kuis.Board) {
	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := kuis.NewBoard(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"Ali", "Citra", "Ali", "Budi", "Citra", "Ali", "Budi", "Citra", "Dewi"} {
		if _, err := board.RecordCorrect(ctx, name); err != nil {
			log.Fatal(err)
		}
	}
	return meta, board
}

// exampleClient starts an in-process miniredis and connects to it as
// ExampleNewBoard does; done closes both.
func exampleClient() (client rueidis.Client, done func()) {
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	client, err = rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{mr.Addr()},
		DisableCache:      true,
		ForceSingleClient: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	return client, func() { client.Close(); mr.Close() }
}

// The contract's reference session: a teacher creates the quiz, nine correct
// answers arrive in three rounds, and students read the board and their rank.
func ExampleNewBoard() {
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	client, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{mr.Addr()},
		DisableCache:      true, // miniredis has no CLIENT TRACKING (client-side caching)
		ForceSingleClient: true, // miniredis fakes a one-node cluster; keep rueidis standalone
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()

	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}

	board, err := kuis.NewBoard(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	var scores []int64
	for _, name := range []string{"Ali", "Citra", "Ali", "Budi", "Citra", "Ali", "Budi", "Citra", "Dewi"} {
		score, err := board.RecordCorrect(ctx, name) // the new score
		if err != nil {
			log.Fatal(err)
		}
		scores = append(scores, score)
	}
	fmt.Println(scores)

	standings, err := board.Standings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range standings {
		fmt.Printf("%d. %s %d\n", s.Rank, s.Participant, s.Score)
	}
	for _, name := range []string{"Ali", "Dewi"} {
		rank, err := board.Rank(ctx, name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s is rank %d\n", name, rank)
	}
	// Output:
	// [10 10 20 10 20 30 20 30 10]
	// 1. Citra 30
	// 2. Ali 30
	// 3. Budi 20
	// 4. Dewi 10
	// Ali is rank 2
	// Dewi is rank 4
}

// Create writes the whole meta hash at once and never overwrites a quiz.
func ExampleMeta_Create() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	info, err := meta.Get(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %+v\n", meta.Keys().Meta(), info)

	err = meta.Create(ctx, "Kuis Matematika Kelas 8", 3)
	fmt.Println("second Create refused:", errors.Is(err, kuis.ErrQuizExists))
	// Output:
	// kuis:meta:kuis-01: {Title:Kuis Matematika Kelas 8 Questions:3 Status:berjalan}
	// second Create refused: true
}

// Finish closes the quiz; finishing it again changes nothing.
func ExampleMeta_Finish() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	for range 2 {
		if err := meta.Finish(ctx); err != nil {
			log.Fatal(err)
		}
		status, err := meta.Status(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("status:", status)
	}

	missing, err := kuis.NewMeta(client, "kuis-02")
	if err != nil {
		log.Fatal(err)
	}
	err = missing.Finish(ctx)
	fmt.Println("unknown quiz:", errors.Is(err, kuis.ErrQuizNotFound))
	// Output:
	// status: selesai
	// status: selesai
	// unknown quiz: true
}

// Once the teacher finishes the quiz, the status gate inside the record
// script refuses every answer, and nothing is written.
func ExampleBoard_RecordCorrect_finished() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	board, err := kuis.NewBoard(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	if _, err := board.RecordCorrect(ctx, "Dewi"); err != nil {
		log.Fatal(err)
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}

	_, err = board.RecordCorrect(ctx, "Dewi")
	switch {
	case errors.Is(err, kuis.ErrQuizFinished):
		fmt.Println("too late: the quiz is finished")
	case err != nil:
		log.Fatal(err)
	}
	score, err := board.Score(ctx, "Dewi")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Dewi keeps", score)
	// Output:
	// too late: the quiz is finished
	// Dewi keeps 10
}

// RecordAnswer counts each (participant, question) pair once, so a double
// tap or a retry after a timeout adds nothing.
func ExampleBoard_RecordAnswer() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := kuis.NewBoard(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, question := range []int{1, 1, 2} {
		answer, err := board.RecordAnswer(ctx, "Ali", question)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("question %d: %+v\n", question, answer)
	}
	_, err = board.RecordAnswer(ctx, "Ali", 4)
	fmt.Println("question 4 of 3:", errors.Is(err, kuis.ErrInvalidQuestion))
	// Output:
	// question 1: {Score:10 Duplicate:false}
	// question 1: {Score:10 Duplicate:true}
	// question 2: {Score:20 Duplicate:false}
	// question 4 of 3: true
}

// Rank follows Redis's tie order (ZREVRANK + 1); CompetitionRank lets equal
// scores share a rank and skips the next one.
func ExampleBoard_CompetitionRank() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	_, board := referenceQuiz(ctx, client) // Citra 30, Ali 30, Budi 20, Dewi 10

	for _, name := range []string{"Citra", "Ali", "Budi", "Dewi"} {
		rank, err := board.Rank(ctx, name)
		if err != nil {
			log.Fatal(err)
		}
		comp, err := board.CompetitionRank(ctx, name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-5s Rank %d, CompetitionRank %d\n", name, rank, comp)
	}
	// Output:
	// Citra Rank 1, CompetitionRank 1
	// Ali   Rank 2, CompetitionRank 1
	// Budi  Rank 3, CompetitionRank 3
	// Dewi  Rank 4, CompetitionRank 4
}

// Around shows a student their own line and their neighbours, with global
// ranks, clipped at the ends of the board.
func ExampleBoard_Around() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	_, board := referenceQuiz(ctx, client) // Citra 30, Ali 30, Budi 20, Dewi 10

	for _, name := range []string{"Budi", "Dewi"} {
		near, err := board.Around(ctx, name, 1)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("around %s: %v\n", name, near)
	}
	_, err := board.Around(ctx, "Eko", 1)
	fmt.Println("Eko:", errors.Is(err, kuis.ErrNotOnBoard))
	// Output:
	// around Budi: [{2 Ali 30} {3 Budi 20} {4 Dewi 10}]
	// around Dewi: [{3 Budi 20} {4 Dewi 10}]
	// Eko: true
}

// A recap is one consistent snapshot of meta and board, for the teacher to
// keep before the keys are deleted.
func ExampleTakeRecap() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	meta, _ := referenceQuiz(ctx, client) // Citra 30, Ali 30, Budi 20, Dewi 10
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}

	recap, err := kuis.TakeRecap(ctx, client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, %s: %d participants\n", recap.Info.Title, recap.Info.Status, len(recap.Standings))
	if err := recap.WriteCSV(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Kuis Matematika Kelas 8, selesai: 4 participants
	// rank,competition_rank,participant,score,correct_answers
	// 1,1,Citra,30,3
	// 2,1,Ali,30,3
	// 3,3,Budi,20,2
	// 4,4,Dewi,10,1
}

// PurgeQuiz deletes a finished quiz only after archive has kept its recap.
func ExamplePurgeQuiz() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := kuis.NewBoard(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"Ali", "Budi"} {
		if _, err := board.RecordAnswer(ctx, name, 1); err != nil {
			log.Fatal(err)
		}
	}

	// A real archive writes to a file, a database or object storage; if it
	// returns an error, nothing is deleted.
	var archived []kuis.Recap
	archive := func(ctx context.Context, r kuis.Recap) error {
		archived = append(archived, r)
		return nil
	}

	_, err = kuis.PurgeQuiz(ctx, client, "kuis-01", archive)
	fmt.Println("while running:", errors.Is(err, kuis.ErrQuizRunning), len(archived), "archived")

	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	deleted, err := kuis.PurgeQuiz(ctx, client, "kuis-01", archive)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deleted", deleted, "keys, archived", archived[0].QuizID, archived[0].Standings)
	// Output:
	// while running: true 0 archived
	// deleted 3 keys, archived kuis-01 [{1 Budi 10} {2 Ali 10}]
}

// Audit checks the live keys of a quiz against the contract: nothing on a
// quiz written through the library, a violation once someone sets a TTL by
// hand.
func ExampleAudit() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := kuis.NewBoard(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := board.RecordAnswer(ctx, "Ali", 1); err != nil {
		log.Fatal(err)
	}

	violations, err := kuis.Audit(ctx, client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("violations:", len(violations))

	// The contract forbids a TTL on the board while the quiz runs.
	cmd := client.B().Pexpire().Key(board.Keys().Board()).Milliseconds(60000).Build()
	if err := client.Do(ctx, cmd).Error(); err != nil {
		log.Fatal(err)
	}
	violations, err = kuis.Audit(ctx, client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range violations {
		fmt.Println(v.Key, v.Rule)
	}
	// Output:
	// violations: 0
	// kuis:papan:kuis-01 ttl
}

// Purge deletes every key of the namespace, and nothing that merely looks
// like one.
func ExamplePurge() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	for _, id := range []string{"kuis-01", "kuis-02"} {
		meta, err := kuis.NewMeta(client, id)
		if err != nil {
			log.Fatal(err)
		}
		if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
			log.Fatal(err)
		}
	}
	lookalikes := []string{"kuisx:1", "kuis2:papan:a", "other:kuis:papan:x", "KUIS:papan:a", "kuis"}
	for _, key := range lookalikes {
		if err := client.Do(ctx, client.B().Set().Key(key).Value("x").Build()).Error(); err != nil {
			log.Fatal(err)
		}
	}

	deleted, err := kuis.Purge(ctx, client)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deleted:", deleted)
	for _, key := range lookalikes {
		n, err := client.Do(ctx, client.B().Exists().Key(key).Build()).AsInt64()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s survives: %v\n", key, n == 1)
	}
	// Output:
	// deleted: 2
	// kuisx:1 survives: true
	// kuis2:papan:a survives: true
	// other:kuis:papan:x survives: true
	// KUIS:papan:a survives: true
	// kuis survives: true
}

// ContractTable prints the contract's key table (revision 2) for the options
// given, ready for a README or a design document.
func ExampleContractTable() {
	table, err := kuis.ContractTable()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(table)
	// Output:
	// | key | type | writer | readers | content | scale | TTL |
	// |---|---|---|---|---|---|---|
	// | `kuis:papan:<quiz>` | sorted set | quiz application | students and teacher | member = participant name, score = cumulative points (10 per correct answer) | one key per quiz, one member per participant | none while the quiz runs |
	// | `kuis:meta:<quiz>` | hash | teacher | teacher and quiz application | fields `judul` (title), `jumlah_soal` (question count), `status` (`berjalan` or `selesai`) | one key per quiz, three fields | none while the quiz runs |
	// | `kuis:jawaban:<quiz>` | set | quiz application | quiz application and teacher (audit) | member = `<question>:<participant>` per counted answer (revision 2) | one key per quiz, one member per counted answer | none while the quiz runs |
}

// WithClientCache serves the board reads from rueidis' client-side cache on
// a server with tracking (Redis 6+ over RESP3); there, a read right after a
// write, even the caller's own, may be a few milliseconds old. miniredis has
// no tracking and this client sets DisableCache, so here the same calls simply
// go to the server, uncached.
func ExampleWithClientCache() {
	client, done := exampleClient() // miniredis, set up as in ExampleNewBoard
	defer done()
	ctx := context.Background()

	meta, err := kuis.NewMeta(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	// One writer handle, and a cached reader handle for the students' screens.
	writer, err := kuis.NewBoard(client, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	screen, err := kuis.NewBoard(client, "kuis-01", kuis.WithClientCache(time.Second))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := writer.RecordAnswer(ctx, "Citra", 1); err != nil {
		log.Fatal(err)
	}
	standings, err := screen.Standings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(standings)
	// Output:
	// [{1 Citra 10}]
}

// ACLRules gives the arguments of ACL SETUSER for a role; here, the quiz
// application's user, one rule per line.
func ExampleACLRules() {
	for _, rule := range kuis.ACLRules(kuis.RoleApp) {
		fmt.Println(rule)
	}
	// Output:
	// resetkeys
	// resetchannels
	// ~kuis:papan:*
	// ~kuis:jawaban:*
	// %R~kuis:meta:*
	// -@all
	// +hello
	// +ping
	// +client|setname
	// +client|tracking
	// +client|caching
	// +multi
	// +exec
	// +pttl
	// +cluster|slots
	// +cluster|shards
	// +zrevrange
	// +zrevrank
	// +zscore
	// +zcount
	// +zcard
	// +hget
	// +hgetall
	// +exists
	// +hmget
	// +zincrby
	// +sismember
	// +sadd
	// (~kuis:papan:* ~kuis:jawaban:* ~kuis:meta:* +evalsha +eval)
}
