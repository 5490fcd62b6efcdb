package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// -erase measures Store.Erase in a namespace the size of a school's term:
// finished quizzes folded into courses, and a class roster. Each timed call
// erases a participant of its own (see eraseShape), so that every call
// finds the state the first one found: its quizzes, ledgers and roster
// entry untouched by the calls before it. Between them, by turns, it erases
// a participant on no key: the cost of finding nothing. For each call: its
// wall time; the server's CPU time (INFO cpu, the whole process, the second
// INFO call included: exact only on a server of the run's own) and the time
// inside commands (the sum of INFO commandstats usec); the commands the
// server ran, by name (INFO commandstats, those scripts run included, INFO
// left out); and the round trips and commands the client sent, by name (a
// client that counts them).

// eraseShape is the namespace -erase builds. Quiz i is folded into course
// i / perCourse. Target t, the participant run t erases, sits in the quizzes
// of even i of the coursesPerTarget courses from coursesPerTarget*t on:
// every target in courses and quizzes of its own. The roster enrolls every
// target and seats-targets of course 0's students.
type eraseShape struct {
	courses, perCourse int // courses, and the quizzes folded into each
	seats, questions   int // participants and questions of each quiz; students of the roster
	targets            int // participants erased, one a call
}

// coursesPerTarget is how many courses hold each target.
const coursesPerTarget = 4

// eraseFull is the shape -erase measures: 500 quizzes of 30 participants
// and 10 questions, 20 courses of 25, a roster of 30; each of 5 targets in
// 50 quizzes (12 or 13 instances in each of its 4 courses) and the roster.
var eraseFull = eraseShape{courses: 20, perCourse: 25, seats: 30, questions: 10, targets: 5}

// eraseAbsent is the participant of the baseline calls: on no key.
const eraseAbsent = "tidak-ada"

// eraseClass is the ID of the roster.
const eraseClass = "erase-kelas"

func (s eraseShape) quizzes() int { return s.courses * s.perCourse }

func (s eraseShape) check() error {
	if s.targets < 1 || s.targets*coursesPerTarget > s.courses || s.perCourse < 1 || s.seats <= s.targets || s.questions < 1 {
		return fmt.Errorf("erase shape %+v: want 1 to courses/%d targets, fewer than seats, and at least one quiz and question",
			s, coursesPerTarget)
	}
	return nil
}

func eraseQuizID(i int) string   { return fmt.Sprintf("erase-q%03d", i) }
func eraseCourseID(c int) string { return fmt.Sprintf("erase-c%02d", c) }
func eraseTarget(t int) string   { return "target-" + strconv.Itoa(t) }

// courseStudent is student j of course c.
func courseStudent(c, j int) string { return fmt.Sprintf("k%02d-%02d", c, j) }

// holder is the target quiz i holds, or -1.
func (s eraseShape) holder(i int) int {
	t := i / s.perCourse / coursesPerTarget
	if t >= s.targets || i%2 != 0 {
		return -1
	}
	return t
}

// seats are quiz i's participants: its course's students, the first of them
// replaced by the target the quiz holds.
func (s eraseShape) participants(i int) []string {
	c := i / s.perCourse
	out := make([]string, s.seats)
	for j := range out {
		out[j] = courseStudent(c, j)
	}
	if t := s.holder(i); t >= 0 {
		out[0] = eraseTarget(t)
	}
	return out
}

// answers are quiz i's answers, every one counted: seat j answers
// questions 1 to questions - j%questions, so that scores differ and the
// first seat (a target's) answers all.
func (s eraseShape) answers(i int) []kuis.AnswerInput {
	var out []kuis.AnswerInput
	for j, p := range s.participants(i) {
		for q := 1; q <= s.questions-j%s.questions; q++ {
			out = append(out, kuis.AnswerInput{Participant: p, Question: q})
		}
	}
	return out
}

// held is where target t is: its quizzes' IDs by course ID.
func (s eraseShape) held(t int) map[string][]string {
	out := map[string][]string{}
	for i := range s.quizzes() {
		if s.holder(i) == t {
			c := eraseCourseID(i / s.perCourse)
			out[c] = append(out[c], eraseQuizID(i))
		}
	}
	return out
}

// roster is the class's students: the targets, then course 0's students.
func (s eraseShape) roster() []kuis.Student {
	out := make([]kuis.Student, 0, s.seats)
	for t := range s.targets {
		out = append(out, kuis.Student{ID: "nis-" + eraseTarget(t), Name: eraseTarget(t)})
	}
	for j := 0; len(out) < s.seats; j++ {
		out = append(out, kuis.Student{ID: "nis-" + courseStudent(0, j), Name: courseStudent(0, j)})
	}
	return out
}

// eraseSetup builds shape in the run's namespace through the library:
// the roster, then each course's quizzes created, answered (RecordAnswers),
// finished, recapped and folded, courses by turns on a few goroutines.
func (r *runner) eraseSetup(store *kuis.Store, shape eraseShape) error {
	if err := shape.check(); err != nil {
		return err
	}
	class, err := store.Class(eraseClass)
	if err != nil {
		return err
	}
	if err := class.Enroll(r.ctx, shape.roster()...); err != nil {
		return err
	}
	courses := make(chan int, shape.courses)
	for c := range shape.courses {
		courses <- c
	}
	close(courses)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range min(4, shape.courses) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range courses {
				err := r.eraseCourse(store, shape, c)
				mu.Lock()
				if first == nil {
					first = err
				}
				stop := first != nil
				mu.Unlock()
				if stop {
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// eraseCourse writes course c's quizzes and folds each into it.
func (r *runner) eraseCourse(store *kuis.Store, shape eraseShape, c int) error {
	course, err := store.Course(eraseCourseID(c))
	if err != nil {
		return err
	}
	for i := c * shape.perCourse; i < (c+1)*shape.perCourse; i++ {
		id := eraseQuizID(i)
		m, err := store.Meta(id)
		if err != nil {
			return err
		}
		if err := m.Create(r.ctx, "bench "+id, shape.questions); err != nil {
			return err
		}
		b, err := store.Board(id)
		if err != nil {
			return err
		}
		if _, err := b.RecordAnswers(r.ctx, shape.answers(i)); err != nil {
			return err
		}
		if err := m.Finish(r.ctx); err != nil {
			return err
		}
		recap, err := store.Recap(r.ctx, id)
		if err != nil {
			return err
		}
		f, err := course.Fold(r.ctx, recap)
		if err != nil {
			return err
		}
		if f.Participants != shape.seats {
			return fmt.Errorf("fold of quiz %s: %d participants added, want %d", id, f.Participants, shape.seats)
		}
	}
	return nil
}

// checkErasure says how e differs from what erasing target t of shape
// removes (the baseline's when t < 0): every quiz and ledger the layout puts
// them in, and the roster.
func (s eraseShape) checkErasure(e kuis.Erasure, t int) error {
	held := map[string][]string{}
	if t >= 0 {
		held = s.held(t)
	}
	var wantQuizzes, gotQuizzes []string
	for _, ids := range held {
		wantQuizzes = append(wantQuizzes, ids...)
	}
	slices.Sort(wantQuizzes)
	for _, q := range e.Quizzes {
		gotQuizzes = append(gotQuizzes, q.QuizID)
		if q.Points != int64(10*s.questions) || q.Answers != int64(s.questions) {
			return fmt.Errorf("quiz %s: %d points and %d answers erased, want %d and %d", q.QuizID, q.Points, q.Answers,
				10*s.questions, s.questions)
		}
	}
	if !slices.Equal(wantQuizzes, gotQuizzes) {
		return fmt.Errorf("erased from quizzes %v, want %v", gotQuizzes, wantQuizzes)
	}
	if len(e.Courses) != len(held) {
		return fmt.Errorf("erased from %d courses, want %d", len(e.Courses), len(held))
	}
	for _, c := range e.Courses {
		var quizzes []string
		for _, field := range c.Instances {
			quiz, _, _ := strings.Cut(field, "@")
			quizzes = append(quizzes, quiz)
		}
		if !slices.Equal(quizzes, held[c.CourseID]) {
			return fmt.Errorf("course %s: erased from the ledgers of %v, want %v", c.CourseID, quizzes, held[c.CourseID])
		}
	}
	want := []kuis.ClassErasure{}
	if t >= 0 {
		want = append(want, kuis.ClassErasure{ClassID: eraseClass, StudentID: "nis-" + eraseTarget(t)})
	}
	if !slices.Equal(want, e.Classes) {
		return fmt.Errorf("withdrawn from %v, want %v", e.Classes, want)
	}
	return nil
}

// erasePass is what one timed Erase cost.
type erasePass struct {
	took       time.Duration
	cpuSec     float64          // the server's, INFO cpu
	inCommands int64            // µs inside commands, INFO commandstats
	ran        map[string]int64 // commands the server ran, INFO commandstats
	trips      int64            // round trips the client made
	sent       map[string]int64 // commands the client sent
}

// commandStats reads every command's calls and usec from INFO commandstats
// and the server's CPU seconds from INFO cpu.
func (r *runner) commandStats() (calls, usec map[string]int64, cpuSec float64, err error) {
	text, err := r.client.Do(r.ctx, r.client.B().Info().Section("commandstats", "cpu").Build()).ToString()
	if err != nil {
		return nil, nil, 0, err
	}
	calls, usec = map[string]int64{}, map[string]int64{}
	for name, value := range parseInfo(text) {
		if cmd, ok := strings.CutPrefix(name, "cmdstat_"); ok {
			f := parseFields(value)
			calls[cmd], _ = strconv.ParseInt(f["calls"], 10, 64)
			usec[cmd], _ = strconv.ParseInt(f["usec"], 10, 64)
		}
	}
	info := parseInfo(text)
	for _, f := range []string{"used_cpu_user", "used_cpu_sys"} {
		v, err := strconv.ParseFloat(info[f], 64)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("INFO cpu: %s is %q", f, info[f])
		}
		cpuSec += v
	}
	return calls, usec, cpuSec, nil
}

// timedErase erases who through store, whose client is counter, and
// returns what it cost and removed.
func (r *runner) timedErase(store *kuis.Store, counter *countingClient, who string) (erasePass, kuis.Erasure, error) {
	calls0, usec0, cpu0, err := r.commandStats()
	if err != nil {
		return erasePass{}, kuis.Erasure{}, err
	}
	counter.reset()
	start := time.Now()
	e, err := store.Erase(r.ctx, who)
	took := time.Since(start)
	trips, sent := counter.counts()
	if err != nil {
		return erasePass{}, e, err
	}
	calls1, usec1, cpu1, err := r.commandStats()
	if err != nil {
		return erasePass{}, e, err
	}
	p := erasePass{took: took, cpuSec: cpu1 - cpu0, ran: map[string]int64{}, trips: trips, sent: sent}
	for cmd, n := range calls1 {
		if d := n - calls0[cmd]; d > 0 && cmd != "info" {
			p.ran[cmd] = d
			p.inCommands += usec1[cmd] - usec0[cmd]
		}
	}
	return p, e, nil
}

// erase builds eraseFull and measures Erase of each target and, by turns,
// of a participant on no key.
func (r *runner) erase(w io.Writer) error {
	shape := eraseFull
	counter := newCountingClient(r.client)
	store, err := kuis.New(counter, kuis.WithNamespace(r.ns))
	if err != nil {
		return err
	}
	r.logf("erase: building %d quizzes of %d participants and %d questions, %d courses of %d, a roster of %d ...",
		shape.quizzes(), shape.seats, shape.questions, shape.courses, shape.perCourse, shape.seats)
	start := time.Now()
	if err := r.eraseSetup(store, shape); err != nil {
		return err
	}
	built := time.Since(start)
	keys, err := r.client.Do(r.ctx, r.client.B().Dbsize().Build()).AsInt64()
	if err != nil {
		return err
	}
	// No timed call pays the one NOSCRIPT and EVAL of a server that never ran a script.
	for _, s := range []script.Script{script.Erase, script.Course, script.Withdraw} {
		if err := r.client.Do(r.ctx, r.client.B().ScriptLoad().Script(s.Source()).Build()).Error(); err != nil {
			return err
		}
	}
	var found, none []erasePass
	for t := range shape.targets {
		p, e, err := r.timedErase(store, counter, eraseAbsent)
		if err == nil {
			err = shape.checkErasure(e, -1)
		}
		if err != nil {
			return fmt.Errorf("erase of %s: %w", eraseAbsent, err)
		}
		none = append(none, p)
		if p, e, err = r.timedErase(store, counter, eraseTarget(t)); err == nil {
			err = shape.checkErasure(e, t)
		}
		if err != nil {
			return fmt.Errorf("erase of %s: %w", eraseTarget(t), err)
		}
		found = append(found, p)
	}
	fmt.Fprintf(w, "%d quizzes of %d participants and %d questions, %d courses of %d, a roster of %d: %d keys in the server, built in %.1f s\n",
		shape.quizzes(), shape.seats, shape.questions, shape.courses, shape.perCourse, shape.seats, keys, built.Seconds())
	writeEraseTable(w, []eraseRow{
		summarizeErase("erase_50", fmt.Sprintf("Store.Erase of a participant in 50 quizzes, %d ledgers of %d courses and the roster, %d runs (a participant of its own each)",
			50, coursesPerTarget, shape.targets), found),
		summarizeErase("erase_none", fmt.Sprintf("Store.Erase of a participant on no key, %d runs", shape.targets), none),
	})
	return nil
}

// eraseRow sums up the runs of one kind of call.
type eraseRow struct {
	name, what          string
	median, max         time.Duration
	cpuMedian, cpuMax   float64 // seconds
	inCommandsMedian    int64   // µs
	tripsMin, tripsMax  int64
	ran, sent           map[string][2]int64 // by command: the fewest and most of a run
	ranTotal, sentTotal [2]int64
	serverShare         float64 // median server CPU over median wall time
}

// summarizeErase sums up passes, one per run.
func summarizeErase(name, what string, passes []erasePass) eraseRow {
	row := eraseRow{name: name, what: what}
	if len(passes) == 0 {
		return row
	}
	var took []time.Duration
	var cpu []float64
	var in, trips []int64
	for _, p := range passes {
		took, cpu, in, trips = append(took, p.took), append(cpu, p.cpuSec), append(in, p.inCommands), append(trips, p.trips)
	}
	slices.Sort(cpu)
	slices.Sort(in)
	row.median, row.max = percentile(took, 50), slices.Max(took)
	row.cpuMedian, row.cpuMax = cpu[(len(cpu)-1)/2], cpu[len(cpu)-1]
	row.inCommandsMedian = in[(len(in)-1)/2]
	row.tripsMin, row.tripsMax = slices.Min(trips), slices.Max(trips)
	if row.median > 0 {
		row.serverShare = row.cpuMedian / row.median.Seconds()
	}
	row.ran, row.ranTotal = ranges(passes, func(p erasePass) map[string]int64 { return p.ran })
	row.sent, row.sentTotal = ranges(passes, func(p erasePass) map[string]int64 { return p.sent })
	return row
}

// ranges is, for each command any pass counted, the fewest and the most of
// a pass (0 where a pass did not count it), and the same of their totals.
func ranges(passes []erasePass, counts func(erasePass) map[string]int64) (map[string][2]int64, [2]int64) {
	names := map[string]bool{}
	for _, p := range passes {
		for cmd := range counts(p) {
			names[cmd] = true
		}
	}
	out := map[string][2]int64{}
	var total [2]int64
	for i, p := range passes {
		var sum int64
		for cmd := range names {
			n := counts(p)[cmd]
			sum += n
			r, ok := out[cmd]
			if !ok {
				r = [2]int64{n, n}
			}
			out[cmd] = [2]int64{min(r[0], n), max(r[1], n)}
		}
		if i == 0 {
			total = [2]int64{sum, sum}
		}
		total = [2]int64{min(total[0], sum), max(total[1], sum)}
	}
	return out, total
}

// span words a fewest-and-most pair: "7", or "7–9".
func span(r [2]int64) string {
	if r[0] == r[1] {
		return strconv.FormatInt(r[0], 10)
	}
	return strconv.FormatInt(r[0], 10) + "–" + strconv.FormatInt(r[1], 10)
}

// counted words commands by name, most first, then by name.
func counted(m map[string][2]int64) string {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int {
		if m[a][1] != m[b][1] {
			return int(m[b][1] - m[a][1])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = strings.ToUpper(n) + " " + span(m[n])
	}
	return strings.Join(parts, ", ")
}

// writeEraseTable writes the -erase rows for a human reader.
func writeEraseTable(w io.Writer, rows []eraseRow) {
	fmt.Fprintf(w, "%-10s %10s %10s %21s %18s %7s %8s %8s  %s\n", "", "median", "max", "server CPU p50 / max",
		"in commands p50", "share", "trips", "sent", "what")
	for i := range rows {
		r := &rows[i]
		fmt.Fprintf(w, "%-10s %7.1f ms %7.1f ms %21s %18s %7s %8s %8s  %s\n", r.name, ms(r.median), ms(r.max),
			fmt.Sprintf("%.1f / %.1f ms", r.cpuMedian*1000, r.cpuMax*1000), fmt.Sprintf("%.1f ms", float64(r.inCommandsMedian)/1000),
			fmt.Sprintf("%.0f %%", 100*r.serverShare), span([2]int64{r.tripsMin, r.tripsMax}), span(r.sentTotal), r.what)
	}
	for i := range rows {
		r := &rows[i]
		fmt.Fprintf(w, "%s, sent by the client (%s): %s\n", r.name, span(r.sentTotal), counted(r.sent))
		fmt.Fprintf(w, "%s, run by the server, scripts' commands included (%s): %s\n", r.name, span(r.ranTotal), counted(r.ran))
	}
}

// countingClient is a client that counts the round trips it makes (one Do
// or DoMulti, on it or on one of its nodes) and the commands it sends, by
// name (a subcommand's with it: "SCRIPT LOAD").
type countingClient struct {
	rueidis.Client
	log *commandCounts
}

type commandCounts struct {
	mu    sync.Mutex
	trips int64
	sent  map[string]int64
}

func newCountingClient(c rueidis.Client) *countingClient {
	return &countingClient{Client: c, log: &commandCounts{sent: map[string]int64{}}}
}

func (c *countingClient) note(cmds ...rueidis.Completed) {
	c.log.mu.Lock()
	defer c.log.mu.Unlock()
	c.log.trips++
	for _, cmd := range cmds {
		c.log.sent[commandName(cmd.Commands())]++
	}
}

// commandName is the command's name, lower case as INFO commandstats has
// it, with its subcommand for a command that has them.
func commandName(args []string) string {
	if len(args) == 0 {
		return ""
	}
	name := strings.ToLower(args[0])
	switch name {
	case "script", "client", "cluster", "config", "object", "memory", "acl":
		if len(args) > 1 {
			name += "|" + strings.ToLower(args[1])
		}
	}
	return name
}

func (c *countingClient) reset() {
	c.log.mu.Lock()
	c.log.trips, c.log.sent = 0, map[string]int64{}
	c.log.mu.Unlock()
}

func (c *countingClient) counts() (int64, map[string]int64) {
	c.log.mu.Lock()
	defer c.log.mu.Unlock()
	return c.log.trips, maps.Clone(c.log.sent)
}

func (c *countingClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.note(cmd)
	return c.Client.Do(ctx, cmd)
}

func (c *countingClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	c.note(cmds...)
	return c.Client.DoMulti(ctx, cmds...)
}

// Nodes counts on each node too: a cluster's SCAN goes to them.
func (c *countingClient) Nodes() map[string]rueidis.Client {
	out := map[string]rueidis.Client{}
	for addr, n := range c.Client.Nodes() {
		out[addr] = &countingClient{Client: n, log: c.log}
	}
	return out
}
