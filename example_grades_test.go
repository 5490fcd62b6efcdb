package kuis_test

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/kuisboard/kuis"
)

// quizOfClass8A is a finished quiz of three questions as Store.Recap
// returns one: Citra answered all three, Ali two, Eka joined and answered
// none (0 points, on the board), and Zaki, who is not on the class's roster,
// answered one.
func quizOfClass8A() kuis.Recap {
	finished := time.Date(2026, 11, 30, 9, 15, 2, 125e6, time.UTC)
	r := kuis.Recap{
		QuizID: "kuis-01",
		Info:   kuis.Info{Title: "Kuis Pecahan", Questions: 3, Status: kuis.StatusFinished},
		Standings: []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 30},
			{Rank: 2, CompetitionRank: 2, Participant: "Ali", Score: 20},
			{Rank: 3, CompetitionRank: 3, Participant: "Zaki", Score: 10},
			{Rank: 4, CompetitionRank: 4, Participant: "Eka", Score: 0},
		},
		FinishedAt: finished,
	}
	for i, a := range []struct {
		name     string
		question int
	}{{"Citra", 1}, {"Ali", 1}, {"Citra", 2}, {"Zaki", 2}, {"Ali", 3}, {"Citra", 3}} {
		at := finished.Add(time.Duration(i-10) * time.Minute)
		r.Answers = append(r.Answers, kuis.AnswerRecord{Participant: a.name, Question: a.question, At: at})
	}
	return r
}

// The class's roster, by the IDs the school's LMS knows: Budi is enrolled
// but never came.
var class8A = []kuis.Student{
	{ID: "2026-0101", Name: "Ali"},
	{ID: "2026-0102", Name: "Budi"},
	{ID: "2026-0103", Name: "Citra"},
	{ID: "2026-0105", Name: "Eka"},
}

// Grades tells apart a student who came and scored nothing (Eka, present
// with 0) from one who never came (Budi, absent), and keeps the participant
// the roster lacks (Zaki) for the teacher to see. The CSV is for a
// gradebook's import: an absent student's cells are empty, so the import
// leaves their grade blank rather than 0 (drop the not_enrolled row before a
// Moodle import). The AGS scores are what a tool posts to an LTI platform's
// line item: Eka's 0 is a grade, Budi gets none, and Zaki, whom the platform
// does not know, is left out.
func ExampleRecap_Grades() {
	recap := quizOfClass8A()
	for _, g := range recap.Grades(class8A) {
		correct := "-" // absent: no answers to list
		if g.Correct != nil {
			correct = fmt.Sprint(g.Correct)
		}
		fmt.Printf("%-9s %-5s %-12s %2d/%d %s\n", g.StudentID, g.Name, g.Attendance, g.Score, g.Possible, correct)
	}

	fmt.Println()
	if err := recap.WriteGradesCSV(os.Stdout, class8A); err != nil {
		log.Fatal(err)
	}

	fmt.Println()
	for _, s := range recap.AGSScores(class8A) {
		b, err := json.Marshal(s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(b))
	}
	// Output:
	// 2026-0101 Ali   present      20/30 [1 3]
	// 2026-0102 Budi  absent        0/30 -
	// 2026-0103 Citra present      30/30 [1 2 3]
	// 2026-0105 Eka   present       0/30 []
	//           Zaki  not_enrolled 10/30 [2]
	//
	// student_id,name,attendance,score,possible,q1,q2,q3
	// 2026-0101,Ali,present,20,30,1,0,1
	// 2026-0102,Budi,absent,,30,,,
	// 2026-0103,Citra,present,30,30,1,1,1
	// 2026-0105,Eka,present,0,30,0,0,0
	// ,Zaki,not_enrolled,10,30,0,1,0
	//
	// {"userId":"2026-0101","scoreGiven":20,"scoreMaximum":30,"activityProgress":"Completed","gradingProgress":"FullyGraded","timestamp":"2026-11-30T09:15:02.125Z"}
	// {"userId":"2026-0102","scoreMaximum":30,"activityProgress":"Initialized","gradingProgress":"NotReady","timestamp":"2026-11-30T09:15:02.125Z"}
	// {"userId":"2026-0103","scoreGiven":30,"scoreMaximum":30,"activityProgress":"Completed","gradingProgress":"FullyGraded","timestamp":"2026-11-30T09:15:02.125Z"}
	// {"userId":"2026-0105","scoreGiven":0,"scoreMaximum":30,"activityProgress":"Completed","gradingProgress":"FullyGraded","timestamp":"2026-11-30T09:15:02.125Z"}
}
