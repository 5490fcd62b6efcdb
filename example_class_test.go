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

// A service cleans a name once, when the student joins, and uses what
// CleanParticipant returns from then on: space around it is trimmed, a name
// typed in decomposed form is composed, fullwidth letters become the plain
// ones, and a name that would mislead a class is refused.
func ExampleCleanParticipant() {
	for _, typed := range []string{"  Ali\u00a0", "Jose\u0301", "\uff21\uff4c\uff49", "\u202eilA", "\u200b", "Ali\u200dBaba"} {
		name, err := kuis.CleanParticipant(typed)
		fmt.Printf("%+q: %+q %v\n", typed, name, err != nil)
	}
	// Output:
	// "  Ali\u00a0": "Ali" false
	// "Jose\u0301": "Jos\u00e9" false
	// "\uff21\uff4c\uff49": "Ali" false
	// "\u202eilA": "" true
	// "\u200b": "" true
	// "Ali\u200dBaba": "" true
}

// A projected board shows the quiz's progress from Summary, and a student's
// screen the questions they got right from Answered.
func ExampleBoard_Summary() {
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
	if err := meta.Create(ctx, "Kuis IPA", 5); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range []kuis.AnswerInput{{"Ali", 4}, {"Ali", 1}, {"Citra", 1}, {"Ali", 4}} {
		if _, err := board.RecordAnswer(ctx, a.Participant, a.Question); err != nil {
			log.Fatal(err)
		}
	}
	summary, err := board.Summary(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", summary)
	for _, name := range []string{"Ali", "Citra", "Dewi"} {
		answered, err := board.Answered(ctx, name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, "answered", answered)
	}
	// Output:
	// {Title:Kuis IPA Questions:5 Status:berjalan Participants:2 Answers:3}
	// Ali answered [1 4]
	// Citra answered [1]
	// Dewi answered []
}

// The gradebook is the recap by participant: one row each, in standings
// order, with the questions answered correctly; WriteGradebookCSV gives the
// spreadsheet a teacher keeps, and FinishedAt the server's time of Finish.
func ExampleRecap_Gradebook() {
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
	if err := meta.Create(ctx, "Kuis IPS", 3); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range []kuis.AnswerInput{{"Budi", 2}, {"Ali", 1}, {"Ali", 3}} {
		if _, err := board.RecordAnswer(ctx, a.Participant, a.Question); err != nil {
			log.Fatal(err)
		}
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	recap, err := store.Recap(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range recap.Gradebook() {
		fmt.Printf("%+v\n", row)
	}
	if err := recap.WriteGradebookCSV(os.Stdout); err != nil {
		log.Fatal(err)
	}
	fmt.Println("finished at the server's time:", !recap.FinishedAt.IsZero())
	// Output:
	// {Participant:Ali Score:20 Correct:[1 3]}
	// {Participant:Budi Score:10 Correct:[2]}
	// participant,score,1,2,3
	// Ali,20,1,0,1
	// Budi,10,0,1,0
	// finished at the server's time: true
}

// Stats are the Store's counters, for an operator's dashboard: a class's
// double taps show as Duplicates, answers after Finish as Refused.Finished.
func ExampleStore_Stats() {
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
	if err := meta.Create(ctx, "Kuis Bahasa", 2); err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range []kuis.AnswerInput{{"Ali", 1}, {"Ali", 1}, {"Budi", 1}, {"Budi", 3}} {
		board.RecordAnswer(ctx, a.Participant, a.Question) //nolint:errcheck // Stats counts every outcome
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	board.RecordAnswer(ctx, "Citra", 2) //nolint:errcheck // refused: the quiz is finished

	st := store.Stats()
	fmt.Printf("counted %d, duplicates %d, refused %+v\n", st.Counted, st.Duplicates, st.Refused)
	fmt.Printf("runs %d carrying %d answers\n", st.Runs, st.RunAnswers)
	// Output:
	// counted 2, duplicates 1, refused {Finished:1 NotFound:0 InvalidQuestion:1 InvalidParticipant:0 Corrupt:0 Forbidden:0}
	// runs 5 carrying 5 answers
}
