package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// courseSHA is the course script's SHA1: its name in EVALSHA and in SLOWLOG.
var courseSHA = func() string {
	sum := sha1.Sum([]byte(script.Course.Source()))
	return hex.EncodeToString(sum[:])
}()

// foldRuns is how many folds of each size -course times, each into a course
// of its own.
const foldRuns = 5

// course measures Course.Fold of a finished quiz of 1,000 and of 10,000
// participants into an empty course, foldRuns times each, and a repeated fold
// of the big one (the ledger holds it: every field is checked, and the
// ledger scanned for participants the recap lacks). For each: the call's
// time; its longest course script, as the round trip of each script call
// timed by the client (an upper bound of the server's time) and as the
// server's own wall time from SLOWLOG for the runs it logged (nothing is
// configured: the server logs what its slowlog-log-slower-than lets
// through); and the server's CPU time for the whole call (INFO cpu), which a
// preempted server does not inflate, exact only on a server of the run's own. Then Board.Teams of 30 teams of 30 on a board of 900, p50 of
// one goroutine. The recaps are made by hand: Fold reads nothing else.
func (r *runner) course(w io.Writer) error {
	timer := &scriptTimer{Client: r.client}
	store, err := kuis.New(timer, kuis.WithNamespace(r.ns))
	if err != nil {
		return err
	}
	threshold, err := r.client.Do(r.ctx, r.client.B().ConfigGet().Parameter("slowlog-log-slower-than").Build()).AsStrMap()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-12s %10s %10s %14s %22s %12s  %s\n", "", "median", "max", "longest RT", "SLOWLOG p50 / max",
		"server CPU", "what")
	for _, size := range []int{1000, 10000} {
		recap := handRecap("fold-"+strconv.Itoa(size), size)
		var took, logged []time.Duration
		var longest time.Duration
		var spent serverCost
		for run := range foldRuns {
			c, err := store.Course(fmt.Sprintf("fold-%d-%d", size, run))
			if err != nil {
				return err
			}
			since, err := r.slowlogID()
			if err != nil {
				return err
			}
			before, err := r.serverStats("evalsha")
			if err != nil {
				return err
			}
			timer.reset()
			start := time.Now()
			f, err := c.Fold(r.ctx, recap)
			took = append(took, time.Since(start))
			if err != nil {
				return err
			}
			if f.Participants != size {
				return fmt.Errorf("fold of %d participants added %d", size, f.Participants)
			}
			after, err := r.serverStats("evalsha")
			if err != nil {
				return err
			}
			spent.add(serverCost{cpuSec: after.cpuSec - before.cpuSec})
			longest = max(longest, timer.longest())
			runs, err := r.slowCourseRuns(since)
			if err != nil {
				return err
			}
			logged = append(logged, runs...)
			if run == foldRuns-1 && size == 10000 {
				if err := r.refold(w, timer, c, recap, threshold["slowlog-log-slower-than"]); err != nil {
					return err
				}
			}
		}
		slices.Sort(took)
		fmt.Fprintf(w, "%-12s %7.1f ms %7.1f ms %11.2f ms %22s %9.1f ms  Course.Fold of %d participants into an empty course, %d runs\n",
			fmt.Sprintf("fold_%dk", size/1000), ms(took[len(took)/2]), ms(took[len(took)-1]), ms(longest),
			server(logged, threshold["slowlog-log-slower-than"]), spent.cpuSec*1000/foldRuns, size, foldRuns)
	}

	const teams, members = 30, 30
	board, _, err := r.buildBoard("teams", teams*members)
	if err != nil {
		return err
	}
	roster := make([]kuis.Team, teams)
	for i := range roster {
		roster[i].Name = fmt.Sprintf("tim-%02d", i)
		for j := range members {
			roster[i].Members = append(roster[i].Members, bigMember(i*members+j))
		}
	}
	us, err := r.p50("board_teams_30x30", func(int) error {
		s, err := board.Teams(context.Background(), roster, kuis.TeamMean)
		if err == nil && len(s) != teams {
			err = fmt.Errorf("%d team standings, want %d", len(s), teams)
		}
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-12s %7.1f µs %10s %14s %22s %12s  Board.Teams of %d teams of %d (p50, 1 goroutine)\n",
		"teams_30x30", us, "", "", "", "", teams, members)
	return nil
}

// refold times the fold of recap again into c, which holds it: it writes
// nothing.
func (r *runner) refold(w io.Writer, timer *scriptTimer, c *kuis.Course, recap kuis.Recap, threshold string) error {
	since, err := r.slowlogID()
	if err != nil {
		return err
	}
	before, err := r.serverStats("evalsha")
	if err != nil {
		return err
	}
	timer.reset()
	start := time.Now()
	f, err := c.Fold(r.ctx, recap)
	took := time.Since(start)
	if err != nil {
		return err
	}
	after, err := r.serverStats("evalsha")
	if err != nil {
		return err
	}
	if !f.AlreadyFolded {
		return fmt.Errorf("fold again: %+v, want AlreadyFolded", f)
	}
	runs, err := r.slowCourseRuns(since)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-12s %7.1f ms %10s %11.2f ms %22s %9.1f ms  Course.Fold again of the %d participants (nothing written)\n",
		"refold_10k", ms(took), "", ms(timer.longest()), server(runs, threshold), (after.cpuSec-before.cpuSec)*1000, len(recap.Standings))
	return nil
}

// handRecap is the recap of a finished quiz of 10 questions and n
// participants, p0 ... p<n-1>, with 10 to 100 points each.
func handRecap(id string, n int) kuis.Recap {
	r := kuis.Recap{QuizID: id, Info: kuis.Info{Title: id, Questions: 10, Status: kuis.StatusFinished}}
	for i := range n {
		r.Standings = append(r.Standings, kuis.Standing{Rank: i + 1, Participant: "p" + strconv.Itoa(i), Score: int64(10 * (i%10 + 1))})
	}
	return r
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// server words the course script runs SLOWLOG logged: their median and
// longest, and how many.
func server(runs []time.Duration, threshold string) string {
	if len(runs) == 0 {
		return "none ≥ " + threshold + " µs"
	}
	return fmt.Sprintf("%.1f / %.1f ms (%d)", ms(percentile(runs, 50)), ms(slices.Max(runs)), len(runs))
}

// slowlogID is the ID of the server's latest SLOWLOG entry, -1 for none.
func (r *runner) slowlogID() (int64, error) {
	last, err := r.client.Do(r.ctx, r.client.B().SlowlogGet().Count(1).Build()).ToArray()
	if err != nil || len(last) == 0 {
		return -1, err
	}
	f, err := last[0].ToArray()
	if err != nil || len(f) == 0 {
		return -1, err
	}
	return f[0].AsInt64()
}

// slowCourseRuns returns the runs of the course script SLOWLOG holds after
// the entry since.
func (r *runner) slowCourseRuns(since int64) ([]time.Duration, error) {
	slow, err := r.client.Do(r.ctx, r.client.B().SlowlogGet().Count(-1).Build()).ToArray()
	if err != nil {
		return nil, err
	}
	var runs []time.Duration
	for _, e := range slow {
		f, err := e.ToArray()
		if err != nil || len(f) < 4 {
			continue
		}
		id, err1 := f[0].AsInt64()
		us, err2 := f[2].AsInt64()
		args, err3 := f[3].AsStrSlice()
		if err1 != nil || err2 != nil || err3 != nil || id <= since || len(args) < 2 || args[0] != "EVALSHA" || args[1] != courseSHA {
			continue
		}
		runs = append(runs, time.Duration(us)*time.Microsecond)
	}
	return runs, nil
}

// scriptTimer is a client that times the round trip of each course script
// run sent alone (Fold sends each of its parts alone).
type scriptTimer struct {
	rueidis.Client
	mu   sync.Mutex
	most time.Duration
}

func (t *scriptTimer) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	args := cmd.Commands()
	course := len(args) > 1 && args[0] == "EVALSHA" && args[1] == courseSHA
	start := time.Now()
	res := t.Client.Do(ctx, cmd)
	if course {
		t.mu.Lock()
		t.most = max(t.most, time.Since(start))
		t.mu.Unlock()
	}
	return res
}

func (t *scriptTimer) reset() { t.mu.Lock(); t.most = 0; t.mu.Unlock() }

func (t *scriptTimer) longest() time.Duration { t.mu.Lock(); defer t.mu.Unlock(); return t.most }
