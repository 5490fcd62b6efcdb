// Command lesson plays the teacher and the class of one quiz with the
// library, so that CI can run the built kuis command against a real lesson:
//
//	lesson -addr host:port -namespace NS -quiz ID create   # the teacher creates the quiz
//	lesson -addr host:port -namespace NS -quiz ID play     # the contract's reference session, then Finish
//
// The reference session ends with Citra 30, Ali 30, Budi 20, Dewi 10.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

func main() {
	addr := flag.String("addr", os.Getenv("REDIS_ADDR"), "the standalone Redis server, `host:port` (default $REDIS_ADDR)")
	ns := flag.String("namespace", kuis.DefaultNamespace, "the keys' first segment")
	quiz := flag.String("quiz", "kuis-01", "the quiz `ID`")
	flag.Parse()
	if err := run(*addr, *ns, *quiz, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "lesson:", err)
		os.Exit(1)
	}
}

func run(addr, ns, quiz, step string) error {
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true})
	if err != nil {
		return err
	}
	defer client.Close()
	ctx := context.Background()
	store, err := kuis.New(client, kuis.WithNamespace(ns))
	if err != nil {
		return err
	}
	meta, err := store.Meta(quiz)
	if err != nil {
		return err
	}
	board, err := store.Board(quiz)
	if err != nil {
		return err
	}
	switch step {
	case "create":
		return meta.Create(ctx, "Kuis Matematika Kelas 8", 3)
	case "play":
		for q, round := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
			for _, name := range round {
				if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
					return err
				}
			}
		}
		return meta.Finish(ctx)
	}
	return fmt.Errorf("unknown step %q: want create or play", step)
}
