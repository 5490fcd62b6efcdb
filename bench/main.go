// Command bench measures the kuis library side by side with bare rueidis,
// go-redis v9 and redis-benchmark, on one real Redis, in one run, so that the
// ratios between them hold even on a busy machine. It prints progress on
// stderr, a table on stdout, and as its last line one JSON object (see Result).
//
//	cd bench && go run . -addr 127.0.0.1:6379
//
// It writes only under a namespace of its own and deletes it at the end.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	addr          string
	dur, warm     time.Duration
	limitRequests int
	bigMembers    int
	purgeKeys     int
	sweep         bool
	// -cpu: the server's CPU per counted answer only.
	cpu        bool
	cpuAnswers int
	// -memory: the server's memory per counted answer only.
	memory                        bool
	memParticipants, memQuestions int
	// -pinger: the second process of pingWhile.
	pinger bool
	// -stalls: the whole-quiz operations on a big quiz only.
	stalls         bool
	repairTampered int
	// -live: the feed and the live board only.
	live bool
	// -replicas: the writes with and without WithReplicas only.
	replicas bool
	// -course: course folds and team boards only.
	course bool
	// -ledger: a course's per-quiz costs against a big ledger only.
	ledger       bool
	ledgerFields int
	// -erase: Store.Erase in a namespace of 500 quizzes and 20 courses only.
	erase bool
}

func parseFlags() config {
	def := os.Getenv("REDIS_ADDR")
	if def == "" {
		def = "127.0.0.1:6379"
	}
	var c config
	flag.StringVar(&c.addr, "addr", def, "Redis host:port (default $REDIS_ADDR, else 127.0.0.1:6379)")
	flag.DurationVar(&c.dur, "duration", 3*time.Second, "measured time of each workload")
	flag.DurationVar(&c.warm, "warmup", time.Second, "unmeasured warm-up before each workload")
	flag.IntVar(&c.limitRequests, "limit-requests", 2_000_000, "redis-benchmark -n for limit_ops")
	flag.IntVar(&c.bigMembers, "big", 1_000_000, "members of the big board (the _1m workloads)")
	flag.IntVar(&c.purgeKeys, "purge-keys", 1_000_000, "keys Purge deletes (purge_1m_s)")
	flag.BoolVar(&c.sweep, "sweep", false, "only compare rueidis client options for 1 and 64 goroutines")
	flag.BoolVar(&c.cpu, "cpu", false, "only measure the server's CPU per counted answer of the record script, in runs of 1 and of many answers")
	flag.IntVar(&c.cpuAnswers, "cpu-answers", 300_000, "-cpu: answers per variant")
	flag.BoolVar(&c.memory, "memory", false, "only measure the server's memory per counted answer")
	flag.IntVar(&c.memParticipants, "mem-participants", 10_000, "-memory: participants of the quiz")
	flag.IntVar(&c.memQuestions, "mem-questions", 100, "-memory: questions of the quiz, each answered by every participant")
	flag.BoolVar(&c.pinger, "pinger", false, "internal: PING -addr every millisecond until stdin closes (see pingWhile)")
	flag.BoolVar(&c.stalls, "stalls", false, "only measure Repair, Audit, Recap and PurgeQuiz on a quiz of -big participants")
	flag.IntVar(&c.repairTampered, "repair-tampered", 10_000, "-stalls: scores tampered with before Repair")
	flag.BoolVar(&c.live, "live", false, "only measure the feed (Board.Events) and the live board (Board.Live)")
	flag.BoolVar(&c.replicas, "replicas", false, "only measure the writes with and without WithReplicas(1, ...); -addr must be a primary with a replica")
	flag.BoolVar(&c.course, "course", false, "only measure Course.Fold of quizzes of 1,000 and 10,000 participants and Board.Teams of 30 teams of 30")
	flag.BoolVar(&c.ledger, "ledger", false, "only measure a fold again and an Unfold of a quiz of 1 participant in a course whose ledger holds -ledger-fields entries")
	flag.IntVar(&c.ledgerFields, "ledger-fields", 500_000, "-ledger: entries of the course's ledger, folded in quizzes of 2,500 participants")
	flag.BoolVar(&c.erase, "erase", false, "only measure Store.Erase of a participant in 50 of 500 finished quizzes of 30, 4 of 20 courses and a roster of 30, and of a participant on no key")
	flag.Parse()
	return c
}

// clientOption is the rueidis configuration the README recommends for the
// library (see BENCHMARKS.md for the measurements behind it).
func clientOption(addr string) rueidis.ClientOption {
	return rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true}
}

func run() error {
	cfg := parseFlags()
	if cfg.pinger {
		return runPinger(cfg.addr)
	}
	ns, err := namespace()
	if err != nil {
		return err
	}
	opt := clientOption(cfg.addr)
	client, err := rueidis.NewClient(opt)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", cfg.addr, err)
	}
	defer client.Close()
	r := &runner{ctx: context.Background(), addr: cfg.addr, client: client, opt: opt, ns: ns,
		warm: cfg.warm, dur: cfg.dur, progress: os.Stderr}
	if r.store, err = kuis.New(client, kuis.WithNamespace(ns)); err != nil {
		return err
	}
	if r.cached, err = kuis.New(client, kuis.WithNamespace(ns), kuis.WithClientCache(time.Minute)); err != nil {
		return err
	}
	if r.byTime, err = kuis.New(client, kuis.WithNamespace(ns), kuis.WithTies(kuis.TiesByTime)); err != nil {
		return err
	}
	r.logf("bench: Redis %s, namespace %s, %v per workload after %v warm-up", cfg.addr, ns, cfg.dur, cfg.warm)
	defer r.cleanup()
	if cfg.sweep {
		return r.sweep(os.Stdout)
	}
	if cfg.cpu {
		return r.cpu(os.Stdout, cfg.cpuAnswers)
	}
	if cfg.memory {
		return r.memory(os.Stdout, cfg.memParticipants, cfg.memQuestions)
	}
	if cfg.stalls {
		return r.stalls(os.Stdout, cfg)
	}
	if cfg.live {
		return r.live(os.Stdout)
	}
	if cfg.replicas {
		return r.replicas(os.Stdout)
	}
	if cfg.course {
		return r.course(os.Stdout)
	}
	if cfg.ledger {
		return r.ledger(os.Stdout, cfg.ledgerFields)
	}
	if cfg.erase {
		return r.erase(os.Stdout)
	}
	res, labels, err := r.all(cfg)
	if err != nil {
		return err
	}
	res.computeRatios()
	writeTable(os.Stdout, res, labels)
	return writeJSON(os.Stdout, res)
}

// namespace is unique to the run: "kbench" and 8 random hex characters.
func namespace() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "kbench" + hex.EncodeToString(b[:]), nil
}

// cleanup deletes everything the run wrote, whatever happened.
func (r *runner) cleanup() {
	ctx := context.Background()
	n, err := r.store.Purge(ctx)
	if err != nil {
		r.logf("cleanup: purge of %s: %v", r.ns, err)
	}
	for _, k := range r.rawKeys {
		d, err := r.client.Do(ctx, r.client.B().Del().Key(k).Build()).AsInt64()
		if err != nil {
			r.logf("cleanup: DEL %s: %v", k, err)
		}
		n += d
	}
	r.logf("cleanup: %d keys of %s deleted", n, r.ns)
}
