package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kuisboard/kuis"
)

var cmdPurge = &command{
	usageLine: "purge (QUIZ... | -finished [-older-than AGE]) -archive DIR [-course COURSE] [-delimiter C]",
	short:     "archive finished quizzes to files (and fold them into their course), then delete their keys",
	long: `
For each quiz (Store.PurgeQuiz): takes its recap, writes its archive in
DIR/<quiz>/<instance>/ (Recap.Instance: a quiz ID used again, week after week,
keeps each quiz's files apart), and only once the archive is on disk deletes
the quiz's keys. The archive is four files: recap.json (the whole Recap as
JSON), standings.csv, gradebook.csv and answers.csv (the library's CSV
writers, default form: they read back byte for byte; -delimiter separates
their fields with another character than the comma, as kuis recap -h says),
readable by their owner only; and a fifth, grades.csv, when the quiz names a
class (kuis.ForClass): its grades joined with the class's roster as the
purge reads it (Recap.WriteGradesCSV, as kuis grades prints them), written
even when nobody is enrolled (every participant not_enrolled). Each file is written to a temporary file of
that directory, flushed to disk and renamed, then the directory is flushed:
a file under its final name is always complete, and no quiz's keys are
deleted before its files are safely on disk.

A quiz created in a course (kuis.InCourse: its meta names it) is also folded
into that course (Course.Fold), once its files are on disk and before its
keys are deleted; -course COURSE folds the quizzes that name no course into
COURSE. A quiz that names another course than -course is refused, with
nothing archived, folded or deleted for it. A quiz whose fold fails (the
course holds it otherwise, the user may not fold) keeps its keys.

If kuis stops midway (killed, a crash, a lost server), run it again: a quiz
still in Redis is archived again from the start (its instance's files
replaced whole) and folded again (a fold counts a quiz once), and a quiz
named that is gone but archived in DIR counts as done: its latest instance
there (an archive written before instances existed, in DIR/<quiz>/, comes
before every other), folded, when it names a course or with -course, from
that archived recap.json (kuis course fold -from-archive folds another). A
running quiz is refused: finish it first.

With -older-than AGE (only with -finished: a retention policy), purges only
the quizzes that finished longer ago than AGE, by the log's finish entry
(Recap.FinishedAt, the server's time of Finish), taken from the same recap
that is archived: AGE is a whole number of days (30d; a day is 24 hours) or
a Go duration (720h), and the cut is this machine's clock minus AGE, read
once as the run starts. A quiz that finished at or after the cut is kept,
without a line; a finished quiz whose log holds no finish entry (its status
set by hand, or finished before the log existed) has no finish time: it is
kept, with the line quiz: no finish time in its log: kept. Running quizzes
are never listed. Each finished quiz's recap is read to learn its finish
time, so a run costs a recap of every finished quiz, kept ones included.

Prints one line per quiz purged: quiz: archived in DIR/<quiz>/<instance>,
folded into COURSE, N keys deleted. Exit status 1 when a quiz failed (each
has its line on stderr); the others are still purged.`,
	flag: func(fs *flag.FlagSet) runFunc {
		finished := fs.Bool("finished", false, "every finished quiz of the namespace")
		dir := fs.String("archive", "", "archive each quiz in `DIR`/<quiz>/<instance>/ before deleting it (required)")
		courseID := fs.String("course", "", "fold each quiz that names no course into the course `COURSE` before deleting it")
		delimiter := delimiterFlag(fs)
		olderThan := ageFlag(fs, "quizzes finished")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := needQuizzes("purge", args, *finished, "-finished"); err != nil {
				return err
			}
			if *olderThan != 0 && !*finished {
				return usagef("kuis purge: -older-than needs -finished: it selects among the namespace's finished quizzes")
			}
			var cut time.Time // zero: no retention cut
			if *olderThan != 0 {
				cut = olderThan.cut(time.Now())
			}
			if *dir == "" {
				return usagef("kuis purge: no -archive DIR: a quiz is purged only after it is archived")
			}
			opts, err := delimiterOption("purge", *delimiter)
			if err != nil {
				return err
			}
			if err := ensureDir(*dir); err != nil {
				return fmt.Errorf("kuis: purge: archive directory: %w", err)
			}
			var course *kuis.Course
			err = c.connect(ctx)
			if err == nil && *courseID != "" {
				course, err = open(ctx, c, "purge", *courseID, (*kuis.Store).Course)
			}
			if err != nil {
				return err
			}
			ids, failed, err := c.quizArgs(ctx, "purge", args, *finished, func(s kuis.Status) bool { return s == kuis.StatusFinished })
			if err != nil {
				return err
			}
			purged, err := c.each(ctx, "purge", "purge", ids, func(ctx context.Context, id string) error { return c.purge(ctx, *dir, id, course, opts, cut) })
			if err == nil && failed+purged > 0 {
				return errReported
			}
			return err
		}
	},
}

// errNoFinishTime and errFinishedLater stop purge's archive of a quiz that
// a retention cut keeps: nothing is archived, folded or deleted for it.
var (
	errNoFinishTime  = errors.New("no finish time in its log")
	errFinishedLater = errors.New("finished after the cut")
)

// purge archives quiz id in dir, its CSV files written with opts, folds it
// into the course it names, else into course when not nil, and deletes its
// keys, within ctx. When cut is not zero, only a quiz whose recap says it
// finished before cut is purged; another is kept, and one without a finish
// time says so.
func (c *cli) purge(ctx context.Context, dir, id string, course *kuis.Course, opts []kuis.CSVOption, cut time.Time) error {
	qdir, folded := "", ""
	n, err := c.store.PurgeQuiz(ctx, id, func(ctx context.Context, r kuis.Recap) error {
		switch {
		case cut.IsZero():
		case r.FinishedAt.IsZero():
			return errNoFinishTime
		case !r.FinishedAt.Before(cut):
			return errFinishedLater
		}
		into, err := c.courseFor(r, course)
		if err != nil {
			return err
		}
		a, err := newArchive(r, opts...)
		if err != nil {
			return err
		}
		if err := c.archiveGrades(ctx, &a, r, opts); err != nil {
			return err
		}
		if qdir, err = a.write(dir); err != nil {
			return err
		}
		folded, err = foldInto(ctx, into, r)
		return err
	})
	var other *kuis.ConflictError
	switch {
	case errors.Is(err, errFinishedLater):
		return nil
	case errors.Is(err, errNoFinishTime):
		fmt.Fprintf(c.stdout, "%s: %v: kept\n", visible(id), errNoFinishTime)
		return nil
	case errors.As(err, &other) && other.Reason == kuis.ConflictCourse:
		return other // nothing was archived, folded or deleted: no more words needed
	case errors.Is(err, kuis.ErrQuizNotFound):
		var ok bool
		if qdir, ok = latestArchive(dir, id); !ok {
			return err
		}
		r, err := readRecap(qdir)
		if err != nil {
			return err
		}
		into, err := c.courseFor(r, course)
		if err != nil {
			return err
		}
		if folded, err = foldInto(ctx, into, r); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "%s: archived in %s before%s, no keys left\n", visible(id), visible(qdir), folded)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(c.stdout, "%s: archived in %s%s, %d keys deleted\n", visible(id), visible(qdir), folded, n)
	return nil
}

// archiveGrades adds grades.csv to a, the quiz's archive, when its quiz
// names a class (Info.Class): Recap.WriteGradesCSV with that class's roster,
// read within ctx, its fields separated as opts say. A class with nobody
// enrolled still gives the file: every participant not_enrolled.
func (c *cli) archiveGrades(ctx context.Context, a *archive, r kuis.Recap, opts []kuis.CSVOption) error {
	if r.Info.Class == "" {
		return nil
	}
	class, err := c.store.Class(r.Info.Class)
	if err != nil {
		return err
	}
	roster, err := class.Students(ctx)
	if err != nil {
		return fmt.Errorf("class %s: %w", r.Info.Class, err)
	}
	var b bytes.Buffer
	if err := r.WriteGradesCSV(&b, roster, opts...); err != nil {
		return fmt.Errorf("grades.csv: %w", err)
	}
	a.files = append(a.files, archiveFile{"grades.csv", b.Bytes()})
	return nil
}

// courseFor is the course recap r folds into: the one its quiz names
// (Info.Course), else given (nil: none). A quiz that names another course
// than given is a *kuis.ConflictError of reason ConflictCourse.
func (c *cli) courseFor(r kuis.Recap, given *kuis.Course) (*kuis.Course, error) {
	named := r.Info.Course
	switch {
	case named == "":
		return given, nil
	case given == nil:
		return c.store.Course(named)
	case named != given.Keys().CourseID():
		return nil, &kuis.ConflictError{Course: given.Keys().CourseID(), Quiz: r.QuizID, Instance: cmp.Or(r.Instance, kuis.NoInstance),
			Reason: kuis.ConflictCourse, Held: named, Given: given.Keys().CourseID()}
	}
	return given, nil
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
		return ", folded into " + visible(course.Keys().CourseID()) + " before", nil
	}
	return ", folded into " + visible(course.Keys().CourseID()), nil
}

// readRecap reads the quiz recap archived at path: a recap.json, or a
// directory holding one. One archived before instances existed has no
// instance: Course.Fold reads it as NoInstance.
func readRecap(path string) (kuis.Recap, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "recap.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return kuis.Recap{}, err
	}
	var r kuis.Recap
	if o, ok := ownerOf(b); !ok || o.kind != "quiz" {
		return kuis.Recap{}, fmt.Errorf("%s is not a quiz's recap.json", path)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return kuis.Recap{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
