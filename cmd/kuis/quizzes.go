package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// quizLine is one quiz as quizzes -json prints it: the quiz ID and its
// Summary, in the library's field names.
type quizLine struct {
	QuizID string `json:"quiz_id"`
	kuis.Summary
}

var cmdQuizzes = &command{
	usageLine: "quizzes [-status running|finished] [-json]",
	short:     "every quiz of the namespace: status, questions, participants, answers, title",
	long: `
Lists the quizzes (Store.Quizzes), sorted by ID, one a line: ID, status
(berjalan: running, selesai: finished), questions, participants, counted
answers and title. Nothing when there is none. With -json, one JSON array of
{"quiz_id", "title", "questions", "status", "participants", "answers"}.`,
	flag: func(fs *flag.FlagSet) runFunc {
		status := fs.String("status", "", "only the quizzes `running` or finished")
		asJSON := fs.Bool("json", false, "print one JSON array")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("kuis quizzes: unexpected argument %q", args[0])
			}
			keep, err := statusFilter(*status)
			if err != nil {
				return err
			}
			if err := c.connect(ctx); err != nil {
				return err
			}
			return c.quizzes(ctx, keep, *asJSON)
		}
	},
}

// statusFilter is -status's test of a quiz's status.
func statusFilter(status string) (func(kuis.Status) bool, error) {
	switch status {
	case "":
		return func(kuis.Status) bool { return true }, nil
	case "running":
		return func(s kuis.Status) bool { return s == kuis.StatusRunning }, nil
	case "finished":
		return func(s kuis.Status) bool { return s == kuis.StatusFinished }, nil
	}
	return nil, usagef("kuis quizzes: -status %q: want running or finished", status)
}

func (c *cli) quizzes(ctx context.Context, keep func(kuis.Status) bool, asJSON bool) error {
	sctx, cancel := c.step(ctx)
	defer cancel()
	ids, err := c.store.Quizzes(sctx)
	if err != nil {
		return c.fail("quizzes", err)
	}
	sums, errs := c.summaries(sctx, ids)
	lines := []quizLine{}
	failed := false
	for i, id := range ids {
		switch sum, err := sums[i], errs[i]; {
		case errors.Is(err, kuis.ErrQuizNotFound): // purged meanwhile
		case err != nil:
			c.report("quizzes "+id, err)
			failed = true
		case keep(sum.Status):
			lines = append(lines, quizLine{QuizID: id, Summary: sum})
		}
	}
	if asJSON {
		if err := c.printJSON(lines); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		for _, l := range lines {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", visible(l.QuizID), visible(string(l.Status)), l.Questions, l.Participants, l.Answers, visible(l.Title))
		}
		if err := tw.Flush(); err != nil {
			return c.fail("quizzes", err)
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// summaries reads each quiz's Summary: what Board.Summary reads of a quiz
// (HGETALL of its meta, ZCARD of its board, SCARD of its answers set), for
// every quiz in one DoMulti, which rueidis sends as one pipeline per node (a
// cluster client groups the commands by their slot's node), so that a
// thousand quizzes cost a round trip, not a thousand. A quiz whose replies
// are not a sound summary (an error, a meta missing or malformed) is read
// again with Board.Summary, whose error says why in the library's words.
func (c *cli) summaries(ctx context.Context, ids []string) ([]kuis.Summary, []error) {
	sums, errs := make([]kuis.Summary, len(ids)), make([]error, len(ids))
	cmds := make(rueidis.Commands, 0, 3*len(ids))
	for i, id := range ids {
		k, err := c.store.Keys(id)
		if err != nil {
			errs[i] = err
			continue
		}
		cmds = append(cmds, c.client.B().Hgetall().Key(k.Meta()).Build(), c.client.B().Zcard().Key(k.Board()).Build(),
			c.client.B().Scard().Key(k.Answers()).Build())
	}
	var res []rueidis.RedisResult
	if len(cmds) > 0 {
		res = c.client.DoMulti(ctx, cmds...)
	}
	for i, id := range ids {
		if errs[i] != nil {
			continue
		}
		sum, ok := summaryOf(res[:3])
		res = res[3:]
		if ok {
			sums[i] = sum
			continue
		}
		board, err := c.store.Board(id)
		if err == nil {
			sum, err = board.Summary(ctx)
		}
		sums[i], errs[i] = sum, err
	}
	return sums, errs
}

// summaryOf is the Summary of the replies to HGETALL of a quiz's meta, ZCARD
// of its board and SCARD of its answers set, when they are sound as
// Board.Summary reads them: false for anything else, which Board.Summary
// then reports.
func summaryOf(res []rueidis.RedisResult) (kuis.Summary, bool) {
	meta, err := res[0].AsStrMap()
	if err != nil {
		return kuis.Summary{}, false
	}
	title, hasTitle := meta[wire.FieldTitle]
	questions, sound := wire.Questions(meta[wire.FieldQuestions])
	status := meta[wire.FieldStatus]
	participants, errBoard := res[1].AsInt64()
	answers, errAnswers := res[2].AsInt64()
	if !hasTitle || !sound || status != wire.Running && status != wire.Finished || errBoard != nil || errAnswers != nil {
		return kuis.Summary{}, false
	}
	return kuis.Summary{Title: title, Questions: int64(questions), Status: kuis.Status(status), Participants: participants, Answers: answers}, true
}

// printJSON prints v as one JSON document and a line end, with what a
// terminal would act on \u-escaped (visibleJSON).
func (c *cli) printJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("kuis: JSON: %w", err)
	}
	if _, err := c.stdout.Write(append(visibleJSON(b), '\n')); err != nil {
		return fmt.Errorf("kuis: stdout: %w", err)
	}
	return nil
}

// showResult is what show -json prints: the quiz ID, its Summary and the top
// of its board, in the library's field names.
type showResult struct {
	QuizID string `json:"quiz_id"`
	kuis.Summary
	Standings []kuis.Standing `json:"standings"`
}

var cmdShow = &command{
	usageLine: "show QUIZ [-top N] [-json]",
	short:     "a quiz's summary and the top N of its board",
	long: `
Prints the quiz's title, status and counts (Board.Summary), then the top N of
its board (Board.Page), one participant a line: rank (equal scores share
one), participant, score. With -json, one JSON object: {"quiz_id", "title",
"questions", "status", "participants", "answers", "standings": [{"rank",
"competition_rank", "participant", "score"}]}.`,
	flag: func(fs *flag.FlagSet) runFunc {
		top := fs.Int("top", 10, "how many of the board's top to show, `N` from 1 to 1000")
		asJSON := fs.Bool("json", false, "print one JSON object")
		return func(ctx context.Context, c *cli, args []string) error {
			board, err := c.topBoard(ctx, "show", args, *top)
			if err != nil {
				return err
			}
			return c.show(ctx, board, args[0], *top, *asJSON)
		}
	},
}

// oneQuiz is the one quiz ID of a command's arguments.
func oneQuiz(name string, args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", usagef("kuis %s: no QUIZ (kuis %s -h)", name, name)
	case 1:
		return args[0], nil
	}
	return "", usagef("kuis %s: one QUIZ, not %d", name, len(args))
}

// topBoard checks a command's one QUIZ and its -top N, then connects and
// returns the quiz's board.
func (c *cli) topBoard(ctx context.Context, name string, args []string, top int) (*kuis.Board, error) {
	id, err := oneQuiz(name, args)
	if err == nil {
		err = checkTop(name, top)
	}
	if err != nil {
		return nil, err
	}
	return open(ctx, c, name, id, (*kuis.Store).Board)
}

// checkTop checks -top against the library's bounds of a page.
func checkTop(name string, top int) error {
	if top < 1 || top > 1000 {
		return usagef("kuis %s: -top %d: want 1 to 1000", name, top)
	}
	return nil
}

func (c *cli) show(ctx context.Context, board *kuis.Board, id string, top int, asJSON bool) error {
	sctx, cancel := c.step(ctx)
	defer cancel()
	sum, err := board.Summary(sctx)
	if err != nil {
		return c.fail("show "+id, err)
	}
	page, err := board.Page(sctx, 0, top)
	if err != nil {
		return c.fail("show "+id, err)
	}
	if asJSON {
		return c.printJSON(showResult{QuizID: id, Summary: sum, Standings: page})
	}
	fmt.Fprintf(c.stdout, "%s: %s\n%s, %d questions, %d participants, %d answers\n", visible(id), visible(sum.Title), statusWords(sum.Status), sum.Questions, sum.Participants, sum.Answers)
	return c.printBoard(page)
}

// statusWords is a status as the contract spells it, and in English.
func statusWords(s kuis.Status) string {
	switch s {
	case kuis.StatusRunning:
		return "berjalan (running)"
	case kuis.StatusFinished:
		return "selesai (finished)"
	}
	return visible(string(s))
}

// printBoard prints standings as a table: rank, participant, score.
func (c *cli) printBoard(page []kuis.Standing) error {
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	for _, s := range page {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", strconv.Itoa(s.CompetitionRank), visible(s.Participant), s.Score)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("kuis: stdout: %w", err)
	}
	return nil
}
