package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/kuisboard/kuis"
)

// cmdCourse is the group of the course commands: a course board holds the
// points of the finished quizzes folded into it, each counted once, with a
// ledger of what each quiz gave whom (kuis.Course).
var cmdCourse = &command{
	usageLine: "course <command> [arguments]",
	commands:  []*command{cmdCourseFold, cmdCourseUnfold, cmdCourseShow, cmdCourseRecap, cmdCourseGrades, cmdCourseAudit, cmdCourseRepair, cmdCoursePurge},
}

// courseArgs checks a course command's arguments before connecting: the
// course and then between least and most more (most < 0: any number), which
// want names.
func courseArgs(name string, args []string, least, most int, want string) error {
	switch more := len(args) - 1; {
	case len(args) == 0:
		return usagef("kuis %s: no COURSE (kuis %s -h)", name, name)
	case more < least:
		return usagef("kuis %s: no %s after the course (kuis %s -h)", name, want, name)
	case most >= 0 && more > most:
		return usagef("kuis %s: unexpected argument %q", name, args[1+most])
	}
	return nil
}

var cmdCourseFold = &command{
	usageLine: "fold COURSE (QUIZ... | -from-archive PATH)",
	short:     "fold finished quizzes into a course board, each counted once",
	long: `
For each quiz: takes its recap (Store.Recap) and folds it into the course
(Course.Fold): each participant's points go to their course total, and the
course's ledger records what the quiz gave each, so that a quiz folded again
adds nothing. With -from-archive PATH, folds the recap that kuis purge
archived instead, of a quiz gone from Redis: PATH is a recap.json or the
directory holding it (DIR/<quiz>/<instance>/). A recap.json archived before
instances existed (in DIR/<quiz>/) has no "instance" field: it folds as the
quiz's instance kuis.NoInstance ("0-0"). Prints one line per quiz:
  QUIZ: folded into COURSE: N participant(s), P points
  QUIZ: folded into COURSE before: nothing added
A running quiz is refused: finish it first. So is a quiz that names another
course than COURSE (created in it: kuis.InCourse), and one that the course
holds otherwise than its recap says (repaired since it was folded), with
what differs: kuis course unfold COURSE QUIZ, then fold it again. Exit status
1 when a quiz failed (each has its line on stderr); the others are still
folded.`,
	flag: func(fs *flag.FlagSet) runFunc {
		fromArchive := fs.String("from-archive", "", "fold the recap archived in `PATH` (a recap.json, or its directory) instead of quizzes")
		return func(ctx context.Context, c *cli, args []string) error {
			least, most, want := 1, -1, "QUIZ"
			if *fromArchive != "" {
				least, most, want = 0, 0, ""
			}
			if err := courseArgs("course fold", args, least, most, want); err != nil {
				return err
			}
			course, err := open(ctx, c, "course fold", args[0], (*kuis.Store).Course)
			if err != nil {
				return err
			}
			if *fromArchive != "" {
				r, err := readRecap(*fromArchive)
				if err != nil {
					return c.fail("course fold "+args[0], err)
				}
				sctx, cancel := c.step(ctx)
				defer cancel()
				if err := c.foldRecap(sctx, course, r); err != nil {
					return c.fail("course fold "+args[0]+" "+visible(r.QuizID), err)
				}
				return nil
			}
			ids, _, err := c.quizArgs(ctx, "course fold", args[1:], false, nil)
			if err != nil {
				return err
			}
			failed, err := c.each(ctx, "course fold", "course fold "+args[0], ids, func(ctx context.Context, id string) error {
				r, err := c.store.Recap(ctx, id)
				if err != nil {
					return err
				}
				return c.foldRecap(ctx, course, r)
			})
			if err == nil && failed > 0 {
				return errReported
			}
			return err
		}
	},
}

// foldRecap folds a quiz's recap into course, unless the quiz names another
// course, and prints what it did.
func (c *cli) foldRecap(ctx context.Context, course *kuis.Course, r kuis.Recap) error {
	if _, err := c.courseFor(r, course); err != nil {
		return err
	}
	f, err := course.Fold(ctx, r)
	if err != nil {
		return err
	}
	into := course.Keys().CourseID()
	if f.AlreadyFolded {
		fmt.Fprintf(c.stdout, "%s: folded into %s before: nothing added\n", visible(r.QuizID), visible(into))
		return nil
	}
	fmt.Fprintf(c.stdout, "%s: folded into %s: %d participant(s), %d points\n", visible(r.QuizID), visible(into), f.Participants, f.Points)
	return nil
}

// corrections are a course's Corrections as corrections.
func corrections(courseID string, cs []kuis.Correction) []correction {
	out := make([]correction, len(cs))
	for i, cr := range cs {
		out[i] = correction{CourseID: courseID, Correction: cr}
	}
	return out
}

var cmdCourseUnfold = &command{
	usageLine: "unfold COURSE QUIZ [-instance ID] [-json]",
	short:     "take a quiz's points out of a course board",
	long: `
Takes the points the quiz gave each participant out of the course, as the
course's ledger records them: the quiz need not exist any more. Without
-instance, the quiz ID's only instance in the course (Course.Unfold): an ID
the course holds in several instances (the quiz created again after a
purge) is refused, listing them; with -instance ID, that instance
(Course.UnfoldInstance), ID the quiz log's start entry as course show
-json's "instance" says. Prints QUIZ: unfolded from COURSE: N
participant(s), or QUIZ: not folded into COURSE: nothing to unfold. With
-json, one JSON array of {"course_id", "participant", "was", "now"}: each
total before and after (now 0: the participant left the board, or has 0
points from another quiz).`,
	flag: func(fs *flag.FlagSet) runFunc {
		asJSON := fs.Bool("json", false, "print one JSON array")
		instance := fs.String("instance", "", "unfold this instance of the quiz (its log's start entry ID)")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := courseArgs("course unfold", args, 1, 1, "QUIZ"); err != nil {
				return err
			}
			course, err := open(ctx, c, "course unfold", args[0], (*kuis.Store).Course)
			if err != nil {
				return err
			}
			id := args[1]
			if err := c.checkIDs("course unfold", id); err != nil {
				return err
			}
			sctx, cancel := c.step(ctx)
			defer cancel()
			var cs []kuis.Correction
			if *instance != "" {
				cs, err = course.UnfoldInstance(sctx, id, *instance)
			} else {
				cs, err = course.Unfold(sctx, id)
			}
			if err := inputError("course unfold", err); err != nil {
				return err
			}
			if err != nil {
				return c.fail("course unfold "+args[0]+" "+id, err)
			}
			switch {
			case *asJSON:
				return c.printJSON(corrections(args[0], cs))
			case len(cs) == 0:
				fmt.Fprintf(c.stdout, "%s: not folded into %s: nothing to unfold\n", visible(id), visible(args[0]))
			default:
				fmt.Fprintf(c.stdout, "%s: unfolded from %s: %d participant(s)\n", visible(id), visible(args[0]), len(cs))
			}
			return nil
		}
	},
}

// courseShow is what course show -json prints: the course ID, its folded
// quizzes, how many participants have points, and the top of its board, in
// the library's field names.
type courseShow struct {
	CourseID     string            `json:"course_id"`
	Quizzes      []kuis.CourseQuiz `json:"quizzes"`
	Participants int64             `json:"participants"`
	Standings    []kuis.Standing   `json:"standings"`
}

var cmdCourseShow = &command{
	usageLine: "show COURSE [-top N] [-json]",
	short:     "a course's folded quizzes and the top N of its board",
	long: `
Prints the quizzes folded into the course (Course.Quizzes) and how many
participants have points (Course.Len), then the top N of its board
(Course.Page), one participant a line: rank (equal totals share one),
participant, total. A course with nothing folded is empty, not an error.
With -json, one JSON object: {"course_id", "quizzes": [{"quiz_id",
"questions", "participants", "points"}], "participants", "standings":
[{"rank", "competition_rank", "participant", "score"}]}.`,
	flag: func(fs *flag.FlagSet) runFunc {
		top := fs.Int("top", 10, "how many of the board's top to show, `N` from 1 to 1000")
		asJSON := fs.Bool("json", false, "print one JSON object")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := courseArgs("course show", args, 0, 0, ""); err != nil {
				return err
			}
			if err := checkTop("course show", *top); err != nil {
				return err
			}
			course, err := open(ctx, c, "course show", args[0], (*kuis.Store).Course)
			if err != nil {
				return err
			}
			return c.courseShow(ctx, course, *top, *asJSON)
		}
	},
}

func (c *cli) courseShow(ctx context.Context, course *kuis.Course, top int, asJSON bool) error {
	id := course.Keys().CourseID()
	sctx, cancel := c.step(ctx)
	defer cancel()
	quizzes, err := course.Quizzes(sctx)
	if err != nil {
		return c.fail("course show "+id, err)
	}
	n, err := course.Len(sctx)
	if err != nil {
		return c.fail("course show "+id, err)
	}
	page, err := course.Page(sctx, 0, top)
	if err != nil {
		return c.fail("course show "+id, err)
	}
	if asJSON {
		return c.printJSON(courseShow{CourseID: id, Quizzes: quizzes, Participants: n, Standings: page})
	}
	folded := make([]string, len(quizzes))
	for i, q := range quizzes {
		folded[i] = visible(q.QuizID)
	}
	if len(folded) == 0 {
		fmt.Fprintf(c.stdout, "%s: no quiz folded, %d participant(s)\n", visible(id), n)
	} else {
		fmt.Fprintf(c.stdout, "%s: %d quiz(zes) folded (%s), %d participant(s)\n", visible(id), len(folded), strings.Join(folded, ", "), n)
	}
	return c.printBoard(page)
}

// courseFormats are course recap's formats.
var courseFormats = []string{"standings", "json"}

var cmdCourseRecap = &command{
	usageLine: "recap COURSE [-format standings|json] [-spreadsheet] [-delimiter C] [-o FILE]",
	short:     "a course's standings and ledger, as CSV or JSON",
	long: `
Takes the course's recap (Course.Recap: its board and ledger as one
consistent snapshot) and prints it in a format:
  standings  rank,competition_rank,participant,score, then one column per
             folded quiz: the points it gave (CourseRecap.WriteCSV)
  json       the whole CourseRecap as one JSON object, in the library's field
             names: standings, quizzes, possible, entries (the ledger), taken_at
The CSV is the library's default form, which reads back byte for byte; with
-spreadsheet it is the form for a spreadsheet, and -delimiter separates its
fields with another character than the comma, as kuis recap -h says. With
-o FILE the file is written whole or not at all (a temporary file, flushed
and renamed), readable by its owner only.`,
	flag: func(fs *flag.FlagSet) runFunc {
		format := fs.String("format", "standings", "`FORMAT`: standings or json")
		sheet := fs.Bool("spreadsheet", false, "CSV for a spreadsheet: BOM, quoted cells, formulas made text")
		delimiter := delimiterFlag(fs)
		out := fs.String("o", "", "write to `FILE` instead of stdout")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := courseArgs("course recap", args, 0, 0, ""); err != nil {
				return err
			}
			opts, err := csvOptions("course recap", *format, courseFormats, *sheet, *delimiter)
			if err != nil {
				return err
			}
			course, err := open(ctx, c, "course recap", args[0], (*kuis.Store).Course)
			if err != nil {
				return err
			}
			what := "course recap " + args[0]
			sctx, cancel := c.step(ctx)
			defer cancel()
			r, err := course.Recap(sctx)
			if err != nil {
				return c.fail(what, err)
			}
			return c.output(what, *out, r, *format, opts)
		}
	},
}

// courseFinding is one Violation of a course, as course audit -json prints
// it.
type courseFinding struct {
	CourseID string `json:"course_id"`
	kuis.Violation
}

var cmdCourseAudit = &command{
	usageLine: "audit COURSE [-json]",
	short:     "check a course against the data contract; exit status 1 when anything is found",
	long: `
Checks the course's keys against the contract (Course.Audit: types, TTLs,
every ledger field, each quiz's marker, each participant's total against the
points the ledger gives them) and prints each violation found, one a line:
key: rule: detail. Nothing when all is well, or when nothing is folded. With
-json, one JSON array of {"course_id", "key", "rule", "detail"}. Exit status
1 when a violation is found: kuis course repair sets the totals back to the
ledger's; a quiz without its marker (a fold or unfold stopped midway) is
mended by folding or unfolding it again.`,
	flag: func(fs *flag.FlagSet) runFunc {
		asJSON := fs.Bool("json", false, "print one JSON array")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := courseArgs("course audit", args, 0, 0, ""); err != nil {
				return err
			}
			course, err := open(ctx, c, "course audit", args[0], (*kuis.Store).Course)
			if err != nil {
				return err
			}
			sctx, cancel := c.step(ctx)
			defer cancel()
			vs, err := course.Audit(sctx)
			if err != nil {
				return c.fail("course audit "+args[0], err)
			}
			found := make([]courseFinding, len(vs))
			for i, v := range vs {
				found[i] = courseFinding{CourseID: args[0], Violation: v}
			}
			if *asJSON {
				if err := c.printJSON(found); err != nil {
					return err
				}
			} else {
				for _, v := range vs {
					fmt.Fprintln(c.stdout, visibleWords(v.String()))
				}
			}
			if len(vs) > 0 {
				c.errorLine(fmt.Sprintf("kuis: course audit %s: %d violation(s)", args[0], len(vs)))
				return errReported
			}
			return nil
		}
	},
}

var cmdCourseRepair = &command{
	usageLine: "repair COURSE [-json]",
	short:     "set each course total back to the sum of its ledger entries",
	long: `
Repairs the course (Course.Repair): every total on its board becomes the sum
of the points the ledger gives the participant; members without any are
removed, and participants the ledger gives points to are put back. Prints
each total changed, one a line: COURSE: participant: was -> now (now 0:
removed). With -json, one JSON array of {"course_id", "participant", "was",
"now"}. A ledger field out of its form is not mended: course audit names it,
and unfolding its quiz removes it.`,
	flag: func(fs *flag.FlagSet) runFunc {
		asJSON := fs.Bool("json", false, "print one JSON array")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := courseArgs("course repair", args, 0, 0, ""); err != nil {
				return err
			}
			course, err := open(ctx, c, "course repair", args[0], (*kuis.Store).Course)
			if err != nil {
				return err
			}
			sctx, cancel := c.step(ctx)
			defer cancel()
			cs, err := course.Repair(sctx)
			if err != nil {
				return c.fail("course repair "+args[0], err)
			}
			return c.printCorrections(corrections(args[0], cs), *asJSON)
		}
	},
}

// errNothingFolded stops course purge's archive of a course with nothing
// folded, which has no keys to delete and nothing to archive: an earlier
// archive of the course is kept, not replaced by an empty one.
var errNothingFolded = errors.New("nothing folded")

var cmdCoursePurge = &command{
	usageLine: "purge (COURSE | -older-than AGE) -archive DIR [-delimiter C]",
	short:     "archive a course, or every course last folded long ago, to files, then delete its keys",
	long: `
Purges the course (Course.Purge): takes its recap, writes its archive in
DIR/<course>/, and only once the archive is on disk deletes the course's
board and ledger, in one step that the server refuses if a fold changed the
course meanwhile (then nothing is deleted: run it again). The archive is two
files: recap.json (the whole CourseRecap as JSON: standings, quizzes and the
ledger's entries) and standings.csv (CourseRecap.WriteCSV, default form;
-delimiter separates its fields with another character than the comma),
each written, flushed and renamed as purge writes a quiz's, readable by their
owner only. A directory holding another quiz's or course's archive is
refused. A course with nothing folded (purged before, say) has nothing to
archive: an archive of it in DIR is kept. Prints COURSE: archived in
DIR/<course>, N keys deleted.

With -older-than AGE instead of COURSE (a retention policy), purges each
course of the namespace (Store.Courses) whose last fold is older than AGE:
its latest quiz instance's fold time (CourseQuiz.FoldedAt, the server's
time when the fold was complete), taken from the same recap that is
archived. AGE is a whole number of days (30d) or a Go duration (720h), and
the cut is this machine's clock minus AGE, read once as the run starts, as
kuis purge -older-than reads it. A course folded into at or after the cut is
kept without a line; one holding a fold or unfold stopped midway is kept,
with the line COURSE: a fold in parts: kept (fold or unfold that quiz again,
as kuis course audit says). A course that failed has its line on stderr,
exit status 1; the others are still purged.`,
	flag: func(fs *flag.FlagSet) runFunc {
		dir := fs.String("archive", "", "archive the course in `DIR`/<course>/ before deleting it (required)")
		delimiter := delimiterFlag(fs)
		olderThan := ageFlag(fs, "courses last folded")
		return func(ctx context.Context, c *cli, args []string) error {
			switch {
			case *olderThan != 0 && len(args) > 0:
				return usagef("kuis course purge: COURSE and -older-than: give one of them")
			case *olderThan == 0:
				if err := courseArgs("course purge", args, 0, 0, ""); err != nil {
					return err
				}
			}
			if *dir == "" {
				return usagef("kuis course purge: no -archive DIR: a course is purged only after it is archived")
			}
			opts, err := delimiterOption("course purge", *delimiter)
			if err != nil {
				return err
			}
			if err := ensureDir(*dir); err != nil {
				return fmt.Errorf("kuis: course purge: archive directory: %w", err)
			}
			if *olderThan == 0 {
				course, err := open(ctx, c, "course purge", args[0], (*kuis.Store).Course)
				if err != nil {
					return err
				}
				if err := c.coursePurge(ctx, course, *dir, opts, time.Time{}); err != nil {
					return c.fail("course purge "+args[0], err)
				}
				return nil
			}
			cut := olderThan.cut(time.Now())
			if err := c.connect(ctx); err != nil {
				return err
			}
			sctx, cancel := c.step(ctx)
			ids, err := c.store.Courses(sctx)
			cancel()
			if err != nil {
				return c.fail("course purge", err)
			}
			failed := 0
			for i, id := range ids {
				if ctx.Err() != nil {
					return &exitError{code: 1, msg: fmt.Sprintf("kuis: course purge: interrupted, %d course(s) not done", len(ids)-i)}
				}
				course, err := c.store.Course(id)
				if err == nil {
					err = c.coursePurge(ctx, course, *dir, opts, cut)
				}
				if err != nil {
					c.report("course purge "+id, err)
					failed++
				}
			}
			if failed > 0 {
				return errReported
			}
			return nil
		}
	},
}

// errFoldedLater and errFoldInParts stop course purge's archive of a course
// that a retention cut keeps: nothing is archived or deleted for it.
var (
	errFoldedLater = errors.New("folded into after the cut")
	errFoldInParts = errors.New("a fold in parts")
)

// coursePurge archives course in dir, its CSV file written with opts, and
// deletes its keys. When cut is not zero, only a course whose recap's
// latest fold is before cut, and that holds no fold in parts, is purged.
func (c *cli) coursePurge(ctx context.Context, course *kuis.Course, dir string, opts []kuis.CSVOption, cut time.Time) error {
	id := course.Keys().CourseID()
	sctx, cancel := c.step(ctx)
	defer cancel()
	cdir := ""
	n, err := course.Purge(sctx, func(_ context.Context, r kuis.CourseRecap) error {
		if len(r.Standings) == 0 && len(r.Quizzes) == 0 && len(r.Entries) == 0 {
			return errNothingFolded
		}
		if !cut.IsZero() {
			if err := retained(r, cut); err != nil {
				return err
			}
		}
		a, err := newArchive(r, opts...)
		if err != nil {
			return err
		}
		cdir, err = a.write(dir)
		return err
	})
	switch {
	case errors.Is(err, errFoldedLater):
		return nil
	case errors.Is(err, errFoldInParts):
		fmt.Fprintf(c.stdout, "%s: %v: kept\n", visible(id), errFoldInParts)
		return nil
	case errors.Is(err, errNothingFolded) && archived(dir, owner{"course", id}, names(courseFiles)):
		cdir, _ = archiveDir(dir, id)
		fmt.Fprintf(c.stdout, "%s: archived in %s before, no keys left\n", visible(id), visible(cdir))
		return nil
	case errors.Is(err, errNothingFolded):
		fmt.Fprintf(c.stdout, "%s: nothing folded: nothing to archive, no keys deleted\n", visible(id))
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(c.stdout, "%s: archived in %s, %d keys deleted\n", visible(id), visible(cdir), n)
	return nil
}

// retained is why a retention cut keeps the course recapped in r: a fold in
// parts (a ledger entry of an instance that Quizzes does not list, or no
// instance listed at all), or a fold at or after cut; nil when its every
// fold is complete and the latest is before cut.
func retained(r kuis.CourseRecap, cut time.Time) error {
	complete := map[[2]string]bool{}
	var last time.Time
	for _, q := range r.Quizzes {
		complete[[2]string{q.QuizID, q.Instance}] = true
		if q.FoldedAt.After(last) {
			last = q.FoldedAt
		}
	}
	for _, e := range r.Entries {
		if !complete[[2]string{e.QuizID, e.Instance}] {
			return errFoldInParts
		}
	}
	switch {
	case len(r.Quizzes) == 0:
		return errFoldInParts
	case !last.Before(cut):
		return errFoldedLater
	}
	return nil
}
