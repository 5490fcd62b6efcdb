// Command classroom is kuis's main demonstration: one lesson's quiz from the
// teacher's first key to the last delete.
//
//	go run ./examples/classroom
//
// A teacher creates a 10-question quiz; 30 students answer at the same time,
// tapping twice, losing replies, timing out and answering from two devices,
// then send their last answers one by one as they finish; the board is shown
// as students see it, equal scores in the order their owners finished
// (WithTies(TiesByTime)); the teacher finishes the quiz, a late answer is
// refused, the recap is printed with the hardest question and written as
// three CSVs (the standings, the gradebook of each student's questions, and
// every answer with the server's time), Audit checks the keys against the
// contract, and PurgeQuiz archives the recap to a JSON file and folds it
// into the class's course board before deleting the keys; the course board
// and the standings of the class's two study groups are shown. Last, the
// program checks the recap against the plan of the class, kept apart from
// Redis: each student's points and gradebook row are exactly their distinct
// correct answers, equal scores stand in the order the students finished,
// each question's count is right and the finish came after every answer; it
// exits non-zero if not.
//
// It runs on an in-process miniredis by default, on REDIS_ADDR (a standalone
// Redis) or REDIS_CLUSTER_ADDRS (a Redis Cluster) otherwise, with a namespace
// of its own there, removed at exit. The story depends only on -seed: the
// goroutines may interleave differently on each run, the scores and the board
// may not. Only the answers CSV changes from run to run: the order in which
// answers sent at the same moment were counted, and the times.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

const (
	quizID    = "mtk-8b-01"
	quizTitle = "Ulangan Harian Matematika Kelas 8B"
	questions = 10
	courseID  = "mtk-8b" // the class's term of mathematics
)

// students is the class, in roll-call order.
var students = []string{
	"Adi Nugroho", "Ayu Lestari", "Bagus Pratama", "Bayu Saputra", "Citra Maharani",
	"Dewi Anggraini", "Dimas Prasetyo", "Eka Putri", "Fajar Hidayat", "Fitri Handayani",
	"Gilang Ramadhan", "Hana Salsabila", "Indah Permatasari", "Joko Susilo", "Kadek Wirawan",
	"Lia Amelia", "Made Suartana", "Nanda Kusuma", "Nur Aini", "Putu Ariani",
	"Rahmat Hidayat", "Rina Wulandari", "Rizky Firmansyah", "Sari Rahayu", "Siti Rahmawati",
	"Teguh Santoso", "Tri Wahyuni", "Wayan Sudarsana", "Yogi Saputra", "Yusuf Maulana",
}

// latecomer answers after the teacher has finished the quiz.
const latecomer = "Zahra Aulia"

func main() {
	seed := flag.Uint64("seed", 8, "seed of the class's answers: the same seed tells the same story")
	keep := flag.Bool("keep-archive", false, "keep the archived recap's JSON file instead of removing it at exit")
	flag.Parse()
	// os.Exit skips deferred calls: the work and its cleanup live in lesson.
	if err := lesson(*seed, *keep); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

// lesson runs the story with a temporary folder for the archive.
func lesson(seed uint64, keep bool) error {
	dir, err := os.MkdirTemp("", "kuis-classroom-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	return run(context.Background(), os.Stdout, seed, dir)
}

// run tells the whole story on out and returns an error if any step fails or
// the recap does not match the plans. The recap's JSON archive goes to dir.
func run(ctx context.Context, out io.Writer, seed uint64, dir string) error {
	client, done, err := connect()
	if err != nil {
		return err
	}
	defer done()

	// The students' screens break ties by time: who got there first.
	store, err := kuis.New(client, append(options(client), kuis.WithTies(kuis.TiesByTime))...)
	if err != nil {
		return err
	}
	// Whatever happens below, leave a shared server as we found it.
	defer func() {
		if _, err := store.Purge(context.Background()); err != nil {
			log.Printf("cleanup purge: %v", err)
		}
	}()

	meta, err := store.Meta(quizID)
	if err != nil {
		return err
	}
	board, err := store.Board(quizID)
	if err != nil {
		return err
	}
	keys, err := store.Keys(quizID)
	if err != nil {
		return err
	}

	section(out, "1. The teacher creates the quiz")
	if err := meta.Create(ctx, quizTitle, questions); err != nil {
		return err
	}
	info, err := meta.Get(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%q: %d questions, status %s (keys %s, %s, %s, %s, %s)\n",
		info.Title, info.Questions, info.Status, keys.Meta(), keys.Board(), keys.Answers(), keys.Log(), keys.Order())

	section(out, "2. Thirty students answer at once, then finish one by one")
	plans := planClass(seed)
	tally, err := answerConcurrently(ctx, board, plans)
	if err != nil {
		return err
	}
	if err := finishOneByOne(ctx, board, plans, tally); err != nil {
		return err
	}
	tally.print(out, plans)

	section(out, "3. The board, as the students see it")
	if err := showTop(ctx, out, board, 10); err != nil {
		return err
	}
	if err := showOwnRanks(ctx, out, board); err != nil {
		return err
	}

	section(out, "4. The teacher finishes the quiz")
	if err := meta.Finish(ctx); err != nil {
		return err
	}
	_, err = board.RecordAnswer(ctx, latecomer, 1)
	if !errors.Is(err, kuis.ErrQuizFinished) {
		return fmt.Errorf("late answer: got %w, want %w", err, kuis.ErrQuizFinished)
	}
	fmt.Fprintf(out, "%s answers question 1 too late: %v\n", latecomer, err)

	section(out, "5. The recap")
	recap, err := store.Recap(ctx, quizID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %q, %d questions, status %s, %d students on the board, %d answers counted\n",
		recap.QuizID, recap.Info.Title, recap.Info.Questions, recap.Info.Status, len(recap.Standings), len(recap.Answers))
	fmt.Fprintln(out, hardest(recap.Questions, len(students)))
	fmt.Fprintln(out, "\nThe standings, as CSV:")
	if err := recap.WriteCSV(out); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nThe gradebook, 1 for each question answered right, as CSV:")
	if err := recap.WriteGradebookCSV(out); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nEvery counted answer, in the order counted, with the server's time, as CSV:")
	if err := recap.WriteAnswersCSV(out); err != nil {
		return err
	}

	violations, err := store.Audit(ctx, quizID)
	if err != nil {
		return err
	}
	if len(violations) > 0 {
		return fmt.Errorf("the quiz's keys break the contract: %v", violations)
	}
	fmt.Fprintln(out, "\nAudit: the keys keep the contract (every score is 10 x its counted answers, each answer logged once, each student placed by time)")

	section(out, "6. Fold into the course, archive, then delete")
	course, err := store.Course(courseID)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, quizID+".json")
	n, err := store.PurgeQuiz(ctx, quizID, course.Archive(archiveTo(path)))
	if err != nil {
		return err
	}
	if err := showArchive(out, path, recap); err != nil {
		return err
	}
	left, err := store.Quizzes(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "PurgeQuiz deleted %d keys; quizzes left in the namespace: %d\n", n, len(left))
	if err := showCourse(ctx, out, course, recap); err != nil {
		return err
	}

	section(out, "7. The recap against the plans")
	return check(out, recap, expect(plans), tally)
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

// options gives the run a namespace of its own on a real server, so it never
// touches anyone's kuis:* keys, and hash tags on a cluster, where a quiz's
// keys must share a slot.
func options(client rueidis.Client) []kuis.Option {
	var opts []kuis.Option
	if os.Getenv("REDIS_ADDR") != "" || os.Getenv("REDIS_CLUSTER_ADDRS") != "" {
		opts = append(opts, kuis.WithNamespace(fmt.Sprintf("kuis-classroom-%d", os.Getpid())))
	}
	if client.Mode() == rueidis.ClientModeCluster {
		opts = append(opts, kuis.WithHashTag())
	}
	return opts
}

func section(out io.Writer, title string) {
	fmt.Fprintf(out, "\n== %s\n", title)
}

// How a submission reaches the server. Every kind but once sends the same
// answer again, which is what exactly-once has to absorb.
type kind int

const (
	once      kind = iota // one tap, one reply
	doubleTap             // the student taps "submit" twice
	lostReply             // the server applied it, the reply never arrived, the app retries
	timedOut              // the app gave up before sending, then retries
)

// submission is one correct answer as the app sends it.
type submission struct {
	question int
	how      kind
}

// plan is what one student does during the quiz.
type plan struct {
	student string
	// submissions are sent in this order: all but the last while the whole
	// class answers at once, the last when the student finishes.
	submissions []submission
	// twoDevices: the student has the quiz open on a phone and a laptop, and
	// both send every answer at the same moment.
	twoDevices bool
	// finish is the student's place in the order the class finishes in, from 0.
	finish int
}

// devices is how many devices send each of the student's answers.
func (p plan) devices() int {
	if p.twoDevices {
		return 2
	}
	return 1
}

// planClass decides, from seed alone, which questions each student gets
// right and how each answer travels. Only correct answers are sent: the app
// checks the answer and records the points.
func planClass(seed uint64) []plan {
	rng := rand.New(rand.NewPCG(seed, 2026))
	plans := make([]plan, len(students))
	for i, name := range students {
		skill := 0.25 + 0.7*rng.Float64() // chance of getting a question right
		p := plan{student: name, twoDevices: rng.IntN(10) == 0}
		for q := 1; q <= questions; q++ {
			if rng.Float64() >= skill {
				continue
			}
			how := once
			switch rng.IntN(10) {
			case 0:
				how = doubleTap
			case 1:
				how = lostReply
			case 2:
				how = timedOut
			}
			p.submissions = append(p.submissions, submission{question: q, how: how})
		}
		// Students answer in their own order, not question by question.
		rng.Shuffle(len(p.submissions), func(a, b int) {
			p.submissions[a], p.submissions[b] = p.submissions[b], p.submissions[a]
		})
		plans[i] = p
	}
	for place, i := range rng.Perm(len(plans)) {
		plans[i].finish = place
	}
	return plans
}

// tally counts the server's replies. Every number is fixed by the plans: which
// of two racing calls counts may change from run to run, how many count may not.
type tally struct {
	sent, counted, duplicate, timedOut atomic.Int64
}

// answerConcurrently runs every student, and every second device, in a
// goroutine of its own, all released at once, each sending all of the
// student's submissions but the last.
func answerConcurrently(ctx context.Context, board *kuis.Board, plans []plan) (*tally, error) {
	t := &tally{}
	var devices []func() error
	for _, p := range plans {
		for range p.devices() {
			devices = append(devices, func() error {
				return t.answer(ctx, board, p.student, p.submissions[:max(0, len(p.submissions)-1)])
			})
		}
	}
	return t, together(devices)
}

// together runs each f in a goroutine of its own, all released at the same
// moment, and joins their errors.
func together(fs []func() error) error {
	start := make(chan struct{})
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Go(func() {
			<-start
			errs[i] = f()
		})
	}
	close(start)
	wg.Wait()
	return errors.Join(errs...)
}

// finishGap is the pause between two students' last answers: at least 1 ms,
// so that the server's clock, to the millisecond, tells every two finishes
// apart and the board's order among equal scores depends only on the seed.
const finishGap = 2 * time.Millisecond

// finishOneByOne sends each student's last submission, in the order the class
// finishes, finishGap apart; a student on two devices sends it from both at
// once. The last answer is each student's latest counted one: it fixes their
// place among equal scores, and no retry of it moves them.
func finishOneByOne(ctx context.Context, board *kuis.Board, plans []plan, t *tally) error {
	byFinish := slices.Clone(plans)
	slices.SortFunc(byFinish, func(a, b plan) int { return a.finish - b.finish })
	for _, p := range byFinish {
		if len(p.submissions) == 0 {
			continue
		}
		last := func() error { return t.answer(ctx, board, p.student, p.submissions[len(p.submissions)-1:]) }
		if err := together(slices.Repeat([]func() error{last}, p.devices())); err != nil {
			return err
		}
		time.Sleep(finishGap)
	}
	return nil
}

// answer sends one device's submissions, retrying as a real app would.
func (t *tally) answer(ctx context.Context, board *kuis.Board, student string, submissions []submission) error {
	for _, s := range submissions {
		switch s.how {
		case doubleTap, lostReply:
			// A second tap, or a first call whose reply the network "lost":
			// the server applies it, and the send below is what the app sees.
			if err := t.send(ctx, board, student, s.question); err != nil {
				return err
			}
		case timedOut:
			expired, cancel := context.WithDeadline(ctx, time.Unix(0, 0))
			_, err := board.RecordAnswer(expired, student, s.question)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("%s, question %d with an expired deadline: got %w, want %w", student, s.question, err, context.DeadlineExceeded)
			}
			t.timedOut.Add(1)
		}
		if err := t.send(ctx, board, student, s.question); err != nil {
			return err
		}
	}
	return nil
}

// send records one answer and counts the reply.
func (t *tally) send(ctx context.Context, board *kuis.Board, student string, question int) error {
	a, err := board.RecordAnswer(ctx, student, question)
	if err != nil {
		return fmt.Errorf("%s, question %d: %w", student, question, err)
	}
	t.sent.Add(1)
	if a.Duplicate {
		t.duplicate.Add(1)
	} else {
		t.counted.Add(1)
	}
	return nil
}

func (t *tally) print(out io.Writer, plans []plan) {
	kinds := map[kind]int{}
	twoDevices := 0
	for _, p := range plans {
		if p.twoDevices {
			twoDevices++
		}
		for _, s := range p.submissions {
			kinds[s.how] += p.devices()
		}
	}
	fmt.Fprintf(out, "%d students, %d of them on two devices at once; %d double taps, %d lost replies, %d timeouts, all retried;\n",
		len(plans), twoDevices, kinds[doubleTap], kinds[lostReply], kinds[timedOut])
	fmt.Fprintf(out, "each student's last answer sent on finishing, %v after the previous student's\n", finishGap)
	fmt.Fprintf(out, "%d calls reached the server: %d counted, %d answered Duplicate (nothing added); %d gave up before sending\n",
		t.sent.Load(), t.counted.Load(), t.duplicate.Load(), t.timedOut.Load())
}

// showTop prints the first page of the board with both kinds of rank.
func showTop(ctx context.Context, out io.Writer, board *kuis.Board, n int) error {
	size, err := board.Len(ctx)
	if err != nil {
		return err
	}
	top, err := board.Page(ctx, 0, n)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Top %d of %d on the board (Rank breaks ties by who finished first; equal scores share a competition rank):\n", len(top), size)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "rank\tcompetition\tstudent\tscore")
	for _, s := range top {
		fmt.Fprintf(w, "%d\t%d\t%s\t%d\n", s.Rank, s.CompetitionRank, s.Participant, s.Score)
	}
	return w.Flush()
}

// showOwnRanks prints what a student sees on their own screen, for the
// leader, one from the middle, the last on the board, and a student who has
// not answered anything yet.
func showOwnRanks(ctx context.Context, out io.Writer, board *kuis.Board) error {
	size, err := board.Len(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, pos := range []int64{0, size / 2, size - 1} {
		page, err := board.Page(ctx, int(pos), 1)
		if err != nil {
			return err
		}
		names = append(names, page[0].Participant)
	}
	names = append(names, latecomer) // has not answered yet
	for _, name := range names {
		own, err := board.Standing(ctx, name)
		if errors.Is(err, kuis.ErrNotOnBoard) {
			fmt.Fprintf(out, "\n%s's screen: no correct answer yet (%v)\n", name, err)
			continue
		}
		if err != nil {
			return err
		}
		around, err := board.Around(ctx, name, 1)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\n%s's screen: rank %d, competition rank %d, %d points\n", name, own.Rank, own.CompetitionRank, own.Score)
		for _, s := range around {
			marker := "  "
			if s.Participant == name {
				marker = "> "
			}
			fmt.Fprintf(out, "  %s%2d. %-18s %3d\n", marker, s.Rank, s.Participant, s.Score)
		}
	}
	return nil
}

// hardest names the question (or questions) the fewest students answered
// correctly, out of a class of size.
func hardest(questions []kuis.QuestionResult, size int) string {
	if len(questions) == 0 {
		return "No questions."
	}
	low := slices.MinFunc(questions, func(a, b kuis.QuestionResult) int { return a.Correct - b.Correct }).Correct
	var nums []string
	for _, q := range questions {
		if q.Correct == low {
			nums = append(nums, strconv.Itoa(q.Question))
		}
	}
	noun := "question"
	if len(nums) > 1 {
		noun = "questions"
	}
	return fmt.Sprintf("Hardest %s: %s, answered correctly by %d of %d students.", noun, strings.Join(nums, ", "), low, size)
}

// archiveTo is PurgeQuiz's archive: the keys are deleted only if the recap is
// safely on disk, so the file is synced before archive returns nil.
func archiveTo(path string) func(context.Context, kuis.Recap) error {
	return func(_ context.Context, r kuis.Recap) error {
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if _, err = f.Write(data); err == nil {
			err = f.Sync()
		}
		return errors.Join(err, f.Close())
	}
}

// teams are the class's two study groups, by roll call: the first half and
// the second.
func teams() []kuis.Team {
	half := len(students) / 2
	return []kuis.Team{
		{Name: "Kelompok Cendana", Members: slices.Clone(students[:half])},
		{Name: "Kelompok Meranti", Members: slices.Clone(students[half:])},
	}
}

// showCourse prints the course board the lesson was folded into, the quizzes
// it holds and the two study groups' standings, and checks that each
// student's course total is their points in the recap: the quiz counted once.
func showCourse(ctx context.Context, out io.Writer, course *kuis.Course, recap kuis.Recap) error {
	folded, err := course.Quizzes(ctx)
	if err != nil {
		return err
	}
	for _, q := range folded {
		fmt.Fprintf(out, "\nCourse %s holds quiz %s: %d questions, %d students with points, %d points in all\n",
			course.Keys().CourseID(), q.QuizID, q.Questions, q.Participants, q.Points)
	}
	standings, err := course.Standings(ctx)
	if err != nil {
		return err
	}
	scores := map[string]int64{}
	for _, s := range recap.Standings {
		scores[s.Participant] = s.Score
	}
	if len(standings) != len(recap.Standings) {
		return fmt.Errorf("the course board holds %d students, the recap %d", len(standings), len(recap.Standings))
	}
	fmt.Fprintln(out, "The course board's top 5 (equal totals share a rank, all in or all out, in Redis's name order; a course keeps no times):")
	for _, s := range standings {
		if s.Score != scores[s.Participant] {
			return fmt.Errorf("%s has %d points in the course, %d in the recap", s.Participant, s.Score, scores[s.Participant])
		}
		if s.CompetitionRank <= 5 {
			fmt.Fprintf(out, "  %d. %-18s %3d\n", s.CompetitionRank, s.Participant, s.Score)
		}
	}
	groups, err := course.Teams(ctx, teams(), kuis.TeamMean)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "The study groups, by their mean (a student without points counts 0):")
	for _, g := range groups {
		fmt.Fprintf(out, "  %d. %s: %d students, %d points, mean %.1f\n", g.Rank, g.Team, g.Members, g.Sum, g.Mean)
	}
	return nil
}

// showArchive reads the archive back: after the purge it is the only copy of
// the grades, so it must hold the same standings as the recap.
func showArchive(out io.Writer, path string, want kuis.Recap) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var got kuis.Recap
	if err := json.Unmarshal(data, &got); err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	if !slices.Equal(got.Standings, want.Standings) {
		return fmt.Errorf("archive %s holds standings %v, want %v", path, got.Standings, want.Standings)
	}
	fmt.Fprintf(out, "recap archived to %s (%d bytes, %d standings read back intact)\n", path, len(data), len(got.Standings))
	return nil
}

// expected is what the plans alone say the recap must hold: however often a
// (student, question) pair was sent, it counts once.
type expected struct {
	correct     map[string][]int // each student's questions answered right, ascending
	board       []string         // most points first; equal points in the order the students finished
	finished    []string         // the students with an answer, in the order they finished
	perQuestion map[int]int      // students who answered each question right
	answers     int              // distinct (student, question) pairs
}

// expect works the expected recap out of the plans.
func expect(plans []plan) expected {
	e := expected{correct: map[string][]int{}, perQuestion: map[int]int{}}
	byFinish := slices.Clone(plans)
	slices.SortFunc(byFinish, func(a, b plan) int { return a.finish - b.finish })
	for _, p := range byFinish {
		var qs []int
		for _, s := range p.submissions {
			qs = append(qs, s.question)
		}
		slices.Sort(qs)
		qs = slices.Compact(qs)
		if len(qs) == 0 {
			continue // never on the board
		}
		e.correct[p.student] = qs
		e.finished = append(e.finished, p.student)
		for _, q := range qs {
			e.perQuestion[q]++
		}
		e.answers += len(qs)
	}
	e.board = slices.Clone(e.finished)
	slices.SortStableFunc(e.board, func(a, b string) int { return len(e.correct[b]) - len(e.correct[a]) })
	return e
}

// check compares the recap, and the tally of the server's replies, with what
// the plans expect, and reports each check on out.
func check(out io.Writer, r kuis.Recap, want expected, t *tally) error {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	report := func(what string, from int) {
		fmt.Fprintf(out, "%s: %v\n", what, len(problems) == from)
	}

	// Points and the gradebook: 10 per distinct correct answer, no more.
	from, total := len(problems), int64(0)
	grades := r.Gradebook()
	for _, g := range grades {
		total += g.Score
		if w := want.correct[g.Participant]; !slices.Equal(g.Correct, w) || g.Score != 10*int64(len(w)) {
			fail("%s has %d points for questions %v, want %d for %v", g.Participant, g.Score, g.Correct, 10*len(w), w)
		}
	}
	if len(grades) != len(want.correct) {
		fail("%d students in the gradebook, want %d", len(grades), len(want.correct))
	}
	if c := t.counted.Load(); c != int64(want.answers) {
		fail("%d calls counted, want one per distinct pair: %d", c, want.answers)
	}
	report(fmt.Sprintf("board total %d = 10 x %d distinct correct answers, each student's gradebook row as planned", total, want.answers), from)

	// The order among equal scores, and the log's times: who finished first.
	from = len(problems)
	board := make([]string, len(r.Standings))
	for i, s := range r.Standings {
		board[i] = s.Participant
	}
	if !slices.Equal(board, want.board) {
		fail("the board is %v, want %v", board, want.board)
	}
	latest := map[string]time.Time{}
	for _, a := range r.Answers {
		if a.At.After(latest[a.Participant]) {
			latest[a.Participant] = a.At
		}
		if !r.FinishedAt.After(a.At) {
			fail("%s's answer to %d at %s is not before the finish at %s", a.Participant, a.Question, a.At, r.FinishedAt)
		}
	}
	for i := 1; i < len(want.finished); i++ {
		prev, cur := want.finished[i-1], want.finished[i]
		if !latest[cur].After(latest[prev]) {
			fail("the log's latest answer of %s (%s) is not after %s's (%s)",
				cur, latest[cur].Format(time.StampMilli), prev, latest[prev].Format(time.StampMilli))
		}
	}
	report(fmt.Sprintf("equal scores in finishing order, %d answers logged in time order, all before the finish", len(r.Answers)), from)

	// What the recap counts: every answer, and each question's.
	from = len(problems)
	if len(r.Answers) != want.answers {
		fail("%d answers in the recap, want %d", len(r.Answers), want.answers)
	}
	if len(r.Questions) != questions {
		fail("%d questions in the recap, want %d", len(r.Questions), questions)
	}
	for _, q := range r.Questions {
		if q.Correct != want.perQuestion[q.Question] {
			fail("question %d: %d correct, want %d", q.Question, q.Correct, want.perQuestion[q.Question])
		}
	}
	report(fmt.Sprintf("%d question counts right", len(r.Questions)), from)

	if len(problems) > 0 {
		return fmt.Errorf("the recap does not match the plans: %s", strings.Join(problems, "; "))
	}
	return nil
}
