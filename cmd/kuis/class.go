package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kuisboard/kuis"
)

// cmdClass is the group of the class commands: a class's roster holds its
// students, each by a stable ID (the one grades go to) and the name they go
// by on boards (kuis.Class).
var cmdClass = &command{
	usageLine: "class <command> [arguments]",
	commands:  []*command{cmdClassEnroll, cmdClassShow, cmdClassWithdraw},
}

// classArgs checks a class command's arguments before connecting: the class
// and then between least and most more (most < 0: any number), which want
// names.
func classArgs(name string, args []string, least, most int, want string) error {
	switch more := len(args) - 1; {
	case len(args) == 0:
		return usagef("kuis %s: no CLASS (kuis %s -h)", name, name)
	case more < least:
		return usagef("kuis %s: no %s after the class (kuis %s -h)", name, want, name)
	case most >= 0 && more > most:
		return usagef("kuis %s: unexpected argument %q", name, args[1+most])
	}
	return nil
}

// classInput is the library's refusal of a class ID or a student given on
// the command line, as a usage error of command name; nil for any other
// error.
func classInput(name string, err error) error {
	for _, sentinel := range []error{kuis.ErrInvalidClassID, kuis.ErrInvalidStudent} {
		if errors.Is(err, sentinel) {
			return usagef("kuis %s: %s", name, strings.TrimPrefix(err.Error(), "kuis: "))
		}
	}
	return nil
}

// openClass connects and returns the handle on class id: an invalid ID is a
// usage error of command name.
func openClass(ctx context.Context, c *cli, name, id string) (*kuis.Class, error) {
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	class, err := c.store.Class(id)
	if uerr := classInput(name, err); uerr != nil {
		return nil, uerr
	}
	return class, err
}

var cmdClassEnroll = &command{
	usageLine: "enroll CLASS -roster FILE",
	short:     "enroll a roster file's students in a class, all or none",
	long: `
Reads the roster file (FILE, or - for the standard input): CSV whose first
row is the header id,name, then one row per student, id,name: the ID the
school's systems know the student by (1 to 64 bytes of printable ASCII
without spaces: the ID grades go to) and the name they go by on boards.
Every row is checked before anything is written (kuis.CleanStudent); a row
without two fields, or an ID or name the library refuses, is a usage error,
exit 2, with its line: FILE:LINE: what is wrong, and nothing is enrolled.

Then enrolls all the students in one step (Class.Enroll), all or none: a
name that is another student's, or that a class would take for it (a
look-alike, "TOM" and "ΤΟΜ"), and an ID enrolled under another name (withdraw
it first to rename it) are refused, exit 1, naming both students and the
refused one's line, with nothing enrolled. A student enrolled already under
the same name changes nothing. Prints CLASS: N student(s) enrolled.`,
	flag: func(fs *flag.FlagSet) runFunc {
		roster := fs.String("roster", "", "the students, a CSV `FILE` of rows id,name after a header id,name, - for the standard input (required)")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := classArgs("class enroll", args, 0, 0, ""); err != nil {
				return err
			}
			if *roster == "" {
				return usagef("kuis class enroll: no -roster FILE")
			}
			students, lines, name, err := c.readStudents(*roster)
			if err != nil {
				return err
			}
			class, err := openClass(ctx, c, "class enroll", args[0])
			if err != nil {
				return err
			}
			sctx, cancel := c.step(ctx)
			defer cancel()
			err = class.Enroll(sctx, students...)
			if uerr := classInput("class enroll", err); uerr != nil {
				return uerr
			}
			var refused *kuis.EnrollError
			if errors.As(err, &refused) {
				at := fmt.Sprintf("%s:%d", name, lines[refused.Student])
				return c.fail("class enroll "+args[0]+": "+at, err)
			}
			if err != nil {
				return c.fail("class enroll "+args[0], err)
			}
			fmt.Fprintf(c.stdout, "%s: %d student(s) enrolled\n", visible(args[0]), len(students))
			return nil
		}
	},
}

// readStudents reads the roster file path ("-": the standard input): its
// students, each in the form Class.Enroll stores it, the line of each (of
// its first row, for a student given twice), and the file's name as errors
// name it. A file that cannot be read is an error of exit status 1; a
// roster that is not a header id,name and then rows id,name the library
// takes is a usage error naming its line.
func (c *cli) readStudents(path string) ([]kuis.Student, map[kuis.Student]int, string, error) {
	in, name := c.stdin, "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, "", &exitError{code: 1, msg: fmt.Sprintf("kuis: class enroll: roster: %v", err)}
		}
		defer f.Close()
		in, name = f, path
	}
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1 // counted below, with the line's own words
	bad := func(line int, format string, args ...any) error {
		return usagef("kuis class enroll: %s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	var students []kuis.Student
	lines := map[kuis.Student]int{}
	for first := true; ; first = false {
		row, err := r.Read()
		var perr *csv.ParseError
		switch {
		case errors.Is(err, io.EOF) && first:
			return nil, nil, "", usagef("kuis class enroll: roster %s is empty: want a header row id,name", name)
		case errors.Is(err, io.EOF) && len(students) == 0:
			return nil, nil, "", usagef("kuis class enroll: roster %s has no rows id,name after its header", name)
		case errors.Is(err, io.EOF):
			return students, lines, name, nil
		case errors.As(err, &perr):
			return nil, nil, "", bad(perr.Line, "%v", perr.Err)
		case err != nil:
			return nil, nil, "", &exitError{code: 1, msg: fmt.Sprintf("kuis: class enroll: roster %s: %v", name, err)}
		}
		line, _ := r.FieldPos(0)
		if first {
			if len(row) != 2 || strings.TrimPrefix(row[0], "\uFEFF") != "id" || row[1] != "name" { // a spreadsheet's byte order mark
				return nil, nil, "", bad(line, "the header row is %q, want id,name", strings.Join(row, ","))
			}
			continue
		}
		if len(row) != 2 {
			return nil, nil, "", bad(line, "%d field(s), want 2: id,name", len(row))
		}
		st, err := kuis.CleanStudent(kuis.Student{ID: row[0], Name: row[1]})
		if err != nil {
			return nil, nil, "", bad(line, "%s", strings.TrimPrefix(err.Error(), "kuis: "))
		}
		if _, seen := lines[st]; !seen {
			lines[st] = line
		}
		students = append(students, st)
	}
}

// classStudent is one student of class show -json: the class ID beside the
// library's field names.
type classStudent struct {
	ClassID string `json:"class_id"`
	kuis.Student
}

var cmdClassShow = &command{
	usageLine: "show CLASS [-json]",
	short:     "a class's roster: each student's ID and name",
	long: `
Prints the class's roster (Class.Students), ordered by student ID, one
student a line: ID, name. A class with nobody enrolled prints nothing; it is
not an error. With -json, one JSON array of {"class_id", "id", "name"}.`,
	flag: func(fs *flag.FlagSet) runFunc {
		asJSON := fs.Bool("json", false, "print one JSON array")
		return func(ctx context.Context, c *cli, args []string) error {
			if err := classArgs("class show", args, 0, 0, ""); err != nil {
				return err
			}
			class, err := openClass(ctx, c, "class show", args[0])
			if err != nil {
				return err
			}
			sctx, cancel := c.step(ctx)
			defer cancel()
			students, err := class.Students(sctx)
			if err != nil {
				return c.fail("class show "+args[0], err)
			}
			if *asJSON {
				out := make([]classStudent, len(students))
				for i, st := range students {
					out[i] = classStudent{ClassID: args[0], Student: st}
				}
				return c.printJSON(out)
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
			for _, st := range students {
				fmt.Fprintf(tw, "%s\t%s\n", visible(st.ID), visible(st.Name))
			}
			if err := tw.Flush(); err != nil {
				return fmt.Errorf("kuis: stdout: %w", err)
			}
			return nil
		}
	},
}

var cmdClassWithdraw = &command{
	usageLine: "withdraw CLASS ID...",
	short:     "take students out of a class by ID",
	long: `
Withdraws the students of the IDs given from the class, their names with
them, in one step (Class.Withdraw): their names are free for others to take.
An ID not enrolled changes nothing and is no error; an ID that breaks the ID
rule is a usage error, exit 2, with nothing withdrawn. Boards and archived
grades keep the names as they were. Prints CLASS: N ID(s) withdrawn.`,
	flag: func(fs *flag.FlagSet) runFunc {
		return func(ctx context.Context, c *cli, args []string) error {
			if err := classArgs("class withdraw", args, 1, -1, "ID"); err != nil {
				return err
			}
			class, err := openClass(ctx, c, "class withdraw", args[0])
			if err != nil {
				return err
			}
			sctx, cancel := c.step(ctx)
			defer cancel()
			err = class.Withdraw(sctx, args[1:]...)
			if uerr := classInput("class withdraw", err); uerr != nil {
				return uerr
			}
			if err != nil {
				return c.fail("class withdraw "+args[0], err)
			}
			fmt.Fprintf(c.stdout, "%s: %d ID(s) withdrawn\n", visible(args[0]), len(slices.Compact(slices.Sorted(slices.Values(args[1:])))))
			return nil
		}
	},
}
