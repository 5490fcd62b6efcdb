package kuis

// Student is one student of a class's roster: the stable ID a school's
// systems know them by, and the name they appear under on boards.
type Student struct {
	// ID is the stable ID the grades go to: the LMS's user ID (for LTI
	// Assignment and Grade Services, the platform's sub), the SIS's, or the
	// school's own number. 1 to 64 bytes of printable ASCII without spaces.
	ID string `json:"id"`
	// Name is the name on boards, in CleanParticipant's form.
	Name string `json:"name"`
}

// Attendance tells a grade's student apart: present on the board (0 points
// or more), enrolled but absent, or on the board but not enrolled.
type Attendance string

// The attendances of a StudentGrade.
const (
	Present     Attendance = "present"
	Absent      Attendance = "absent"
	NotEnrolled Attendance = "not_enrolled"
)

// StudentGrade is one row of a quiz's or course's grades (Recap.Grades,
// CourseRecap.Grades).
type StudentGrade struct {
	StudentID  string     `json:"student_id"` // "" when not enrolled
	Name       string     `json:"name"`
	Attendance Attendance `json:"attendance"`
	Score      int64      `json:"score"`
	Possible   int64      `json:"possible"`
	Correct    []int      `json:"correct"` // the questions answered correctly, in order; nil for a course
}
