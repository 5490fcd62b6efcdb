package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Revision 3 of the contract added two keys to every quiz, an answer log (a
// stream) and an order set, both written by RecordAnswer's script. -rev3
// measures what that costs against revision 2's script (rev2/, copied byte for
// byte from the commit before revision 3), side by side on one server. It
// also measures what coalescing saves the server: revision 3's script of one
// answer per run (rev3/, copied byte for byte from the commit before) against
// today's, fed runs of 64 answers.

var (
	//go:embed rev2/gate.lua
	rev2Gate string
	//go:embed rev2/record_answer.lua
	rev2RecordAnswer string
)

var (
	//go:embed rev3/gate.lua
	rev3Gate string
	//go:embed rev3/record_answer.lua
	rev3RecordAnswer string
)

// rev3Source is revision 3's script as it was before answers were coalesced:
// one answer per run, KEYS as today's. It is the "before" of the server cost
// per answer of today's script, which takes up to 64 answers per run.
var rev3Source = rev3Gate + rev3RecordAnswer

// rev2Source is revision 2's RecordAnswer script: KEYS meta, board, answers.
var rev2Source = rev2Gate + rev2RecordAnswer

// rev2Script runs it as the library ran it: EVALSHA, EVAL on NOSCRIPT.
var rev2Script = rueidis.NewLuaScript(rev2Source)

// rev2Keys are the keys revision 2's script takes.
func rev2Keys(k kuis.Keys) []string { return []string{k.Meta(), k.Board(), k.Answers()} }

// rev3Keys are the keys today's script takes.
func rev3Keys(k kuis.Keys) []string {
	return []string{k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()}
}

// checkCounted checks a record script's reply for one answer, {score, 0}
// (revision 2's script and rev3/'s) or {{score, 0}} (today's): counted.
func checkCounted(res rueidis.RedisResult, participant string, question int) error {
	reply, err := res.ToArray()
	if err == nil && len(reply) == 1 {
		reply, err = reply[0].ToArray()
	}
	return checkAnswer(reply, err, participant, question)
}

// checkAnswer checks one answer's {score, duplicate}: counted.
func checkAnswer(reply []rueidis.RedisMessage, err error, participant string, question int) error {
	if err == nil && len(reply) != 2 {
		err = fmt.Errorf("reply of %d elements, want 2", len(reply))
	}
	if err == nil {
		var dup int64
		if dup, err = reply[1].AsInt64(); err == nil && dup != 0 {
			err = errors.New("counted as a duplicate")
		}
	}
	if err != nil {
		return fmt.Errorf("answer (%s, %d): %w", participant, question, err)
	}
	return nil
}

// rev2Answer is revision 2's RecordAnswer: its script through rueidis' Lua,
// as the library sent it, with a fresh pair per call.
func (r *runner) rev2Answer(k kuis.Keys, workers int) workload {
	keys := rev2Keys(k)
	return workload{"rev2_record_answer", workers, func(int, int) (int, error) {
		p, q := r.freshPair()
		return 1, checkCounted(rev2Script.Exec(context.Background(), r.client, keys, []string{p, strconv.Itoa(q)}), p, q)
	}, nil}
}

// serverCost is what the server spent on a number of answers: the deltas of
// INFO commandstats' cmdstat_evalsha (calls, usec: time inside the command)
// and of INFO cpu's used_cpu_user + used_cpu_sys (the whole process: reading,
// parsing and replying too).
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

// usecPerCall is commandstats' usec_per_call over the whole measurement.
func (c serverCost) usecPerCall() float64 { return round(float64(c.usec)/float64(max(c.calls, 1)), 2) }

// cpuPerAnswer is the server's CPU time per answer, in µs.
func (c serverCost) cpuPerAnswer() float64 {
	return round(c.cpuSec*1e6/float64(max(c.answers, 1)), 2)
}

// serverStats reads cmdstat_evalsha's calls and usec and the server's CPU seconds.
func (r *runner) serverStats() (serverCost, error) {
	text, err := r.client.Do(r.ctx, r.client.B().Info().Section("commandstats", "cpu").Build()).ToString()
	if err != nil {
		return serverCost{}, err
	}
	info := parseInfo(text)
	var c serverCost
	stat := parseFields(info["cmdstat_evalsha"])
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

// parseInfo reads INFO's "name:value" lines.
func parseInfo(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.HasPrefix(name, "#") {
			out[name] = value
		}
	}
	return out
}

// parseFields reads a commandstats value: "calls=3,usec=12,usec_per_call=4.00,...".
func parseFields(value string) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Split(value, ",") {
		if name, v, ok := strings.Cut(f, "="); ok {
			out[name] = v
		}
	}
	return out
}

// pipelined sends n fresh answers through one script as EVALSHA (or, for
// sha "", as ZINCRBY keys[0] 10 participant), per answers per call, 1000 answers per round trip from one goroutine (so the
// server, not the client, is the bottleneck), and returns what the server
// spent on them.
func (r *runner) pipelined(sha string, keys []string, n, per int) (serverCost, error) {
	before, err := r.serverStats()
	if err != nil {
		return serverCost{}, err
	}
	const perTrip = 1000
	type sent struct {
		p string
		q int
	}
	var cmds rueidis.Commands
	var calls [][]sent
	for done := 0; done < n; done += perTrip {
		cmds, calls = cmds[:0], calls[:0]
		for lo := 0; lo < min(perTrip, n-done); lo += per {
			var args []string
			var call []sent
			for range min(per, perTrip, n-done-lo) {
				p, q := r.freshPair()
				args = append(args, p, strconv.Itoa(q))
				call = append(call, sent{p, q})
			}
			if sha == "" {
				cmds = append(cmds, r.client.B().Zincrby().Key(keys[0]).Increment(10).Member(args[0]).Build())
			} else {
				cmds = append(cmds, r.client.B().Evalsha().Sha1(sha).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build())
			}
			calls = append(calls, call)
		}
		for i, res := range r.client.DoMulti(r.ctx, cmds...) {
			if sha == "" {
				if err := res.Error(); err != nil {
					return serverCost{}, err
				}
				continue
			}
			if per == 1 {
				if err := checkCounted(res, calls[i][0].p, calls[i][0].q); err != nil {
					return serverCost{}, err
				}
				continue
			}
			replies, err := res.ToArray()
			if err == nil && len(replies) != len(calls[i]) {
				err = fmt.Errorf("%d replies for %d answers", len(replies), len(calls[i]))
			}
			if err != nil {
				return serverCost{}, err
			}
			for j, m := range replies {
				a, err := m.ToArray()
				if err := checkAnswer(a, err, calls[i][j].p, calls[i][j].q); err != nil {
					return serverCost{}, err
				}
			}
		}
	}
	after, err := r.serverStats()
	if err != nil {
		return serverCost{}, err
	}
	return serverCost{answers: int64(n), calls: after.calls - before.calls, usec: after.usec - before.usec,
		cpuSec: after.cpuSec - before.cpuSec}, nil
}

// usecPerAnswer is the time inside EVALSHA per answer, in µs.
func (c serverCost) usecPerAnswer() float64 {
	return round(float64(c.usec)/float64(max(c.answers, 1)), 2)
}

// The variants scriptCost measures, in its result's order.
const (
	costRev2    = iota // revision 2's script, one answer per call
	costRev3           // revision 3's script before coalescing, one answer per call
	costSingle         // today's script, one answer per run
	costChunked        // today's script, runs of script.MaxAnswers answers
	costZincrby        // bare ZINCRBY, for scale
	costVariants
)

// scriptCost measures record scripts by turns: one warm-up slice each, then
// rounds slices of n/rounds answers each, each to a quiz of its own, and bare
// ZINCRBY the same way.
func (r *runner) scriptCost(n int) (costs [costVariants]serverCost, err error) {
	var shas [costVariants]string
	var keys [costVariants][]string
	per := [costVariants]int{1, 1, 1, script.MaxAnswers, 1}
	for i, v := range []struct {
		id, src string
		keys    func(kuis.Keys) []string
	}{{"cpu-rev2", rev2Source, rev2Keys}, {"cpu-rev3", rev3Source, rev3Keys},
		{"cpu-single", script.RecordAnswerSource, rev3Keys}, {"cpu-chunk", script.RecordAnswerSource, rev3Keys}} {
		if _, err := r.quiz(v.id, answerQuestions); err != nil {
			return costs, err
		}
		k, err := r.store.Keys(v.id)
		if err != nil {
			return costs, err
		}
		keys[i] = v.keys(k)
		if shas[i], err = r.client.Do(r.ctx, r.client.B().ScriptLoad().Script(v.src).Build()).ToString(); err != nil {
			return costs, err
		}
	}
	keys[costZincrby] = []string{r.rawKey("cpu-zincrby")}
	slice := max(1, n/rounds)
	r.logf("server cost: %d answers per variant in %d interleaved slices, after a warm-up slice each ...", slice*rounds, rounds)
	for round := -1; round < rounds; round++ {
		for i := range costs {
			c, err := r.pipelined(shas[i], keys[i], slice, per[i])
			if err != nil {
				return costs, err
			}
			if round >= 0 {
				costs[i].add(c)
			}
		}
	}
	for i, name := range []string{"rev2", "rev3 one per call", "today's one per run", fmt.Sprintf("today's runs of %d", script.MaxAnswers), "ZINCRBY"} {
		r.logf("%-22s %6.2f µs per answer in EVALSHA, %6.2f µs CPU", name, costs[i].usecPerAnswer(), costs[i].cpuPerAnswer())
	}
	return costs, nil
}

// keyMemory is MEMORY USAGE ... SAMPLES 0 (every element counted) of each key of a quiz.
type keyMemory struct {
	meta, board, answers, log, order int64
}

// fillAnswers records participants x questions answers to quiz id through
// RecordAnswers, question by question, 1000 per batch from 4 goroutines, and
// returns the MEMORY USAGE of each of its keys.
func (r *runner) fillAnswers(id string, participants, questions int) (keyMemory, error) {
	board, err := r.quiz(id, questions)
	if err != nil {
		return keyMemory{}, err
	}
	total := participants * questions
	r.logf("recording %d answers (%d participants x %d questions) ...", total, participants, questions)
	start := time.Now()
	const perBatch = 1000
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, batchWorkers)
	for range batchWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := make([]kuis.AnswerInput, 0, perBatch)
			for {
				lo := int(next.Add(perBatch)) - perBatch
				if lo >= total {
					return
				}
				in = in[:0]
				for n := lo; n < min(lo+perBatch, total); n++ {
					in = append(in, kuis.AnswerInput{Participant: fmt.Sprintf("peserta-%05d", n%participants), Question: n/participants + 1})
				}
				out, err := board.RecordAnswers(context.Background(), in)
				for _, res := range out {
					if err == nil && (res.Err != nil || res.Duplicate) {
						err = fmt.Errorf("answer %+v: %+v, %w", in[0], res.Answer, res.Err)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return keyMemory{}, err
	}
	r.logf("recorded in %v", time.Since(start).Round(time.Millisecond))
	k, err := r.store.Keys(id)
	if err != nil {
		return keyMemory{}, err
	}
	var m keyMemory
	for _, f := range []struct {
		dst *int64
		key string
	}{{&m.meta, k.Meta()}, {&m.board, k.Board()}, {&m.answers, k.Answers()}, {&m.log, k.Log()}, {&m.order, k.Order()}} {
		if *f.dst, err = r.client.Do(r.ctx, r.client.B().MemoryUsage().Key(f.key).Samples(0).Build()).AsInt64(); err != nil {
			return m, fmt.Errorf("MEMORY USAGE %s: %w", f.key, err)
		}
	}
	return m, nil
}

// Rev3 is the -rev3 run's measurements, the shape of its JSON line: before =
// revision 2's record script, after = today's. Units as the names say; _ops
// are ops/s, _b bytes.
type Rev3 struct {
	UsecPerCallBefore  float64 `json:"evalsha_usec_per_call_before"`
	UsecPerCallAfter   float64 `json:"evalsha_usec_per_call_after"`
	CPUPerAnswerBefore float64 `json:"cpu_us_per_answer_before"`
	CPUPerAnswerAfter  float64 `json:"cpu_us_per_answer_after"`
	// Today's script, one answer per run and runs of script.MaxAnswers
	// answers ("after" is revision 3's script before coalescing), and bare
	// ZINCRBY, the same way.
	UsecPerAnswerSingle  float64 `json:"evalsha_usec_per_answer_single"`
	CPUPerAnswerSingle   float64 `json:"cpu_us_per_answer_single"`
	UsecPerAnswerChunked float64 `json:"evalsha_usec_per_answer_chunked"`
	UsecPerCallChunked   float64 `json:"evalsha_usec_per_call_chunked"`
	CPUPerAnswerChunked  float64 `json:"cpu_us_per_answer_chunked"`
	CPUPerZincrby        float64 `json:"cpu_us_per_zincrby"`
	// The longest run of today's script among those above (pipelined from
	// one goroutine), from SLOWLOG, and how many took over 1 ms.
	RunMaxUsPipelined    float64 `json:"record_run_max_us_pipelined"`
	RunsOver1msPipelined int     `json:"record_runs_over_1ms_pipelined"`
	Record64Before       float64 `json:"rev2_record_answer_64_ops"`
	Record64After        float64 `json:"record_answer_64_ops"`
	MemAnswers           int     `json:"mem_answers"`
	MemMetaB             int64   `json:"mem_meta_b"`
	MemBoardB            int64   `json:"mem_board_b"`
	MemAnswersB          int64   `json:"mem_answers_b"`
	MemLogB              int64   `json:"mem_log_b"`
	MemOrderB            int64   `json:"mem_order_b"`
	Standing1kP50us      float64 `json:"standing_1k_p50_us"`
	Standing1mP50us      float64 `json:"standing_1m_p50_us"`
	StandingTime1kP50us  float64 `json:"standing_time_1k_p50_us"`
	StandingTime1mP50us  float64 `json:"standing_time_1m_p50_us"`
}

// memPerAnswer is bytes per answer of the given keys' sum.
func (m Rev3) memPerAnswer(sizes ...int64) float64 {
	var sum int64
	for _, s := range sizes {
		sum += s
	}
	return round(float64(sum)/float64(max(m.MemAnswers, 1)), 1)
}

// rev3 runs the revision 3 measurements and prints a table and a JSON line.
func (r *runner) rev3(w io.Writer, cfg config) error {
	var res Rev3
	slowest, err := r.slowRuns(250)
	if err != nil {
		return err
	}
	costs, err := r.scriptCost(cfg.rev3Answers)
	if err != nil {
		return err
	}
	if res.RunMaxUsPipelined, res.RunsOver1msPipelined, err = slowest(); err != nil {
		return err
	}
	before, after, single, chunked := costs[costRev2], costs[costRev3], costs[costSingle], costs[costChunked]
	res.UsecPerCallBefore, res.UsecPerCallAfter = before.usecPerCall(), after.usecPerCall()
	res.CPUPerAnswerBefore, res.CPUPerAnswerAfter = before.cpuPerAnswer(), after.cpuPerAnswer()
	res.UsecPerAnswerSingle, res.CPUPerAnswerSingle = single.usecPerAnswer(), single.cpuPerAnswer()
	res.UsecPerAnswerChunked, res.CPUPerAnswerChunked = chunked.usecPerAnswer(), chunked.cpuPerAnswer()
	res.UsecPerCallChunked = chunked.usecPerCall()
	res.CPUPerZincrby = costs[costZincrby].cpuPerAnswer()

	rec, err := r.quiz("record", answerQuestions)
	if err != nil {
		return err
	}
	if _, err := r.quiz("rev2", answerQuestions); err != nil {
		return err
	}
	k2, err := r.store.Keys("rev2")
	if err != nil {
		return err
	}
	ops, err := r.compare(r.recordAnswer(rec, 64), r.rev2Answer(k2, 64))
	if err != nil {
		return err
	}
	res.Record64After, res.Record64Before = ops[0], ops[1]

	if cfg.memParticipants > 0 && cfg.memQuestions > 0 {
		m, err := r.fillAnswers("memory", cfg.memParticipants, cfg.memQuestions)
		if err != nil {
			return err
		}
		res.MemAnswers = cfg.memParticipants * cfg.memQuestions
		res.MemMetaB, res.MemBoardB, res.MemAnswersB, res.MemLogB, res.MemOrderB = m.meta, m.board, m.answers, m.log, m.order
	}

	p50s, err := r.standingGrowth(cfg.bigMembers)
	if err != nil {
		return err
	}
	res.Standing1kP50us, res.Standing1mP50us, res.StandingTime1kP50us, res.StandingTime1mP50us = p50s[0], p50s[1], p50s[2], p50s[3]

	writeRev3Table(w, res, cfg)
	return writeJSON(w, res)
}

// writeRev3Table writes the before/after table for a human reader.
func writeRev3Table(w io.Writer, r Rev3, cfg config) {
	row := func(name string, before, after float64, unit string) {
		fmt.Fprintf(w, "%-50s %10s %10s  %-6s %12s\n", name, format(before), format(after), unit, format(ratio(after, before)))
	}
	fmt.Fprintf(w, "%-50s %10s %10s  %-6s %12s\n", "revision 3 (after) against revision 2 (before)", "before", "after", "unit", "after/before")
	fmt.Fprintln(w, strings.Repeat("-", 92))
	row("server time in EVALSHA per answer (commandstats)", r.UsecPerCallBefore, r.UsecPerCallAfter, "µs")
	row("server CPU per answer (INFO cpu)", r.CPUPerAnswerBefore, r.CPUPerAnswerAfter, "µs")
	row("RecordAnswer, 64 goroutines (after: coalesced)", r.Record64Before, r.Record64After, "ops/s")
	if r.MemAnswers > 0 {
		row(fmt.Sprintf("memory per answer (%d answers)", r.MemAnswers),
			r.memPerAnswer(r.MemMetaB, r.MemBoardB, r.MemAnswersB),
			r.memPerAnswer(r.MemMetaB, r.MemBoardB, r.MemAnswersB, r.MemLogB, r.MemOrderB), "bytes")
		fmt.Fprintf(w, "  MEMORY USAGE: meta %d, board %d, answers %d, log %d, order %d bytes\n",
			r.MemMetaB, r.MemBoardB, r.MemAnswersB, r.MemLogB, r.MemOrderB)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-50s %10s %10s  %-6s %12s\n", "coalescing: one answer per call (before) vs runs", "before", "after", "unit", "after/before")
	fmt.Fprintln(w, strings.Repeat("-", 92))
	row("server time in EVALSHA per answer (commandstats)", r.UsecPerCallAfter, r.UsecPerAnswerChunked, "µs")
	row("server CPU per answer (INFO cpu)", r.CPUPerAnswerAfter, r.CPUPerAnswerChunked, "µs")
	row("  the same, today's script with one answer per run", r.CPUPerAnswerAfter, r.CPUPerAnswerSingle, "µs")
	row("  bare ZINCRBY, pipelined the same way (for scale)", r.CPUPerAnswerAfter, r.CPUPerZincrby, "µs")
	row(fmt.Sprintf("server time per call (one run of %d answers)", script.MaxAnswers), r.UsecPerCallAfter, r.UsecPerCallChunked, "µs")
	fmt.Fprintf(w, "longest run of today's script above: %.0f µs (SLOWLOG; 0: none took 250 µs), %d over 1 ms\n",
		r.RunMaxUsPipelined, r.RunsOver1msPipelined)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-50s %10s %10s  %-6s %12s\n", "Board.Standing p50, one goroutine", "1,000", format(float64(cfg.bigMembers)), "unit", "big/1k")
	fmt.Fprintln(w, strings.Repeat("-", 92))
	row("name order (board)", r.Standing1kP50us, r.Standing1mP50us, "µs")
	row("time order (order set)", r.StandingTime1kP50us, r.StandingTime1mP50us, "µs")
	fmt.Fprintln(w)
	for _, t := range []target{
		{"record_answer_64 / rev2_record_answer_64", ratio(r.Record64After, r.Record64Before), true, 0.85},
		{"standing_time_1m_p50_us / standing_time_1k_p50_us", ratio(r.StandingTime1mP50us, r.StandingTime1kP50us), false, 3},
	} {
		verdict := "ok"
		if !t.holds() {
			verdict = "MISSED"
		}
		op := ">="
		if !t.min {
			op = "<="
		}
		fmt.Fprintf(w, "%-52s %10s  %-8s %s\n", t.name, format(t.got), op+" "+format(t.want), verdict)
	}
	fmt.Fprintln(w)
}

// standingGrowth builds boards of 1,000 and big members (board and order
// set) and measures Board.Standing's p50 by turns: name order on 1,000 and
// on big, then time order on both.
func (r *runner) standingGrowth(big int) ([]float64, error) {
	b1k, t1k, err := r.buildBoard("big-1k", 1000)
	if err != nil {
		return nil, err
	}
	b1m, t1m, err := r.buildBoard("big-1m", big)
	if err != nil {
		return nil, err
	}
	return r.p50s([]string{"standing_1k", "standing_1m", "standing_time_1k", "standing_time_1m"},
		r.standingRead(b1k, 1000), r.standingRead(b1m, big), r.standingRead(t1k, 1000), r.standingRead(t1m, big))
}
