package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// gradedQuiz makes the reference session in quiz id, finished, for class
// (none when ""), with class 8a's roster: Ali and Budi on the board, Eka
// absent; Citra and Dewi are not enrolled. Ahmad joined and answered
// nothing: present with 0 points.
func (tg *target) gradedQuiz(id, class string) []kuis.Student {
	tg.t.Helper()
	var opts []kuis.CreateOption
	if class != "" {
		opts = append(opts, kuis.ForClass(class))
	}
	tg.quiz(id, "Kuis Matematika Kelas 8", 3, nil, false, opts...)
	board, err := tg.store.Board(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	if _, err := board.Join(tg.ctx, "Ahmad"); err != nil {
		tg.t.Fatal(err)
	}
	for q, names := range [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}} {
		for _, name := range names {
			if _, err := board.RecordAnswer(tg.ctx, name, q+1); err != nil {
				tg.t.Fatal(err)
			}
		}
	}
	meta, err := tg.store.Meta(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	if err := meta.Finish(tg.ctx); err != nil {
		tg.t.Fatal(err)
	}
	tg.must("class", "enroll", "8a", "-roster", rosterFile(tg.t, "id,name\ns-03,Eka\ns-01,Ali\ns-02,Budi\ns-04,Ahmad\n"))
	return tg.students("8a")
}

// TestGradesCSV prints the library's grades CSV for the class the quiz
// names, or -class, with a delimiter, to stdout or a file.
func TestGradesCSV(t *testing.T) {
	tg := newTarget(t)
	roster := tg.gradedQuiz("kuis-01", "8a")
	r := tg.recapOf("kuis-01")
	var want bytes.Buffer
	if err := r.WriteGradesCSV(&want, roster); err != nil {
		t.Fatal(err)
	}
	got := tg.must("grades", "kuis-01")
	if diff := cmp.Diff(want.String(), got); diff != "" {
		t.Errorf("grades (-want +got):\n%s", diff)
	}
	// What the file says, row by row: the library's rules, seen once here.
	wantRows := []string{
		"student_id,name,attendance,score,possible,q1,q2,q3",
		"s-01,Ali,present,30,30,1,1,1",
		"s-02,Budi,present,20,30,0,1,1",
		"s-03,Eka,absent,,30,,,",
		"s-04,Ahmad,present,0,30,0,0,0",
		",Citra,not_enrolled,30,30,1,1,1",
		",Dewi,not_enrolled,10,30,0,0,1",
	}
	if diff := cmp.Diff(wantRows, lines(got)); diff != "" {
		t.Errorf("grades rows (-want +got):\n%s", diff)
	}
	semi := tg.must("grades", "kuis-01", "-delimiter", ";")
	sameRecords(t, "grades -delimiter ;", ';', semi, got)

	// A quiz that names no class: -class gives it; without, exit 2.
	tg.gradedQuiz("kuis-02", "")
	if diff := cmp.Diff(wantRows, lines(tg.must("grades", "kuis-02", "-class", "8a"))); diff != "" {
		t.Errorf("grades -class (-want +got):\n%s", diff)
	}
	res := tg.kuis("grades", "kuis-02")
	if res.code != 2 || res.stdout != "" {
		t.Errorf("grades of a quiz naming no class: exit %d, stdout %q, want 2", res.code, res.stdout)
	}
	oneLine(t, "no class", res.stderr, "kuis grades kuis-02: ", "names no class", "-class")

	// -class overrides the quiz's class: an empty one makes all not_enrolled.
	none := tg.must("grades", "kuis-01", "-class", "nobody")
	want.Reset()
	if err := r.WriteGradesCSV(&want, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.String(), none); diff != "" {
		t.Errorf("grades -class nobody (-want +got):\n%s", diff)
	}

	file := filepath.Join(t.TempDir(), "grades.csv")
	if out := tg.must("grades", "kuis-01", "-o", file); out != "" {
		t.Errorf("grades -o printed %q", out)
	}
	switch b, err := os.ReadFile(file); {
	case err != nil:
		t.Fatal(err)
	case string(b) != got:
		t.Errorf("grades -o wrote %q, want %q", b, got)
	}
}

// TestGradesAGS prints the library's AGS scores of the enrolled students as
// one JSON array.
func TestGradesAGS(t *testing.T) {
	tg := newTarget(t)
	roster := tg.gradedQuiz("kuis-01", "8a")
	want := tg.recapOf("kuis-01").AGSScores(roster)
	var got []kuis.AGSScore
	if err := json.Unmarshal([]byte(tg.must("grades", "kuis-01", "-format", "ags")), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ags (-want +got):\n%s", diff)
	}
	var users []string
	for _, s := range got {
		users = append(users, s.UserID)
	}
	if diff := cmp.Diff([]string{"s-01", "s-02", "s-03", "s-04"}, users); diff != "" {
		t.Errorf("ags users (-want +got):\n%s", diff)
	}
	if got := tg.must("grades", "kuis-01", "-format", "ags", "-class", "nobody"); got != "[]\n" {
		t.Errorf("ags of an empty class: %q, want []", got)
	}
}

// TestGradesOneRoster writes the library's OneRoster files into -o DIR,
// with the line item and class sourcedIds given or their defaults.
func TestGradesOneRoster(t *testing.T) {
	tg := newTarget(t)
	roster := tg.gradedQuiz("kuis-01", "8a")
	r := tg.recapOf("kuis-01")
	tests := []struct {
		args            []string
		class, lineItem string
	}{
		{nil, "8a", "kuis-01"},
		{[]string{"-line-item", "li-7", "-class-sourced-id", "sis-8a"}, "sis-8a", "li-7"},
	}
	for _, tt := range tests {
		dir := filepath.Join(t.TempDir(), "made")
		out := tg.must(append([]string{"grades", "kuis-01", "-format", "oneroster", "-o", dir}, tt.args...)...)
		if out == "" {
			t.Errorf("%v printed nothing", tt.args)
		}
		// The command took its own recap: the same but for when it was taken.
		items, err := os.ReadFile(filepath.Join(dir, "lineItems.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(items)).ReadAll()
		if err != nil || len(rows) != 2 || len(rows[1]) < 3 {
			t.Fatalf("%v: lineItems.csv %q (%v)", tt.args, items, err)
		}
		if r.TakenAt, err = time.Parse(time.RFC3339Nano, rows[1][2]); err != nil {
			t.Fatal(err)
		}
		wantDir := t.TempDir()
		if err := r.WriteOneRoster(wantDir, roster, tt.class, tt.lineItem); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"manifest.csv", "lineItems.csv", "results.csv"} {
			want, err := os.ReadFile(filepath.Join(wantDir, f))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Errorf("%v: %v", tt.args, err)
				continue
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%v: %s (-want +got):\n%s", tt.args, f, diff)
			}
		}
	}
	res := tg.kuis("grades", "kuis-01", "-format", "oneroster", "-o", t.TempDir(), "-line-item", "bad\nitem")
	if res.code != 2 {
		t.Errorf("a line item with a line break: exit %d, want 2", res.code)
	}
	oneLine(t, "bad line item", res.stderr, "kuis grades: ", "invalid option")
}

// TestGradesUsage refuses grades' and course grades' bad flags with exit 2
// before connecting.
func TestGradesUsage(t *testing.T) {
	tests := []struct {
		args          []string
		prefix, words string
	}{
		{[]string{"grades"}, "kuis grades: ", "no QUIZ"},
		{[]string{"grades", "kuis-01", "-format", "xml"}, "kuis grades: ", `"xml"`},
		{[]string{"grades", "kuis-01", "-format", "oneroster"}, "kuis grades: ", "-o DIR"},
		{[]string{"grades", "kuis-01", "-format", "ags", "-delimiter", ";"}, "kuis grades: ", "-delimiter"},
		{[]string{"grades", "kuis-01", "-line-item", "x"}, "kuis grades: ", "-line-item"},
		{[]string{"grades", "kuis-01", "-delimiter", "ab"}, "kuis grades: ", "-delimiter"},
		{[]string{"course", "grades", "ipa"}, "kuis course grades: ", "-class"},
		{[]string{"course", "grades", "-class", "8a"}, "kuis course grades: ", "no COURSE"},
	}
	for _, tt := range tests {
		r := runKuis(nil, append([]string{"-addr", unreachable}, tt.args...)...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, want 2", tt.args, r.code, r.stdout)
		}
		oneLine(t, tt.words, r.stderr, tt.prefix, tt.words)
	}
}

// TestCourseGrades prints the library's course grades CSV for a class.
func TestCourseGrades(t *testing.T) {
	tg := newTarget(t)
	roster := tg.gradedQuiz("kuis-01", "8a")
	tg.must("course", "fold", "ipa-8a", "kuis-01")
	cr, err := tg.course("ipa-8a").Recap(tg.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := cr.WriteGradesCSV(&want, roster); err != nil {
		t.Fatal(err)
	}
	got := tg.must("course", "grades", "ipa-8a", "-class", "8a")
	if diff := cmp.Diff(want.String(), got); diff != "" {
		t.Errorf("course grades (-want +got):\n%s", diff)
	}
	wantRows := []string{
		"student_id,name,attendance,score,possible",
		"s-01,Ali,present,30,30",
		"s-02,Budi,present,20,30",
		"s-03,Eka,absent,,30",
		"s-04,Ahmad,present,0,30",
		",Citra,not_enrolled,30,30",
		",Dewi,not_enrolled,10,30",
	}
	if diff := cmp.Diff(wantRows, lines(got)); diff != "" {
		t.Errorf("course grades rows (-want +got):\n%s", diff)
	}
	sameRecords(t, "course grades -delimiter tab", '\t', tg.must("course", "grades", "ipa-8a", "-class", "8a", "-delimiter", "tab"), got)
	file := filepath.Join(t.TempDir(), "course.csv")
	tg.must("course", "grades", "ipa-8a", "-class", "8a", "-o", file)
	if b, err := os.ReadFile(file); err != nil || string(b) != got {
		t.Errorf("course grades -o wrote %q (%v), want %q", b, err, got)
	}
}

// TestPurgeGrades archives grades.csv beside a quiz's other files when the
// quiz names a class, the library's grades with the class's roster (all
// not_enrolled for a class with nobody enrolled), with purge's delimiter,
// and none for a quiz that names no class.
func TestPurgeGrades(t *testing.T) {
	tg := newTarget(t)
	roster := tg.gradedQuiz("kuis-01", "8a")
	tg.quiz("kuis-02", "Kuis", 1, [][]string{{"Ali"}}, true, kuis.ForClass("empty-class"))
	tg.gradedQuiz("kuis-03", "")
	recaps := map[string]kuis.Recap{}
	for _, id := range []string{"kuis-01", "kuis-02", "kuis-03"} {
		recaps[id] = tg.recapOf(id)
	}
	dir := t.TempDir()
	tg.must("purge", "-archive", dir, "-delimiter", ";", "kuis-01", "kuis-02", "kuis-03")
	tests := []struct {
		id     string
		roster []kuis.Student
		graded bool
	}{
		{"kuis-01", roster, true},
		{"kuis-02", nil, true},
		{"kuis-03", nil, false},
	}
	for _, tt := range tests {
		r := recaps[tt.id]
		qdir := instanceDir(dir, r)
		files := dirNames(t, qdir)
		want := []string{"answers.csv", "gradebook.csv", "recap.json", "standings.csv"}
		if tt.graded {
			want = []string{"answers.csv", "gradebook.csv", "grades.csv", "recap.json", "standings.csv"}
		}
		if diff := cmp.Diff(want, files); diff != "" {
			t.Errorf("%s: archive holds (-want +got):\n%s", tt.id, diff)
		}
		if !tt.graded {
			continue
		}
		var b bytes.Buffer
		if err := r.WriteGradesCSV(&b, tt.roster, kuis.WithDelimiter(';')); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(qdir, "grades.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(b.String(), string(got)); diff != "" {
			t.Errorf("%s: grades.csv (-want +got):\n%s", tt.id, diff)
		}
		if st, err := os.Stat(filepath.Join(qdir, "grades.csv")); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: grades.csv: %v, %v", tt.id, st, err)
		}
	}
	empty, err := os.ReadFile(filepath.Join(instanceDir(dir, recaps["kuis-02"]), "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"student_id;name;attendance;score;possible;q1", ";Ali;not_enrolled;10;10;1"}, lines(string(empty))); diff != "" {
		t.Errorf("kuis-02's grades.csv, nobody enrolled (-want +got):\n%s", diff)
	}
}
