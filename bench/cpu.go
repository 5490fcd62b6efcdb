package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// -cpu measures what the server spends on a counted answer in the library's
// record script, with the client out of the way: fresh answers sent as
// pipelined EVALSHA from one goroutine, about 1,000 answers per round trip,
// so that the server is the bottleneck, in runs of one answer, in runs of
// script.MaxAnswers to one quiz, and in runs of script.MaxAnswers each to a
// different quiz (a school's answers), and bare ZINCRBY pipelined the same
// way for scale. Around each slice it reads INFO cpu (the whole
// process: reading, parsing and replying too) and INFO commandstats (the time
// inside the command and how many were run).

// cpuVariant is one way of sending answers that -cpu measures.
type cpuVariant struct {
	name    string // its name in the table and the JSON line
	command string // what INFO commandstats counts it as
	perRun  int    // answers per command
	quizzes int    // quizzes per run, the run's answers spread over them
}

var cpuVariants = []cpuVariant{
	{"record_1", "evalsha", 1, 1},
	{fmt.Sprintf("record_%d", script.MaxAnswers), "evalsha", script.MaxAnswers, 1},
	{fmt.Sprintf("record_%d_quizzes", script.MaxAnswers), "evalsha", script.MaxAnswers, script.MaxAnswers},
	{"zincrby", "zincrby", 1, 1},
}

// answersPerTrip is about how many answers one pipelined round trip carries.
const answersPerTrip = 1000

// tripAnswers is how many answers a round trip of runs of per answers
// carries: whole runs only, so that every run but a slice's last has per.
func tripAnswers(per int) int { return max(per, answersPerTrip/per*per) }

// CPU is the -cpu run's measurements, the shape of its JSON line.
type CPU struct {
	Variants []CPUCost `json:"variants"`
	// The longest run of the record script among those above, from SLOWLOG
	// (wall time; 0: none took 250 µs), and how many took over 1 ms.
	RunMaxUs    float64 `json:"record_run_max_us"`
	RunsOver1ms int     `json:"record_runs_over_1ms"`
}

// CPUCost is what the server spent on one variant's answers. Times are in µs.
type CPUCost struct {
	Name    string `json:"name"`
	Answers int64  `json:"answers"`
	// AnswersPerRun is answers / commands run, as INFO commandstats counted them.
	AnswersPerRun float64 `json:"answers_per_run"`
	// CPUPerAnswer is INFO cpu's used_cpu_user + used_cpu_sys per answer.
	CPUPerAnswer float64 `json:"cpu_us_per_answer"`
	// InCommandPerAnswer and InCommandPerRun are commandstats' usec: the
	// time inside the command.
	InCommandPerAnswer float64 `json:"command_us_per_answer"`
	InCommandPerRun    float64 `json:"command_us_per_run"`
}

// serverCost is what the server spent on a number of answers: the deltas of
// one command's calls and usec in INFO commandstats and of the process's CPU
// seconds in INFO cpu.
type serverCost struct {
	answers, calls, usec int64
	cpuSec               float64
}

func (c *serverCost) add(d serverCost) {
	c.answers += d.answers
	c.calls += d.calls
	c.usec += d.usec
	c.cpuSec += d.cpuSec
}

func (c serverCost) answersPerRun() float64 {
	return round(float64(c.answers)/float64(max(c.calls, 1)), 2)
}

func (c serverCost) cpuPerAnswer() float64 {
	return round(c.cpuSec*1e6/float64(max(c.answers, 1)), 2)
}

func (c serverCost) usecPerAnswer() float64 {
	return round(float64(c.usec)/float64(max(c.answers, 1)), 2)
}

func (c serverCost) usecPerCall() float64 { return round(float64(c.usec)/float64(max(c.calls, 1)), 2) }

// serverStats reads command's calls and usec from INFO commandstats and the
// server's CPU seconds from INFO cpu.
func (r *runner) serverStats(command string) (serverCost, error) {
	text, err := r.client.Do(r.ctx, r.client.B().Info().Section("commandstats", "cpu").Build()).ToString()
	if err != nil {
		return serverCost{}, err
	}
	info := parseInfo(text)
	var c serverCost
	stat := parseFields(info["cmdstat_"+command])
	c.calls, _ = strconv.ParseInt(stat["calls"], 10, 64)
	c.usec, _ = strconv.ParseInt(stat["usec"], 10, 64)
	for _, f := range []string{"used_cpu_user", "used_cpu_sys"} {
		v, err := strconv.ParseFloat(info[f], 64)
		if err != nil {
			return serverCost{}, fmt.Errorf("INFO cpu: %s is %q", f, info[f])
		}
		c.cpuSec += v
	}
	return c, nil
}

// pipelined sends n fresh answers the variant's way to keys, tripAnswers
// per round trip, checks every reply, and returns what the server spent.
func (r *runner) pipelined(v cpuVariant, keys []string, n int) (serverCost, error) {
	before, err := r.serverStats(v.command)
	if err != nil {
		return serverCost{}, err
	}
	trip := tripAnswers(v.perRun)
	for done := 0; done < n; done += trip {
		var runs [][]string
		for lo := done; lo < min(done+trip, n); lo += v.perRun {
			var args []string
			for i := range min(v.perRun, n-lo) {
				p, q := r.freshPair()
				args = append(args, answerArgs(i%v.quizzes+1, p, q)...)
			}
			runs = append(runs, args)
		}
		cmds := make(rueidis.Commands, len(runs))
		for i, args := range runs {
			if v.command == "zincrby" {
				cmds[i] = r.client.B().Zincrby().Key(keys[0]).Increment(10).Member(args[0]).Build()
			} else {
				cmds[i] = recordRun(r.client.B(), false, keys, args)
			}
		}
		for i, res := range r.client.DoMulti(r.ctx, cmds...) {
			if v.command == "zincrby" {
				err = res.Error()
			} else {
				err = checkCounted(res, runs[i])
			}
			if err != nil {
				return serverCost{}, err
			}
		}
	}
	after, err := r.serverStats(v.command)
	if err != nil {
		return serverCost{}, err
	}
	return serverCost{answers: int64(n), calls: after.calls - before.calls, usec: after.usec - before.usec,
		cpuSec: after.cpuSec - before.cpuSec}, nil
}

// cpu measures the variants by turns, each to a quiz (or, for ZINCRBY, a
// key) of its own: one warm-up slice each, then rounds slices of about
// n/rounds answers each, a whole number of runs; it prints a table and a
// JSON line.
func (r *runner) cpu(w io.Writer, n int) error {
	keys := make([][]string, len(cpuVariants))
	for i, v := range cpuVariants {
		if v.command == "zincrby" {
			keys[i] = []string{r.rawKey("cpu-" + v.name)}
			continue
		}
		for j := range v.quizzes {
			id := "cpu-" + strings.ReplaceAll(v.name, "_", "-") + "-" + strconv.Itoa(j)
			if _, err := r.quiz(id, answerQuestions); err != nil {
				return err
			}
			k, err := r.store.Keys(id)
			if err != nil {
				return err
			}
			keys[i] = append(keys[i], recordKeys(k)...)
			// One answer by source first: the script is then in the server's
			// cache, and a script that does not count an answer stops the run.
			p, q := r.freshPair()
			args := answerArgs(1, p, q)
			if err := checkCounted(r.client.Do(r.ctx, recordRun(r.client.B(), true, recordKeys(k), args)), args); err != nil {
				return err
			}
		}
	}
	slowest, err := r.slowRuns(250)
	if err != nil {
		return err
	}
	costs := make([]serverCost, len(cpuVariants))
	r.logf("server cost: about %d answers per variant in %d interleaved slices, after a warm-up slice each ...", n, rounds)
	for round := -1; round < rounds; round++ {
		for i, v := range cpuVariants {
			c, err := r.pipelined(v, keys[i], max(v.perRun, n/rounds/v.perRun*v.perRun))
			if err != nil {
				return err
			}
			if round >= 0 {
				costs[i].add(c)
			}
		}
	}
	var res CPU
	if res.RunMaxUs, res.RunsOver1ms, err = slowest(); err != nil {
		return err
	}
	for i, v := range cpuVariants {
		c := costs[i]
		res.Variants = append(res.Variants, CPUCost{Name: v.name, Answers: c.answers, AnswersPerRun: c.answersPerRun(),
			CPUPerAnswer: c.cpuPerAnswer(), InCommandPerAnswer: c.usecPerAnswer(), InCommandPerRun: c.usecPerCall()})
	}
	writeCPUTable(w, res)
	return writeJSON(w, res)
}

// writeCPUTable writes the -cpu measurements for a human reader.
func writeCPUTable(w io.Writer, c CPU) {
	fmt.Fprintln(w, "server cost per counted answer, pipelined from one goroutine (INFO cpu, INFO commandstats)")
	fmt.Fprintf(w, "%-10s %9s %12s %14s %18s %15s\n", "variant", "answers", "answers/run", "CPU µs/answer", "command µs/answer", "command µs/run")
	fmt.Fprintln(w, strings.Repeat("-", 83))
	for _, v := range c.Variants {
		fmt.Fprintf(w, "%-10s %9d %12s %14s %18s %15s\n", v.Name, v.Answers, format(v.AnswersPerRun),
			format(v.CPUPerAnswer), format(v.InCommandPerAnswer), format(v.InCommandPerRun))
	}
	fmt.Fprintf(w, "longest run of the record script above: %.0f µs (SLOWLOG; 0: none took 250 µs), %d over 1 ms\n\n",
		c.RunMaxUs, c.RunsOver1ms)
}
