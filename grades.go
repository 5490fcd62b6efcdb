package kuis

import (
	"io"
	"strconv"

	"github.com/kuisboard/kuis/internal/wire"
)

// Grades joins the quiz's board with a class's roster: one row per enrolled
// student, in the roster's order, then one per participant on the board
// whom the roster lacks. It does no I/O.
//
// An enrolled student whose name is on the board (Standings, 0 points
// included: a student who joined and answered nothing correctly) is
// Present, with their score and the questions they answered correctly
// (Answers' questions, ascending; empty, not nil, for none). One whose name
// is not on the board is Absent, with score 0 and Correct nil. Then each
// participant on the board whom no student's name matches is NotEnrolled,
// in Standings' order, with an empty StudentID. Possible is 10 x the quiz's
// questions (Info.Questions) on every row.
//
// Names match byte for byte: the board's stored name against the roster's
// Name, both in CleanParticipant's form. A roster from Class.Students holds
// each ID and each name once. Given one that does not, the first entry wins:
// a later entry with an ID already seen is left out, and a later student
// whose name an earlier one already took is Absent.
func (r Recap) Grades(roster []Student) []StudentGrade {
	correct := make(map[string][]int, len(r.Standings))
	for _, g := range r.Gradebook() {
		correct[g.Participant] = g.Correct
	}
	return joinRoster(roster, r.Standings, wire.Points*int64(r.questions()), func(name string) []int { return correct[name] })
}

// questions is Info.Questions within the contract's bounds, 0 to
// wire.MaxQuestions, so that a Recap built by hand with a count out of them
// cannot make a writer allocate without end or panic.
func (r Recap) questions() int {
	return int(min(max(r.Info.Questions, 0), wire.MaxQuestions))
}

// Grades joins the course's board with a class's roster as Recap.Grades
// does, with the course's rules: a student is Present when the course board
// holds them, which it does for everyone a folded quiz instance had on its
// board, 0 points included, so a student present in any folded quiz is
// present in the course; Score is their course total, Possible the course's
// (CourseRecap.Possible: 10 x the folded instances' questions), and Correct
// is nil on every row. It does no I/O. A roster with an ID or a name twice
// is read as Recap.Grades reads it.
func (r CourseRecap) Grades(roster []Student) []StudentGrade {
	return joinRoster(roster, r.Standings, r.Possible, nil)
}

// joinRoster is the rows of Grades: the roster's students in its order
// (first entry wins), then the board's participants whom no student claimed,
// in the board's order. correct gives a participant's correct questions;
// nil leaves Correct nil (a course).
func joinRoster(roster []Student, board []Standing, possible int64, correct func(name string) []int) []StudentGrade {
	onBoard := make(map[string]int, len(board))
	for i, s := range board {
		if _, seen := onBoard[s.Participant]; !seen {
			onBoard[s.Participant] = i
		}
	}
	row := func(id string, s Standing, a Attendance) StudentGrade {
		g := StudentGrade{StudentID: id, Name: s.Participant, Attendance: a, Score: s.Score, Possible: possible}
		if correct != nil {
			g.Correct = correct(s.Participant)
		}
		return g
	}
	rows := make([]StudentGrade, 0, len(roster)+len(board))
	ids := make(map[string]bool, len(roster))
	claimed := make([]bool, len(board))
	for _, st := range roster {
		if ids[st.ID] {
			continue
		}
		ids[st.ID] = true
		if i, ok := onBoard[st.Name]; ok && !claimed[i] {
			claimed[i] = true
			rows = append(rows, row(st.ID, board[i], Present))
			continue
		}
		rows = append(rows, StudentGrade{StudentID: st.ID, Name: st.Name, Attendance: Absent, Possible: possible})
	}
	for i, s := range board {
		if !claimed[i] && onBoard[s.Participant] == i {
			rows = append(rows, row("", s, NotEnrolled))
		}
	}
	return rows
}

// WriteGradesCSV writes the quiz's grades (Grades(roster)) for a
// gradebook's import: the header row
// "student_id,name,attendance,score,possible,q1,...,qN", one column per
// question of the quiz, then one row per grade in Grades' order. A question's
// cell is 1 when the student answered it correctly and 0 otherwise; an absent
// student's question cells and score are empty, so that an import leaves
// their grade blank rather than 0, and attendance tells them apart.
//
// Moodle's grade import and Canvas's gradebook import map the student_id
// column to a user (Moodle: to the ID number, username or email; Canvas: the
// SIS User ID), so enroll students with the ID the LMS knows. Participants
// the roster lacks are kept, with an empty student_id and attendance
// not_enrolled, because a teacher must see them; but Moodle's import refuses
// a whole file that names one user it cannot map, so drop the not_enrolled
// rows (or enroll those students) before a Moodle import.
//
// opts choose the file's form (ForSpreadsheet, WithDelimiter) as for the
// recap's other writers; a delimiter encoding/csv refuses is
// ErrInvalidOption, with nothing written. It returns w's error as it is.
func (r Recap) WriteGradesCSV(w io.Writer, roster []Student, opts ...CSVOption) error {
	return writeGrades(w, r.Grades(roster), r.questions(), opts)
}

// WriteGradesCSV writes the course's grades (Grades(roster)) as
// Recap.WriteGradesCSV does, with the header row
// "student_id,name,attendance,score,possible" and no question columns: score
// is the course total, possible the course's, and an absent student's score
// is empty. What it says of Moodle and Canvas holds here too: drop the
// not_enrolled rows before a Moodle import. A delimiter encoding/csv refuses
// is ErrInvalidOption, with nothing written; w's error is returned as it is.
func (r CourseRecap) WriteGradesCSV(w io.Writer, roster []Student, opts ...CSVOption) error {
	return writeGrades(w, r.Grades(roster), 0, opts)
}

// writeGrades writes grade rows with a column per question of questions (0
// for a course).
func writeGrades(w io.Writer, grades []StudentGrade, questions int, opts []CSVOption) error {
	cw := newCSVWriter(w, opts)
	header := []string{"student_id", "name", "attendance", "score", "possible"}
	for q := 1; q <= questions; q++ {
		header = append(header, "q"+strconv.Itoa(q))
	}
	if err := cw.write(header); err != nil {
		return err
	}
	for _, g := range grades {
		score := strconv.FormatInt(g.Score, 10)
		if g.Attendance == Absent {
			score = ""
		}
		row := []string{g.StudentID, g.Name, string(g.Attendance), score, strconv.FormatInt(g.Possible, 10)}
		cells := make([]string, questions)
		if g.Attendance != Absent {
			for i := range cells {
				cells[i] = "0"
			}
			for _, q := range g.Correct {
				if q >= 1 && q <= questions {
					cells[q-1] = "1"
				}
			}
		}
		if err := cw.write(append(row, cells...)); err != nil {
			return err
		}
	}
	return cw.flush()
}
