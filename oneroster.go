package kuis

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kuisboard/kuis/internal/wire"
)

// The OneRoster 1.1 CSV binding's files that WriteOneRoster writes, and
// their header rows, column for column as the binding's tables list them.
var (
	oneRosterManifest  = []string{"propertyName", "value"}
	oneRosterLineItems = []string{"sourcedId", "status", "dateLastModified", "title", "description", "assignDate", "dueDate",
		"classSourcedId", "categorySourcedId", "gradingPeriodSourcedId", "resultValueMin", "resultValueMax"}
	oneRosterResults = []string{"sourcedId", "status", "dateLastModified", "lineItemSourcedId", "studentSourcedId",
		"scoreStatus", "score", "scoreDate", "comment"}
)

// oneRosterFiles is the binding's manifest list of data files, in its
// order; WriteOneRoster sends lineItems and results and marks the rest
// absent.
var oneRosterFiles = []string{"academicSessions", "categories", "classes", "classResources", "courses", "courseResources",
	"demographics", "enrollments", "lineItems", "orgs", "resources", "results", "users"}

// oneRosterCategory is the categorySourcedId and the gradingPeriodSourcedId
// of the line item WriteOneRoster writes: the binding requires both
// references, and kuis knows neither a school's categories nor its grading
// periods.
const oneRosterCategory = "kuis"

// WriteOneRoster writes the quiz's grades for a student information system
// or LMS that imports the OneRoster 1.1 CSV binding: three files in dir,
// each written whole (to a temporary file in dir, then renamed over its
// name, the manifest last), with encoding/csv, UTF-8, a header row each:
//
//   - manifest.csv: manifest.version 1.0, oneroster.version 1.1, then
//     file.<name> for each data file of the binding, in its order: delta for
//     lineItems and results, absent for the rest.
//   - lineItems.csv: one line item, the quiz: sourcedId lineItemID, status
//     active, dateLastModified (below), title the quiz's title (its ID if it
//     has none), a description naming the quiz ID and its questions,
//     assignDate the quiz's start (the date of its instance; the due date for
//     a quiz without one), dueDate its finish, classSourcedId
//     classSourcedID, categorySourcedId and gradingPeriodSourcedId "kuis"
//     (the binding requires both), resultValueMin 0 and resultValueMax the
//     points possible (10 x its questions).
//   - results.csv: one row per enrolled student, in Grades' order: sourcedId
//     lineItemID + "-" + the student's ID (unique as long as no two of them
//     join to one string), status active, dateLastModified, lineItemSourcedId
//     lineItemID, studentSourcedId the student's ID, scoreStatus "fully
//     graded" and score their points for a present student (0 included), or
//     "not submitted" and score 0 for an absent one (the binding requires a
//     score; the status tells the two apart), scoreDate the due date, and an
//     empty comment. Participants the roster lacks are left out: no student
//     sourcedId names them.
//
// Dates are the binding's: a date is the UTC day ("2026-11-30"); a
// dateLastModified is RFC 3339 in UTC to the millisecond, the recap's
// TakenAt (its FinishedAt if TakenAt is zero), so that a later export of
// the same quiz is newer. The finish is FinishedAt, or TakenAt for a quiz
// recapped before its finish.
//
// The files are a delta, not bulk: the binding's bulk mode replaces every
// line item or result the receiver holds with the file's, leaves status and
// dateLastModified blank, and needs every object a file references (the
// class, the students, the category, the grading period) in the same
// package; a delta adds or updates these records alone, against the class
// and students the receiver already has, with status and dateLastModified
// set. The receiver must know a category and a grading period of sourcedId
// "kuis" (or have the two columns rewritten).
//
// Errors, before anything is written: ErrInvalidOption for a lineItemID or
// classSourcedID that is empty, not valid UTF-8 or holds a control
// character, ErrInvalidStudent for an enrolled student whose ID is; then
// dir's error from the file system (errors.Is(err, fs.ErrNotExist) for a
// dir that does not exist). The three are renamed only once all are
// written: a failure before removes the temporary files and leaves dir's
// files as they were.
func (r Recap) WriteOneRoster(dir string, roster []Student, classSourcedID, lineItemID string) error {
	if err := oneRosterID("lineItemID", lineItemID, ErrInvalidOption); err != nil {
		return err
	}
	if err := oneRosterID("classSourcedID", classSourcedID, ErrInvalidOption); err != nil {
		return err
	}
	grades := r.Grades(roster)
	for _, g := range grades {
		if g.Attendance != NotEnrolled {
			if err := oneRosterID(fmt.Sprintf("student %q: ID", g.Name), g.StudentID, ErrInvalidStudent); err != nil {
				return err
			}
		}
	}
	modified := r.TakenAt
	if modified.IsZero() {
		modified = r.FinishedAt
	}
	lastModified := modified.UTC().Format(millisUTC)
	due := oneRosterDate(r.gradedAt())
	assigned := due
	if id, ok := wire.ParseID(r.Instance); ok && r.Instance != NoInstance {
		assigned = oneRosterDate(id.Time())
	}
	title := r.Info.Title
	if title == "" {
		title = r.QuizID
	}
	possible := wire.Points * int64(r.questions())

	manifest := [][]string{oneRosterManifest, {"manifest.version", "1.0"}, {"oneroster.version", "1.1"}}
	for _, f := range oneRosterFiles {
		mode := "absent"
		if f == "lineItems" || f == "results" {
			mode = "delta"
		}
		manifest = append(manifest, []string{"file." + f, mode})
	}
	lineItems := [][]string{oneRosterLineItems, {
		lineItemID, "active", lastModified, title,
		fmt.Sprintf("kuis quiz %s: %d questions, %d points each", r.QuizID, r.questions(), wire.Points),
		assigned, due, classSourcedID, oneRosterCategory, oneRosterCategory, "0", strconv.FormatInt(possible, 10),
	}}
	results := [][]string{oneRosterResults}
	for _, g := range grades {
		status, score := "fully graded", strconv.FormatInt(g.Score, 10)
		switch g.Attendance {
		case NotEnrolled:
			continue
		case Absent:
			status, score = "not submitted", "0"
		}
		results = append(results, []string{
			lineItemID + "-" + g.StudentID, "active", lastModified, lineItemID, g.StudentID, status, score, due, "",
		})
	}
	return writeFilesWhole(dir, []namedRows{
		{"lineItems.csv", lineItems}, {"results.csv", results}, {"manifest.csv", manifest},
	})
}

// oneRosterDate is the binding's date: the UTC day.
func oneRosterDate(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// oneRosterID refuses, with sentinel, a sourcedId a receiver cannot take:
// empty, not valid UTF-8, or holding a control character (a line break
// would split a record for a reader that does not honour CSV quotes).
func oneRosterID(what, id string, sentinel error) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: %s is empty", sentinel, what)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: %s %q is not valid UTF-8", sentinel, what, id)
	}
	for _, c := range id {
		if unicode.IsControl(c) {
			return fmt.Errorf("%w: %s %q holds the control character %U", sentinel, what, id, c)
		}
	}
	return nil
}

// namedRows is one file's name and rows.
type namedRows struct {
	name string
	rows [][]string
}

// writeFilesWhole writes each file to a temporary file in dir, then, once
// all are written, renames each over its name in order: a reader of dir
// sees each file either as it was or whole. A temporary file not renamed is
// removed.
func writeFilesWhole(dir string, files []namedRows) error {
	temps := make([]string, 0, len(files))
	defer func() {
		for _, t := range temps {
			if t != "" {
				_ = os.Remove(t) // the write's error is the one to report
			}
		}
	}()
	for _, f := range files {
		t, werr := writeTemp(dir, f)
		if t != "" {
			temps = append(temps, t)
		}
		if werr != nil {
			return werr
		}
	}
	for i, f := range files {
		if err := os.Rename(temps[i], filepath.Join(dir, f.name)); err != nil {
			return err
		}
		temps[i] = ""
	}
	return nil
}

// writeTemp writes f to a new temporary file in dir, synced and closed,
// and returns its path ("" when none was created).
func writeTemp(dir string, f namedRows) (path string, err error) {
	file, err := os.CreateTemp(dir, "."+f.name+".*.tmp")
	if err != nil {
		return "", err
	}
	defer func() {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}()
	if err := file.Chmod(0o644); err != nil {
		return file.Name(), err
	}
	cw := newCSVWriter(file, nil)
	for _, row := range f.rows {
		if err := cw.write(row); err != nil {
			return file.Name(), err
		}
	}
	if err := cw.flush(); err != nil {
		return file.Name(), err
	}
	return file.Name(), file.Sync()
}
