package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
)

// TestCourseFold: course fold folds finished quizzes, each counted once (a
// second fold is reported, not an error); a running quiz, a missing quiz and
// a quiz the course holds otherwise each fail in their own words while the
// others are folded; course unfold takes a quiz out, after which its new
// recap folds.
func TestCourseFold(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true)                                              // Citra 30, Ali 30, Budi 20, Dewi 10
	tg.quiz("kuis-02", "Kuis 2", 2, [][]string{{"Ali", "Eka"}, {"Eka"}}, true) // Eka 20, Ali 10
	tg.reference("kuis-03", false)

	r := tg.kuis("course", "fold", "ipa-8a", "kuis-01", "kuis-03", "kuis-02", "kuis-99", "kuis-01")
	want := []string{
		"kuis-01: folded into ipa-8a: 4 participant(s), 90 points",
		"kuis-02: folded into ipa-8a: 2 participant(s), 30 points",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 1 {
		t.Errorf("course fold: exit %d; stdout (-want +got):\n%s", r.code, diff)
	}
	var errs []string
	for _, l := range lines(r.stderr) {
		if !progressLine.MatchString(l) {
			errs = append(errs, l)
		}
	}
	wantErrs := []string{
		"kuis: course fold ipa-8a kuis-03: quiz is still running",
		`kuis: course fold ipa-8a kuis-99: no such quiz in namespace "` + tg.ns + `"`,
	}
	if tg.flags[0] == "-cluster" {
		wantErrs[1] += " (hash-tagged keys)"
	}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("course fold: stderr (-want +got):\n%s", diff)
	}
	board := standings("Ali", 40, "Citra", 30, "Eka", 20, "Budi", 20, "Dewi", 10)
	if diff := cmp.Diff(board, tg.courseBoard("ipa-8a")); diff != "" {
		t.Errorf("the course after course fold (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff([]string{"kuis-01: folded into ipa-8a before: nothing added"}, lines(tg.must("course", "fold", "ipa-8a", "kuis-01"))); diff != "" {
		t.Errorf("a second fold (-want +got):\n%s", diff)
	}

	// kuis-01 changes behind the library's back: the course holds it otherwise.
	tg.raw("ZADD", tg.keys("kuis-01").Board(), "20", "Ali")
	r = tg.kuis("course", "fold", "ipa-8a", "kuis-01")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("a conflicting fold: exit %d, stdout %q", r.code, r.stdout)
	}
	first, err := tg.store.Recap(tg.ctx, "kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	oneLine(t, "a conflicting fold", r.stderr,
		`kuis: course fold ipa-8a kuis-01: course ipa-8a holds quiz kuis-01 (instance `+first.Instance+`) otherwise than its recap `+
			`(the quiz changed since it was folded): participant "Ali" was folded with 30 points, and the recap gives 20; `+
			`kuis course unfold ipa-8a kuis-01 -instance `+first.Instance+`, then fold it again`)
	if diff := cmp.Diff(board, tg.courseBoard("ipa-8a")); diff != "" {
		t.Errorf("a conflicting fold changed the course (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff([]string{"kuis-01: unfolded from ipa-8a: 4 participant(s)"}, lines(tg.must("course", "unfold", "ipa-8a", "kuis-01"))); diff != "" {
		t.Errorf("course unfold (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(standings("Eka", 20, "Ali", 10), tg.courseBoard("ipa-8a")); diff != "" {
		t.Errorf("the course after course unfold (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"kuis-01: not folded into ipa-8a: nothing to unfold"}, lines(tg.must("course", "unfold", "ipa-8a", "kuis-01"))); diff != "" {
		t.Errorf("course unfold of a quiz not folded (-want +got):\n%s", diff)
	}
	tg.must("course", "fold", "ipa-8a", "kuis-01")
	if diff := cmp.Diff(standings("Citra", 30, "Ali", 30, "Eka", 20, "Budi", 20, "Dewi", 10), tg.courseBoard("ipa-8a")); diff != "" {
		t.Errorf("the course after the new recap's fold (-want +got):\n%s", diff)
	}

	var got []correction
	if err := json.Unmarshal([]byte(tg.must("course", "unfold", "ipa-8a", "kuis-02", "-json")), &got); err != nil {
		t.Fatal(err)
	}
	wantJSON := []correction{
		{CourseID: "ipa-8a", Correction: kuis.Correction{Participant: "Ali", Was: 30, Now: 20}},
		{CourseID: "ipa-8a", Correction: kuis.Correction{Participant: "Eka", Was: 20, Now: 0}},
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("course unfold -json (-want +got):\n%s", diff)
	}
	if out := tg.must("course", "unfold", "ipa-8a", "kuis-02", "-json"); out != "[]\n" {
		t.Errorf("course unfold -json of a quiz not folded: %q", out)
	}

	// kuis-02 purged and created again: another instance, and unfold needs -instance.
	tg.quiz("kuis-06", "Kuis 6", 1, [][]string{{"Eka"}}, true)
	old, err := tg.store.Recap(tg.ctx, "kuis-06")
	if err != nil {
		t.Fatal(err)
	}
	tg.must("course", "fold", "ipa-8a", "kuis-06")
	if _, err := tg.store.PurgeQuiz(tg.ctx, "kuis-06", func(context.Context, kuis.Recap) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// The new instance starts in a later millisecond of the server's clock.
	oldMS, _ := strconv.ParseInt(strings.Split(old.Instance, "-")[0], 10, 64)
	for deadline := time.Now().Add(5 * time.Second); ; {
		tm, err := tg.client.Do(tg.ctx, tg.client.B().Time().Build()).AsIntSlice()
		if err == nil && len(tm) == 2 && tm[0]*1000+tm[1]/1000 > oldMS {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's clock did not pass %d ms: %v, %v", oldMS, tm, err)
		}
	}
	tg.quiz("kuis-06", "Kuis 6", 1, [][]string{{"Budi"}}, true)
	tg.must("course", "fold", "ipa-8a", "kuis-06")
	r = tg.kuis("course", "unfold", "ipa-8a", "kuis-06")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("course unfold of a quiz in two instances: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "course unfold of a quiz in two instances", r.stderr,
		"kuis: course unfold ipa-8a kuis-06: course ipa-8a holds quiz kuis-06 in 2 instances ("+old.Instance+", ",
		"kuis course unfold ipa-8a kuis-06 -instance ID")
	want = []string{"kuis-06: unfolded from ipa-8a: 1 participant(s)"}
	if diff := cmp.Diff(want, lines(tg.must("course", "unfold", "ipa-8a", "kuis-06", "-instance", old.Instance))); diff != "" {
		t.Errorf("course unfold -instance (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, lines(tg.must("course", "unfold", "ipa-8a", "kuis-06"))); diff != "" {
		t.Errorf("course unfold of the one instance left (-want +got):\n%s", diff)
	}
	r = tg.kuis("course", "unfold", "ipa-8a", "kuis-06", "-instance", "kemarin")
	if r.code != 2 || !strings.Contains(r.stderr, "kemarin") {
		t.Errorf("course unfold -instance kemarin: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
}

// TestCourseInvalidID: an invalid course ID is a usage error, found before
// anything is read or written: no quiz is purged or folded.
func TestCourseInvalidID(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true)
	roster := filepath.Join(t.TempDir(), "roster.csv")
	if err := os.WriteFile(roster, []byte("A,Ali\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"course", "fold", "ipa:8a", "kuis-01"}, {"course", "unfold", "ipa 8a", "kuis-01"}, {"course", "show", "{ipa}"},
		{"course", "recap", ""}, {"course", "audit", "ipa*"}, {"course", "repair", "ipa/8a"},
		{"course", "purge", "ipa:8a", "-archive", t.TempDir()},
		{"purge", "kuis-01", "-archive", t.TempDir(), "-course", "ipa:8a"},
		{"teams", "-course", "ipa:8a", "-roster", roster},
	} {
		r := tg.kuis(args...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want 2 and nothing", args, r.code, r.stdout)
		}
		name := args[0]
		if name == "course" {
			name += " " + args[1]
		}
		oneLine(t, strings.Join(args, " "), r.stderr, "kuis "+name+": invalid course ID")
	}
	for _, args := range [][]string{{"course", "fold", "ipa-8a", "kuis:01"}, {"course", "unfold", "ipa-8a", "kuis 01"}, {"teams", "kuis:01", "-roster", roster}} {
		r := tg.kuis(args...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want 2 and nothing", args, r.code, r.stdout)
		}
		oneLine(t, strings.Join(args, " "), r.stderr, "kuis ", "invalid quiz ID")
	}
	if !tg.exists("kuis-01") {
		t.Error("a purge with an invalid course ID purged the quiz")
	}
	if got := tg.courseBoard("ipa-8a"); len(got) != 0 {
		t.Errorf("a fold with an invalid quiz ID folded: %v", got)
	}
}

// TestCourseShow prints the folded quizzes and the top of the board, as
// text and as JSON in the library's field names; a course with nothing
// folded is empty, not an error.
func TestCourseShow(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true)
	tg.quiz("kuis-02", "Kuis 2", 2, [][]string{{"Ali", "Eka"}, {"Eka"}}, true)
	tg.must("course", "fold", "ipa-8a", "kuis-01", "kuis-02")

	want := []string{
		"ipa-8a: 2 quiz(zes) folded (kuis-01, kuis-02), 5 participant(s)",
		"1 Ali 40",
		"2 Citra 30",
		"3 Eka 20",
	}
	if diff := cmp.Diff(want, words(tg.must("course", "show", "ipa-8a", "-top", "3"))); diff != "" {
		t.Errorf("course show (-want +got):\n%s", diff)
	}
	var got courseShow
	if err := json.Unmarshal([]byte(tg.must("course", "show", "-json", "ipa-8a")), &got); err != nil {
		t.Fatal(err)
	}
	quizzes, err := tg.course("ipa-8a").Quizzes(tg.ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := courseShow{CourseID: "ipa-8a", Quizzes: quizzes, Participants: 5, Standings: tg.courseBoard("ipa-8a")}
	if diff := cmp.Diff(wantJSON, got); diff != "" || len(quizzes) != 2 {
		t.Errorf("course show -json (-want +got):\n%s", diff)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(tg.must("course", "show", "-json", "ipa-8a")), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"course_id", "quizzes", "participants", "standings"} {
		if _, ok := raw[k]; !ok || len(raw) != 4 {
			t.Errorf("course show -json: %v, want the fields course_id, quizzes, participants, standings", raw)
		}
	}

	if out := tg.must("course", "show", "ipa-9z"); out != "ipa-9z: no quiz folded, 0 participant(s)\n" {
		t.Errorf("course show of an empty course: %q", out)
	}
	if out := tg.must("course", "show", "ipa-9z", "-json"); out != `{"course_id":"ipa-9z","quizzes":[],"participants":0,"standings":[]}`+"\n" {
		t.Errorf("course show -json of an empty course: %q", out)
	}
}

// TestCourseRecap prints the course's recap as the library's writer writes
// its CSV, or as JSON, to stdout or to a file.
func TestCourseRecap(t *testing.T) {
	tg := newTarget(t)
	tg.quiz("kuis-01", "Kuis", 2, [][]string{{"Ali", "=HYPERLINK(\"http://x.example\")"}, {"Søren"}}, true)
	tg.reference("kuis-02", true)
	tg.must("course", "fold", "ipa-8a", "kuis-01", "kuis-02")
	recap, err := tg.course("ipa-8a").Recap(tg.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := recap.WriteCSV(&want); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"course", "recap", "ipa-8a"}, {"course", "recap", "ipa-8a", "-format", "standings"}} {
		if diff := cmp.Diff(want.String(), tg.must(args...)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", args, diff)
		}
	}
	var sheet bytes.Buffer
	if err := recap.WriteCSV(&sheet, kuis.ForSpreadsheet()); err != nil {
		t.Fatal(err)
	}
	out := tg.must("course", "recap", "ipa-8a", "-spreadsheet")
	if diff := cmp.Diff(sheet.String(), out); diff != "" || !strings.HasPrefix(out, "\uFEFF") || !strings.Contains(out, `"'=HYPERLINK(`) {
		t.Errorf("course recap -spreadsheet: want the library's spreadsheet form, a BOM and the formula made text (-want +got):\n%s", diff)
	}
	file := filepath.Join(t.TempDir(), "kursus.csv")
	if out := tg.must("course", "recap", "ipa-8a", "-o", file); out != "" {
		t.Errorf("course recap -o: stdout %q", out)
	}
	if got, err := os.ReadFile(file); err != nil || string(got) != want.String() {
		t.Errorf("course recap -o FILE: %q, %v; want %q", got, err, want.String())
	}

	out = tg.must("course", "recap", "ipa-8a", "-format", "json")
	var got kuis.CourseRecap
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recap, got, cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt")); diff != "" || len(got.Entries) != 7 {
		t.Errorf("course recap -format json (-want +got):\n%s", diff)
	}
	if got.TakenAt.Before(recap.TakenAt) || time.Since(got.TakenAt) > time.Hour {
		t.Errorf("course recap -format json: taken_at %v, the library's recap at %v", got.TakenAt, recap.TakenAt)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for k := range raw {
		switch k {
		case "course_id", "standings", "quizzes", "possible", "entries", "taken_at":
		default:
			t.Errorf("course recap -format json: field %q is none of the library's", k)
		}
	}
}

// TestCourseRecapDelimiter: course recap -delimiter prints the library's
// CSV with WithDelimiter, in either form, and ';' reads back with
// encoding/csv's Comma ';' as the default form does with ','.
func TestCourseRecapDelimiter(t *testing.T) {
	tg := newTarget(t)
	tg.quiz("kuis-01", "Kuis", 2, [][]string{{"Ali", "Siti; A."}, {"Søren"}}, true)
	tg.must("course", "fold", "ipa-8a", "kuis-01")
	recap, err := tg.course("ipa-8a").Recap(tg.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if err := recap.WriteCSV(&plain); err != nil {
		t.Fatal(err)
	}
	for flag, comma := range map[string]rune{";": ';', "tab": '\t'} {
		for _, sheet := range []bool{false, true} {
			args := []string{"course", "recap", "ipa-8a", "-delimiter", flag}
			opts := []kuis.CSVOption{kuis.WithDelimiter(comma)}
			if sheet {
				args = append(args, "-spreadsheet")
				opts = append(opts, kuis.ForSpreadsheet())
			}
			var want bytes.Buffer
			if err := recap.WriteCSV(&want, opts...); err != nil {
				t.Fatal(err)
			}
			got := tg.must(args...)
			if diff := cmp.Diff(want.String(), got); diff != "" {
				t.Errorf("%v (-want +got):\n%s", args, diff)
			}
			if !sheet {
				sameRecords(t, strings.Join(args, " "), comma, got, plain.String())
			}
		}
	}
}

// TestCourseAuditRepair: a sound course audits clean (exit 0, nothing); a
// total changed behind the library's back is a violation, as the library
// words it, with exit 1; course repair sets it back, after which the audit
// is clean.
func TestCourseAuditRepair(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true)
	tg.must("course", "fold", "ipa-8a", "kuis-01")
	for _, args := range [][]string{{"course", "audit", "ipa-8a"}, {"course", "audit", "kosong"}, {"course", "repair", "ipa-8a"}} {
		if out := tg.must(args...); out != "" {
			t.Errorf("%v of a sound course: %q", args, out)
		}
	}
	if out := tg.must("course", "audit", "ipa-8a", "-json"); out != "[]\n" {
		t.Errorf("course audit -json of a sound course: %q", out)
	}

	k := tg.course("ipa-8a").Keys()
	tg.raw("ZADD", k.Board(), "70", "Ali")
	tg.raw("ZADD", k.Board(), "10", "Mallory")
	vs, err := tg.course("ipa-8a").Audit(tg.ctx)
	if err != nil || len(vs) != 2 {
		t.Fatalf("the library's Audit: %v, %v", vs, err)
	}
	var wantLines []string
	wantJSON := []courseFinding{}
	for _, v := range vs {
		wantLines = append(wantLines, v.String())
		wantJSON = append(wantJSON, courseFinding{CourseID: "ipa-8a", Violation: v})
	}
	r := tg.kuis("course", "audit", "ipa-8a")
	if diff := cmp.Diff(wantLines, lines(r.stdout)); diff != "" || r.code != 1 {
		t.Errorf("course audit: exit %d; violations (-want +got):\n%s", r.code, diff)
	}
	oneLine(t, "course audit", r.stderr, "kuis: course audit ipa-8a: 2 violation(s)")
	r = tg.kuis("course", "audit", "ipa-8a", "-json")
	var got []courseFinding
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 1 {
		t.Fatalf("course audit -json: exit %d, %v: %q", r.code, err, r.stdout)
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("course audit -json (-want +got):\n%s", diff)
	}

	want := []string{"ipa-8a: Ali: 70 -> 30", "ipa-8a: Mallory: 10 -> 0"}
	if diff := cmp.Diff(want, lines(tg.must("course", "repair", "ipa-8a"))); diff != "" {
		t.Errorf("course repair (-want +got):\n%s", diff)
	}
	if out := tg.must("course", "audit", "ipa-8a"); out != "" {
		t.Errorf("course audit after course repair: %q", out)
	}
	tg.raw("ZADD", k.Board(), "0", "Budi")
	var fixed []correction
	if err := json.Unmarshal([]byte(tg.must("course", "repair", "ipa-8a", "-json")), &fixed); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]correction{{CourseID: "ipa-8a", Correction: kuis.Correction{Participant: "Budi", Was: 0, Now: 20}}}, fixed); diff != "" {
		t.Errorf("course repair -json (-want +got):\n%s", diff)
	}

	// A ledger field out of its form: audit names it; repair cannot set the
	// totals from such a ledger and says so.
	recap, err := tg.store.Recap(tg.ctx, "kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	ledger := k.Ledger("kuis-01", recap.Instance)
	tg.raw("HSET", ledger, "Ali", "abc")
	r = tg.kuis("course", "repair", "ipa-8a")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("course repair of a broken ledger: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "course repair of a broken ledger", r.stderr, "kuis: course repair ipa-8a: data breaks the contract: "+ledger)
}

// checkCourseArchive fails the test unless dir/<course>/ holds want's
// archive, whole: recap.json json.Marshal of want with the time it was taken
// at, standings.csv CourseRecap.WriteCSV's bytes with opts (none: the
// default form), readable by their owner only, nothing else beside them.
func checkCourseArchive(t *testing.T, dir string, want kuis.CourseRecap, opts ...kuis.CSVOption) {
	t.Helper()
	cdir := filepath.Join(dir, want.CourseID)
	entries, err := os.ReadDir(cdir)
	if err != nil {
		t.Errorf("archive of course %s: %v", want.CourseID, err)
		return
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if diff := cmp.Diff([]string{"recap.json", "standings.csv"}, files); diff != "" {
		t.Errorf("archive of course %s holds (-want +got):\n%s", want.CourseID, diff)
	}
	for _, f := range courseFiles {
		got, err := os.ReadFile(filepath.Join(cdir, f.name))
		if err != nil {
			t.Error(err)
			continue
		}
		if f.format == "json" {
			var taken kuis.CourseRecap
			if err := json.Unmarshal(got, &taken); err != nil {
				t.Errorf("%s/%s: %v", want.CourseID, f.name, err)
			}
			want.TakenAt = taken.TakenAt
		}
		data, err := render(want, f.format, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(data), string(got)); diff != "" {
			t.Errorf("%s/%s (-want +got):\n%s", want.CourseID, f.name, diff)
		}
		if st, err := os.Stat(filepath.Join(cdir, f.name)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s/%s: %v, %v; want mode 0600", want.CourseID, f.name, st.Mode(), err)
		}
	}
}

// TestCoursePurge: course purge writes the course's archive, then deletes
// its keys; a re-run keeps the archive; a course with nothing folded has
// nothing to archive; a directory holding another's archive is refused,
// and a quiz's purge refuses a directory holding a course's archive, both
// with nothing deleted.
func TestCoursePurge(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip")
	tg.reference("kuis-01", true)
	tg.quiz("kuis-02", "Kuis 2", 2, [][]string{{"Ali", "Eka"}, {"Eka"}}, true)
	tg.must("course", "fold", "ipa-8a", "kuis-01", "kuis-02")
	course := tg.course("ipa-8a")
	recap, err := course.Recap(tg.ctx)
	if err != nil {
		t.Fatal(err)
	}

	want := "ipa-8a: archived in " + filepath.Join(dir, "ipa-8a") + ", 4 keys deleted\n"
	if out := tg.must("course", "purge", "ipa-8a", "-archive", dir); out != want {
		t.Errorf("course purge: %q, want %q", out, want)
	}
	checkCourseArchive(t, dir, recap)
	if n, err := course.Len(tg.ctx); err != nil || n != 0 {
		t.Errorf("the course after course purge: %d participants, %v", n, err)
	}
	want = "ipa-8a: archived in " + filepath.Join(dir, "ipa-8a") + " before, no keys left\n"
	if out := tg.must("course", "purge", "ipa-8a", "-archive", dir); out != want {
		t.Errorf("course purge again: %q, want %q", out, want)
	}
	checkCourseArchive(t, dir, recap)
	if out := tg.must("course", "purge", "kosong", "-archive", dir); out != "kosong: nothing folded: nothing to archive, no keys deleted\n" {
		t.Errorf("course purge of an empty course: %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "kosong")); !os.IsNotExist(err) {
		t.Errorf("course purge of an empty course wrote an archive: %v", err)
	}

	// A course named as a quiz, archived where that quiz is: refused both ways.
	tg.must("purge", "kuis-01", "-archive", dir)
	tg.must("course", "fold", "kuis-01", "kuis-02")
	r := tg.kuis("course", "purge", "kuis-01", "-archive", dir)
	if r.code != 1 || r.stdout != "" {
		t.Errorf("course purge into a quiz's archive: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "course purge into a quiz's archive", r.stderr, "kuis: course purge kuis-01: ", "archive failed, nothing deleted", `holds the archive of another quiz or course, not of course "kuis-01"`)
	if n, err := tg.course("kuis-01").Len(tg.ctx); err != nil || n != 2 {
		t.Errorf("a refused course purge left %d participants, %v", n, err)
	}
	tg.must("course", "fold", "kuis-02", "kuis-02")
	tg.must("course", "purge", "kuis-02", "-archive", dir)
	r = tg.kuis("purge", "kuis-02", "-archive", dir)
	if r.code != 1 || r.stdout != "" || !tg.exists("kuis-02") {
		t.Errorf("purge into a course's archive: exit %d, stdout %q, kept %v", r.code, r.stdout, tg.exists("kuis-02"))
	}
	oneLine(t, "purge into a course's archive", r.stderr, "kuis: purge kuis-02: ", `not of quiz "kuis-02"`)
}

// TestCoursePurgeDelimiter: course purge -delimiter writes standings.csv
// with the library's WithDelimiter, which reads back with encoding/csv's
// Comma ';' as the default form does with ','.
func TestCoursePurgeDelimiter(t *testing.T) {
	tg := newTarget(t)
	dir := t.TempDir()
	tg.quiz("kuis-01", "Kuis", 2, [][]string{{"Ali", "Siti; A."}, {"Søren"}}, true)
	tg.must("course", "fold", "ipa-8a", "kuis-01")
	recap, err := tg.course("ipa-8a").Recap(tg.ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := "ipa-8a: archived in " + filepath.Join(dir, "ipa-8a") + ", 3 keys deleted\n"
	if out := tg.must("course", "purge", "ipa-8a", "-archive", dir, "-delimiter", ";"); out != want {
		t.Errorf("course purge -delimiter ';': %q, want %q", out, want)
	}
	checkCourseArchive(t, dir, recap, kuis.WithDelimiter(';'))
	got, err := os.ReadFile(filepath.Join(dir, "ipa-8a", "standings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if err := recap.WriteCSV(&plain); err != nil {
		t.Fatal(err)
	}
	sameRecords(t, "standings.csv", ';', string(got), plain.String())
}

// TestPurgeIntoCourse: purge -course folds each quiz into the course once
// its files are on disk and before its keys go; a quiz folded before is
// said so; a fold that fails keeps the quiz, and a re-run after mending it
// purges it; a quiz purged before without -course is folded from its
// archive.
func TestPurgeIntoCourse(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip")
	tg.reference("kuis-01", true)
	tg.quiz("kuis-02", "Kuis 2", 2, [][]string{{"Ali", "Eka"}, {"Eka"}}, true)
	tg.quiz("kuis-03", "Kuis 3", 1, [][]string{{"Budi"}}, true)
	tg.reference("kuis-04", false)
	tg.quiz("kuis-05", "Kuis 5", 1, [][]string{{"Dewi"}}, true)
	recaps := map[string]kuis.Recap{}
	for _, id := range []string{"kuis-01", "kuis-02", "kuis-05"} {
		r, err := tg.store.Recap(tg.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		recaps[id] = r
	}
	tg.must("purge", "kuis-05", "-archive", dir) // before, without -course
	tg.must("course", "fold", "ipa-8a", "kuis-02")
	tg.must("course", "fold", "ipa-8a", "kuis-03")
	tg.raw("ZADD", tg.keys("kuis-03").Board(), "0", "Budi") // the course holds kuis-03 otherwise now

	r := tg.kuis("purge", "-finished", "-archive", dir, "-course", "ipa-8a")
	want := []string{
		"kuis-01: archived in " + instanceDir(dir, recaps["kuis-01"]) + ", folded into ipa-8a, 5 keys deleted",
		"kuis-02: archived in " + instanceDir(dir, recaps["kuis-02"]) + ", folded into ipa-8a before, 5 keys deleted",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 1 {
		t.Errorf("purge -finished -course: exit %d; stdout (-want +got):\n%s", r.code, diff)
	}
	oneLine(t, "purge -finished -course", r.stderr, "kuis: purge kuis-03: course ipa-8a holds quiz kuis-03 (instance ",
		"otherwise than its recap", "kuis course unfold ipa-8a kuis-03 -instance ")
	checkArchive(t, dir, recaps["kuis-01"])
	checkArchive(t, dir, recaps["kuis-02"])
	if !tg.exists("kuis-03") || !tg.exists("kuis-04") || tg.exists("kuis-01") || tg.exists("kuis-02") {
		t.Errorf("after purge -finished -course: kuis-01..04 exist: %v %v %v %v, want false false true true",
			tg.exists("kuis-01"), tg.exists("kuis-02"), tg.exists("kuis-03"), tg.exists("kuis-04"))
	}

	tg.must("course", "unfold", "ipa-8a", "kuis-03")
	changed, err := tg.store.Recap(tg.ctx, "kuis-03")
	if err != nil {
		t.Fatal(err)
	}
	r = tg.kuis("purge", "kuis-03", "kuis-05", "-archive", dir, "-course", "ipa-8a")
	want = []string{
		"kuis-03: archived in " + instanceDir(dir, changed) + ", folded into ipa-8a, 5 keys deleted",
		"kuis-05: archived in " + instanceDir(dir, recaps["kuis-05"]) + " before, folded into ipa-8a, no keys left",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 0 || r.stderr != "" {
		t.Errorf("purge -course after the unfold: exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, diff)
	}
	checkArchive(t, dir, changed)
	checkArchive(t, dir, recaps["kuis-05"])
	wantBoard := standings("Ali", 40, "Citra", 30, "Eka", 20, "Dewi", 20, "Budi", 20)
	if diff := cmp.Diff(wantBoard, tg.courseBoard("ipa-8a")); diff != "" {
		t.Errorf("the course after the purges (-want +got):\n%s", diff)
	}
	want = []string{"kuis-05: archived in " + instanceDir(dir, recaps["kuis-05"]) + " before, folded into ipa-8a before, no keys left"}
	if diff := cmp.Diff(want, lines(tg.must("purge", "kuis-05", "-archive", dir, "-course", "ipa-8a"))); diff != "" {
		t.Errorf("purge -course of a quiz purged and folded (-want +got):\n%s", diff)
	}
}

// foldedAt sets the fold time that course id's quiz index holds for each
// instance of quiz (the marker's last field, folded_ms) to at, behind the
// library's back: a fold in the past, which no server's clock can be set
// back to write. The zero time marks the fold as in parts.
func (tg *target) foldedAt(id, quiz string, at time.Time) {
	tg.t.Helper()
	k := tg.course(id).Keys()
	res, err := tg.client.Do(tg.ctx, tg.client.B().Hgetall().Key(k.Quizzes()).Build()).AsStrMap()
	if err != nil {
		tg.t.Fatal(err)
	}
	ms := "0"
	if !at.IsZero() {
		ms = strconv.FormatInt(at.UnixMilli(), 10)
	}
	n := 0
	for field, marker := range res {
		if !strings.HasPrefix(field, quiz+"@") {
			continue
		}
		parts := strings.Fields(marker)
		parts[len(parts)-1] = ms
		tg.raw("HSET", k.Quizzes(), field, strings.Join(parts, " "))
		n++
	}
	if n == 0 {
		tg.t.Fatalf("course %s holds no instance of %s", id, quiz)
	}
}

// TestCoursePurgeOlderThan: course purge -older-than purges exactly the
// courses of the namespace whose latest fold is before the cut, each
// archived; a course with a fold after the cut (beside older ones), one
// folded just now and one holding a fold in parts keep every key, the last
// listed as such.
func TestCoursePurgeOlderThan(t *testing.T) {
	tg := newTarget(t)
	dir := t.TempDir()
	day := 24 * time.Hour
	now := time.Now()
	tg.reference("kuis-01", true)
	tg.quiz("kuis-02", "Kuis 2", 2, [][]string{{"Ali", "Eka"}, {"Eka"}}, true)
	fold := map[string][]string{"lama": {"kuis-01", "kuis-02"}, "campur": {"kuis-01", "kuis-02"}, "baru": {"kuis-01"}, "setengah": {"kuis-01", "kuis-02"}, "tua": {"kuis-02"}}
	for course, quizzes := range fold {
		tg.must(append([]string{"course", "fold", course}, quizzes...)...)
	}
	tg.foldedAt("lama", "kuis-01", now.Add(-40*day))
	tg.foldedAt("lama", "kuis-02", now.Add(-31*day)) // the latest fold decides
	tg.foldedAt("tua", "kuis-02", now.Add(-400*day))
	tg.foldedAt("campur", "kuis-01", now.Add(-40*day))
	tg.foldedAt("campur", "kuis-02", now.Add(-29*day))
	tg.foldedAt("setengah", "kuis-01", now.Add(-40*day))
	tg.foldedAt("setengah", "kuis-02", time.Time{}) // beside an old fold, one in parts
	recaps := map[string]kuis.CourseRecap{}
	for course := range fold {
		vs, err := tg.course(course).Audit(tg.ctx)
		if course != "setengah" && (err != nil || len(vs) > 0) {
			t.Fatalf("audit of course %s as written: %v %v", course, vs, err)
		}
		if recaps[course], err = tg.course(course).Recap(tg.ctx); err != nil {
			t.Fatal(err)
		}
	}

	r := tg.kuis("course", "purge", "-older-than", "30d", "-archive", dir)
	want := []string{
		"lama: archived in " + filepath.Join(dir, "lama") + ", 4 keys deleted",
		"setengah: a fold in parts: kept",
		"tua: archived in " + filepath.Join(dir, "tua") + ", 3 keys deleted",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 0 || r.stderr != "" {
		t.Errorf("course purge -older-than 30d: exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, diff)
	}
	checkCourseArchive(t, dir, recaps["lama"])
	checkCourseArchive(t, dir, recaps["tua"])
	for course, kept := range map[string]bool{"lama": false, "tua": false, "campur": true, "baru": true, "setengah": true} {
		got, err := tg.course(course).Recap(tg.ctx)
		switch {
		case err != nil:
			t.Errorf("course %s after the purge: %v", course, err)
		case kept && !cmp.Equal(recaps[course], got, cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt")):
			t.Errorf("course %s changed: %s", course, cmp.Diff(recaps[course], got, cmpopts.IgnoreFields(kuis.CourseRecap{}, "TakenAt")))
		case !kept && (len(got.Standings) > 0 || len(got.Quizzes) > 0 || len(got.Entries) > 0):
			t.Errorf("course %s purged, yet it holds %+v", course, got)
		}
	}
	archived := dirNames(t, dir)
	if diff := cmp.Diff([]string{"lama", "tua"}, archived); diff != "" {
		t.Errorf("archive directory holds (-want +got):\n%s", diff)
	}

	r = tg.kuis("course", "purge", "-older-than", "28d", "-archive", dir)
	want = []string{
		"campur: archived in " + filepath.Join(dir, "campur") + ", 4 keys deleted",
		"setengah: a fold in parts: kept",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 0 || r.stderr != "" {
		t.Errorf("course purge -older-than 28d: exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, diff)
	}
	checkCourseArchive(t, dir, recaps["campur"])
	if n, err := tg.course("baru").Len(tg.ctx); err != nil || n != 4 {
		t.Errorf("course baru after the purges: %d participants, %v; want 4", n, err)
	}

	for _, args := range [][]string{{"ipa-8a", "-older-than", "30d"}, {"-older-than", "1.5d"}} {
		r := runKuis(nil, append([]string{"-addr", unreachable, "course", "purge", "-archive", dir}, args...)...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("course purge %q: exit %d, stdout %q", args, r.code, r.stdout)
		}
		oneLine(t, "course purge "+strings.Join(args, " "), r.stderr, "kuis course purge: ")
	}
}
