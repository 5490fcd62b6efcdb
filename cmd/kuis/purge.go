package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/kuisboard/kuis"
)

var cmdPurge = &command{
	name:    "purge",
	args:    "(QUIZ... | -finished) -archive DIR",
	summary: "archive finished quizzes to files, then delete their keys",
	detail: `
For each quiz (Store.PurgeQuiz): takes its recap, writes its archive in
DIR/<quiz>/, and only once the archive is on disk deletes the quiz's keys. The
archive is four files: recap.json (the whole Recap as JSON), standings.csv,
gradebook.csv and answers.csv (the library's CSV writers, default form: they
read back byte for byte), readable by their owner only. Each file is written
to a temporary file of that directory, flushed to disk and renamed, then the
directory is flushed: a file under its final name is always complete, and no
quiz's keys are deleted before its four files are safely on disk.

If kuis stops midway (killed, a crash, a lost server), run it again: a quiz
still in Redis is archived again from the start (its files replaced whole),
and a quiz named that is gone but fully archived in DIR counts as done. A
running quiz is refused: finish it first.

Prints one line per quiz purged: quiz: archived in DIR/<quiz>, N keys deleted.
Exit status 1 when a quiz failed (each has its line on stderr); the others
are still purged.`,
	flags: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		finished := fs.Bool("finished", false, "every finished quiz of the namespace")
		dir := fs.String("archive", "", "archive each quiz in `DIR`/<quiz>/ before deleting it (required)")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := needQuizzes("purge", args, *finished, "-finished"); err != nil {
				return err
			}
			if *dir == "" {
				return usagef("kuis purge: no -archive DIR: a quiz is purged only after it is archived")
			}
			if err := ensureDir(*dir); err != nil {
				return fmt.Errorf("kuis: purge: archive directory: %w", err)
			}
			if err := c.connect(ctx); err != nil {
				return err
			}
			ids, failed, err := c.quizArgs(ctx, "purge", args, *finished, func(s kuis.Status) bool { return s == kuis.StatusFinished })
			if err != nil {
				return err
			}
			prog := c.startProgress("purge", len(ids))
			for i, id := range ids {
				if err := stopped(ctx, "purge", len(ids)-i); err != nil {
					c.endProgress()
					return err
				}
				if err := c.purge(ctx, *dir, id); err != nil {
					c.report("purge "+id, err)
					failed++
				}
				prog.step(id)
			}
			c.endProgress()
			if failed > 0 {
				return errReported
			}
			return nil
		}
	},
}

// purge archives quiz id in dir and deletes its keys.
func (c *cli) purge(ctx context.Context, dir, id string) error {
	sctx, cancel := c.step(ctx)
	defer cancel()
	qdir := ""
	n, err := c.store.PurgeQuiz(sctx, id, func(_ context.Context, r kuis.Recap) error {
		var err error
		qdir, err = writeArchive(dir, r)
		return err
	})
	switch {
	case errors.Is(err, kuis.ErrQuizNotFound) && archived(dir, id):
		qdir, _ = quizDir(dir, id)
		fmt.Fprintf(c.stdout, "%s: archived in %s before, no keys left\n", id, qdir)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(c.stdout, "%s: archived in %s, %d keys deleted\n", id, qdir, n)
	return nil
}
