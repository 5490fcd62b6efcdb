package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// Every example starts its own in-process miniredis, so that it runs
// anywhere. Against a real Redis, DisableCache is not needed, and on a Redis
// Cluster ForceSingleClient must go.

// New validates the client and the options once; the Store then hands out
// the teacher's handle (Meta) and the quiz application's (Board) of a quiz.
// The teacher creates the quiz in the course it folds into (InCourse), which
// Get reads back as Info.Course.
func ExampleNew() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3, kuis.InCourse("mat-8a")); err != nil {
		log.Fatal(err)
	}
	info, err := meta.Get(ctx)
	if err != nil {
		log.Fatal(err)
	}
	keys, err := store.Keys("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %+v\n", keys.Meta(), info)

	err = meta.Create(ctx, "Kuis Matematika Kelas 8", 3)
	fmt.Println("second Create:", err)
	// Output:
	// kuis:meta:kuis-01: {Title:Kuis Matematika Kelas 8 Questions:3 Status:berjalan Course:mat-8a Class: Visibility:tampil}
	// second Create: kuis: quiz already exists: quiz "kuis-01"
}

// The contract's reference session: nine correct answers in three rounds,
// question r answered in round r. RecordAnswer counts each (participant,
// question) pair once, so a double tap or a retry after a timeout adds
// nothing, even once the quiz is finished.
func ExampleBoard_RecordAnswer() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	rounds := [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}}
	var scores []int64
	for q, round := range rounds {
		for _, name := range round {
			answer, err := board.RecordAnswer(ctx, name, q+1)
			if err != nil {
				log.Fatal(err)
			}
			scores = append(scores, answer.Score)
		}
	}
	fmt.Println(scores)

	again, err := board.RecordAnswer(ctx, "Ali", 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Ali, question 1 again: %+v\n", again)
	_, err = board.RecordAnswer(ctx, "Dewi", 4)
	fmt.Println(err)

	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	_, err = board.RecordAnswer(ctx, "Dewi", 1)
	fmt.Println("finished:", errors.Is(err, kuis.ErrQuizFinished))
	retry, err := board.RecordAnswer(ctx, "Dewi", 3) // counted before the finish
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Dewi, question 3 retried: %+v\n", retry)
	// Output:
	// [10 10 20 10 20 30 20 30 10]
	// Ali, question 1 again: {Score:30 Duplicate:true}
	// kuis: invalid question: quiz "kuis-01", participant "Dewi": question 4 of 3
	// finished: true
	// Dewi, question 3 retried: {Score:10 Duplicate:true}
}

// RecordAnswers sends a batch in one round trip; each entry carries its own
// result, and a refused entry never hides the others.
func ExampleBoard_RecordAnswers() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	results, err := board.RecordAnswers(ctx, []kuis.AnswerInput{
		{Participant: "Ali", Question: 1},
		{Participant: "Ali", Question: 2},
		{Participant: "Ali", Question: 1},
		{Participant: "Budi", Question: 9},
		{Participant: "", Question: 1},
	})
	if err != nil {
		log.Fatal(err) // the whole call failed (context, connection)
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Println("refused:", r.Err)
			continue
		}
		fmt.Printf("%+v\n", r.Answer)
	}
	// Output:
	// {Score:10 Duplicate:false}
	// {Score:20 Duplicate:false}
	// {Score:20 Duplicate:true}
	// refused: kuis: invalid question: quiz "kuis-01", participant "Budi": question 9 of 3
	// refused: kuis: invalid participant: quiz "kuis-01": participant "" is empty
}

// Standing is one student's screen: Rank follows Redis's tie order (Citra
// before Ali), CompetitionRank lets equal scores share a rank ("1224").
func ExampleBoard_Standing() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// The contract's reference session: question r answered in round r.
	// Board: Citra 30, Ali 30, Budi 20, Dewi 10.
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}

	for _, name := range []string{"Citra", "Ali", "Budi", "Dewi"} {
		s, err := board.Standing(ctx, name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-5s rank %d, competition rank %d, score %d\n", s.Participant, s.Rank, s.CompetitionRank, s.Score)
	}
	_, err = board.Standing(ctx, "Eko")
	fmt.Println(err)
	// Output:
	// Citra rank 1, competition rank 1, score 30
	// Ali   rank 2, competition rank 1, score 30
	// Budi  rank 3, competition rank 3, score 20
	// Dewi  rank 4, competition rank 4, score 10
	// kuis: participant not on the board: quiz "kuis-01", participant "Eko"
}

// A recipe: a student's line "rank 1 of 28, in the top 10 %" is Standing's
// CompetitionRank, the board's Len, and Top. Rank is a place in the board's
// order: of five students tied for first, Redis puts Siswa 01 fifth.
func ExampleStanding_Top() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis IPA", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// 28 students: Siswa 01 to 05 answer all three questions, Siswa 06 two,
	// the others one.
	var answers []kuis.AnswerInput
	for n := 1; n <= 28; n++ {
		questions := 1
		switch {
		case n <= 5:
			questions = 3
		case n == 6:
			questions = 2
		}
		for q := 1; q <= questions; q++ {
			answers = append(answers, kuis.AnswerInput{Participant: fmt.Sprintf("Siswa %02d", n), Question: q})
		}
	}
	if _, err := board.RecordAnswers(ctx, answers); err != nil {
		log.Fatal(err)
	}

	size, err := board.Len(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"Siswa 01", "Siswa 06", "Siswa 07"} {
		s, err := board.Standing(ctx, name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: rank %d of %d (place %d), top 10 %%: %v, top 20 %%: %v\n",
			s.Participant, s.CompetitionRank, size, s.Rank, s.Top(10, size), s.Top(20, size))
	}
	// Output:
	// Siswa 01: rank 1 of 28 (place 5), top 10 %: true, top 20 %: true
	// Siswa 06: rank 6 of 28 (place 6), top 10 %: false, top 20 %: true
	// Siswa 07: rank 7 of 28 (place 28), top 10 %: false, top 20 %: false
}

// Page reads one screen of the board with global ranks. A page that starts
// inside a group of equal scores still gives the group's competition rank.
func ExampleBoard_Page() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// The contract's reference session: question r answered in round r.
	// Board: Citra 30, Ali 30, Budi 20, Dewi 10.
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}

	page, err := board.Page(ctx, 1, 2) // the second and third places
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range page {
		fmt.Printf("%d (%d). %s %d\n", s.Rank, s.CompetitionRank, s.Participant, s.Score)
	}
	// Output:
	// 2 (1). Ali 30
	// 3 (3). Budi 20
}

// A recap is one consistent snapshot of meta and board, for the teacher to
// keep before the keys are deleted.
func ExampleStore_Recap() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// The contract's reference session: question r answered in round r.
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	recap, err := store.Recap(ctx, "kuis-01")
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

// PurgeQuiz deletes a finished quiz only after archive has kept its recap:
// all five keys of a quiz with answers (meta, board, answers, log, order).
func ExampleStore_PurgeQuiz() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// The contract's reference session: question r answered in round r.
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}

	// A real archive writes to a file, a database or object storage; if it
	// returns an error, nothing is deleted.
	var archived []kuis.Recap
	archive := func(ctx context.Context, r kuis.Recap) error {
		archived = append(archived, r)
		return nil
	}

	_, err = store.PurgeQuiz(ctx, "kuis-01", archive)
	fmt.Println("while running:", errors.Is(err, kuis.ErrQuizRunning), len(archived), "archived")

	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	deleted, err := store.PurgeQuiz(ctx, "kuis-01", archive)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deleted", deleted, "keys; archived", archived[0].QuizID, archived[0].Standings)
	left, err := store.Quizzes(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("quizzes left:", left)
	// Output:
	// while running: true 0 archived
	// deleted 5 keys; archived kuis-01 [{1 1 Citra 30} {2 1 Ali 30} {3 3 Budi 20} {4 4 Dewi 10}]
	// quizzes left: []
}

// Audit checks the live keys of a quiz against the contract: nothing on a
// quiz written through the library; a violation for a TTL set by hand, and
// for points given outside RecordAnswer.
func ExampleStore_Audit() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// The contract's reference session: question r answered in round r.
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}
	violations, err := store.Audit(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("violations:", violations)

	keys, err := store.Keys("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	byHand := rueidis.Commands{
		client.B().Pexpire().Key(keys.Board()).Milliseconds(60000).Build(),
		client.B().Zincrby().Key(keys.Board()).Increment(10).Member("Dewi").Build(),
	}
	for _, cmd := range byHand {
		if err := client.Do(ctx, cmd).Error(); err != nil {
			log.Fatal(err)
		}
	}
	violations, err = store.Audit(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range violations {
		fmt.Println(v)
	}
	// Output:
	// violations: []
	// kuis:papan:kuis-01: ttl: expires in 60000 ms; the contract allows no TTL
	// kuis:papan:kuis-01: score: member "Dewi" has 20 points for 1 counted answers, want 10
}

// Every error wraps one sentinel (test with errors.Is) and is one line that
// names the quiz and the participant, never a Redis key but for ErrCorrupt.
func Example_errors() {
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

	_, err = kuis.New(nil)
	fmt.Println(errors.Is(err, kuis.ErrNoClient), err)
	_, err = kuis.New(client, kuis.WithNamespace("kuis:*"))
	fmt.Println(errors.Is(err, kuis.ErrInvalidNamespace), err)
	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	_, err = store.Board("kuis 01")
	fmt.Println(errors.Is(err, kuis.ErrInvalidQuizID), err)

	board, err := store.Board("nope")
	if err != nil {
		log.Fatal(err)
	}
	_, err = board.Standings(ctx) // every read checks that the quiz exists
	fmt.Println(errors.Is(err, kuis.ErrQuizNotFound), err)

	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	board, err = store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	_, err = board.RecordAnswer(ctx, "Fay", 1)
	fmt.Println(errors.Is(err, kuis.ErrQuizFinished), err)
	// Output:
	// true kuis: nil rueidis client
	// true kuis: invalid namespace: "kuis:*" (want 1 to 64 bytes of ASCII letters, digits, '-', '_' or '.')
	// true kuis: invalid quiz ID: "kuis 01" (want 1 to 64 bytes of ASCII letters, digits, '-', '_' or '.')
	// true kuis: quiz not found: quiz "nope"
	// true kuis: quiz is finished: quiz "kuis-01", participant "Fay"
}

// A Store with WithClientCache serves the reads from rueidis' client-side
// cache on a server with tracking (Redis 6+ over RESP3); there, a read right
// after a write, even the caller's own, may be a few milliseconds old. A
// caller who wants a cached and an uncached view makes two Stores on one
// client. miniredis has no tracking and this client sets DisableCache, so
// here the cached reads simply go to the server.
func ExampleWithClientCache() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// The contract's reference session: question r answered in round r,
	// written through the uncached Store.
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}

	screens, err := kuis.New(client, kuis.WithClientCache(time.Second))
	if err != nil {
		log.Fatal(err)
	}
	board, err = screens.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	top, err := board.Page(ctx, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(top)
	// Output:
	// [{1 1 Citra 30} {2 1 Ali 30}]
}

// ContractTable prints the contract's key table for the options given, ready
// for a README or a design document.
func ExampleContractTable() {
	table, err := kuis.ContractTable()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(table)
	// Output:
	// | key | type | writer | readers | content | scale | TTL |
	// |---|---|---|---|---|---|---|
	// | `kuis:papan:<quiz>` | sorted set | quiz application (operator: Repair, Erase) | students and teacher | member = participant name, score = cumulative points (10 per correct answer) | one key per quiz, one member per participant | none while the quiz runs |
	// | `kuis:meta:<quiz>` | hash | teacher | teacher and quiz application | fields `judul` (title), `jumlah_soal` (question count), `status` (`berjalan` or `selesai`); when set, `kursus` (the course it folds into) and `kelas` (the class), written by Create only, and `tampilan` (`tampil`, `sembunyi` or `akhir`) | one key per quiz, three to six fields | none while the quiz runs |
	// | `kuis:jawaban:<quiz>` | set | quiz application (operator: Erase removes) | quiz application, teacher and operator (recap, audit) | member = `<question>:<participant>` per counted answer | one key per quiz, one member per counted answer | none while the quiz runs |
	// | `kuis:catatan:<quiz>` | stream | quiz application (teacher: the start and finish entries; operator: Erase removes) | teacher (recap, audit) and quiz application (the feed) | first, the start entry: the single field `status` = `berjalan`, written by Create; then one entry per counted answer, in the order counted: fields `peserta`, `soal`, `skor` (score after it), and among them one join entry per participant Join put on the board: fields `peserta` and `skor` = `0`; the entry ID is the server's time in ms; last, the finish entry: the single field `status` = `selesai`, written with the status change; every reader of answers skips both | one key per quiz, one entry per counted answer and per join, plus the start and the finish | none while the quiz runs |
	// | `kuis:urutan:<quiz>` | sorted set | quiz application (operator: Repair, Erase) | students and teacher | member = participant name, score = answers x 2^42 + (2^42 - 1 - ms of the latest answer, or of the join before any): points, then the earlier time | one key per quiz, one member per participant | none while the quiz runs |
	// | `kuis:papan-baru:<quiz>` | sorted set | operator (Repair) | none: Repair renames it to the board | a board being rebuilt by Repair, as the board, plus one token member starting with a NUL byte; it exists only while Repair rebuilds | at most one key per quiz, for the length of a Repair | none while the quiz runs |
	// | `kuis:urutan-baru:<quiz>` | sorted set | operator (Repair) | none: Repair renames it to the order set | the order set being rebuilt with the board above, as the order set | at most one key per quiz, for the length of a Repair | none while the quiz runs |
	// | `kuis:kursus:<course>` | sorted set | operator (Fold, Unfold, Repair, Erase) | students, teacher and quiz application | member = participant name, score = the points of every quiz instance folded into the course, each (instance, participant) once; its members are exactly the participants the ledgers hold, 0-point ones included | one key per course, one member per participant | none |
	// | `kuis:kursus-kuis:<course>` | hash | operator (Fold, Unfold, Erase) | teacher, operator and quiz application (quizzes, recap, audit, repair) | the quiz index: field `<quiz>@<instance>` (the instance the quiz log's start entry names) = the instance's marker `<possible> <participants> <points> <digest> <folded_ms>`: 10 x `jumlah_soal`, the recap's standings and their points, the recap's digest, and the server's time in ms when the fold was complete (0 while it is in parts) | one key per course, one field per folded quiz instance | none |
	// | `kuis:kursus-rincian:<course>:<quiz>@<instance>` | hash | operator (Fold, Unfold, Erase) | teacher, operator and quiz application (recap, audit, repair) | the ledger of one folded quiz instance: participant = the points it gave them (a multiple of 10, 0 included), written with the total in one step | one key per folded quiz instance, one field per participant of its recap | none |
	// | `kuis:kelas:<class>` | hash | teacher (Enroll, Withdraw; operator: Erase) | every role (students, lookup, audit, grades) | the roster: student ID (1 to 64 bytes of printable ASCII without spaces) = the student's name on boards, in `CleanParticipant`'s form, no two names of a class alike | one key per class, one field per enrolled student | none |
	// | `kuis:kelas-nama:<class>` | hash | teacher (Enroll, Withdraw; operator: Erase) | every role (lookup, audit) | the roster turned around: name = student ID, written with the roster in one step | one key per class, one field per enrolled student | none |
	// | `kuis:kelas-mirip:<class>` | hash | teacher (Enroll, Withdraw; operator: Erase) | every role (audit) | a name's confusable key (its UTS #39 skeleton, case and width folded) = student ID, written with the roster in one step, so that no name a class would confuse with an enrolled one is enrolled | one key per class, one field per enrolled student | none |
}

// ACLRules gives the arguments of ACL SETUSER for each of the three roles.
func ExampleACLRules() {
	// Each role's rules go after ACL SETUSER <name> reset on >password. What
	// they grant keeps the contract's separation on the server: only the app
	// writes scores, only the teacher writes meta, only the operator deletes
	// and scans. Without WithClientCache they grant no CLIENT TRACKING:
	// build the user's client with DisableCache.
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
		rules := kuis.ACLRules(role)
		fmt.Printf("%-8s", role)
		for _, cmd := range []string{"+zadd", "+hset", "+unlink", "+scan", "+client|tracking"} {
			fmt.Printf(" %s=%v", cmd[1:], slices.Contains(rules, cmd))
		}
		fmt.Println()
	}
	// Output:
	// app      zadd=true hset=false unlink=false scan=false client|tracking=false
	// teacher  zadd=false hset=true unlink=false scan=false client|tracking=false
	// operator zadd=true hset=true unlink=true scan=true client|tracking=false
}

// ACL users belong to each Redis node, so a deployment creates the three
// roles' users on every node: a standalone server, or every primary and every
// replica of a cluster. This program prints a shell script that does it with
// redis-cli (authenticated by REDISCLI_AUTH), the users' passwords read from
// the environment, and saves the users on each node so that they outlive a
// restart: ACL SAVE where the node has an aclfile, else CONFIG REWRITE, which
// writes them into redis.conf. The script stops at the first reply that is
// not OK. Call ACLRules with the Store's own options.
func ExampleACLRules_deploy() {
	nodes := []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"}
	users := []struct {
		name, password string
		role           kuis.Role
	}{
		{"kuis-app", "$KUIS_APP_PASSWORD", kuis.RoleApp},
		{"kuis-teacher", "$KUIS_TEACHER_PASSWORD", kuis.RoleTeacher},
		{"kuis-operator", "$KUIS_OPERATOR_PASSWORD", kuis.RoleOperator},
	}
	fmt.Println("set -eu")
	fmt.Println(`ok() { r=$(redis-cli -u "redis://$node" "$@"); echo "$node $1 $2 ${3-}: $r"; [ "$r" = OK ]; }`)
	fmt.Println("for node in " + strings.Join(nodes, " ") + "; do")
	for _, u := range users {
		line := "  ok ACL SETUSER " + u.name + ` reset on ">` + u.password + `"`
		for _, rule := range kuis.ACLRules(u.role) {
			line += " '" + rule + "'" // quoted: the shell must not expand ~, * or ( )
		}
		fmt.Println(line)
	}
	fmt.Println(`  if [ -n "$(redis-cli -u "redis://$node" CONFIG GET aclfile | sed -n 2p)" ]; then ok ACL SAVE; else ok CONFIG REWRITE; fi`)
	fmt.Println("done")
	// Output:
	// set -eu
	// ok() { r=$(redis-cli -u "redis://$node" "$@"); echo "$node $1 $2 ${3-}: $r"; [ "$r" = OK ]; }
	// for node in 10.0.0.1:6379 10.0.0.2:6379 10.0.0.3:6379; do
	//   ok ACL SETUSER kuis-app reset on ">$KUIS_APP_PASSWORD" 'resetkeys' 'resetchannels' '~kuis:papan:*' '~kuis:jawaban:*' '~kuis:catatan:*' '~kuis:urutan:*' '%R~kuis:meta:*' '%R~kuis:kursus:*' '%R~kuis:kursus-kuis:*' '%R~kuis:kursus-rincian:*:*' '%R~kuis:kelas:*' '%R~kuis:kelas-nama:*' '%R~kuis:kelas-mirip:*' '-@all' '+hello' '+ping' '+client|setname' '+cluster|slots' '+cluster|shards' '+cluster|info' '+eval' '+evalsha' '+evalsha_ro' '+eval_ro' '+exec' '+exists' '+hget' '+hgetall' '+hlen' '+hmget' '+hscan' '+multi' '+sadd' '+scard' '+sismember' '+smembers' '+smismember' '+sscan' '+time' '+unwatch' '+wait' '+watch' '+xadd' '+xlen' '+xrange' '+xread' '+xrevrange' '+zadd' '+zcard' '+zcount' '+zmscore' '+zrange' '+zrevrank' '+zscan' '+zscore' '(~kuis:* +evalsha +eval)'
	//   ok ACL SETUSER kuis-teacher reset on ">$KUIS_TEACHER_PASSWORD" 'resetkeys' 'resetchannels' '~kuis:meta:*' '~kuis:catatan:*' '~kuis:kelas:*' '~kuis:kelas-nama:*' '~kuis:kelas-mirip:*' '%R~kuis:papan:*' '%R~kuis:jawaban:*' '%R~kuis:urutan:*' '%R~kuis:papan-baru:*' '%R~kuis:urutan-baru:*' '%R~kuis:kursus:*' '%R~kuis:kursus-kuis:*' '%R~kuis:kursus-rincian:*:*' '-@all' '+hello' '+ping' '+client|setname' '+cluster|slots' '+cluster|shards' '+cluster|info' '+eval' '+evalsha' '+evalsha_ro' '+eval_ro' '+exec' '+exists' '+hdel' '+hget' '+hgetall' '+hlen' '+hmget' '+hscan' '+hset' '+multi' '+pttl' '+scard' '+smembers' '+smismember' '+sscan' '+time' '+type' '+unwatch' '+wait' '+watch' '+xadd' '+xlen' '+xrange' '+xread' '+xrevrange' '+zcard' '+zcount' '+zmscore' '+zrange' '+zrevrank' '+zscan' '+zscore' '(~kuis:* +evalsha +eval)'
	//   ok ACL SETUSER kuis-operator reset on ">$KUIS_OPERATOR_PASSWORD" 'resetkeys' 'resetchannels' '~kuis:papan:*' '~kuis:urutan:*' '~kuis:papan-baru:*' '~kuis:urutan-baru:*' '~kuis:kursus:*' '~kuis:kursus-kuis:*' '~kuis:kursus-rincian:*:*' '%R~kuis:meta:*' '%R~kuis:jawaban:*' '%R~kuis:catatan:*' '%R~kuis:kelas:*' '%R~kuis:kelas-nama:*' '%R~kuis:kelas-mirip:*' '-@all' '+hello' '+ping' '+client|setname' '+cluster|slots' '+cluster|shards' '+cluster|info' '+cluster|nodes' '+eval' '+evalsha' '+evalsha_ro' '+eval_ro' '+exec' '+exists' '+hdel' '+hexists' '+hget' '+hgetall' '+hkeys' '+hlen' '+hmget' '+hscan' '+hset' '+multi' '+pttl' '+rename' '+scan' '+scard' '+sismember' '+smembers' '+smismember' '+srem' '+sscan' '+time' '+type' '+unlink' '+unwatch' '+wait' '+watch' '+xdel' '+xlen' '+xrange' '+xread' '+xrevrange' '+zadd' '+zcard' '+zcount' '+zmscore' '+zrange' '+zrem' '+zrevrank' '+zscan' '+zscore' '(~kuis:* +evalsha +eval)' '(%W~kuis:* +unlink)' '(~kuis:jawaban:* ~kuis:catatan:* ~kuis:kelas:* ~kuis:kelas-nama:* ~kuis:kelas-mirip:* +srem +xdel +hdel)'
	//   if [ -n "$(redis-cli -u "redis://$node" CONFIG GET aclfile | sed -n 2p)" ]; then ok ACL SAVE; else ok CONFIG REWRITE; fi
	// done
}

// WithTies(TiesByTime) puts first, among equal scores, the participant whose
// latest counted answer came first by the Redis server's clock; the default,
// TiesByName, keeps Redis's order (reverse byte order of names). Two Stores
// on one client read the same quiz both ways. Here the reference session is
// played one answer a second: in round 3 Ali reached 30 points before Citra.
// A repeated answer writes nothing, so it moves nobody.
func ExampleWithTies() {
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

	byName, err := kuis.New(client) // TiesByName, the default
	if err != nil {
		log.Fatal(err)
	}
	byTime, err := kuis.New(client, kuis.WithTies(kuis.TiesByTime))
	if err != nil {
		log.Fatal(err)
	}
	meta, err := byName.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// miniredis's clock, which its stream IDs follow, set before the quiz's
	// log starts: the reference session, question r answered in round r, one
	// answer a second.
	clock := time.Date(2026, 11, 30, 9, 15, 0, 125e6, time.UTC)
	mr.SetTime(clock)
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := byName.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			clock = clock.Add(time.Second)
			mr.SetTime(clock)
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}

	for _, store := range []*kuis.Store{byName, byTime} {
		board, err := store.Board("kuis-01")
		if err != nil {
			log.Fatal(err)
		}
		standings, err := board.Standings(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(standings)
	}

	board, err = byTime.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	clock = clock.Add(time.Second)
	mr.SetTime(clock)
	again, err := board.RecordAnswer(ctx, "Citra", 3) // a retry, a second later
	if err != nil {
		log.Fatal(err)
	}
	top, err := board.Page(ctx, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after Citra's repeat:", again.Duplicate, top)
	// Output:
	// [{1 1 Citra 30} {2 1 Ali 30} {3 3 Budi 20} {4 4 Dewi 10}]
	// [{1 1 Ali 30} {2 1 Citra 30} {3 3 Budi 20} {4 4 Dewi 10}]
	// after Citra's repeat: true [{1 1 Ali 30} {2 1 Citra 30}]
}

// Recap.Questions counts, for each question, the participants who answered
// it correctly: the lowest count is the hardest question. Recap.Answers lists
// every counted answer in the order counted.
func ExampleRecap_questions() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("ipa-02")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis IPA", 4); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("ipa-02")
	if err != nil {
		log.Fatal(err)
	}
	correct := []struct {
		name      string
		questions []int
	}{{"Ali", []int{1, 2, 3, 4}}, {"Budi", []int{1, 2, 4}}, {"Citra", []int{1, 4}}, {"Dewi", []int{2, 1}}}
	var answers []kuis.AnswerInput
	for _, p := range correct {
		for _, q := range p.questions {
			answers = append(answers, kuis.AnswerInput{Participant: p.name, Question: q})
		}
	}
	if _, err := board.RecordAnswers(ctx, answers); err != nil {
		log.Fatal(err)
	}

	recap, err := store.Recap(ctx, "ipa-02")
	if err != nil {
		log.Fatal(err)
	}
	hardest := recap.Questions[0]
	for _, q := range recap.Questions {
		fmt.Printf("question %d: %d of %d correct\n", q.Question, q.Correct, len(recap.Standings))
		if q.Correct < hardest.Correct {
			hardest = q
		}
	}
	fmt.Println("hardest: question", hardest.Question)
	first, last := recap.Answers[0], recap.Answers[len(recap.Answers)-1]
	fmt.Printf("%d answers, first %s on question %d, last %s on question %d\n",
		len(recap.Answers), first.Participant, first.Question, last.Participant, last.Question)
	// Output:
	// question 1: 4 of 4 correct
	// question 2: 3 of 4 correct
	// question 3: 1 of 4 correct
	// question 4: 3 of 4 correct
	// hardest: question 3
	// 11 answers, first Ali on question 1, last Dewi on question 1
}

// WriteAnswersCSV writes every counted answer in the order counted, with the
// Redis server's time of counting, in UTC to the millisecond (here miniredis's
// clock, set one second on before each answer of the reference session).
func ExampleRecap_WriteAnswersCSV() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// miniredis's clock, which its stream IDs follow, set before the quiz's
	// log starts: the reference session, question r answered in round r, one
	// answer a second.
	clock := time.Date(2026, 11, 30, 9, 15, 0, 125e6, time.UTC)
	mr.SetTime(clock)
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			clock = clock.Add(time.Second)
			mr.SetTime(clock)
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}
	recap, err := store.Recap(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := recap.WriteAnswersCSV(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// participant,question,answered_at
	// Ali,1,2026-11-30T09:15:01.125Z
	// Citra,1,2026-11-30T09:15:02.125Z
	// Ali,2,2026-11-30T09:15:03.125Z
	// Budi,2,2026-11-30T09:15:04.125Z
	// Citra,2,2026-11-30T09:15:05.125Z
	// Ali,3,2026-11-30T09:15:06.125Z
	// Budi,3,2026-11-30T09:15:07.125Z
	// Citra,3,2026-11-30T09:15:08.125Z
	// Dewi,3,2026-11-30T09:15:09.125Z
}

// Repair rewrites a board changed behind the library's back from the quiz's
// counted answers: every score becomes 10 x that participant's answers, a
// participant without answers leaves the board, and the time order is put
// right too. It reports what it changed, in participant order, and an empty
// slice when nothing needs it.
func ExampleStore_Repair() {
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

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// The contract's reference session: question r answered in round r.
	// Board: Citra 30, Ali 30, Budi 20, Dewi 10.
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}
	keys, err := store.Keys("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	byHand := rueidis.Commands{
		client.B().Zincrby().Key(keys.Board()).Increment(50).Member("Dewi").Build(),      // points without answers
		client.B().Zrem().Key(keys.Board()).Member("Budi").Build(),                       // a participant lost
		client.B().Zadd().Key(keys.Board()).ScoreMember().ScoreMember(40, "Eko").Build(), // never answered
	}
	for _, cmd := range byHand {
		if err := client.Do(ctx, cmd).Error(); err != nil {
			log.Fatal(err)
		}
	}
	before, err := board.Standings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("before:", before)

	corrections, err := store.Repair(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range corrections {
		fmt.Printf("%+v\n", c)
	}
	after, err := board.Standings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after:", after)
	violations, err := store.Audit(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	again, err := store.Repair(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("violations:", violations, "second Repair:", again)
	// Output:
	// before: [{1 1 Dewi 60} {2 2 Eko 40} {3 3 Citra 30} {4 3 Ali 30}]
	// {Participant:Budi Was:0 Now:20}
	// {Participant:Dewi Was:60 Now:10}
	// {Participant:Eko Was:40 Now:0}
	// after: [{1 1 Citra 30} {2 1 Ali 30} {3 3 Budi 20} {4 4 Dewi 10}]
	// violations: [] second Repair: []
}

// Events replays a quiz's feed from the start, in the order the answers were
// counted, and ends after the finish. A screen that lost its connection calls
// Events again with the last ID it saw and misses nothing; here it resumes
// after the fourth answer. The IDs are the server's times (miniredis's clock,
// set here, one answer a second).
func ExampleBoard_Events() {
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	// miniredis's clock, which its stream IDs follow, set before the quiz's
	// log starts: the reference session, question r answered in round r, one
	// answer a second.
	clock := time.Date(2026, 11, 30, 9, 15, 0, 125e6, time.UTC)
	mr.SetTime(clock)
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range round {
			clock = clock.Add(time.Second)
			mr.SetTime(clock)
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	var fourth string
	for ev, err := range board.Events(ctx, "") {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Kind == kuis.EventFinished {
			fmt.Println(ev.ID, ev.At.Format("15:04:05"), ev.Kind)
			continue
		}
		fmt.Printf("%s %s %s: %s, question %d, score %d\n", ev.ID, ev.At.Format("15:04:05"), ev.Kind, ev.Participant, ev.Question, ev.Score)
		if fourth == "" && ev.Participant == "Budi" {
			fourth = ev.ID
		}
	}
	fmt.Println("resumed after", fourth)
	for ev, err := range board.Events(ctx, fourth) {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Kind == kuis.EventFinished {
			fmt.Println(ev.Kind)
			continue
		}
		fmt.Println(ev.Kind, ev.Participant, ev.Score)
	}
	// Output:
	// 1796030101125-0 09:15:01 answer: Ali, question 1, score 10
	// 1796030102125-0 09:15:02 answer: Citra, question 1, score 10
	// 1796030103125-0 09:15:03 answer: Ali, question 2, score 20
	// 1796030104125-0 09:15:04 answer: Budi, question 2, score 10
	// 1796030105125-0 09:15:05 answer: Citra, question 2, score 20
	// 1796030106125-0 09:15:06 answer: Ali, question 3, score 30
	// 1796030107125-0 09:15:07 answer: Budi, question 3, score 20
	// 1796030108125-0 09:15:08 answer: Citra, question 3, score 30
	// 1796030109125-0 09:15:09 answer: Dewi, question 3, score 10
	// 1796030109125-1 09:15:09 finished
	// resumed after 1796030104125-0
	// answer Citra 20
	// answer Ali 30
	// answer Budi 20
	// answer Citra 30
	// answer Dewi 10
	// finished
}
