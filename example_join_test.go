package kuis_test

import (
	"context"
	"fmt"
	"log"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// A student's page joins the quiz as it opens, so that the board shows who
// came before the first answer, and the recap tells a student who came and
// scored nothing from one who never came. A second Join (a reload, a double
// tap) changes nothing; after the finish, only those on the board are
// answered.
func ExampleBoard_Join() {
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
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"Ali", "Budi", "Ali"} {
		me, err := board.Join(ctx, name)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("Join(%s): %+v\n", name, me)
	}
	if _, err := board.RecordAnswer(ctx, "Budi", 1); err != nil {
		log.Fatal(err)
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	_, err = board.Join(ctx, "Citra")
	fmt.Println("Join(Citra) after the finish:", err)

	recap, err := store.Recap(ctx, "kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range recap.Standings {
		fmt.Printf("%d. %s %d\n", s.Rank, s.Participant, s.Score)
	}
	for ev, err := range board.Events(ctx, "") {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ev.Kind, ev.Participant, ev.Question, ev.Score)
	}
	// Output:
	// Join(Ali): {Rank:1 CompetitionRank:1 Participant:Ali Score:0}
	// Join(Budi): {Rank:1 CompetitionRank:1 Participant:Budi Score:0}
	// Join(Ali): {Rank:2 CompetitionRank:1 Participant:Ali Score:0}
	// Join(Citra) after the finish: kuis: quiz is finished: quiz "kuis-01", participant "Citra"
	// 1. Budi 10
	// 2. Ali 0
	// joined Ali 0 0
	// joined Budi 0 0
	// answer Budi 1 10
	// finished  0 0
}
