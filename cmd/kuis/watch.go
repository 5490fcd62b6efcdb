package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/kuisboard/kuis"
)

// watchEvery is how often the live board may be redrawn: at a human rate,
// and only when the quiz changed (Board.Live).
const watchEvery = 500 * time.Millisecond

var cmdWatch = &command{
	usageLine: "watch QUIZ [-top N]",
	short:     "the live board, redrawn when it changes, until Finish or Ctrl-C",
	long: `
Follows the top N of the quiz's board (Board.Live): at once, then whenever an
answer is counted, at most twice a second, until the quiz is finished (after
its final board) or Ctrl-C; both end with exit status 0. On a terminal the
screen is redrawn; otherwise (a pipe, a file) every board is printed whole,
one participant a line, the participant and the score separated by a tab, and
an empty line after each board. -timeout bounds nothing but the connection.`,
	flag: func(fs *flag.FlagSet) runFunc {
		top := fs.Int("top", 10, "how many of the board's top to show, `N` from 1 to 1000")
		return func(ctx context.Context, c *cli, args []string) error {
			board, err := c.topBoard(ctx, "watch", args, *top)
			if err != nil {
				return err
			}
			return c.watch(ctx, board, args[0], *top)
		}
	},
}

func (c *cli) watch(ctx context.Context, board *kuis.Board, id string, top int) error {
	screen := isTerminal(c.stdout)
	title := ""
	if screen {
		sctx, cancel := c.step(ctx)
		sum, err := board.Summary(sctx)
		cancel()
		if err != nil {
			return c.fail("watch "+id, err)
		}
		title = sum.Title
	}
	for page, err := range board.Live(ctx, top, watchEvery) {
		if err != nil {
			if ctx.Err() != nil { // Ctrl-C: the watch is over
				return nil
			}
			return c.fail("watch "+id, err)
		}
		if !screen {
			var b strings.Builder
			for _, s := range page {
				fmt.Fprintf(&b, "%s\t%d\n", visible(s.Participant), s.Score)
			}
			b.WriteString("\n")
			if _, err := fmt.Fprint(c.stdout, b.String()); err != nil {
				return fmt.Errorf("kuis: stdout: %w", err)
			}
			continue
		}
		fmt.Fprintf(c.stdout, "\x1b[H\x1b[2J%s: %s (top %d, %s; Ctrl-C ends)\n\n", visible(id), visible(title), top, time.Now().Format("15:04:05"))
		if len(page) == 0 {
			fmt.Fprintln(c.stdout, "no answer counted yet")
		}
		if err := c.printBoard(page); err != nil {
			return err
		}
	}
	if screen {
		fmt.Fprintln(c.stdout, "\nThe quiz is finished: that is its final board.")
	}
	return nil
}
