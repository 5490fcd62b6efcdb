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
	"github.com/redis/rueidis"
)

// Benchmarks of every public operation, on the target the environment selects
// (miniredis by default, REDIS_ADDR or REDIS_CLUSTER_ADDRS). Sub-benchmarks are
// named by parameter (BenchmarkStandings/members=30/cache=off) so that
// benchstat can compare runs. Each iteration is one call of the operation, and
// every benchmark checks what it gets back, so `go test -bench . -benchtime=1x`
// doubles as a smoke test. The side-by-side comparison with go-redis and
// redis-benchmark lives in bench/.

// benchMember names member i of a benchmark board.
func benchMember(i int) string { return "m" + strconv.Itoa(i) }

// benchFill puts members 0..n-1 on the board with pipelined ZADDs (scores are
// multiples of 10, as the contract wants), much faster than recording answers.
func benchFill(b *testing.B, e *env, board *kuis.Board, n int) {
	b.Helper()
	const perCmd = 500
	key := board.Keys().Board()
	var cmds rueidis.Commands
	for lo := 0; lo < n; lo += perCmd {
		z := e.client.B().Zadd().Key(key).ScoreMember()
		for i := lo; i < min(lo+perCmd, n); i++ {
			z = z.ScoreMember(float64(10*(i%97)), benchMember(i))
		}
		cmds = append(cmds, z.Build())
	}
	for _, res := range e.client.DoMulti(e.ctx, cmds...) {
		if err := res.Error(); err != nil {
			b.Fatalf("ZADD %s: %v", key, err)
		}
	}
}

// benchBoard is a running quiz with n members on its board.
func benchBoard(b *testing.B, e *env, n int, extra ...kuis.Option) (string, *kuis.Meta, *kuis.Board) {
	b.Helper()
	id, m, board := e.running(10)
	benchFill(b, e, board, n)
	if len(extra) > 0 {
		board = e.board(id, extra...)
	}
	return id, m, board
}

// benchCaches are the read paths: every read to the server, and through
// rueidis' client-side cache (which miniredis lacks: the reads then go to the
// server too, see WithClientCache).
var benchCaches = []struct {
	name string
	opts []kuis.Option
}{
	{"cache=off", nil},
	{"cache=on", []kuis.Option{kuis.WithClientCache(time.Minute)}},
}

// benchParallel runs fn serially (goroutines=1) and from GOMAXPROCS goroutines
// with b.RunParallel (goroutines=parallel), where rueidis pipelines.
func benchParallel(b *testing.B, fn func(i int64) error) {
	b.Run("goroutines=1", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := fn(int64(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goroutines=parallel", func(b *testing.B) {
		b.ReportAllocs()
		var seq atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := fn(seq.Add(1)); err != nil {
					b.Error(err)
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

func BenchmarkRecordCorrect(b *testing.B) {
	e := newEnv(b)
	_, _, board := e.running(10)
	benchParallel(b, func(i int64) error {
		_, err := board.RecordCorrect(e.ctx, benchMember(int(i%1000)))
		return err
	})
}

// BenchmarkRecordAnswer records a new (question, participant) pair each call,
// so every call takes the writing path.
func BenchmarkRecordAnswer(b *testing.B) {
	e := newEnv(b)
	_, _, board := e.running(1000)
	var seq atomic.Int64 // shared by both sub-benchmarks: pairs never repeat
	benchParallel(b, func(int64) error {
		i := seq.Add(1)
		a, err := board.RecordAnswer(e.ctx, benchMember(int(i/1000)), int(i%1000)+1)
		if err == nil && a.Duplicate {
			err = fmt.Errorf("answer %d counted as a duplicate", i)
		}
		return err
	})
}

// BenchmarkRecordAnswers records one batch of new answers per iteration.
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
				if len(out) != size || out[size-1].Score != int64(10*size) {
					b.Fatalf("last answer of batch %d: %+v", n, out[len(out)-1])
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

func BenchmarkPage(b *testing.B) {
	const members = 10000
	for _, limit := range []int{20, 1000} {
		b.Run(fmt.Sprintf("members=%d/limit=%d", members, limit), func(b *testing.B) {
			e := newEnv(b)
			_, _, board := benchBoard(b, e, members)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s, err := board.Page(e.ctx, (i*7919)%(members-limit), limit)
				if err != nil || len(s) != limit {
					b.Fatalf("Page: %d standings, %v; want %d", len(s), err, limit)
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

// benchPointReads are the reads of one participant or one number, measured on
// boards of growing size: their cost should grow with log N at most.
func benchPointRead(b *testing.B, read func(ctx context.Context, board *kuis.Board, member string) error) {
	for _, n := range []int{100, 10000} {
		for _, c := range benchCaches {
			b.Run(fmt.Sprintf("members=%d/%s", n, c.name), func(b *testing.B) {
				e := newEnv(b)
				_, _, board := benchBoard(b, e, n, c.opts...)
				benchParallel(b, func(i int64) error {
					return read(e.ctx, board, benchMember(int((i*7919)%int64(n))))
				})
			})
		}
	}
}

func BenchmarkRank(b *testing.B) {
	benchPointRead(b, func(ctx context.Context, board *kuis.Board, member string) error {
		_, err := board.Rank(ctx, member)
		return err
	})
}

func BenchmarkCompetitionRank(b *testing.B) {
	benchPointRead(b, func(ctx context.Context, board *kuis.Board, member string) error {
		_, err := board.CompetitionRank(ctx, member)
		return err
	})
}

func BenchmarkScore(b *testing.B) {
	benchPointRead(b, func(ctx context.Context, board *kuis.Board, member string) error {
		_, err := board.Score(ctx, member)
		return err
	})
}

func BenchmarkLen(b *testing.B) {
	benchPointRead(b, func(ctx context.Context, board *kuis.Board, _ string) error {
		_, err := board.Len(ctx)
		return err
	})
}

func BenchmarkGet(b *testing.B) {
	for _, c := range benchCaches {
		b.Run(c.name, func(b *testing.B) {
			e := newEnv(b)
			id, _, _ := e.running(10)
			m := e.meta(id, c.opts...)
			benchParallel(b, func(int64) error {
				info, err := m.Get(e.ctx)
				if err == nil && info.Status != kuis.StatusRunning {
					err = fmt.Errorf("status %q", info.Status)
				}
				return err
			})
		})
	}
}

func BenchmarkStatus(b *testing.B) {
	for _, c := range benchCaches {
		b.Run(c.name, func(b *testing.B) {
			e := newEnv(b)
			id, _, _ := e.running(10)
			m := e.meta(id, c.opts...)
			benchParallel(b, func(int64) error {
				s, err := m.Status(e.ctx)
				if err == nil && s != kuis.StatusRunning {
					err = fmt.Errorf("status %q", s)
				}
				return err
			})
		})
	}
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
		_, m, _ := e.running(10)
		if err := m.Finish(e.ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := m.Finish(e.ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkTakeRecap(b *testing.B) {
	for _, n := range []int{30, 1000} {
		b.Run("members="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			id, _, _ := benchBoard(b, e, n)
			b.ReportAllocs()
			for b.Loop() {
				r, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
				if err != nil || len(r.Standings) != n {
					b.Fatalf("TakeRecap: %d standings, %v; want %d", len(r.Standings), err, n)
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
			r, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
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

func BenchmarkAudit(b *testing.B) {
	for _, n := range []int{30, 1000} {
		b.Run("members="+strconv.Itoa(n), func(b *testing.B) {
			e := newEnv(b)
			id, _, board := e.running(10)
			in := make([]kuis.AnswerInput, n)
			for i := range in {
				in[i] = kuis.AnswerInput{Participant: benchMember(i), Question: 1 + i%10}
			}
			if _, err := board.RecordAnswers(e.ctx, in); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				v, err := kuis.Audit(e.ctx, e.client, id, e.opts...)
				if err != nil || len(v) != 0 {
					b.Fatalf("Audit = %v, %v; want no violations", v, err)
				}
			}
		})
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
				id, m, _ := benchBoard(b, e, n)
				if err := m.Finish(e.ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if k, err := kuis.PurgeQuiz(e.ctx, e.client, id, archive, e.opts...); err != nil || k != 2 {
					b.Fatalf("PurgeQuiz = %d, %v; want 2 keys (meta, board)", k, err)
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
				if k, err := kuis.Purge(e.ctx, e.client, e.opts...); err != nil || k != int64(n) {
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
				ids, err := kuis.Quizzes(e.ctx, e.client, e.opts...)
				if err != nil || len(ids) != n {
					b.Fatalf("Quizzes: %d IDs, %v; want %d", len(ids), err, n)
				}
			}
		})
	}
}

func BenchmarkNewKeys(b *testing.B) {
	for _, hashTag := range []bool{false, true} {
		b.Run("hashtag="+strconv.FormatBool(hashTag), func(b *testing.B) {
			opts := []kuis.Option{kuis.WithNamespace("kuis")}
			if hashTag {
				opts = append(opts, kuis.WithHashTag())
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kuis.NewKeys("kuis-01", opts...); err != nil {
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
