package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// erased is the participant the erase tests erase: a name no title, ID or
// other name holds, so that a file holding its bytes names them.
const erased = "Ali Wibowo"

// treeOf is every regular file under dir, by path relative to dir, with its
// bytes.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// timed is the target with a Store whose ties go by time.
func (tg *target) timed() *target {
	tg.t.Helper()
	opts := []kuis.Option{kuis.WithNamespace(tg.ns), kuis.WithTies(kuis.TiesByTime)}
	if redistest.Cluster() {
		opts = append(opts, kuis.WithHashTag())
	}
	s, err := kuis.New(tg.client, opts...)
	if err != nil {
		tg.t.Fatal(err)
	}
	timed := *tg
	timed.store = s
	return &timed
}

// enroll enrolls students in class id with the library.
func (tg *target) enroll(id string, students ...kuis.Student) {
	tg.t.Helper()
	class, err := tg.store.Class(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	if err := class.Enroll(tg.ctx, students...); err != nil {
		tg.t.Fatal(err)
	}
}

// finish finishes quiz id with the library.
func (tg *target) finish(id string) {
	tg.t.Helper()
	meta, err := tg.store.Meta(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	if err := meta.Finish(tg.ctx); err != nil {
		tg.t.Fatal(err)
	}
}

// archivedRecap decodes a recap.json under dir, unknown fields refused.
func archivedRecap[R any](t *testing.T, dir, rel string) R {
	t.Helper()
	var r R
	d := json.NewDecoder(strings.NewReader(treeOf(t, dir)[rel]))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return r
}

// TestErase: a participant of three finished quizzes (one ranked with ties
// by time), two courses and a roster, two of the quizzes and one course
// archived, is erased from Redis and from every archive file: no file names
// them, every other file keeps its bytes, each rewritten recap.json is the
// old one Without them, and a fold of a rewritten archive finds the course
// holding it already. A run again changes nothing and prints an empty
// erasure.
func TestErase(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip")
	tg.enroll("8a", kuis.Student{ID: "1001", Name: erased}, kuis.Student{ID: "1002", Name: "Budi"}, kuis.Student{ID: "1003", Name: "Dewi"})
	tg.quiz("e-01", "Pecahan", 3, [][]string{{erased, "Budi"}, {erased, "Citra"}, {"Budi"}}, true, kuis.InCourse("mat"), kuis.ForClass("8a"))
	tg.quiz("e-03", "Energi", 2, [][]string{{erased, "Citra"}, {erased}}, false, kuis.ForClass("8a"))
	tg.must("purge", "-finished", "-archive", dir, "-delimiter", ";")
	tg.timed().quiz("e-02", "Gaya", 2, [][]string{{"Budi", erased}, {"Citra"}}, true, kuis.InCourse("ipa"))
	tg.quiz("e-04", "Tanpa dia", 1, [][]string{{"Budi"}}, true, kuis.InCourse("mat"))
	tg.must("-ties", "time", "purge", "-finished", "-archive", dir)
	tg.finish("e-03")
	tg.must("course", "fold", "ipa", "e-03")
	tg.must("course", "purge", "mat", "-archive", dir)
	e03 := tg.recapOf("e-03")

	inst := func(id string) string {
		entries, err := os.ReadDir(filepath.Join(dir, id))
		if err != nil || len(entries) != 1 {
			t.Fatalf("archive of %s: %v, %v", id, entries, err)
		}
		return filepath.Join(id, entries[0].Name())
	}
	e01, e02, e04 := inst("e-01"), inst("e-02"), inst("e-04")
	before := treeOf(t, dir)
	oldQuiz := map[string]kuis.Recap{}
	for _, d := range []string{e01, e02, e04} {
		oldQuiz[d] = archivedRecap[kuis.Recap](t, dir, filepath.Join(d, "recap.json"))
	}
	oldCourse := archivedRecap[kuis.CourseRecap](t, dir, filepath.Join("mat", "recap.json"))
	if !strings.Contains(before[filepath.Join(e01, "grades.csv")], "1001;"+erased) {
		t.Fatalf("e-01's grades.csv is not the ';' form that names the participant:\n%s", before[filepath.Join(e01, "grades.csv")])
	}

	r := tg.kuis("erase", erased, "-archive", dir)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("erase: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	want := []string{
		"quiz e-03: 20 points, 2 answers, 2 log entries erased",
		"course ipa: 30 points erased, from e-02@" + oldQuiz[e02].Instance + ", e-03@" + e03.Instance,
		"class 8a: student 1001 withdrawn",
	}
	var rewrote []string
	for _, rel := range []string{
		filepath.Join(e01, "standings.csv"), filepath.Join(e01, "gradebook.csv"), filepath.Join(e01, "answers.csv"),
		filepath.Join(e01, "grades.csv"), filepath.Join(e01, "recap.json"),
		filepath.Join(e02, "standings.csv"), filepath.Join(e02, "gradebook.csv"), filepath.Join(e02, "answers.csv"),
		filepath.Join(e02, "recap.json"),
		filepath.Join("mat", "standings.csv"), filepath.Join("mat", "recap.json"),
	} {
		want = append(want, "rewrote "+filepath.Join(dir, rel))
		rewrote = append(rewrote, rel)
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" {
		t.Errorf("erase printed (-want +got):\n%s", diff)
	}

	after := treeOf(t, dir)
	if diff := cmp.Diff(slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after))); diff != "" {
		t.Errorf("the archive's files (-before +after):\n%s", diff)
	}
	for rel, now := range after {
		switch {
		case strings.Contains(now, erased):
			t.Errorf("%s still names %s:\n%s", rel, erased, now)
		case slices.Contains(rewrote, rel) == (now == before[rel]):
			t.Errorf("%s: rewritten %v, listed %v", rel, now != before[rel], slices.Contains(rewrote, rel))
		}
	}
	for _, d := range []string{e01, e02} {
		got := archivedRecap[kuis.Recap](t, dir, filepath.Join(d, "recap.json"))
		if diff := cmp.Diff(oldQuiz[d].Without(erased), got); diff != "" {
			t.Errorf("%s/recap.json (-Without +rewritten):\n%s", d, diff)
		}
	}
	if diff := cmp.Diff(oldCourse.Without(erased), archivedRecap[kuis.CourseRecap](t, dir, filepath.Join("mat", "recap.json"))); diff != "" {
		t.Errorf("mat/recap.json (-Without +rewritten):\n%s", diff)
	}
	// The CSVs are the new recap's in the form each was written: ';' for
	// e-01's, the comma for e-02's.
	for _, f := range archiveFiles[1:] {
		for d, opts := range map[string][]kuis.CSVOption{e01: {kuis.WithDelimiter(';')}, e02: nil} {
			data, err := render(oldQuiz[d].Without(erased), f.format, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := after[filepath.Join(d, f.name)]; got != string(data) {
				t.Errorf("%s/%s:\n%s\nwant\n%s", d, f.name, got, data)
			}
		}
	}
	wantGrades := strings.ReplaceAll(before[filepath.Join(e01, "grades.csv")], "1001;"+erased+";present;20;30;1;1;0\n", "")
	if got := after[filepath.Join(e01, "grades.csv")]; got != wantGrades || got == before[filepath.Join(e01, "grades.csv")] {
		t.Errorf("e-01/grades.csv:\n%s\nwant\n%s", got, wantGrades)
	}

	if got := tg.must("course", "fold", "ipa", "-from-archive", filepath.Join(dir, e02)); got != "e-02: folded into ipa before: nothing added\n" {
		t.Errorf("a fold of the rewritten archive: %q", got)
	}
	if recapNames(tg.recapOf("e-03"), erased) || slices.ContainsFunc(tg.students("8a"), func(s kuis.Student) bool { return s.Name == erased }) {
		t.Errorf("Redis still holds %s", erased)
	}

	r = tg.kuis("erase", erased, "-archive", dir, "-json")
	var again kuis.Erasure
	if err := json.Unmarshal([]byte(r.stdout), &again); err != nil || r.code != 0 || r.stderr != "" || !again.Empty() || again.Participant != erased {
		t.Errorf("erase again -json: exit %d, stderr %q, stdout %q (%v)", r.code, r.stderr, r.stdout, err)
	}
	if got := tg.must("erase", erased, "-archive", dir); got != erased+": nothing erased in Redis\n" {
		t.Errorf("erase again: %q", got)
	}
	if diff := cmp.Diff(after, treeOf(t, dir)); diff != "" {
		t.Errorf("erase again changed the archive (-before +after):\n%s", diff)
	}
}

// TestEraseRunningQuiz: a running quiz holding the participant refuses the
// erasure with ErrQuizRunning's words naming it, and nothing changes, in
// Redis or in the archive.
func TestEraseRunningQuiz(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip")
	tg.enroll("8a", kuis.Student{ID: "1001", Name: erased})
	tg.quiz("r-01", "Selesai", 1, [][]string{{erased, "Budi"}}, true)
	tg.must("purge", "r-01", "-archive", dir)
	tg.quiz("r-02", "Berjalan", 2, [][]string{{erased}, {"Budi"}}, false)
	tg.quiz("r-03", "Selesai juga", 1, [][]string{{erased}}, true)
	redis := func() string {
		var b strings.Builder
		for _, id := range []string{"r-02", "r-03"} {
			r := tg.recapOf(id)
			r.TakenAt = time.Time{}
			fmt.Fprintf(&b, "%+v\n", r)
		}
		fmt.Fprintf(&b, "%+v", tg.students("8a"))
		return b.String()
	}
	beforeRedis, beforeDir := redis(), treeOf(t, dir)

	r := tg.kuis("erase", erased, "-archive", dir)
	if r.code != 1 || r.stdout != erased+": nothing erased in Redis\n" {
		t.Errorf("erase with a running quiz: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "erase with a running quiz", r.stderr, "kuis: erase "+erased+": ", strings.TrimPrefix(kuis.ErrQuizRunning.Error(), "kuis: "),
		`quiz "r-02"`, "nothing erased", "finish it first")
	if diff := cmp.Diff(beforeRedis, redis()); diff != "" {
		t.Errorf("Redis changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(beforeDir, treeOf(t, dir)); diff != "" {
		t.Errorf("the archive changed (-before +after):\n%s", diff)
	}
}

// TestEraseClass: with -class and -id, only the class's quizzes, their
// ledgers and its roster lose the student, and only the archives of its
// quizzes are rewritten; a course's archive is left, with a line; an ID the
// roster gives another name is refused with nothing erased; a run again
// finds the ID gone and erases nothing. -class and -id go together.
func TestEraseClass(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip")
	tg.enroll("8a", kuis.Student{ID: "1001", Name: erased}, kuis.Student{ID: "1002", Name: "Budi"})
	tg.enroll("8b", kuis.Student{ID: "2001", Name: erased})
	tg.quiz("c-01", "Kelas 8A", 1, [][]string{{erased, "Budi"}}, true, kuis.ForClass("8a"), kuis.InCourse("ipa"))
	tg.quiz("c-02", "Kelas 8B", 1, [][]string{{erased}}, true, kuis.ForClass("8b"), kuis.InCourse("ipa"))
	tg.must("purge", "-finished", "-archive", dir)
	tg.must("course", "purge", "ipa", "-archive", dir)
	tg.quiz("c-03", "Kelas 8A lagi", 1, [][]string{{erased}}, true, kuis.ForClass("8a"))
	tg.quiz("c-04", "Kelas 8B lagi", 1, [][]string{{erased}}, true, kuis.ForClass("8b"))
	before := treeOf(t, dir)

	for _, args := range [][]string{
		{"erase"}, {"erase", erased, "Budi"}, {"erase", erased, "-class", "8a"}, {"erase", erased, "-id", "1001"},
		{"erase", "-class", "8a", "-id", "1001", " Ali"},
	} {
		if r := tg.kuis(args...); r.code != 2 || r.stdout != "" {
			t.Errorf("kuis %q: exit %d, stdout %q, want a usage error", args, r.code, r.stdout)
		}
	}
	r := tg.kuis("erase", erased, "-class", "8a", "-id", "1002", "-archive", dir)
	if r.code != 1 || r.stdout != "" {
		t.Errorf("erase of another's ID: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "erase of another's ID", r.stderr, "kuis: erase "+erased+": ", `as "Budi", not as "Ali Wibowo"`, "nothing erased")
	if diff := cmp.Diff(before, treeOf(t, dir)); diff != "" {
		t.Errorf("a refused erase changed the archive (-before +after):\n%s", diff)
	}

	r = tg.kuis("erase", erased, "-class", "8a", "-id", "1001", "-archive", dir)
	c01 := filepath.Join(dir, "c-01", tg.recapOfArchive(t, dir, "c-01").Instance)
	want := []string{
		"quiz c-03: 10 points, 1 answers, 1 log entries erased",
		"class 8a: student 1001 withdrawn",
		"rewrote " + filepath.Join(c01, "standings.csv"),
		"rewrote " + filepath.Join(c01, "gradebook.csv"),
		"rewrote " + filepath.Join(c01, "answers.csv"),
		"rewrote " + filepath.Join(c01, "grades.csv"),
		"rewrote " + filepath.Join(c01, "recap.json"),
		"left " + filepath.Join(dir, "ipa") + ": course archive, its entries do not say the class",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 0 || r.stderr != "" {
		t.Errorf("erase -class: exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, diff)
	}
	for rel, data := range treeOf(t, dir) {
		if strings.HasPrefix(rel, "c-01") == strings.Contains(data, erased) {
			t.Errorf("%s names %s: %v", rel, erased, strings.Contains(data, erased))
		}
	}
	if !recapNames(tg.recapOf("c-04"), erased) || len(tg.students("8b")) != 1 {
		t.Errorf("erase -class 8a erased class 8b's student")
	}

	r = tg.kuis("erase", erased, "-class", "8a", "-id", "1001")
	want = []string{"class 8a: no student 1001 on the roster: erased before, or never enrolled", erased + ": nothing erased in Redis"}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 0 || r.stderr != "" {
		t.Errorf("erase -class again: exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, diff)
	}
}

// recapOfArchive is the recap of the one instance of quiz id archived in
// dir.
func (tg *target) recapOfArchive(t *testing.T, dir, id string) kuis.Recap {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, id, "*", "recap.json"))
	if len(matches) != 1 {
		t.Fatalf("archives of %s: %v", id, matches)
	}
	r, err := readRecap(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestEraseCSVForms: each CSV form the recap's writers make (a delimiter,
// the spreadsheet's form, a name a spreadsheet would run as a formula) is
// found from the old recap and written again from the new one; a file
// rewritten already comes back as it is; a file no form reproduces is
// refused. grades.csv loses the rows naming the participant, every other
// byte kept.
func TestEraseCSVForms(t *testing.T) {
	const who = "=Ali"
	at := time.Date(2026, 11, 30, 9, 15, 2, 125e6, time.UTC)
	old := kuis.Recap{
		QuizID: "k", Instance: "1-0", Info: kuis.Info{Title: "T", Questions: 2, Status: kuis.StatusFinished},
		Standings: standings(who, 20, "Budi; \"B\"", 20, "Citra", 10),
		Questions: []kuis.QuestionResult{{Question: 1, Correct: 3}, {Question: 2, Correct: 1}},
		Answers: []kuis.AnswerRecord{{Participant: who, Question: 1, At: at}, {Participant: "Budi; \"B\"", Question: 1, At: at},
			{Participant: who, Question: 2, At: at}, {Participant: "Citra", Question: 1, At: at}},
	}
	now := old.Without(who)
	roster := []kuis.Student{{ID: "1", Name: who}, {ID: "2", Name: "Budi; \"B\""}, {ID: "3", Name: "Dewi"}}
	for _, opts := range [][]kuis.CSVOption{
		nil, {kuis.WithDelimiter(';')}, {kuis.WithDelimiter('\t')}, {kuis.WithDelimiter('|')}, {kuis.WithDelimiter('é')},
		{kuis.ForSpreadsheet()}, {kuis.ForSpreadsheet(), kuis.WithDelimiter(';')},
	} {
		for _, format := range []string{"standings", "gradebook", "answers"} {
			data, _ := render(old, format, opts...)
			want, _ := render(now, format, opts...)
			what := fmt.Sprintf("%s in %q", format, data[:12])
			if got, ok := csvRewrite(data, format, old, now); !ok || !bytes.Equal(got, want) {
				t.Errorf("%s: rewrote %v:\n%s\nwant\n%s", what, ok, got, want)
			}
			if got, ok := csvRewrite(want, format, old, now); !ok || !bytes.Equal(got, want) {
				t.Errorf("%s rewritten already: %v, %q", what, ok, got)
			}
			if _, ok := csvRewrite(append(slices.Clip(data), ' '), format, old, now); ok {
				t.Errorf("%s with a byte more: rewritten", what)
			}
		}
		var grades, without bytes.Buffer
		if err := old.WriteGradesCSV(&grades, roster, opts...); err != nil {
			t.Fatal(err)
		}
		if err := now.WriteGradesCSV(&without, roster[1:], opts...); err != nil {
			t.Fatal(err)
		}
		e := erasure{name: who}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "grades.csv"), grades.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		was, got, err := e.grades(dir, owner{"quiz", "k"}, 2)
		if err != nil || !bytes.Equal(was, grades.Bytes()) || !bytes.Equal(got, without.Bytes()) {
			t.Errorf("grades.csv in %q: %v:\n%s\nwant\n%s", grades.Bytes()[:12], err, got, without.Bytes())
		}
	}
}

// rewroteLine is the line erase prints for each file it rewrote.
var rewroteLine = regexp.MustCompile(`^rewrote `)

// tempFile is the name writeFile gives a temporary file of an archive file.
var tempFile = regexp.MustCompile(`^\.(recap\.json|standings\.csv|gradebook\.csv|answers\.csv|grades\.csv)\.[0-9]+\.tmp$`)

// TestEraseKilled proves the rewrite crash-safe: kuis erase -archive, built
// and run as a process over 200 archives, is killed with SIGKILL right as
// it starts and after its k-th "rewrote" line for a few k. After each kill
// every archive file holds its old bytes or its new ones (those of a run
// that was not killed, on a copy), beside at most temporary files of
// writeFile's naming; a last run completes: every file is new, no
// temporary file is left, and nothing names the participant.
func TestEraseKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kuis and kills it; skipped in -short mode")
	}
	bin := buildKuis(t)
	tg := newTarget(t)
	dir, copyDir := filepath.Join(t.TempDir(), "arsip"), filepath.Join(t.TempDir(), "salinan")
	at := time.Date(2026, 11, 30, 9, 15, 2, 125e6, time.UTC)
	forms := [][]kuis.CSVOption{nil, {kuis.WithDelimiter(';')}, {kuis.ForSpreadsheet()}}
	for i := range 200 {
		others := []string{"Budi", "Citra", fmt.Sprintf("Peserta %d", i)}
		r := kuis.Recap{QuizID: fmt.Sprintf("k-%03d", i), Instance: fmt.Sprintf("%d-0", int64(1700000000000)+int64(i)),
			Info: kuis.Info{Title: "Kuis", Questions: 2, Status: kuis.StatusFinished}, FinishedAt: at, TakenAt: at,
			Questions: []kuis.QuestionResult{{Question: 1, Correct: 3}, {Question: 2, Correct: 1}}}
		board := []any{}
		if i%10 != 9 { // one archive in ten does not name them
			board = append(board, erased, 20)
			r.Answers = append(r.Answers, kuis.AnswerRecord{Participant: erased, Question: 1, At: at}, kuis.AnswerRecord{Participant: erased, Question: 2, At: at})
		}
		for _, o := range others {
			board = append(board, o, 10)
			r.Answers = append(r.Answers, kuis.AnswerRecord{Participant: o, Question: 1, At: at})
		}
		r.Standings = standings(board...)
		opts := forms[i%len(forms)]
		a, err := newArchive(r, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			r.Info.Class = "8a"
			if a, err = newArchive(r, opts...); err != nil {
				t.Fatal(err)
			}
			var g bytes.Buffer
			if err := r.WriteGradesCSV(&g, []kuis.Student{{ID: "1", Name: erased}, {ID: "2", Name: "Dewi"}}, opts...); err != nil {
				t.Fatal(err)
			}
			a.files = append(a.files, archiveFile{"grades.csv", g.Bytes()})
		}
		for _, d := range []string{dir, copyDir} {
			if _, err := a.write(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	args := append(append([]string{}, tg.flags...), "erase", erased, "-archive")
	old := treeOf(t, dir)
	if out, err := exec.Command(bin, append(args, copyDir)...).CombinedOutput(); err != nil {
		t.Fatalf("erase of the copy: %v\n%s", err, out)
	}
	now := treeOf(t, copyDir)

	check := func(when string, final bool) {
		t.Helper()
		got := treeOf(t, dir)
		temps, fresh := 0, 0
		defer func() { t.Logf("%s: %d files new, %d temporary", when, fresh, temps) }()
		for rel := range old {
			if _, ok := got[rel]; !ok {
				t.Errorf("%s: %s is gone", when, rel)
			}
		}
		for rel, data := range got {
			switch {
			case tempFile.MatchString(filepath.Base(rel)) && !final:
				temps++
			case data == now[rel]:
				if data != old[rel] {
					fresh++
				}
			case data == old[rel] && !final:
			default:
				t.Errorf("%s: %s is neither its old nor its new bytes (%d bytes)", when, rel, len(data))
			}
		}
	}
	kills := 0
	for _, k := range []int{0, 1, 7, 60, 300} {
		cmd := exec.Command(bin, append(args, dir)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr syncBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			_ = cmd.Process.Kill()
			kills++
		}
		seen := 0
		for lines := bufio.NewScanner(stdout); lines.Scan(); {
			if rewroteLine.MatchString(lines.Text()) {
				seen++
				if seen == k {
					_ = cmd.Process.Kill()
					kills++
				}
			}
		}
		_ = cmd.Wait()
		if strings.Contains(stderr.String(), "panic") {
			t.Fatalf("kuis panicked:\n%s", stderr.String())
		}
		check(fmt.Sprintf("killed after %d of %d rewrote lines", min(k, seen), seen), false)
	}
	if kills < 3 {
		t.Errorf("only %d runs were killed before they ended: the test proved less than it claims", kills)
	}
	// A kill inside writeFile leaves its temporary file in a directory not
	// done yet (recap.json goes last): the last run removes it.
	planted := ""
	for _, rel := range slices.Sorted(maps.Keys(old)) {
		if cur, err := os.ReadFile(filepath.Join(dir, rel)); err == nil && filepath.Base(rel) == "recap.json" && string(cur) == old[rel] && old[rel] != now[rel] {
			planted = filepath.Join(dir, filepath.Dir(rel), ".standings.csv.123456789.tmp")
			break
		}
	}
	if planted == "" {
		t.Fatal("the kills left no directory to finish")
	}
	if err := os.WriteFile(planted, []byte("rank,comp"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, append(args, dir)...).CombinedOutput(); err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	check("after the last run", true)
	if diff := cmp.Diff(now, treeOf(t, dir)); diff != "" {
		t.Errorf("after the last run, the archive differs from a run never killed (-want +got):\n%s", diff)
	}
	for rel, data := range treeOf(t, dir) {
		if strings.Contains(data, erased) {
			t.Errorf("%s names %s after the last run", rel, erased)
		}
	}
}
