package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kuisboard/kuis"
)

// gradesFormats are grades' formats.
var gradesFormats = []string{"csv", "ags", "oneroster"}

var cmdGrades = &command{
	usageLine: "grades QUIZ [-class CLASS] [-format csv|ags|oneroster] [-o FILE|DIR] [-delimiter C] [-line-item ID] [-class-sourced-id ID]",
	short:     "a quiz's grades joined with a class's roster, for a gradebook or an LMS",
	long: `
Takes the quiz's recap (Store.Recap) and joins it with the roster of the
class (Class.Students): the class the quiz names (created with
kuis.ForClass), or -class CLASS; a quiz that names none without -class is a
usage error, exit 2. One row per enrolled student, present (on the board,
0 points included) or absent, then the participants the roster lacks
(not_enrolled). Formats:
  csv        student_id,name,attendance,score,possible,q1,...,qN
             (Recap.WriteGradesCSV): a gradebook's import; an absent
             student's cells are empty; -delimiter as kuis recap -h says
  ags        the LTI Assignment and Grade Services scores of the enrolled
             students as one JSON array (Recap.AGSScores), each the body
             of one POST to a line item's /scores
  oneroster  the OneRoster 1.1 CSV delta files manifest.csv, lineItems.csv
             and results.csv (Recap.WriteOneRoster) in -o DIR (required,
             made if missing): one line item, -line-item (default: the
             quiz ID), of the class -class-sourced-id (default: the class
             ID), and one result per enrolled student
csv and ags go to stdout, or with -o FILE to the file, written whole or not
at all (a temporary file, flushed and renamed), readable by its owner only.`,
	flag: func(fs *flag.FlagSet) runFunc {
		classID := fs.String("class", "", "join with the roster of the class `CLASS` (default: the class the quiz names)")
		format := fs.String("format", "csv", "`FORMAT`: csv, ags or oneroster")
		out := fs.String("o", "", "write to `FILE` instead of stdout; oneroster: the directory `DIR` of its files (required)")
		delimiter := delimiterFlag(fs)
		lineItem := fs.String("line-item", "", "oneroster: the line item's sourcedId, `ID` (default: the quiz ID)")
		classSourced := fs.String("class-sourced-id", "", "oneroster: the class's sourcedId, `ID` (default: the class ID)")
		return func(ctx context.Context, c *cli, args []string) error {
			id, err := oneQuiz("grades", args)
			if err != nil {
				return err
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			opts, err := delimiterOption("grades", *delimiter)
			switch {
			case err != nil:
				return err
			case !slices.Contains(gradesFormats, *format):
				return usagef("kuis grades: -format %q: want csv, ags or oneroster", *format)
			case *format != "csv" && set["delimiter"]:
				return usagef("kuis grades: -delimiter is for the csv format, not %s", *format)
			case *format != "oneroster" && (set["line-item"] || set["class-sourced-id"]):
				return usagef("kuis grades: -line-item and -class-sourced-id are for the oneroster format, not %s", *format)
			case *format == "oneroster" && *out == "":
				return usagef("kuis grades: -format oneroster writes three files: give -o DIR")
			}
			if _, err := open(ctx, c, "grades", id, (*kuis.Store).Keys); err != nil {
				return err
			}
			what := "grades " + id
			sctx, cancel := c.step(ctx)
			defer cancel()
			r, err := c.store.Recap(sctx, id)
			if err != nil {
				return c.fail(what, err)
			}
			named := *classID
			if named == "" {
				named = r.Info.Class
			}
			if named == "" {
				return usagef("kuis grades %s: the quiz names no class: give -class CLASS", id)
			}
			roster, err := c.roster(sctx, "grades", named)
			if err != nil {
				return err
			}
			switch *format {
			case "csv":
				var b bytes.Buffer
				if err := r.WriteGradesCSV(&b, roster, opts...); err != nil {
					return c.fail(what, err)
				}
				return c.writeOut(what, *out, b.Bytes())
			case "ags":
				scores := r.AGSScores(roster)
				if scores == nil {
					scores = []kuis.AGSScore{}
				}
				b, err := json.Marshal(scores)
				if err != nil {
					return c.fail(what, err)
				}
				return c.writeOut(what, *out, append(visibleJSON(b), '\n'))
			}
			if *lineItem == "" {
				*lineItem = id
			}
			if *classSourced == "" {
				*classSourced = named
			}
			if err := ensureDir(*out); err != nil {
				return c.fail(what, err)
			}
			switch err := r.WriteOneRoster(*out, roster, *classSourced, *lineItem); {
			case errors.Is(err, kuis.ErrInvalidOption):
				return usagef("kuis grades: %s", strings.TrimPrefix(err.Error(), "kuis: "))
			case err != nil:
				return c.fail(what, err)
			}
			fmt.Fprintf(c.stdout, "%s: OneRoster files written in %s, line item %s of class %s\n",
				visible(id), visible(*out), visible(*lineItem), visible(*classSourced))
			return nil
		}
	},
}

// roster is class id's roster (Class.Students), read within ctx for
// command name: an invalid class ID is its usage error.
func (c *cli) roster(ctx context.Context, name, id string) ([]kuis.Student, error) {
	class, err := openClass(ctx, c, name, id)
	if err != nil {
		return nil, err
	}
	roster, err := class.Students(ctx)
	if err != nil {
		return nil, c.fail(name+" class "+id, err)
	}
	return roster, nil
}

// writeOut writes data to stdout, or, when out is not empty, to the file
// out, whole or not at all: a temporary file of its directory, flushed and
// renamed, then the directory flushed. what is the failure's subject.
func (c *cli) writeOut(what, out string, data []byte) error {
	if out == "" {
		if _, err := c.stdout.Write(data); err != nil {
			return fmt.Errorf("kuis: stdout: %w", err)
		}
		return nil
	}
	dir := filepath.Dir(out)
	if err := writeFile(dir, filepath.Base(out), data); err != nil {
		return c.fail(what, err)
	}
	if err := syncDir(dir); err != nil {
		return c.fail(what, err)
	}
	return nil
}

var cmdCourseGrades = &command{
	usageLine: "grades COURSE -class CLASS [-o FILE] [-delimiter C]",
	short:     "a course's totals joined with a class's roster, as CSV for a gradebook",
	long: `
Takes the course's recap (Course.Recap) and joins its board with the roster
of the class (Class.Students): student_id,name,attendance,score,possible
(CourseRecap.WriteGradesCSV), one row per enrolled student, present when a
folded quiz had them on its board (0 points included) or absent (empty
score), then the course's participants the roster lacks (not_enrolled).
score is the course total, possible 10 x the folded quizzes' questions.
-delimiter as kuis recap -h says. With -o FILE the file is written whole or
not at all (a temporary file, flushed and renamed), readable by its owner
only.`,
	flag: func(fs *flag.FlagSet) runFunc {
		classID := fs.String("class", "", "join with the roster of the class `CLASS` (required)")
		out := fs.String("o", "", "write to `FILE` instead of stdout")
		delimiter := delimiterFlag(fs)
		return func(ctx context.Context, c *cli, args []string) error {
			if err := courseArgs("course grades", args, 0, 0, ""); err != nil {
				return err
			}
			if *classID == "" {
				return usagef("kuis course grades: no -class CLASS: a course names no class")
			}
			opts, err := delimiterOption("course grades", *delimiter)
			if err != nil {
				return err
			}
			course, err := open(ctx, c, "course grades", args[0], (*kuis.Store).Course)
			if err != nil {
				return err
			}
			what := "course grades " + args[0]
			sctx, cancel := c.step(ctx)
			defer cancel()
			r, err := course.Recap(sctx)
			if err != nil {
				return c.fail(what, err)
			}
			roster, err := c.roster(sctx, "course grades", *classID)
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := r.WriteGradesCSV(&b, roster, opts...); err != nil {
				return c.fail(what, err)
			}
			return c.writeOut(what, *out, b.Bytes())
		}
	},
}
