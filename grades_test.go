package kuis_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// gradesStart, gradesFinish and gradesTaken are the times of gradedRecap:
// its start (its instance), its finish and its snapshot.
var (
	gradesStart  = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	gradesFinish = time.Date(2026, 11, 30, 9, 15, 2, 0, time.UTC) // a whole second: the millisecond is still written
	gradesTaken  = time.Date(2026, 12, 1, 7, 30, 0, 250e6, time.FixedZone("WIB", 7*3600))
)

// gradedRecap is a finished quiz of 3 questions whose board holds Citra
// (30), Ali (20), Zaki (10, not enrolled), Eka (0: joined, nothing
// correct) and Yusuf (0, not enrolled), with Ali's answers out of order.
func gradedRecap() kuis.Recap {
	r := kuis.Recap{
		QuizID: "kuis-07", Instance: fmt.Sprintf("%d-0", gradesStart.UnixMilli()),
		Info: kuis.Info{Title: "Kuis Pecahan", Questions: 3, Status: kuis.StatusFinished},
		Standings: []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 30},
			{Rank: 2, CompetitionRank: 2, Participant: "Ali", Score: 20},
			{Rank: 3, CompetitionRank: 3, Participant: "Zaki", Score: 10},
			{Rank: 4, CompetitionRank: 4, Participant: "Yusuf", Score: 0},
			{Rank: 5, CompetitionRank: 4, Participant: "Eka", Score: 0},
		},
		Questions:  []kuis.QuestionResult{{Question: 1, Correct: 2}, {Question: 2, Correct: 2}, {Question: 3, Correct: 2}},
		FinishedAt: gradesFinish, TakenAt: gradesTaken,
	}
	for _, a := range []struct {
		who string
		q   int
	}{{"Citra", 1}, {"Ali", 3}, {"Citra", 2}, {"Zaki", 2}, {"Ali", 1}, {"Citra", 3}} {
		r.Answers = append(r.Answers, kuis.AnswerRecord{Participant: a.who, Question: a.q, At: gradesStart.Add(time.Minute)})
	}
	return r
}

// gradedRoster is gradedRecap's class: Budi is absent, the rest came.
var gradedRoster = []kuis.Student{{ID: "s-03", Name: "Citra"}, {ID: "s-01", Name: "Ali"}, {ID: "s-02", Name: "Budi"}, {ID: "s-05", Name: "Eka"}}

// TestRecapGrades: one row per enrolled student in the roster's order,
// present (0 points included, Correct empty but not nil) or absent (Correct
// nil), then the board's participants the roster lacks as not_enrolled in
// Standings' order; Possible 10 x the questions on every row; names matched
// byte for byte; a roster's repeated ID or name resolved first-wins.
func TestRecapGrades(t *testing.T) {
	t.Parallel()
	row := func(id, name string, a kuis.Attendance, score int64, correct []int) kuis.StudentGrade {
		return kuis.StudentGrade{StudentID: id, Name: name, Attendance: a, Score: score, Possible: 30, Correct: correct}
	}
	notEnrolled := []kuis.StudentGrade{row("", "Zaki", kuis.NotEnrolled, 10, []int{2}), row("", "Yusuf", kuis.NotEnrolled, 0, []int{})}
	tests := []struct {
		name   string
		roster []kuis.Student
		want   []kuis.StudentGrade
	}{
		{"class", gradedRoster, append([]kuis.StudentGrade{
			row("s-03", "Citra", kuis.Present, 30, []int{1, 2, 3}),
			row("s-01", "Ali", kuis.Present, 20, []int{1, 3}),
			row("s-02", "Budi", kuis.Absent, 0, nil),
			row("s-05", "Eka", kuis.Present, 0, []int{}),
		}, notEnrolled...)},
		{"no roster", nil, []kuis.StudentGrade{
			row("", "Citra", kuis.NotEnrolled, 30, []int{1, 2, 3}),
			row("", "Ali", kuis.NotEnrolled, 20, []int{1, 3}),
			row("", "Zaki", kuis.NotEnrolled, 10, []int{2}),
			row("", "Yusuf", kuis.NotEnrolled, 0, []int{}),
			row("", "Eka", kuis.NotEnrolled, 0, []int{}),
		}},
		{"names match byte for byte", []kuis.Student{{ID: "s-01", Name: "ali"}, {ID: "s-03", Name: "\u0421itra"}, {ID: "s-05", Name: "Eka "}},
			[]kuis.StudentGrade{
				row("s-01", "ali", kuis.Absent, 0, nil),
				row("s-03", "\u0421itra", kuis.Absent, 0, nil), // a Cyrillic Es
				row("s-05", "Eka ", kuis.Absent, 0, nil),
				row("", "Citra", kuis.NotEnrolled, 30, []int{1, 2, 3}),
				row("", "Ali", kuis.NotEnrolled, 20, []int{1, 3}),
				row("", "Zaki", kuis.NotEnrolled, 10, []int{2}),
				row("", "Yusuf", kuis.NotEnrolled, 0, []int{}),
				row("", "Eka", kuis.NotEnrolled, 0, []int{}),
			}},
		{"an ID twice: the first entry wins", []kuis.Student{{ID: "s-01", Name: "Ali"}, {ID: "s-01", Name: "Citra"}, {ID: "s-03", Name: "Eka"}},
			[]kuis.StudentGrade{
				row("s-01", "Ali", kuis.Present, 20, []int{1, 3}),
				row("s-03", "Eka", kuis.Present, 0, []int{}),
				row("", "Citra", kuis.NotEnrolled, 30, []int{1, 2, 3}),
				row("", "Zaki", kuis.NotEnrolled, 10, []int{2}),
				row("", "Yusuf", kuis.NotEnrolled, 0, []int{}),
			}},
		{"a name twice: the first student has it", []kuis.Student{{ID: "s-09", Name: "Ali"}, {ID: "s-01", Name: "Ali"}},
			[]kuis.StudentGrade{
				row("s-09", "Ali", kuis.Present, 20, []int{1, 3}),
				row("s-01", "Ali", kuis.Absent, 0, nil),
				row("", "Citra", kuis.NotEnrolled, 30, []int{1, 2, 3}),
				row("", "Zaki", kuis.NotEnrolled, 10, []int{2}),
				row("", "Yusuf", kuis.NotEnrolled, 0, []int{}),
				row("", "Eka", kuis.NotEnrolled, 0, []int{}),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := gradedRecap().Grades(tt.roster)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Grades (-want +got):\n%s", diff)
			}
			for _, g := range got {
				if g.Attendance != kuis.Absent && g.Correct == nil {
					t.Errorf("Grades: %s (%s) has nil Correct; want a list, empty for none", g.Name, g.Attendance)
				}
			}
		})
	}
}

// TestGradesJSON: the row's JSON names, an absent student's correct null
// and a zero-point one's [], so an archive tells them apart too.
func TestGradesJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(gradedRecap().Grades(gradedRoster)[2:4])
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"student_id":"s-02","name":"Budi","attendance":"absent","score":0,"possible":30,"correct":null},` +
		`{"student_id":"s-05","name":"Eka","attendance":"present","score":0,"possible":30,"correct":[]}]`
	if string(b) != want {
		t.Errorf("json.Marshal(grades) = %s\nwant %s", b, want)
	}
}

// TestRecapGradesBounds: a Recap built by hand with a question count out of
// the contract's bounds neither panics nor writes without end.
func TestRecapGradesBounds(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{-1, 0, 1 << 40} {
		r := gradedRecap()
		r.Info.Questions = n
		var buf bytes.Buffer
		if err := r.WriteGradesCSV(&buf, gradedRoster); err != nil {
			t.Errorf("questions %d: WriteGradesCSV: %v", n, err)
		}
		if buf.Len() > 1<<20 {
			t.Errorf("questions %d: WriteGradesCSV wrote %d bytes", n, buf.Len())
		}
		_ = r.AGSScores(gradedRoster)
		if err := r.WriteOneRoster(t.TempDir(), gradedRoster, "kelas-8a", "li-1"); err != nil {
			t.Errorf("questions %d: WriteOneRoster: %v", n, err)
		}
	}
}

// TestCourseGrades: the course's rows as the quiz's, each student's course
// total, Possible the course's, Correct nil on every row, and a 0-point
// standing present.
func TestCourseGrades(t *testing.T) {
	t.Parallel()
	r := kuis.CourseRecap{CourseID: "ipa-8a", Possible: 60, Standings: []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 50},
		{Rank: 2, CompetitionRank: 2, Participant: "Zaki", Score: 10},
		{Rank: 3, CompetitionRank: 3, Participant: "Eka", Score: 0},
	}}
	want := []kuis.StudentGrade{
		{StudentID: "s-03", Name: "Citra", Attendance: kuis.Present, Score: 50, Possible: 60},
		{StudentID: "s-01", Name: "Ali", Attendance: kuis.Absent, Possible: 60},
		{StudentID: "s-05", Name: "Eka", Attendance: kuis.Present, Possible: 60},
		{Name: "Zaki", Attendance: kuis.NotEnrolled, Score: 10, Possible: 60},
	}
	got := r.Grades([]kuis.Student{{ID: "s-03", Name: "Citra"}, {ID: "s-01", Name: "Ali"}, {ID: "s-05", Name: "Eka"}})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CourseRecap.Grades (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := r.WriteGradesCSV(&buf, []kuis.Student{{ID: "s-03", Name: "Citra"}, {ID: "s-01", Name: "Ali"}, {ID: "s-05", Name: "Eka"}}); err != nil {
		t.Fatal(err)
	}
	wantCSV := "student_id,name,attendance,score,possible\n" +
		"s-03,Citra,present,50,60\n" +
		"s-01,Ali,absent,,60\n" +
		"s-05,Eka,present,0,60\n" +
		",Zaki,not_enrolled,10,60\n"
	if diff := cmp.Diff(wantCSV, buf.String()); diff != "" {
		t.Errorf("CourseRecap.WriteGradesCSV (-want +got):\n%s", diff)
	}
}

// TestGradesFromTheServer: grades of a quiz and of a course read from the
// target server (miniredis, REDIS_ADDR or REDIS_CLUSTER_ADDRS): a student
// with 0 points on the board is present, one not on it absent, and a
// participant the roster lacks not enrolled, each told apart; in the
// course, a student who had 0 points in one quiz and missed the other is
// present, and one who missed both is absent.
func TestGradesFromTheServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.reference() // Citra 30, Ali 30, Budi 20, Dewi 10
	if _, err := e.board(id).Join(e.ctx, "Eka"); err != nil {
		t.Fatal(err)
	}
	e.finish(id)
	roster := []kuis.Student{{ID: "s-04", Name: "Dewi"}, {ID: "s-05", Name: "Eka"}, {ID: "s-06", Name: "Fajar"}, {ID: "s-01", Name: "Ali"}}
	want := []kuis.StudentGrade{
		{StudentID: "s-04", Name: "Dewi", Attendance: kuis.Present, Score: 10, Possible: 30, Correct: []int{3}},
		{StudentID: "s-05", Name: "Eka", Attendance: kuis.Present, Score: 0, Possible: 30, Correct: []int{}},
		{StudentID: "s-06", Name: "Fajar", Attendance: kuis.Absent, Possible: 30},
		{StudentID: "s-01", Name: "Ali", Attendance: kuis.Present, Score: 30, Possible: 30, Correct: []int{1, 2, 3}},
		{Name: "Citra", Attendance: kuis.NotEnrolled, Score: 30, Possible: 30, Correct: []int{1, 2, 3}},
		{Name: "Budi", Attendance: kuis.NotEnrolled, Score: 20, Possible: 30, Correct: []int{2, 3}},
	}
	if diff := cmp.Diff(want, e.recap(id).Grades(roster)); diff != "" {
		t.Errorf("Recap.Grades (-want +got):\n%s", diff)
	}

	c := e.course(courseID())
	for _, r := range []kuis.Recap{handRecap("kuis-g1", 2, "Ali", 20, "Eka", 0), handRecap("kuis-g2", 3, "Ali", 10, "Zaki", 30)} {
		if _, err := c.Fold(e.ctx, r); err != nil {
			t.Fatalf("Fold(%s): %v", r.QuizID, err)
		}
	}
	cr, err := c.Recap(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantCourse := []kuis.StudentGrade{
		{StudentID: "s-05", Name: "Eka", Attendance: kuis.Present, Possible: 50},
		{StudentID: "s-06", Name: "Fajar", Attendance: kuis.Absent, Possible: 50},
		{StudentID: "s-01", Name: "Ali", Attendance: kuis.Present, Score: 30, Possible: 50},
		{Name: "Zaki", Attendance: kuis.NotEnrolled, Score: 30, Possible: 50},
	}
	if diff := cmp.Diff(wantCourse, cr.Grades(roster[1:])); diff != "" {
		t.Errorf("CourseRecap.Grades (-want +got):\n%s", diff)
	}
}

// TestWriteGradesCSV: the quiz's file byte for byte: a column per question,
// 1 or 0, an absent student's score and question cells empty, a
// not-enrolled participant kept with an empty student_id.
func TestWriteGradesCSV(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := gradedRecap().WriteGradesCSV(&buf, gradedRoster); err != nil {
		t.Fatal(err)
	}
	want := "student_id,name,attendance,score,possible,q1,q2,q3\n" +
		"s-03,Citra,present,30,30,1,1,1\n" +
		"s-01,Ali,present,20,30,1,0,1\n" +
		"s-02,Budi,absent,,30,,,\n" +
		"s-05,Eka,present,0,30,0,0,0\n" +
		",Zaki,not_enrolled,10,30,0,1,0\n" +
		",Yusuf,not_enrolled,0,30,0,0,0\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteGradesCSV (-want +got):\n%s", diff)
	}

	buf.Reset()
	if err := gradedRecap().WriteGradesCSV(&buf, gradedRoster, kuis.ForSpreadsheet(), kuis.WithDelimiter(';')); err != nil {
		t.Fatal(err)
	}
	wantSheet := "\uFEFF" + `"student_id";"name";"attendance";"score";"possible";"q1";"q2";"q3"` + "\r\n" +
		`"s-03";"Citra";"present";"30";"30";"1";"1";"1"` + "\r\n" +
		`"s-01";"Ali";"present";"20";"30";"1";"0";"1"` + "\r\n" +
		`"s-02";"Budi";"absent";"";"30";"";"";""` + "\r\n" +
		`"s-05";"Eka";"present";"0";"30";"0";"0";"0"` + "\r\n" +
		`"";"Zaki";"not_enrolled";"10";"30";"0";"1";"0"` + "\r\n" +
		`"";"Yusuf";"not_enrolled";"0";"30";"0";"0";"0"` + "\r\n"
	if diff := cmp.Diff(wantSheet, buf.String()); diff != "" {
		t.Errorf("WriteGradesCSV(ForSpreadsheet, WithDelimiter(';')) (-want +got):\n%s", diff)
	}

	for _, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error {
			return gradedRecap().WriteGradesCSV(b, gradedRoster, kuis.WithDelimiter('\n'))
		},
		func(b *bytes.Buffer) error {
			return kuis.CourseRecap{}.WriteGradesCSV(b, gradedRoster, kuis.ForSpreadsheet(), kuis.WithDelimiter('"'))
		},
	} {
		buf.Reset()
		if err := write(&buf); !errors.Is(err, kuis.ErrInvalidOption) || buf.Len() != 0 {
			t.Errorf("WriteGradesCSV with a refused delimiter: %v, wrote %q; want ErrInvalidOption and nothing", err, buf.String())
		}
	}
	if err := (kuis.CourseRecap{}).WriteGradesCSV(&failingWriter{n: 3}, gradedRoster); !errors.Is(err, errDiskFull) {
		t.Errorf("CourseRecap.WriteGradesCSV to a failing writer: %v, want %v", err, errDiskFull)
	}
}

// TestAGSScores: one Score per enrolled student, field by field against the
// LTI AGS 2.0 score publish service's names: a present student (0 points
// included) with scoreGiven, Completed and FullyGraded; an absent one
// without scoreGiven, Initialized and NotReady; not-enrolled participants
// left out; timestamp the finish in UTC with milliseconds, else the
// snapshot's time; no comment.
func TestAGSScores(t *testing.T) {
	t.Parallel()
	decode := func(t *testing.T, r kuis.Recap) []map[string]any {
		t.Helper()
		b, err := json.Marshal(r.AGSScores(gradedRoster))
		if err != nil {
			t.Fatal(err)
		}
		var got []map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	score := func(user string, given any, activity, grading, at string) map[string]any {
		m := map[string]any{"userId": user, "scoreMaximum": 30.0, "activityProgress": activity, "gradingProgress": grading, "timestamp": at}
		if given != nil {
			m["scoreGiven"] = given
		}
		return m
	}
	const finished = "2026-11-30T09:15:02.000Z"
	want := []map[string]any{
		score("s-03", 30.0, "Completed", "FullyGraded", finished),
		score("s-01", 20.0, "Completed", "FullyGraded", finished),
		score("s-02", nil, "Initialized", "NotReady", finished),
		score("s-05", 0.0, "Completed", "FullyGraded", finished),
	}
	if diff := cmp.Diff(want, decode(t, gradedRecap())); diff != "" {
		t.Errorf("AGSScores JSON (-want +got):\n%s", diff)
	}

	running := gradedRecap()
	running.FinishedAt = time.Time{}
	for _, s := range want {
		s["timestamp"] = "2026-12-01T00:30:00.250Z" // TakenAt, 07:30:00.250 in UTC+7
	}
	if diff := cmp.Diff(want, decode(t, running)); diff != "" {
		t.Errorf("AGSScores JSON of a recap without a finish (-want +got):\n%s", diff)
	}

	if got := (kuis.Recap{}).AGSScores(nil); got == nil || len(got) != 0 {
		t.Errorf("AGSScores of nobody = %#v, want an empty list", got)
	}
}

// readCSVFile reads a file of dir back with encoding/csv.
func readCSVFile(t *testing.T, dir, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rows
}

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteOneRoster: the three files of the OneRoster 1.1 CSV binding read
// back, every header and field: the manifest's version rows and its file
// list (delta for lineItems and results, absent for the rest, in the
// binding's order), the one line item, a result per enrolled student
// (fully graded, or not submitted with score 0), not-enrolled participants
// left out; nothing else left in dir; a second export replaces the first.
func TestWriteOneRoster(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := gradedRecap().WriteOneRoster(dir, gradedRoster, "kelas-8a-2026", "kuis-07-li"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"lineItems.csv", "manifest.csv", "results.csv"}, dirNames(t, dir)); diff != "" {
		t.Errorf("files in dir (-want +got):\n%s", diff)
	}
	wantManifest := [][]string{
		{"propertyName", "value"},
		{"manifest.version", "1.0"},
		{"oneroster.version", "1.1"},
		{"file.academicSessions", "absent"},
		{"file.categories", "absent"},
		{"file.classes", "absent"},
		{"file.classResources", "absent"},
		{"file.courses", "absent"},
		{"file.courseResources", "absent"},
		{"file.demographics", "absent"},
		{"file.enrollments", "absent"},
		{"file.lineItems", "delta"},
		{"file.orgs", "absent"},
		{"file.resources", "absent"},
		{"file.results", "delta"},
		{"file.users", "absent"},
	}
	if diff := cmp.Diff(wantManifest, readCSVFile(t, dir, "manifest.csv")); diff != "" {
		t.Errorf("manifest.csv (-want +got):\n%s", diff)
	}
	const modified = "2026-12-01T00:30:00.250Z" // TakenAt in UTC
	wantLineItems := [][]string{
		{"sourcedId", "status", "dateLastModified", "title", "description", "assignDate", "dueDate",
			"classSourcedId", "categorySourcedId", "gradingPeriodSourcedId", "resultValueMin", "resultValueMax"},
		{"kuis-07-li", "active", modified, "Kuis Pecahan", "kuis quiz kuis-07: 3 questions, 10 points each", "2026-11-30", "2026-11-30",
			"kelas-8a-2026", "kuis", "kuis", "0", "30"},
	}
	if diff := cmp.Diff(wantLineItems, readCSVFile(t, dir, "lineItems.csv")); diff != "" {
		t.Errorf("lineItems.csv (-want +got):\n%s", diff)
	}
	wantResults := [][]string{
		{"sourcedId", "status", "dateLastModified", "lineItemSourcedId", "studentSourcedId", "scoreStatus", "score", "scoreDate", "comment"},
		{"kuis-07-li-s-03", "active", modified, "kuis-07-li", "s-03", "fully graded", "30", "2026-11-30", ""},
		{"kuis-07-li-s-01", "active", modified, "kuis-07-li", "s-01", "fully graded", "20", "2026-11-30", ""},
		{"kuis-07-li-s-02", "active", modified, "kuis-07-li", "s-02", "not submitted", "0", "2026-11-30", ""},
		{"kuis-07-li-s-05", "active", modified, "kuis-07-li", "s-05", "fully graded", "0", "2026-11-30", ""},
	}
	if diff := cmp.Diff(wantResults, readCSVFile(t, dir, "results.csv")); diff != "" {
		t.Errorf("results.csv (-want +got):\n%s", diff)
	}

	// Dates are UTC days: a quiz finished just after midnight in UTC+8 is
	// due the day before; without a title, it is named by its ID; with
	// TakenAt zero, it was last modified at its finish.
	late := gradedRecap()
	late.Info.Title = ""
	late.Instance = fmt.Sprintf("%d-0", time.Date(2026, 11, 29, 15, 30, 0, 0, time.UTC).UnixMilli())
	late.FinishedAt = time.Date(2026, 11, 30, 0, 10, 0, 0, time.FixedZone("WITA", 8*3600))
	late.TakenAt = time.Time{}
	if err := late.WriteOneRoster(dir, gradedRoster[:1], "kelas-8a-2026", "li-2"); err != nil {
		t.Fatal(err)
	}
	wantLineItems[1] = []string{"li-2", "active", "2026-11-29T16:10:00.000Z", "kuis-07", "kuis quiz kuis-07: 3 questions, 10 points each",
		"2026-11-29", "2026-11-29", "kelas-8a-2026", "kuis", "kuis", "0", "30"}
	if diff := cmp.Diff(wantLineItems, readCSVFile(t, dir, "lineItems.csv")); diff != "" {
		t.Errorf("lineItems.csv of a second export (-want +got):\n%s", diff)
	}
	wantResults = [][]string{wantResults[0], {"li-2-s-03", "active", "2026-11-29T16:10:00.000Z", "li-2", "s-03", "fully graded", "30", "2026-11-29", ""}}
	if diff := cmp.Diff(wantResults, readCSVFile(t, dir, "results.csv")); diff != "" {
		t.Errorf("results.csv of a second export (-want +got):\n%s", diff)
	}

	// A quiz without an instance is assigned on its due date.
	none := gradedRecap()
	none.Instance = kuis.NoInstance
	if err := none.WriteOneRoster(dir, nil, "kelas-8a-2026", "li-3"); err != nil {
		t.Fatal(err)
	}
	if got := readCSVFile(t, dir, "lineItems.csv")[1][5]; got != "2026-11-30" {
		t.Errorf("assignDate of a quiz without an instance = %q, want its due date 2026-11-30", got)
	}
	if got := readCSVFile(t, dir, "results.csv"); len(got) != 1 || got[0][0] != "sourcedId" {
		t.Errorf("results.csv of an empty roster = %q, want the header alone", got)
	}
}

// TestWriteOneRosterRefuses: an ID the binding cannot carry is a typed
// error before anything is written, and a dir that does not exist is the
// file system's error; dir holds nothing afterwards.
func TestWriteOneRosterRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		roster          []kuis.Student
		class, lineItem string
		want            error
	}{
		{"empty line item", gradedRoster, "kelas-8a", "", kuis.ErrInvalidOption},
		{"empty class", gradedRoster, "", "li-1", kuis.ErrInvalidOption},
		{"line break in the class", gradedRoster, "kelas\n8a", "li-1", kuis.ErrInvalidOption},
		{"line item not UTF-8", gradedRoster, "kelas-8a", "li-\xff", kuis.ErrInvalidOption},
		{"an absent student without an ID", []kuis.Student{{ID: "s-03", Name: "Citra"}, {ID: "", Name: "Budi"}}, "kelas-8a", "li-1", kuis.ErrInvalidStudent},
		{"a present student's ID with a tab", []kuis.Student{{ID: "s\t03", Name: "Citra"}}, "kelas-8a", "li-1", kuis.ErrInvalidStudent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := gradedRecap().WriteOneRoster(dir, tt.roster, tt.class, tt.lineItem); !errors.Is(err, tt.want) {
				t.Errorf("WriteOneRoster = %v, want %v", err, tt.want)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("dir after a refusal holds %q, want nothing", names)
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if err := gradedRecap().WriteOneRoster(missing, gradedRoster, "kelas-8a", "li-1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteOneRoster to a missing dir = %v, want fs.ErrNotExist", err)
	}
}

// TestWriteOneRosterFailsWhole: when a file cannot be put in place, the
// temporary files are removed and no file of the three is half there.
func TestWriteOneRosterFailsWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A directory named manifest.csv: the last rename fails.
	if err := os.Mkdir(filepath.Join(dir, "manifest.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.csv", "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := gradedRecap().WriteOneRoster(dir, gradedRoster, "kelas-8a", "li-1"); err == nil {
		t.Fatal("WriteOneRoster over a directory named manifest.csv: no error")
	}
	for _, name := range dirNames(t, dir) {
		if strings.HasSuffix(name, ".tmp") {
			t.Errorf("temporary file %s left in dir", name)
		}
	}
	for _, name := range []string{"lineItems.csv", "results.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			if rows := readCSVFile(t, dir, name); len(rows) < 2 {
				t.Errorf("%s is there but not whole: %q", name, rows)
			}
		}
	}
}
