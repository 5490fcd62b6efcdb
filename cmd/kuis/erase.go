package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/wire"
)

var cmdErase = &command{
	usageLine: "erase NAME [-class CLASS -id ID] [-archive DIR] [-json]",
	short:     "erase a participant from every quiz, course and class roster, and from archived files",
	long: `
Erases the participant NAME from the namespace (Store.Erase), as a school
does when asked to delete a student's data: from each quiz their board
member, place, answers and log entries; from each course their ledger
entries (each instance's marker rewritten to the ledger left) and their
total; from each class roster the student of that name. Everyone else's
scores and ranks stay as they were, and a quiz or course audits as clean as
before. It refuses while a running quiz holds them, with nothing erased
(their next answer would count again): finish it first. A run cut short
(a lost server, an interrupt) prints what it erased and exits 1; run it
again to complete it.

With -class CLASS -id ID (both or neither), erases only where that class is
concerned (Class.Erase): the quizzes created for the class (kuis.ForClass),
their ledgers in every course, and the class's roster. The roster's name for
ID must be NAME, else nothing is erased. An ID not on the roster erases
nothing and says so: a run again after one that withdrew the student.

Prints one line per quiz, course and class it erased from:
  quiz QUIZ: P points, A answers, E log entries erased
  course COURSE: P points erased, from QUIZ@INSTANCE, ...
  class CLASS: student ID withdrawn
or, with -json, the erasure as one JSON object (kuis.Erasure's field names).

A recap archived before the erasure still names the participant, and a
fold of it (kuis course fold -from-archive) would bring them back: so run
erase with -archive DIR over every archive directory the school keeps. Once
the erasure in Redis succeeded (an empty one too, so that a run again
completes the files), it walks DIR and everything under it for archives (a
directory holding a recap.json, as kuis purge and kuis course purge write
them) whose recap names the participant, or whose grades.csv does, and
rewrites each file of it they appear in from the recap without them
(Recap.Without, CourseRecap.Without: standings ranked again, answers and
ledger entries gone): recap.json; standings.csv, gradebook.csv and
answers.csv in the form they were written in (the comma or another
delimiter, -spreadsheet or not: the form that reproduces the file's bytes
from the old recap); grades.csv without the rows naming them, every other
byte kept. Every other file stays byte for byte. A file no form reproduces
is left as it is, on a line on stderr, and so is its directory's recap.json,
so that a run again finds the directory; the exit status is then 1. With
-class, only the archives of the class's quizzes (recap.json's info.class)
are rewritten; a course's archive naming the participant is left, with a
line, since its entries do not say the class. DIR must exist: else nothing
is erased.

Prints, after the erasure, one line per file rewritten (or left):
  rewrote PATH
  left PATH: course archive, its entries do not say the class
(with -json, one JSON object a line: {"rewrote": PATH}, {"left": PATH,
"reason": ...}). Each file is written whole: a temporary file .NAME.*.tmp of
its directory, flushed to disk and renamed, then the directory flushed;
recap.json last. A kill leaves each file old or new, at most one such
temporary file beside them, and the directory still naming the participant
in its recap.json: a run again removes the temporary files of the
directories it rewrites and completes them.

Exit status 0 when everything named was erased (an empty erasure too), 1
when something failed (what was erased still printed, each failure on a line
of stderr), 2 for a usage error.`,
	flag: func(fs *flag.FlagSet) runFunc {
		classID := fs.String("class", "", "erase only where the class `CLASS` is concerned (with -id)")
		studentID := fs.String("id", "", "the student's `ID` on the roster of -class, whose name must be NAME")
		dir := fs.String("archive", "", "rewrite the archives under `DIR` that name the participant")
		asJSON := fs.Bool("json", false, "print the erasure as one JSON object, then one JSON object per archive file")
		return func(ctx context.Context, c *cli, args []string) error {
			switch {
			case len(args) == 0:
				return usagef("kuis erase: no NAME (kuis erase -h)")
			case len(args) > 1:
				return usagef("kuis erase: unexpected argument %q", args[1])
			case (*classID == "") != (*studentID == ""):
				return usagef("kuis erase: -class and -id go together: the class, and the student's ID on its roster")
			}
			name := args[0]
			if *classID != "" {
				if clean, err := kuis.CleanParticipant(name); err != nil || clean != name {
					return usagef("kuis erase: participant %q: not a name the library writes (kuis.CleanParticipant)", name)
				}
			}
			if *dir != "" {
				if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
					return &exitError{code: 1, msg: fmt.Sprintf("kuis: erase: archive directory %s: not a directory, nothing erased", *dir)}
				}
			}
			e := erasure{c: c, name: name, class: *classID, json: *asJSON}
			if err := e.redis(ctx, *studentID); err != nil {
				return err
			}
			if *dir == "" {
				return nil
			}
			if failed := e.archives(ctx, *dir); failed > 0 {
				return errReported
			}
			return nil
		}
	},
}

// erasure is one run of erase: who, where, and how it prints.
type erasure struct {
	c     *cli
	name  string
	class string // -class: only this class's quizzes and archives
	json  bool
}

// redis erases the participant from Redis (the student of studentID of
// e.class with -class) and prints the erasure, a partial one too.
func (e erasure) redis(ctx context.Context, studentID string) error {
	c, what := e.c, "erase "+visible(e.name)
	var (
		out kuis.Erasure
		err error
	)
	if e.class == "" {
		if err := c.connect(ctx); err != nil {
			return err
		}
		sctx, cancel := c.step(ctx)
		defer cancel()
		out, err = c.store.Erase(sctx, e.name)
		if uerr := inputError("erase", err); uerr != nil {
			return uerr
		}
	} else {
		class, cerr := openClass(ctx, c, "erase", e.class)
		if cerr != nil {
			return cerr
		}
		sctx, cancel := c.step(ctx)
		defer cancel()
		st, serr := class.Student(sctx, studentID)
		switch {
		case classInput("erase", serr) != nil:
			return classInput("erase", serr)
		case errors.Is(serr, kuis.ErrNotEnrolled):
			if !e.json {
				fmt.Fprintf(c.stdout, "class %s: no student %s on the roster: erased before, or never enrolled\n", visible(e.class), visible(studentID))
			}
		case serr != nil:
			return c.fail(what, serr)
		case st.Name != e.name:
			return &exitError{code: 1, msg: fmt.Sprintf("kuis: %s: class %s enrolls student %s as %q, not as %q: nothing erased",
				what, visible(e.class), visible(studentID), st.Name, e.name)}
		}
		out, err = class.Erase(sctx, studentID)
		if err == nil && !out.Empty() && out.Participant != e.name {
			err = fmt.Errorf("class %s enrolled student %s as %q meanwhile, and it was erased", visible(e.class), visible(studentID), out.Participant)
		}
		if out.Participant == "" {
			out.Participant = e.name
		}
	}
	if perr := e.print(out); perr != nil {
		return perr
	}
	switch {
	case errors.Is(err, kuis.ErrQuizRunning):
		// The library's words name the running quizzes; words() would not.
		return &exitError{code: 1, msg: "kuis: " + what + ": " + strings.TrimPrefix(err.Error(), "kuis: ") + " (finish it first)"}
	case err != nil:
		return c.fail(what, err)
	}
	return nil
}

// print prints the erasure: one line per quiz, course and class, or one
// JSON object.
func (e erasure) print(out kuis.Erasure) error {
	c := e.c
	if e.json {
		return c.printJSON(out)
	}
	if out.Empty() {
		fmt.Fprintf(c.stdout, "%s: nothing erased in Redis\n", visible(out.Participant))
	}
	for _, q := range out.Quizzes {
		fmt.Fprintf(c.stdout, "quiz %s: %d points, %d answers, %d log entries erased\n", visible(q.QuizID), q.Points, q.Answers, q.Entries)
	}
	for _, cr := range out.Courses {
		from := "its board"
		if len(cr.Instances) > 0 {
			shown := make([]string, len(cr.Instances))
			for i, in := range cr.Instances {
				shown[i] = visible(in)
			}
			from = strings.Join(shown, ", ")
		}
		fmt.Fprintf(c.stdout, "course %s: %d points erased, from %s\n", visible(cr.CourseID), cr.Points, from)
	}
	for _, cl := range out.Classes {
		fmt.Fprintf(c.stdout, "class %s: student %s withdrawn\n", visible(cl.ClassID), visible(cl.StudentID))
	}
	return nil
}

// archives rewrites the archives under dir that name the participant, and
// returns how many failed (each reported).
func (e erasure) archives(ctx context.Context, dir string) (failed int) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			e.c.report("erase: "+visible(path), err)
			failed++
		case d.IsDir():
			if st, err := os.Stat(filepath.Join(path, "recap.json")); err == nil && st.Mode().IsRegular() {
				dirs = append(dirs, path)
			}
		}
		return nil
	})
	for _, adir := range dirs {
		if ctx.Err() != nil {
			e.c.report("erase: "+visible(dir), fmt.Errorf("interrupted, %s and the archives after it not done", visible(adir)))
			return failed + 1
		}
		if err := e.archive(adir); err != nil {
			e.c.report("erase: "+visible(adir), err)
			failed++
		}
	}
	return failed
}

// errLeft is a file of an archive that erase leaves as it is.
var errLeft = errors.New("left as it is")

// archive rewrites the archive in adir when its recap or its grades.csv
// names the participant: every file they appear in, recap.json last, each
// whole; a file it cannot rewrite is an error, and recap.json is then left
// too.
func (e erasure) archive(adir string) error {
	recapPath := filepath.Join(adir, "recap.json")
	data, err := os.ReadFile(recapPath)
	if err != nil {
		return err
	}
	o, ok := ownerOf(data)
	if !ok {
		return nil // not a kuis archive
	}
	var old, now recap
	files, questions := archiveFiles, int64(0)
	switch o.kind {
	case "quiz":
		var r kuis.Recap
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("recap.json: %w: %w", err, errLeft)
		}
		if e.class != "" && r.Info.Class != e.class {
			return nil
		}
		old, now, questions = r, r.Without(e.name), r.Info.Questions
	case "course":
		var r kuis.CourseRecap
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("recap.json: %w: %w", err, errLeft)
		}
		old, now, files = r, r.Without(e.name), courseFiles
	}
	grades, gradesNew, gradesErr := e.grades(adir, o, questions)
	named := recapNames(old, e.name) || !bytes.Equal(grades, gradesNew) ||
		gradesErr != nil && bytes.Contains(grades, []byte(e.name))
	switch {
	case !named:
		return nil
	case o.kind == "course" && e.class != "":
		e.line("left", adir, "course archive, its entries do not say the class")
		return nil
	}
	e.removeStale(adir, files)

	var left []string
	wrote := false
	for _, f := range files[1:] { // recap.json last, below
		path := filepath.Join(adir, f.name)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		rewritten, ok := csvRewrite(data, f.format, old, now)
		if !ok {
			e.c.report("erase: "+visible(path), fmt.Errorf("no form of the recap's CSV (delimiter, -spreadsheet) reproduces its bytes: %w", errLeft))
			left = append(left, f.name)
			continue
		}
		if err := e.write(adir, f.name, data, rewritten, &wrote); err != nil {
			return err
		}
	}
	switch {
	case gradesErr != nil:
		e.c.report("erase: "+visible(filepath.Join(adir, "grades.csv")), gradesErr)
		left = append(left, "grades.csv")
	case grades != nil:
		if err := e.write(adir, "grades.csv", grades, gradesNew, &wrote); err != nil {
			return err
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("recap.json left as it is too, so that a run again finds this archive: rewrite or remove %s, then run again", strings.Join(left, ", "))
	}
	if err := strictDecode(data, old); err != nil {
		return fmt.Errorf("recap.json holds what kuis cannot write back (%w): %w", err, errLeft)
	}
	if wrote {
		// The rewritten files' renames reach the disk before recap.json's,
		// which tells a run again that the directory is done.
		if err := syncDir(adir); err != nil {
			return err
		}
	}
	wrote = false
	if err := e.write(adir, "recap.json", data, recapJSON(data, old, now), &wrote); err != nil {
		return err
	}
	if wrote {
		return syncDir(adir)
	}
	return nil
}

// write writes data to adir/name whole (writeFile) when it is not was, and
// says so; wrote is set when it did.
func (e erasure) write(adir, name string, was, data []byte, wrote *bool) error {
	if bytes.Equal(was, data) {
		return nil
	}
	if err := writeFile(adir, name, data); err != nil {
		return err
	}
	*wrote = true
	e.line("rewrote", filepath.Join(adir, name), "")
	return nil
}

// line prints one line about a file or directory of an archive: "rewrote
// PATH" or "left PATH: reason", or its JSON object.
func (e erasure) line(verb, path, reason string) {
	c := e.c
	if e.json {
		v := map[string]string{verb: path}
		if reason != "" {
			v["reason"] = reason
		}
		_ = c.printJSON(v)
		return
	}
	if reason != "" {
		fmt.Fprintf(c.stdout, "%s %s: %s\n", verb, visible(path), reason)
		return
	}
	fmt.Fprintf(c.stdout, "%s %s\n", verb, visible(path))
}

// removeStale removes the temporary files writeFile left in adir when a run
// was killed while writing one of files or grades.csv.
func (e erasure) removeStale(adir string, files []struct{ name, format string }) {
	for _, name := range append(names(files), "grades.csv") {
		stale, _ := filepath.Glob(filepath.Join(adir, "."+name+".*.tmp"))
		for _, s := range stale {
			_ = os.Remove(s)
		}
	}
}

// recapNames reports whether the recap names the participant: a standing,
// an answer, a course ledger entry.
func recapNames(r recap, who string) bool {
	var standings []kuis.Standing
	var more []string
	switch r := r.(type) {
	case kuis.Recap:
		standings = r.Standings
		for _, a := range r.Answers {
			more = append(more, a.Participant)
		}
	case kuis.CourseRecap:
		standings = r.Standings
		for _, en := range r.Entries {
			more = append(more, en.Participant)
		}
	}
	return slices.ContainsFunc(standings, func(s kuis.Standing) bool { return s.Participant == who }) || slices.Contains(more, who)
}

// strictDecode reports what of recap.json's data a recap of old's type does
// not hold (an unknown field), which rewriting it would lose.
func strictDecode(data []byte, old recap) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	switch old.(type) {
	case kuis.Recap:
		return d.Decode(new(kuis.Recap))
	default:
		return d.Decode(new(kuis.CourseRecap))
	}
}

// recapJSON is the new recap.json: json.Marshal of now, as purge writes it,
// or, when the file was written by recap -format json -o (escaped for a
// terminal, a line end after it), in that form.
func recapJSON(data []byte, old, now recap) []byte {
	was, err1 := json.Marshal(old)
	out, err2 := json.Marshal(now)
	if err1 == nil && err2 == nil && bytes.Equal(data, append(visibleJSON(was), '\n')) {
		return append(visibleJSON(out), '\n')
	}
	return out
}

// bom is the byte order mark ForSpreadsheet's files start with.
const bom = "\uFEFF"

// csvRewrite is the CSV file data, which format wrote from old, written
// from now in the same form: the form (a delimiter, ForSpreadsheet or not)
// in which old renders to data's exact bytes. A file that now renders to in
// some form is rewritten already: it comes back as it is. false when no
// form reproduces it.
func csvRewrite(data []byte, format string, old, now recap) ([]byte, bool) {
	for _, opts := range csvForms(data) {
		was, err := render(old, format, opts...)
		if err != nil {
			continue
		}
		if bytes.Equal(was, data) {
			out, err := render(now, format, opts...)
			return out, err == nil
		}
		if out, err := render(now, format, opts...); err == nil && bytes.Equal(out, data) {
			return data, true
		}
	}
	return nil, false
}

// csvForms are the forms a recap's CSV file data may have been written in:
// ForSpreadsheet's when it starts with its byte order mark, else the
// default; each with the comma, ';', tab, then every other character of
// its first line, one of which separated the header's fields.
func csvForms(data []byte) [][]kuis.CSVOption {
	sheet := bytes.HasPrefix(data, []byte(bom))
	var out [][]kuis.CSVOption
	for _, d := range delimiters(data) {
		var opts []kuis.CSVOption
		if d != ',' {
			opts = append(opts, kuis.WithDelimiter(d))
		}
		if sheet {
			opts = append(opts, kuis.ForSpreadsheet())
		}
		out = append(out, opts)
	}
	return out
}

// delimiters are the candidate delimiters of a CSV file: the comma, ';'
// and tab first, then the other characters of its first line, each once.
func delimiters(data []byte) []rune {
	first, _, _ := bytes.Cut(bytes.TrimPrefix(data, []byte(bom)), []byte("\n"))
	out := []rune{',', ';', '\t'}
	for _, r := range string(first) {
		if r != utf8.RuneError && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// gradesHeader is the start of grades.csv's header row
// (Recap.WriteGradesCSV); the question columns q1..qN follow.
var gradesHeader = []string{"student_id", "name", "attendance", "score", "possible"}

// grades reads adir/grades.csv of a quiz's archive, and returns its bytes
// and its bytes without the rows naming the participant (nil, nil when
// there is no such file, or the archive is a course's). A file whose
// delimiter no header row confirms is an error.
func (e erasure) grades(adir string, o owner, questions int64) (was, now []byte, err error) {
	if o.kind != "quiz" {
		return nil, nil, nil
	}
	data, err := os.ReadFile(filepath.Join(adir, "grades.csv"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	for _, d := range delimiters(data) {
		if out, ok := dropGrades(data, d, e.name, questions); ok {
			return data, out, nil
		}
	}
	return data, data, fmt.Errorf("no delimiter gives it the header of Recap.WriteGradesCSV: %w", errLeft)
}

// dropGrades is grades.csv's data, read with encoding/csv's Comma set to
// comma, without the rows whose name is who (in ForSpreadsheet's form, a
// name a spreadsheet would run as a formula has a quote in front): every
// other row kept byte for byte, its byte order mark too. false when data
// is not a grades file of questions questions with that delimiter.
func dropGrades(data []byte, comma rune, who string, questions int64) ([]byte, bool) {
	body := bytes.TrimPrefix(data, []byte(bom))
	out := slices.Clip(data[:len(data)-len(body)])
	shown := who
	if bytes.HasPrefix(data, []byte(bom)) && who != "" && strings.ContainsRune("=+-@\t\r", rune(who[0])) {
		shown = "'" + who
	}
	r := csv.NewReader(bytes.NewReader(body))
	r.Comma = comma
	header, err := r.Read()
	want := len(gradesHeader) + int(min(max(questions, 0), wire.MaxQuestions)) // as the writer bounds it
	if err != nil || len(header) != want || !slices.Equal(header[:len(gradesHeader)], gradesHeader) {
		return nil, false
	}
	start := r.InputOffset()
	out = append(out, body[:start]...)
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, true
		} else if err != nil {
			return nil, false
		}
		end := r.InputOffset()
		if row[1] != shown {
			out = append(out, body[start:end]...)
		}
		start = end
	}
}
