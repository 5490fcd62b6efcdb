package kuis_test

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// Benchmarks of every public operation, on the target the environment selects
// (miniredis by default, REDIS_ADDR or REDIS_CLUSTER_ADDRS). Sub-benchmarks are
// named by parameter (BenchmarkStandings/members=30/cache=off/goroutines=1) so
// that benchstat can compare runs. Each iteration is one call of the
// operation, and every benchmark checks what it gets back, so
// `go test -run xxx -bench . -benchtime=1x` doubles as a smoke test. The
// side-by-side comparison with go-redis and redis-benchmark lives in bench/.

// benchMember names member i of a benchmark board.
func benchMember(i int) string { return "m" + strconv.Itoa(i) }

// benchScore is member i's score on a filled board: a multiple of 10, so
// groups of about n/97 members share a score.
func benchScore(i int) int64 { return int64(10 * (i % 97)) }

// benchOrderUnit is 2^42: an order set score is answers * 2^42 + (2^42 - 1 - ms
// of the latest answer), as the contract's order set row says.
const benchOrderUnit = 1 << 42

// benchBoard is a running quiz with members 0..n-1 on its board, and in its
// order set with member i's latest answer at ms 1.8e12 + i, written with
// pipelined ZADDs (much faster than recording answers; the reads do not look
// at the answers set or the log). extra options give the board handle its own Store.
func benchBoard(b *testing.B, e *env, n int, extra ...kuis.Option) (string, *kuis.Meta, *kuis.Board) {
	b.Helper()
	id, m, board := e.running(10)
	const perCmd = 500
	k := e.keys(id)
	var cmds rueidis.Commands
	for lo := 0; lo < n; lo += perCmd {
		z := e.client.B().Zadd().Key(k.Board()).ScoreMember()
		o := e.client.B().Zadd().Key(k.Order()).ScoreMember()
		for i := lo; i < min(lo+perCmd, n); i++ {
			z = z.ScoreMember(float64(benchScore(i)), benchMember(i))
			ms := 1_800_000_000_000 + int64(i)
			o = o.ScoreMember(float64(benchScore(i)/10*benchOrderUnit+benchOrderUnit-1-ms), benchMember(i))
		}
		cmds = append(cmds, z.Build(), o.Build())
	}
	for _, res := range e.client.DoMulti(e.ctx, cmds...) {
		if err := res.Error(); err != nil {
			b.Fatalf("ZADD %s: %v", k.Board(), err)
		}
	}
	if len(extra) > 0 {
		var err error
		if board, err = e.storeOn(e.client, extra...).Board(id); err != nil {
			b.Fatal(err)
		}
	}
	return id, m, board
}

// benchCaches are the read paths: every read to the server, through rueidis'
// client-side cache (which miniredis lacks: the reads then go to the server
// too, see WithClientCache), and in time order (from the order set).
var benchCaches = []struct {
	name string
	opts []kuis.Option
}{
	{"cache=off", nil},
	{"cache=on", []kuis.Option{kuis.WithClientCache(time.Minute)}},
	{"ties=time", []kuis.Option{kuis.WithTies(kuis.TiesByTime)}},
}

// benchParallel runs fn serially (goroutines=1) and from GOMAXPROCS goroutines
// with b.RunParallel (goroutines=parallel), where rueidis pipelines. i is
// unique across both.
func benchParallel(b *testing.B, fn func(i int64) error) {
	var seq atomic.Int64
	b.Run("goroutines=1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := fn(seq.Add(1)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goroutines=parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := fn(seq.Add(1)); err != nil {
					b.Error(err) // not Fatal: this is not the benchmark's goroutine
					return
				}
			}
		})
	})
}

func BenchmarkCreate(b *testing.B) {
	e := newEnv(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := e.meta(quizID()).Create(e.ctx, "Kuis", 10); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordAnswer records a new (participant, question) pair each call,
// so every call takes the writing path.
func BenchmarkRecordAnswer(b *testing.B) {
	e := newEnv(b)
	_, _, board := e.running(1000)
	benchParallel(b, func(i int64) error {
		a, err := board.RecordAnswer(e.ctx, benchMember(int(i/1000)), int(i%1000)+1)
		if err == nil && a.Duplicate {
			err = fmt.Errorf("answer %d counted as a duplicate", i)
		}
		return err
	})
}

// BenchmarkRecordAnswers records one batch of new answers per iteration: one
// participant answering questions 1..size.
func BenchmarkRecordAnswers(b *testing.B) {
	for _, size := range []int{10, 100, 1000} {
		b.Run("batch="+strconv.Itoa(size), func(b *testing.B) {
			e := newEnv(b)
			_, _, board := e.running(1000)
			in := make([]kuis.AnswerInput, size)
			b.ReportAllocs()
			for n := 0; b.Loop(); n++ {
				for j := range in {
					in[j] = kuis.AnswerInput{Participant: benchMember(n), Question: j + 1}
				}
				out, err := board.RecordAnswers(e.ctx, in)
				if err != nil {
					b.Fatal(err)
				}
				if last := out[size-1]; last.Err != nil || last.Duplicate || last.Score != int64(10*size) {
					b.Fatalf("last answer of batch %d: %+v, %v", n, last.Answer, last.Err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "answers/s")
		})
	}
}

func BenchmarkStandings(b *testing.B) {
	for _, n := range []int{30, 1000} {
		for _, c := range benchCaches {
			b.Run(fmt.Sprintf("members=%d/%s", n, c.name), func(b *testing.B) {
				e := newEnv(b)
				_, _, board := benchBoard(b, e, n, c.opts...)
				benchParallel(b, func(int64) error {
					s, err := board.Standings(e.ctx)
					if err == nil && len(s) != n {
						err = fmt.Errorf("%d standings, want %d", len(s), n)
					}
					return err
				})
			})
		}
	}
}

// BenchmarkPage reads pages at offsets spread over the board; most start
// inside a group of equal scores and so take the extra ZCOUNT.
func BenchmarkPage(b *testing.B) {
	const members = 10000
	for _, limit := range []int{20, 1000} {
		b.Run(fmt.Sprintf("members=%d/limit=%d", members, limit), func(b *testing.B) {
			e := newEnv(b)
			_, _, board := benchBoard(b, e, members)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s, err := board.Page(e.ctx, (i*7919)%(members-limit), limit)
				if err != nil || len(s) != limit || s[0].CompetitionRank > s[0].Rank {
					b.Fatalf("Page: %d standings (first %v), %v; want %d", len(s), s[:min(1, len(s))], err, limit)
				}
			}
		})
	}
}

func BenchmarkAround(b *testing.B) {
	const members = 10000
	for _, radius := range []int{5, 500} {
		b.Run(fmt.Sprintf("members=%d/radius=%d", members, radius), func(b *testing.B) {
			e := newEnv(b)
			_, _, board := benchBoard(b, e, members)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := board.Around(e.ctx, benchMember((i*7919)%members), radius); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchPointRead measures a read of one participant or one number on boards
// of growing size: its cost should grow with log N at most.
func benchPointRead(b *testing.B, read func(board *kuis.Board, n, member int) error) {
	for _, n := range []int{100, 10000} {
		for _, c := range benchCaches {
			b.Run(fmt.Sprintf("members=%d/%s", n, c.name), func(b *testing.B) {
				e := newEnv(b)
				_, _, board := benchBoard(b, e, n, c.opts...)
				benchParallel(b, func(i int64) error {
					return read(board, n, int((i*7919)%int64(n)))
				})
			})
		}
	}
}

func BenchmarkStanding(b *testing.B) {
	ctx := context.Background()
	benchPointRead(b, func(board *kuis.Board, _, member int) error {
		s, err := board.Standing(ctx, benchMember(member))
		if err == nil && (s.Score != benchScore(member) || s.CompetitionRank > s.Rank) {
			err = fmt.Errorf("Standing(%s) = %+v, want score %d", benchMember(member), s, benchScore(member))
		}
		return err
	})
}

func BenchmarkLen(b *testing.B) {
	ctx := context.Background()
	benchPointRead(b, func(board *kuis.Board, n, _ int) error {
		got, err := board.Len(ctx)
		if err == nil && got != int64(n) {
			err = fmt.Errorf("Len = %d, want %d", got, n)
		}
		return err
	})
}

// benchMeta reads a running quiz's meta with and without the client-side cache.
func benchMeta(b *testing.B, read func(m *kuis.Meta, ctx context.Context) (kuis.Status, error)) {
	for _, c := range benchCaches {
		b.Run(c.name, func(b *testing.B) {
			e := newEnv(b)
			id, _, _ := e.running(10)
			m, err := e.storeOn(e.client, c.opts...).Meta(id)
			if err != nil {
				b.Fatal(err)
			}
			benchParallel(b, func(int64) error {
				s, err := read(m, e.ctx)
				if err == nil && s != kuis.StatusRunning {
					err = fmt.Errorf("status %q, want %q", s, kuis.StatusRunning)
				}
				return err
			})
		})
	}
}

func BenchmarkGet(b *testing.B) {
	benchMeta(b, func(m *kuis.Meta, ctx context.Context) (kuis.Status, error) {
		info, err := m.Get(ctx)
		return info.Status, err
	})
}

func BenchmarkStatus(b *testing.B) {
	benchMeta(b, (*kuis.Meta).Status)
}

// BenchmarkFinish times the transition berjalan -> selesai (a fresh quiz per
// iteration, created off the clock) and the idempotent repeat.
func BenchmarkFinish(b *testing.B) {
	b.Run("from=berjalan", func(b *testing.B) {
		e := newEnv(b)
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			_, m, _ := e.running(10)
			b.StartTimer()
			if err := m.Finish(e.ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("from=selesai", func(b *testing.B) {
		e := newEnv(b)
		id, m, _ := e.running(10)
		e.finish(id)
		b.ReportAllocs()
		for b.Loop() {
			if err := m.Finish(e.ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchAnswered is a running quiz of 10 questions where members 0..n-1 each
// answered `each` of them, recorded through the library, so that it keeps
// the contract: board, answers set, log and order set.
func benchAnswered(b *testing.B, e *env, n, each int) string {
	b.Helper()
	id, _, board := e.running(10)
	in := make([]kuis.AnswerInput, 0, n*each)
	for i := range n {
		for q := range each {
			in = append(in, kuis.AnswerInput{Participant: benchMember(i), Question: 1 + (i+q)%10})
		}
	}
	out, err := board.RecordAnswers(e.ctx, in)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range out {
		if r.Err != nil || r.Duplicate {
			b.Fatalf("RecordAnswers: %+v, %v", r.Answer, r.Err)
		}
	}
	return id
}

// BenchmarkRecap reads a quiz of n participants with 3 answers each: meta,
// board, answers set and log.
func BenchmarkRecap(b *testing.B) {
	for _, n := range []int{30, 1000} {
		b.Run("members="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			id := benchAnswered(b, e, n, 3)
			b.ReportAllocs()
			for b.Loop() {
				r, err := e.store.Recap(e.ctx, id)
				if err != nil || len(r.Standings) != n || len(r.Answers) != 3*n {
					b.Fatalf("Recap: %d standings, %d answers, %v; want %d, %d", len(r.Standings), len(r.Answers), err, n, 3*n)
				}
			}
		})
	}
}

func BenchmarkWriteCSV(b *testing.B) {
	for _, n := range []int{30, 1000} {
		b.Run("members="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			id, _, _ := benchBoard(b, e, n)
			r, err := e.store.Recap(e.ctx, id)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := r.WriteCSV(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWriteAnswersCSV(b *testing.B) {
	for _, n := range []int{30, 1000} {
		b.Run("answers="+strconv.Itoa(3*n), func(b *testing.B) {
			e := newEnv(b)
			r, err := e.store.Recap(e.ctx, benchAnswered(b, e, n, 3))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := r.WriteAnswersCSV(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAudit audits a quiz whose n answers were recorded through the
// library, so it keeps the contract.
func BenchmarkAudit(b *testing.B) {
	for _, n := range []int{30, 1000} {
		b.Run("members="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			id := benchAnswered(b, e, n, 1)
			b.ReportAllocs()
			for b.Loop() {
				v, err := e.store.Audit(e.ctx, id)
				if err != nil || len(v) != 0 {
					b.Fatalf("Audit = %v, %v; want no violations", v, err)
				}
			}
		})
	}
}

// BenchmarkRepair repairs a quiz of n participants with 10 answers each: with
// nothing to fix (the paged read alone), and with one score changed by hand
// before each call (off the clock), which one repair script then corrects.
func BenchmarkRepair(b *testing.B) {
	for _, n := range []int{30, 1000} {
		for _, changed := range []int{0, 1} {
			b.Run(fmt.Sprintf("members=%d/changed=%d", n, changed), func(b *testing.B) {
				e := newEnv(b)
				id := benchAnswered(b, e, n, 10)
				board := e.keys(id).Board()
				b.ReportAllocs()
				for b.Loop() {
					if changed > 0 {
						b.StopTimer()
						e.mustRaw("ZINCRBY", board, "10", benchMember(0))
						b.StartTimer()
					}
					fixes, err := e.store.Repair(e.ctx, id)
					if err != nil || len(fixes) != changed {
						b.Fatalf("Repair = %+v, %v; want %d corrections", fixes, err, changed)
					}
				}
			})
		}
	}
}

// BenchmarkPurgeQuiz deletes a finished quiz of n members per iteration
// (created off the clock), archive included.
func BenchmarkPurgeQuiz(b *testing.B) {
	archive := func(context.Context, kuis.Recap) error { return nil }
	for _, n := range []int{30, 1000} {
		b.Run("members="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				id, _, _ := benchBoard(b, e, n)
				e.finish(id)
				b.StartTimer()
				if k, err := e.store.PurgeQuiz(e.ctx, id, archive); err != nil || k != 3 {
					b.Fatalf("PurgeQuiz = %d, %v; want 3 keys (meta, board, order set)", k, err)
				}
			}
		})
	}
}

// BenchmarkPurge deletes a namespace of n keys per iteration (written off the
// clock with pipelined SETs).
func BenchmarkPurge(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			cmds := make(rueidis.Commands, n)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				for i := range cmds {
					cmds[i] = e.client.B().Set().Key(e.ns + ":x:" + strconv.Itoa(i)).Value("x").Build()
				}
				for _, res := range e.client.DoMulti(e.ctx, cmds...) {
					if err := res.Error(); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if k, err := e.store.Purge(e.ctx); err != nil || k != int64(n) {
					b.Fatalf("Purge = %d, %v; want %d", k, err, n)
				}
			}
		})
	}
}

func BenchmarkQuizzes(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run("quizzes="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			for range n {
				e.running(1)
			}
			b.ReportAllocs()
			for b.Loop() {
				ids, err := e.store.Quizzes(e.ctx)
				if err != nil || len(ids) != n {
					b.Fatalf("Quizzes: %d IDs, %v; want %d", len(ids), err, n)
				}
			}
		})
	}
}

// BenchmarkBoardHandle is what an application pays per request for a quiz's
// handle: Store.Board validates the ID and builds the key names.
func BenchmarkBoardHandle(b *testing.B) {
	for _, hashTag := range []bool{false, true} {
		b.Run("hashtag="+strconv.FormatBool(hashTag), func(b *testing.B) {
			if redistest.Cluster() && !hashTag {
				b.Skip("a cluster needs WithHashTag")
			}
			opts := []kuis.Option{kuis.WithNamespace("kuis")}
			if hashTag {
				opts = append(opts, kuis.WithHashTag())
			}
			store, err := kuis.New(redistest.Client(b), opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := store.Board("kuis-01"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkContractTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := kuis.ContractTable(); err != nil {
			b.Fatal(err)
		}
	}
}
