// Command session replays the contract's reference session through kuis and
// prints every reply in order. It runs on an in-process miniredis when neither
// REDIS_ADDR nor REDIS_CLUSTER_ADDRS is set, and on that server otherwise,
// with the same output: it prints the answer log without its times, which
// are the server's clock. On a real server it uses its own namespace, so it
// never touches the contract's kuis:* keys of anyone else.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	client, done, err := connect()
	if err != nil {
		return err
	}
	defer done()

	// The contract's keys are kuis:*; a shared server gets a namespace of this run's own.
	var opts []kuis.Option
	if os.Getenv("REDIS_ADDR") != "" || os.Getenv("REDIS_CLUSTER_ADDRS") != "" {
		opts = append(opts, kuis.WithNamespace(fmt.Sprintf("kuis-session-%d", os.Getpid())))
	}
	if client.Mode() == rueidis.ClientModeCluster {
		opts = append(opts, kuis.WithHashTag()) // a quiz's keys must share a slot
	}
	store, err := kuis.New(client, opts...)
	if err != nil {
		return err
	}

	// Clean start, as the session's first line does.
	if _, err := store.Purge(ctx); err != nil {
		return err
	}

	meta, err := store.Meta("kuis-01")
	if err != nil {
		return err
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		return err
	}
	keys, err := store.Keys("kuis-01")
	if err != nil {
		return err
	}

	fmt.Println("# teacher writes the meta")
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		return err
	}

	fmt.Println("# nine correct answers in three rounds, question r in round r")
	rounds := [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}}
	var scores []string
	for q, round := range rounds {
		for _, name := range round {
			answer, err := board.RecordAnswer(ctx, name, q+1)
			if err != nil {
				return err
			}
			scores = append(scores, fmt.Sprint(answer.Score))
		}
	}
	fmt.Println(strings.Join(scores, " "))

	fmt.Println("# the board, highest first")
	standings, err := board.Standings(ctx)
	if err != nil {
		return err
	}
	for _, s := range standings {
		fmt.Printf("%d. %s %d (competition rank %d)\n", s.Rank, s.Participant, s.Score, s.CompetitionRank)
	}

	fmt.Println("# own ranks")
	for _, name := range []string{"Ali", "Dewi"} {
		s, err := board.Standing(ctx, name)
		if err != nil {
			return err
		}
		fmt.Printf("%s: rank %d, competition rank %d\n", name, s.Rank, s.CompetitionRank)
	}

	fmt.Println("# meta")
	info, err := meta.Get(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("judul: %s\njumlah_soal: %d\nstatus: %s\n", info.Title, info.Questions, info.Status)

	fmt.Println("# the answer log: participant and question, in the order counted (times left out)")
	recap, err := store.Recap(ctx, "kuis-01")
	if err != nil {
		return err
	}
	var logged []string
	for _, a := range recap.Answers {
		logged = append(logged, fmt.Sprintf("%s %d", a.Participant, a.Question))
	}
	fmt.Println(strings.Join(logged, ", "))

	fmt.Println("# TTL of the five keys")
	names := []string{"papan", "meta", "jawaban", "catatan", "urutan"}
	byName := map[string]string{"papan": keys.Board(), "meta": keys.Meta(), "jawaban": keys.Answers(),
		"catatan": keys.Log(), "urutan": keys.Order()}
	for _, name := range names {
		ttl, err := client.Do(ctx, client.B().Ttl().Key(byName[name]).Build()).AsInt64()
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
	_, err = board.RecordAnswer(ctx, "Dewi", 1)
	fmt.Println("refused:", errors.Is(err, kuis.ErrQuizFinished))

	fmt.Println("# cleanup after the recap")
	n, err := store.Purge(ctx)
	if err != nil {
		return err
	}
	fmt.Println("deleted:", n)
	for _, name := range names {
		typ, err := client.Do(ctx, client.B().Type().Key(byName[name]).Build()).ToString()
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s\n", name, typ)
	}
	return nil
}

// connect opens a client of REDIS_CLUSTER_ADDRS (a Redis Cluster, its nodes
// comma-separated), else of REDIS_ADDR (a standalone Redis), else of an
// in-process miniredis; done closes what connect opened.
func connect() (client rueidis.Client, done func(), err error) {
	var opt rueidis.ClientOption
	stop := func() {}
	switch nodes, addr := os.Getenv("REDIS_CLUSTER_ADDRS"), os.Getenv("REDIS_ADDR"); {
	case nodes != "":
		opt = rueidis.ClientOption{InitAddress: strings.Split(nodes, ",")}
	case addr != "":
		// A standalone server: rueidis need not ask it for cluster slots.
		opt = rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true}
	default:
		m, err := miniredis.Run()
		if err != nil {
			return nil, nil, err
		}
		stop = m.Close
		opt = rueidis.ClientOption{
			InitAddress:       []string{m.Addr()},
			DisableCache:      true, // miniredis has no CLIENT TRACKING (client-side caching)
			ForceSingleClient: true, // miniredis fakes a one-node cluster; keep rueidis standalone
		}
	}
	if client, err = rueidis.NewClient(opt); err != nil {
		stop()
		return nil, nil, err
	}
	return client, func() { client.Close(); stop() }, nil
}
