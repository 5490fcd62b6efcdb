package kuis_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// A quiz of a school's term, from the roster to the LMS: the teacher enrolls
// the class and makes a quiz for it; two students open their screens (Join)
// and one of them answers; the teacher finishes the quiz; the grades tell
// the student who came and scored nothing from the one who never came, and
// go to the LMS as a CSV its import maps by student_id, and as LTI AGS
// scores.
func Example_term() {
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

	// The teacher: the class's roster, and a quiz that names the class.
	class, err := store.Class("8a")
	if err != nil {
		log.Fatal(err)
	}
	if err := class.Enroll(ctx,
		kuis.Student{ID: "s-01", Name: "Ali"},
		kuis.Student{ID: "s-02", Name: "Budi"},
		kuis.Student{ID: "s-03", Name: "Citra"},
	); err != nil {
		log.Fatal(err)
	}
	meta, err := store.Meta("ipa-8a-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "IPA: Gaya", 2, kuis.ForClass("8a")); err != nil {
		log.Fatal(err)
	}

	// The students' screens: Ali and Budi open theirs; Ali answers both
	// questions right, Budi none; Citra never comes.
	board, err := store.Board("ipa-8a-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"Ali", "Budi"} {
		if _, err := board.Join(ctx, name); err != nil {
			log.Fatal(err)
		}
	}
	for q := 1; q <= 2; q++ {
		if _, err := board.RecordAnswer(ctx, "Ali", q); err != nil {
			log.Fatal(err)
		}
	}

	// The teacher finishes the quiz and takes the grades for the LMS.
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	recap, err := store.Recap(ctx, "ipa-8a-01")
	if err != nil {
		log.Fatal(err)
	}
	roster, err := class.Students(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range recap.Grades(roster) {
		fmt.Printf("%s %-5s %-7s %d/%d\n", g.StudentID, g.Name, g.Attendance, g.Score, g.Possible)
	}
	if err := recap.WriteGradesCSV(os.Stdout, roster); err != nil {
		log.Fatal(err)
	}
	for _, s := range recap.AGSScores(roster) {
		fmt.Println(s.UserID, s.ActivityProgress, s.GradingProgress)
	}
	// Output:
	// s-01 Ali   present 20/20
	// s-02 Budi  present 0/20
	// s-03 Citra absent  0/20
	// student_id,name,attendance,score,possible,q1,q2
	// s-01,Ali,present,20,20,1,1
	// s-02,Budi,present,0,20,0,0
	// s-03,Citra,absent,,20,,
	// s-01 Completed FullyGraded
	// s-02 Completed FullyGraded
	// s-03 Initialized NotReady
}
