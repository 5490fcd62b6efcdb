// Command session replays the contract's reference session through kuis and
// prints every reply in order. It runs on an in-process miniredis when
// REDIS_ADDR is unset and on the server at REDIS_ADDR otherwise, with the same
// output. On a real server it uses its own namespace, so it never touches the
// contract's kuis:* keys of anyone else.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	client, closeClient, err := redistest.Open()
	if err != nil {
		return err
	}
	defer closeClient()

	// The contract's keys are kuis:*; a shared server gets a namespace of its own.
	ns := kuis.WithNamespace(namespace())
	opts := []kuis.Option{ns}
	if redistest.Cluster() {
		opts = append(opts, kuis.WithHashTag())
	}

	// Clean start, as the session's first line does.
	if _, err := kuis.Purge(ctx, client, opts...); err != nil {
		return err
	}

	meta, err := kuis.NewMeta(client, "kuis-01", opts...)
	if err != nil {
		return err
	}
	board, err := kuis.NewBoard(client, "kuis-01", opts...)
	if err != nil {
		return err
	}

	fmt.Println("# teacher writes the meta")
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		return err
	}

	fmt.Println("# nine correct answers in three rounds")
	rounds := [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}}
	var scores []string
	for _, round := range rounds {
		for _, name := range round {
			score, err := board.RecordCorrect(ctx, name)
			if err != nil {
				return err
			}
			scores = append(scores, fmt.Sprint(score))
		}
	}
	fmt.Println(strings.Join(scores, " "))

	fmt.Println("# the board, highest first")
	standings, err := board.Standings(ctx)
	if err != nil {
		return err
	}
	for _, s := range standings {
		fmt.Printf("%d. %s %d\n", s.Rank, s.Participant, s.Score)
	}

	fmt.Println("# own ranks")
	for _, name := range []string{"Ali", "Dewi"} {
		rank, err := board.Rank(ctx, name)
		if err != nil {
			return err
		}
		fmt.Printf("%s: rank %d\n", name, rank)
	}

	fmt.Println("# meta")
	info, err := meta.Get(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("judul: %s\njumlah_soal: %d\nstatus: %s\n", info.Title, info.Questions, info.Status)

	fmt.Println("# TTL of both keys")
	keys := map[string]string{"papan": board.Keys().Board(), "meta": meta.Keys().Meta()}
	for _, name := range []string{"papan", "meta"} {
		ttl, err := client.Do(ctx, client.B().Ttl().Key(keys[name]).Build()).AsInt64()
		if err != nil {
			return err
		}
		fmt.Printf("%s: %d\n", name, ttl)
	}

	fmt.Println("# teacher finishes the quiz")
	if err := meta.Finish(ctx); err != nil {
		return err
	}
	status, err := meta.Status(ctx)
	if err != nil {
		return err
	}
	fmt.Println("status:", status)

	fmt.Println("# an answer after the finish")
	_, err = board.RecordCorrect(ctx, "Dewi")
	fmt.Println("refused:", errors.Is(err, kuis.ErrQuizFinished))

	fmt.Println("# cleanup after the recap")
	n, err := kuis.Purge(ctx, client, opts...)
	if err != nil {
		return err
	}
	fmt.Println("deleted:", n)
	for _, name := range []string{"papan", "meta"} {
		typ, err := client.Do(ctx, client.B().Type().Key(keys[name]).Build()).ToString()
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s\n", name, typ)
	}
	return nil
}

// namespace is "kuis" on the in-process server and a namespace of this run on
// a real one.
func namespace() string {
	if redistest.Real() {
		return fmt.Sprintf("kuis-session-%d", os.Getpid())
	}
	return kuis.DefaultNamespace
}
