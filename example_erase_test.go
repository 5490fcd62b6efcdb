package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// A parent asks the school to delete their child's data: the operator
// erases the name from every quiz, course and roster; the other students'
// points, ranks and course totals stay as they were. The archives the
// school keeps are rewritten apart (kuis erase -archive).
func ExampleStore_Erase() {
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
	class, err := store.Class("8a")
	if err != nil {
		log.Fatal(err)
	}
	if err := class.Enroll(ctx, kuis.Student{ID: "S1", Name: "Ali"}, kuis.Student{ID: "S2", Name: "Budi"}); err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis IPA", 3, kuis.ForClass("8a")); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range []kuis.AnswerInput{{"Ali", 1}, {"Ali", 2}, {"Budi", 1}, {"Citra", 3}} {
		if _, err := board.RecordAnswer(ctx, a.Participant, a.Question); err != nil {
			log.Fatal(err)
		}
	}
	_, err = store.Erase(ctx, "Ali")
	fmt.Println("while the quiz runs:", errors.Is(err, kuis.ErrQuizRunning))
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	recap, err := store.Recap(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	course, err := store.Course("ipa-8a")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := course.Fold(ctx, recap); err != nil {
		log.Fatal(err)
	}

	erased, err := store.Erase(ctx, "Ali")
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range erased.Quizzes {
		fmt.Printf("quiz %s: %d points, %d answers, %d log entries\n", q.QuizID, q.Points, q.Answers, q.Entries)
	}
	for _, c := range erased.Courses {
		fmt.Printf("course %s: %d points from %d quiz\n", c.CourseID, c.Points, len(c.Instances))
	}
	for _, c := range erased.Classes {
		fmt.Printf("class %s: student %s\n", c.ClassID, c.StudentID)
	}
	standings, err := board.Standings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("board:", standings)
	totals, err := course.Standings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("course:", totals)
	again, err := store.Erase(ctx, "Ali")
	fmt.Println("again:", again.Empty(), err)
	// Output:
	// while the quiz runs: true
	// quiz kuis-01: 20 points, 2 answers, 2 log entries
	// course ipa-8a: 20 points from 1 quiz
	// class 8a: student S1
	// board: [{1 1 Citra 10} {2 1 Budi 10}]
	// course: [{1 1 Citra 10} {2 1 Budi 10}]
	// again: true <nil>
}
