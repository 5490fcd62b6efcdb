package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kuisboard/kuis"
)

var cmdPurge = &command{
	name:    "purge",
	args:    "(QUIZ... | -finished) -archive DIR [-course COURSE]",
	summary: "archive finished quizzes to files (and fold them into a course), then delete their keys",
	detail: `
For each quiz (Store.PurgeQuiz): takes its recap, writes its archive in
DIR/<quiz>/, and only once the archive is on disk deletes the quiz's keys. The
archive is four files: recap.json (the whole Recap as JSON), standings.csv,
gradebook.csv and answers.csv (the library's CSV writers, default form: they
read back byte for byte), readable by their owner only. Each file is written
to a temporary file of that directory, flushed to disk and renamed, then the
directory is flushed: a file under its final name is always complete, and no
quiz's keys are deleted before its four files are safely on disk.

With -course COURSE, each quiz is also folded into the course (Course.Fold),
once its files are on disk and before its keys are deleted: a quiz whose fold
fails (the course holds it otherwise, the user may not fold) keeps its keys.

If kuis stops midway (killed, a crash, a lost server), run it again: a quiz
still in Redis is archived again from the start (its files replaced whole)
and folded again (a fold counts a quiz once), and a quiz named that is gone
but fully archived in DIR counts as done (with -course, it is folded from its
archived recap.json). A running quiz is refused: finish it first.

Prints one line per quiz purged: quiz: archived in DIR/<quiz>, folded into
COURSE, N keys deleted. Exit status 1 when a quiz failed (each has its line
on stderr); the others are still purged.`,
	flags: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		finished := fs.Bool("finished", false, "every finished quiz of the namespace")
		dir := fs.String("archive", "", "archive each quiz in `DIR`/<quiz>/ before deleting it (required)")
		courseID := fs.String("course", "", "fold each quiz into the course `COURSE` before deleting it")
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
			var course *kuis.Course
			if *courseID != "" {
				var err error
				if course, err = c.course("purge", *courseID); err != nil {
					return err
				}
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
				if err := c.purge(ctx, *dir, id, course); err != nil {
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

// purge archives quiz id in dir, folds it into course when not nil, and
// deletes its keys.
func (c *cli) purge(ctx context.Context, dir, id string, course *kuis.Course) error {
	sctx, cancel := c.step(ctx)
	defer cancel()
	qdir, folded := "", ""
	n, err := c.store.PurgeQuiz(sctx, id, func(ctx context.Context, r kuis.Recap) error {
		a, err := quizArchive(r)
		if err != nil {
			return err
		}
		if qdir, err = a.write(dir); err != nil {
			return err
		}
		folded, err = foldInto(ctx, course, r)
		return err
	})
	switch {
	case errors.Is(err, kuis.ErrQuizNotFound) && archived(dir, owner{"quiz", id}, names(archiveFiles)):
		qdir, _ = archiveDir(dir, id)
		if course != nil {
			if folded, err = foldArchived(sctx, course, qdir); err != nil {
				return err
			}
		}
		fmt.Fprintf(c.stdout, "%s: archived in %s before%s, no keys left\n", id, qdir, folded)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(c.stdout, "%s: archived in %s%s, %d keys deleted\n", id, qdir, folded, n)
	return nil
}

// foldInto folds the recap into course, when not nil, and says so as
// purge's line does: ", folded into COURSE", with " before" when the course
// held the quiz already.
func foldInto(ctx context.Context, course *kuis.Course, r kuis.Recap) (string, error) {
	if course == nil {
		return "", nil
	}
	f, err := course.Fold(ctx, r)
	if err != nil {
		return "", err
	}
	if f.AlreadyFolded {
		return ", folded into " + course.Keys().CourseID() + " before", nil
	}
	return ", folded into " + course.Keys().CourseID(), nil
}

// foldArchived folds the recap.json of the archive in qdir into course: the
// quiz is gone, purged before without -course (a purge with it folds a quiz
// before deleting it), or folded and purged by an earlier run.
func foldArchived(ctx context.Context, course *kuis.Course, qdir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(qdir, "recap.json"))
	if err != nil {
		return "", err
	}
	var r kuis.Recap
	if err := json.Unmarshal(b, &r); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(qdir, "recap.json"), err)
	}
	return foldInto(ctx, course, r)
}
