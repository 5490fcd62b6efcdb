// Command liveboard serves a quiz's live board to a class: the page a teacher
// projects, each student's own view, and the raw event feed, all refreshed
// through Server-Sent Events.
//
//	go run ./examples/liveboard            # then open http://127.0.0.1:8080/
//
// It starts an in-process miniredis (or uses -redis host:port, a standalone
// Redis or a cluster node), creates a quiz, simulates a class of 30 answering
// for about a minute (-class, -duration; -class 0 simulates nothing), finishes
// the quiz, and serves until SIGINT:
//
//	/               the projector page: progress, the address students open, the top 10
//	                with movement; once finished, a podium and the whole board
//	/me?name=Ali    a student's own page: rank of how many, the questions answered right;
//	                opening it joins the quiz (Board.Join: on the board with 0 points)
//	/events         the raw feed (Board.Events); a Last-Event-ID header resumes it
//	/debug/vars     the Store's counters (Store.Stats) as expvar JSON, under "kuis"
//
// With -for-class CLASS the quiz is created for a class (kuis.ForClass): the
// projector page then lists the class's enrolled students (Class.Students)
// who are not on the board yet. Enroll them with kuis class enroll.
//
// The pages honour the visibility the teacher sets (Meta.SetVisibility, meta
// field tampilan; -visibility sets it as the quiz is created, and the
// teacher may change it at any time, the pages following within -every):
//
//	tampil    the board as above
//	sembunyi  the projector shows no standings, only the progress and who
//	          joined (in alphabetical order); each student sees their own
//	          score and answers, no rank; /events is refused (403)
//	akhir     as sembunyi while the quiz runs, the board once it is finished
//
// With -pseudonyms the projector shows every name as its kuis.Pseudonym
// under the secret in $KUIS_PSEUDONYM_SECRET (at least 16 bytes; the same
// secret gives the same aliases every lesson), each student sees their own
// alias beside their name, and /events, which names everyone, is refused.
//
// To let a class join, serve on the network (-addr :8080) and open the
// projector page by the machine's address: the address it shows students is
// built from the one the page was served from.
//
// Equal scores are ordered by who reached them first (WithTies(TiesByTime)).
// The pages are plain HTML, CSS and JavaScript embedded in the binary. The
// board streams come from Board.Live, which reads the board at most once per
// -every however fast answers come. Every stream answers a missing quiz with
// 404 and a bad name or event ID with 400, before it starts.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

//go:embed assets
var assets embed.FS

// students is the simulated class.
var students = []string{
	"Adi", "Ayu", "Bagus", "Bayu", "Citra", "Dewi", "Dimas", "Eka", "Fajar", "Fitri",
	"Gilang", "Hana", "Indah", "Joko", "Kadek", "Lia", "Made", "Nanda", "Nur", "Putu",
	"Rahmat", "Rina", "Rizky", "Sari", "Siti", "Teguh", "Tri", "Wayan", "Yogi", "Yusuf",
}

type config struct {
	addr, redis, quiz, title, forClass, visibility string
	questions, class                               int
	duration, every                                time.Duration
	pseudonyms                                     bool
}

// secretEnv holds the pseudonyms' secret, out of the command line (which
// every user of the machine can read).
const secretEnv = "KUIS_PSEUDONYM_SECRET"

// minSecret is the shortest secret -pseudonyms takes, in bytes: a short one
// lets anyone with the class list compute every alias.
const minSecret = 16

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to serve the pages on")
	flag.StringVar(&c.redis, "redis", "", "Redis host:port (standalone or a cluster node); empty: an in-process miniredis")
	flag.StringVar(&c.quiz, "quiz", "kuis-live", "quiz ID to create")
	flag.StringVar(&c.title, "title", "Kuis Matematika Kelas 8", "quiz title")
	flag.StringVar(&c.forClass, "for-class", "", "create the quiz for this class (ForClass): the projector lists its students not on the board")
	flag.StringVar(&c.visibility, "visibility", "", "who sees the board, set as the quiz is created: tampil, sembunyi or akhir; empty: tampil")
	flag.BoolVar(&c.pseudonyms, "pseudonyms", false, "show pseudonyms on the projector, under the secret in $"+secretEnv)
	flag.IntVar(&c.questions, "questions", 20, "number of questions")
	flag.IntVar(&c.class, "class", len(students), "students to simulate (0 to 30); 0: none, answers come from elsewhere")
	flag.DurationVar(&c.duration, "duration", time.Minute, "how long the simulated class answers")
	flag.DurationVar(&c.every, "every", 500*time.Millisecond, "the live board's refresh interval (at least 50ms)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, c)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// run connects, creates the quiz, starts the class and serves until ctx ends.
func run(ctx context.Context, c config) error {
	if c.class < 0 || c.class > len(students) {
		return fmt.Errorf("-class %d: want 0 to %d", c.class, len(students))
	}
	if c.visibility != "" && !kuis.Visibility(c.visibility).Valid() {
		return fmt.Errorf("-visibility %q: want tampil, sembunyi or akhir", c.visibility)
	}
	var secret []byte
	if c.pseudonyms {
		if secret = []byte(os.Getenv(secretEnv)); len(secret) < minSecret {
			return fmt.Errorf("-pseudonyms: $%s holds %d bytes, want a secret of at least %d", secretEnv, len(secret), minSecret)
		}
	}
	client, closeClient, err := connect(c.redis)
	if err != nil {
		return err
	}
	defer closeClient()
	store, err := newStore(client)
	if err != nil {
		return err
	}
	stats.Store(store)
	meta, err := store.Meta(c.quiz)
	if err != nil {
		return err
	}
	board, err := store.Board(c.quiz)
	if err != nil {
		return err
	}
	var opts []kuis.CreateOption
	if c.forClass != "" {
		opts = append(opts, kuis.ForClass(c.forClass))
	}
	if err := meta.Create(ctx, c.title, c.questions, opts...); err != nil {
		return fmt.Errorf("%w (pick another -quiz, or purge the old one)", err)
	}
	if c.visibility != "" {
		if err := meta.SetVisibility(ctx, kuis.Visibility(c.visibility)); err != nil {
			return err
		}
	}
	srv := &server{board: board, meta: meta, every: c.every, secret: secret}
	info, err := meta.Get(ctx)
	if err != nil {
		return err
	}
	if info.Class != "" { // the quiz names its class: the projector lists who is absent
		if srv.class, err = store.Class(info.Class); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	log.Printf("quiz %q: serving http://%s/", c.quiz, ln.Addr())

	var wg sync.WaitGroup
	if c.class > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := simulate(ctx, meta, board, students[:c.class], c.questions, c.duration); err != nil && ctx.Err() == nil {
				log.Printf("class: %v", err)
			}
		}()
	}
	err = serve(ctx, ln, srv)
	wg.Wait()
	return err
}

// newStore is the example's Store: equal scores in the order they were
// reached, which a class finds fair, and hash tags on a cluster.
func newStore(client rueidis.Client, opts ...kuis.Option) (*kuis.Store, error) {
	opts = append(opts, kuis.WithTies(kuis.TiesByTime))
	if client.Mode() == rueidis.ClientModeCluster {
		opts = append(opts, kuis.WithHashTag())
	}
	return kuis.New(client, opts...)
}

// connect returns a client of the Redis at addr, or of a new in-process
// miniredis when addr is empty, and the function that closes both.
func connect(addr string) (rueidis.Client, func(), error) {
	// miniredis has no CLIENT TRACKING and fakes a one-node cluster.
	fake := rueidis.ClientOption{DisableCache: true, ForceSingleClient: true}
	if addr != "" {
		client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}})
		if errors.Is(err, rueidis.ErrNoCache) { // a miniredis of someone else's
			fake.InitAddress = []string{addr}
			client, err = rueidis.NewClient(fake)
		}
		if err != nil {
			return nil, nil, err
		}
		return client, client.Close, nil
	}
	m, err := miniredis.Run()
	if err != nil {
		return nil, nil, err
	}
	fake.InitAddress = []string{m.Addr()}
	client, err := rueidis.NewClient(fake)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return client, func() { client.Close(); m.Close() }, nil
}

// serve runs the HTTP server on ln until ctx ends, then shuts it down: ctx is
// every request's base, so the open event streams end with it.
func serve(ctx context.Context, ln net.Listener, s *server) error {
	srv := &http.Server{
		Handler:           s.routes(),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 5 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Print("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// simulate plays a class: each student answers the questions in order at a
// pace of their own, right about three times in four, so that the whole
// class is done after about d; then the teacher finishes the quiz.
func simulate(ctx context.Context, meta *kuis.Meta, board *kuis.Board, class []string, questions int, d time.Duration) error {
	var wg sync.WaitGroup
	errc := make(chan error, len(class))
	for i, name := range class {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 42))
			pace := d / time.Duration(questions)
			for q := 1; q <= questions; q++ {
				wait := pace/2 + time.Duration(rng.Int64N(int64(pace)))
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait * 9 / 10):
				}
				if rng.IntN(4) == 0 {
					continue // a wrong answer scores nothing and is not recorded
				}
				if _, err := board.RecordAnswer(ctx, name, q); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := errors.Join(collect(errc)...); err != nil {
		return err
	}
	return meta.Finish(ctx)
}

func collect(errc <-chan error) []error {
	var errs []error
	for err := range errc {
		errs = append(errs, err)
	}
	return errs
}

// static serves the embedded pages and assets.
func static() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embed pattern above guarantees the directory
	}
	return http.FileServerFS(sub)
}
