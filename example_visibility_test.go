package kuis_test

import (
	"context"
	"fmt"
	"log"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// The teacher hides the board until the quiz is finished; a projector asks
// the visibility before it shows standings, and shows pseudonyms instead of
// names. The library refuses no read: the teacher's own screen still reads
// the hidden board.
func ExampleMeta_SetVisibility() {
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
	if err := meta.SetVisibility(ctx, kuis.VisibilityAtEnd); err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"Ali", "Citra", "Ali"} {
		if _, err := board.RecordAnswer(ctx, name, 1); err != nil {
			log.Fatal(err)
		}
	}
	secret := []byte("kelas-8a-rahasia-2026") // in production: 16+ random bytes from the environment
	projector := func() {
		info, err := meta.Get(ctx)
		if err != nil {
			log.Fatal(err)
		}
		if !info.Visibility.ShowsBoard(info.Status) {
			fmt.Printf("%s (%s): board hidden\n", info.Status, info.Visibility)
			return
		}
		standings, err := board.Standings(ctx)
		if err != nil {
			log.Fatal(err)
		}
		for _, s := range standings {
			fmt.Printf("%d. %s: %d points\n", s.Rank, kuis.Pseudonym(secret, s.Participant), s.Score)
		}
	}
	projector()
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	projector()
	fmt.Println("Ali sees:", kuis.Pseudonym(secret, "Ali"))
	// Output:
	// berjalan (akhir): board hidden
	// 1. Srigunting Terang 17: 10 points
	// 2. Merpati Ajaib 63: 10 points
	// Ali sees: Merpati Ajaib 63
}
