// Command soak runs many classroom quizzes through their whole life at once,
// over and over, against a real Redis, and checks every grade against an
// independent in-memory tally. It is not run by CI: start it by hand.
//
//	go run ./examples/soak -addr 127.0.0.1:6379 -quizzes 50 -duration 60s
//
// Each quiz: Create; writers submit every correct answer twice (double
// submits, some at the same moment) with RecordAnswer, retrying transient
// errors, while a reader polls the board with and without the client-side
// cache and in time order; Finish; one late answer that must be refused;
// Recap (standings and answer log) compared with the tally; Audit, which must
// find nothing; PurgeQuiz whose archive refuses a
// recap that differs from the tally; then the next quiz. It prints the operations done, errors by kind and
// lost=<n> doubled=<n> (answers), and exits 1 if either is not 0 or a check
// failed. It works in a namespace of its own and purges it at the end.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log"
	mrand "math/rand/v2"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

func main() { os.Exit(run()) }

// run is the whole soak; its result is the exit code, returned rather than
// exited with so that the deferred cleanup runs.
func run() int {
	defaultAddr := os.Getenv("REDIS_ADDR")
	if defaultAddr == "" {
		defaultAddr = "127.0.0.1:6379"
	}
	addr := flag.String("addr", defaultAddr, "Redis server host:port (default $REDIS_ADDR or 127.0.0.1:6379)")
	quizzes := flag.Int("quizzes", 50, "quizzes living at once")
	duration := flag.Duration("duration", 60*time.Second, "how long to keep starting new quiz lives")
	participants := flag.Int("participants", 12, "participants per quiz")
	questions := flag.Int("questions", 10, "questions per quiz")
	writers := flag.Int("writers", 4, "concurrent answer writers per quiz")
	flag.Parse()

	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{*addr}, ForceSingleClient: true})
	if err != nil {
		log.Fatalf("connect to %s: %v", *addr, err)
	}
	s := &soak{
		client: client, ns: namespace(), participants: *participants, questions: *questions, writers: *writers,
		ops: map[string]int64{}, errs: map[string]int64{},
	}
	// Three Stores on one client: the writes and checked reads, the students'
	// screens through the client-side cache, and screens in time order.
	if s.store, err = kuis.New(client, kuis.WithNamespace(s.ns)); err == nil {
		s.cached, err = kuis.New(client, kuis.WithNamespace(s.ns), kuis.WithClientCache(time.Second))
	}
	if err == nil {
		s.byTime, err = kuis.New(client, kuis.WithNamespace(s.ns), kuis.WithTies(kuis.TiesByTime))
	}
	if err != nil {
		client.Close()
		log.Fatal(err)
	}
	defer client.Close()
	defer func() {
		n, err := s.store.Purge(context.Background())
		fmt.Printf("cleanup: purged %d leftover keys of %s:* (err %v)\n", n, s.ns, err)
	}()

	fmt.Printf("soak: %d quizzes x %d participants x %d questions, %d writers each, for %v, on %s, namespace %s\n",
		*quizzes, *participants, *questions, *writers, *duration, *addr, s.ns)
	start := time.Now()
	stop := start.Add(*duration)
	var wg sync.WaitGroup
	for i := 0; i < *quizzes; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for gen := 0; time.Now().Before(stop); gen++ {
				s.life(fmt.Sprintf("q%03d-%d", i, gen))
			}
		}()
	}
	wg.Wait()
	s.report(time.Since(start))
	if s.lost.Load() != 0 || s.doubled.Load() != 0 || s.failed.Load() != 0 {
		return 1
	}
	return 0
}

// namespace is "soak" + 8 random hex characters: never the contract's "kuis".
func namespace() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		log.Fatal(err)
	}
	return "soak" + hex.EncodeToString(b[:])
}

// soak holds the shared client and the counters of the whole run.
type soak struct {
	client                            rueidis.Client
	ns                                string
	store, cached, byTime             *kuis.Store
	participants, questions, writers  int
	lives                             atomic.Int64
	lost, doubled, failed, answerSent atomic.Int64

	mu   sync.Mutex
	ops  map[string]int64 // successful operations by name
	errs map[string]int64 // errors by operation and kind
}

func (s *soak) op(name string) {
	s.mu.Lock()
	s.ops[name]++
	s.mu.Unlock()
}

func (s *soak) fail(op string, err error) {
	s.mu.Lock()
	s.errs[op+": "+kind(err)]++
	s.mu.Unlock()
}

// check records a failed invariant; the run will exit 1.
func (s *soak) check(quiz, format string, args ...any) {
	s.failed.Add(1)
	log.Printf("CHECK FAILED %s: %s", quiz, fmt.Sprintf(format, args...))
}

var sentinels = []error{
	kuis.ErrInvalidQuizID, kuis.ErrInvalidNamespace, kuis.ErrInvalidParticipant, kuis.ErrInvalidMeta,
	kuis.ErrInvalidQuestion, kuis.ErrInvalidRange, kuis.ErrNoClient, kuis.ErrQuizExists,
	kuis.ErrQuizNotFound, kuis.ErrQuizFinished, kuis.ErrQuizRunning, kuis.ErrNotOnBoard,
	kuis.ErrNoArchive, kuis.ErrCorrupt, kuis.ErrNeedsHashTag, kuis.ErrForbidden,
}

// kind names an error for the report: the library sentinel it wraps, a
// context error, or "network/other".
func kind(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline exceeded"
	case errors.Is(err, context.Canceled):
		return "canceled"
	default:
		return "network/other"
	}
}

// retry runs f with a 2 s deadline per attempt until it succeeds, returns a
// library refusal (which a retry cannot cure), or 20 attempts failed.
func (s *soak) retry(op string, f func(ctx context.Context) error) error {
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = f(ctx)
		cancel()
		if err == nil {
			s.op(op)
			return nil
		}
		s.fail(op, err)
		if kind(err) != "deadline exceeded" && kind(err) != "network/other" {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

type pair struct {
	participant string
	question    int
}

// life runs one quiz from Create to PurgeQuiz and checks its grades.
func (s *soak) life(id string) {
	s.lives.Add(1)
	rng := mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), uint64(len(id))))
	meta, err := s.store.Meta(id)
	if err != nil {
		s.check(id, "Meta: %v", err)
		return
	}
	board, err := s.store.Board(id)
	if err != nil {
		s.check(id, "Board: %v", err)
		return
	}
	cached, err := s.cached.Board(id)
	if err != nil {
		s.check(id, "Board (cached): %v", err)
		return
	}
	cmeta, err := s.cached.Meta(id)
	if err != nil {
		s.check(id, "Meta (cached): %v", err)
		return
	}
	timed, err := s.byTime.Board(id)
	if err != nil {
		s.check(id, "Board (by time): %v", err)
		return
	}

	attempts := 0
	err = s.retry("Create", func(ctx context.Context) error {
		attempts++
		err := meta.Create(ctx, "Soak "+id, s.questions)
		if errors.Is(err, kuis.ErrQuizExists) && attempts > 1 {
			return nil // an earlier attempt was applied and its reply lost
		}
		return err
	})
	if err != nil {
		s.check(id, "Create: %v", err)
		return
	}

	// The tally: which answers are correct, decided here and nowhere else.
	tally := map[string]int64{}
	var subs []pair
	for p := 0; p < s.participants; p++ {
		name := fmt.Sprintf("murid-%02d", p)
		for q := 1; q <= s.questions; q++ {
			if rng.IntN(10) < 7 {
				tally[name] += 10
				subs = append(subs, pair{name, q}, pair{name, q}) // every answer sent twice
			}
		}
	}
	rng.Shuffle(len(subs), func(i, j int) { subs[i], subs[j] = subs[j], subs[i] })

	var (
		mu        sync.Mutex
		firstAcks = map[pair]int{}
	)
	queue := make(chan pair)
	answering := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < s.writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range queue {
				s.answerSent.Add(1)
				var a kuis.Answer
				err := s.retry("RecordAnswer", func(ctx context.Context) error {
					var err error
					a, err = board.RecordAnswer(ctx, p.participant, p.question)
					return err
				})
				if err != nil {
					s.check(id, "RecordAnswer(%v): %v", p, err)
					continue
				}
				if !a.Duplicate {
					mu.Lock()
					firstAcks[p]++
					mu.Unlock()
				}
			}
		}()
	}
	// The reader polls while answers arrive; a score above the final tally is a doubling.
	var readerDone sync.WaitGroup
	readerDone.Add(1)
	readRng := mrand.New(mrand.NewPCG(rng.Uint64(), rng.Uint64()))
	go func() {
		defer readerDone.Done()
		for {
			select {
			case <-answering:
				return
			default:
			}
			s.read(id, []*kuis.Board{board, cached, timed}, cmeta, tally, readRng)
			time.Sleep(time.Duration(readRng.IntN(5)) * time.Millisecond)
		}
	}()
	for _, p := range subs {
		queue <- p
		// Now and then a third copy right behind, so two writers race on one answer.
		if rng.IntN(4) == 0 {
			queue <- p
		}
	}
	close(queue)
	wg.Wait()
	close(answering)
	readerDone.Wait()
	for p, n := range firstAcks {
		if n > 1 {
			s.doubled.Add(int64(n - 1))
			s.check(id, "%v acknowledged as new %d times", p, n)
		}
	}

	if err := s.retry("Finish", meta.Finish); err != nil {
		s.check(id, "Finish: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_, err = board.RecordAnswer(ctx, "terlambat", 1)
	cancel()
	if errors.Is(err, kuis.ErrQuizFinished) {
		s.op("RecordAnswer refused after Finish")
	} else {
		s.check(id, "RecordAnswer after Finish = %v, want ErrQuizFinished", err)
	}

	var recap kuis.Recap
	if err := s.retry("Recap", func(ctx context.Context) error {
		var err error
		recap, err = s.store.Recap(ctx, id)
		return err
	}); err != nil {
		s.check(id, "Recap: %v", err)
		return
	}
	lost, doubled := compare(tally, recap)
	s.lost.Add(lost)
	s.doubled.Add(doubled)
	if lost != 0 || doubled != 0 {
		s.check(id, "recap differs from the tally: lost %d, doubled %d answers", lost, doubled)
	}
	var answers int64
	for _, points := range tally {
		answers += points / 10
	}
	if int64(len(recap.Answers)) != answers {
		s.check(id, "recap logs %d answers, tally %d", len(recap.Answers), answers)
	}
	var violations []kuis.Violation
	if err := s.retry("Audit", func(ctx context.Context) error {
		var err error
		violations, err = s.store.Audit(ctx, id)
		return err
	}); err != nil {
		s.check(id, "Audit: %v", err)
	} else if len(violations) > 0 {
		s.check(id, "Audit: %v", violations)
	}

	// The guard: the archive accepts only a recap equal to the tally.
	archive := func(_ context.Context, r kuis.Recap) error {
		if l, d := compare(tally, r); l != 0 || d != 0 {
			return fmt.Errorf("archive refused: lost %d doubled %d", l, d)
		}
		s.op("archive accepted")
		return nil
	}
	var purged int64
	attempts = 0
	if err := s.retry("PurgeQuiz", func(ctx context.Context) error {
		var err error
		attempts++
		purged, err = s.store.PurgeQuiz(ctx, id, archive)
		if errors.Is(err, kuis.ErrQuizNotFound) && attempts > 1 {
			// An earlier attempt's delete was applied and its reply lost: check below.
			return nil
		}
		return err
	}); err != nil {
		s.check(id, "PurgeQuiz: %v", err)
		return
	}
	k, err := s.store.Keys(id)
	if err != nil {
		s.check(id, "Keys: %v", err)
		return
	}
	n, err := s.client.Do(context.Background(), s.client.B().Exists().Key(k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()).Build()).AsInt64()
	if err != nil || n != 0 {
		s.check(id, "after PurgeQuiz (%d deleted) EXISTS = %d, %v; want 0", purged, n, err)
	}
}

// read does one round of board and meta reads, through boards (plain,
// cached, by time), checking that no score is above the tally or not a
// multiple of 10.
func (s *soak) read(id string, boards []*kuis.Board, cmeta *kuis.Meta, tally map[string]int64, rng *mrand.Rand) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	views := []struct {
		op string
		b  *kuis.Board
	}{{"Standings", boards[0]}, {"Standings (cached)", boards[1]}, {"Standings (by time)", boards[2]}}
	for _, v := range views {
		st, err := v.b.Standings(ctx)
		if err != nil {
			s.fail(v.op, err)
			continue
		}
		s.op(v.op)
		for _, x := range st {
			if x.Score > tally[x.Participant] || x.Score%10 != 0 {
				s.doubled.Add(1)
				s.check(id, "%s shows %s with %d, tally %d", v.op, x.Participant, x.Score, tally[x.Participant])
			}
		}
	}
	name := fmt.Sprintf("murid-%02d", rng.IntN(s.participants))
	for _, v := range []struct {
		op string
		b  *kuis.Board
	}{{"Standing", boards[0]}, {"Standing (cached)", boards[1]}, {"Standing (by time)", boards[2]}} {
		st, err := v.b.Standing(ctx, name)
		switch {
		case errors.Is(err, kuis.ErrNotOnBoard):
			s.op(v.op)
		case err != nil:
			s.fail(v.op, err)
		default:
			s.op(v.op)
			if st.Score > tally[name] {
				s.doubled.Add(1)
				s.check(id, "%s(%s) = %+v, tally %d", v.op, name, st, tally[name])
			}
			if st.CompetitionRank < 1 || st.CompetitionRank > st.Rank {
				s.check(id, "%s(%s) = %+v: competition rank outside 1 to rank", v.op, name, st)
			}
		}
	}
	if _, err := cmeta.Get(ctx); err != nil {
		s.fail("Meta.Get (cached)", err)
	} else {
		s.op("Meta.Get (cached)")
	}
}

// compare returns, in answers, how many of the tally's points the recap lacks
// and how many it has beyond the tally.
func compare(tally map[string]int64, r kuis.Recap) (lost, doubled int64) {
	got := map[string]int64{}
	for _, st := range r.Standings {
		got[st.Participant] = st.Score
	}
	for p, want := range tally {
		if g := got[p]; g < want {
			lost += (want - g) / 10
		}
	}
	for p, g := range got {
		if want := tally[p]; g > want {
			doubled += (g - want) / 10
		}
	}
	return lost, doubled
}

func (s *soak) report(took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var total int64
	fmt.Printf("\nran %v: %d quiz lives, %d answer submissions\n", took.Round(time.Millisecond), s.lives.Load(), s.answerSent.Load())
	fmt.Println("operations:")
	for _, name := range sortedKeys(s.ops) {
		fmt.Printf("  %-36s %9d\n", name, s.ops[name])
		total += s.ops[name]
	}
	fmt.Printf("  %-36s %9d (%.0f/s)\n", "total", total, float64(total)/took.Seconds())
	fmt.Println("errors by kind:")
	if len(s.errs) == 0 {
		fmt.Println("  none")
	}
	for _, name := range sortedKeys(s.errs) {
		fmt.Printf("  %-60s %6d\n", name, s.errs[name])
	}
	fmt.Printf("checks failed=%d\n", s.failed.Load())
	fmt.Printf("lost=%d doubled=%d\n", s.lost.Load(), s.doubled.Load())
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
