package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/wire"
)

// TestPurge: a running quiz is refused and kept; finished ones are archived,
// byte for byte the library's writers, then deleted; a re-run naming a quiz
// purged before counts it done; a quiz whose archive cannot be written is
// kept; a missing quiz fails with its own words; the others are still done.
func TestPurge(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip", "2026")
	tg.reference("kuis-01", false)
	tg.reference("kuis-02", true)
	tg.quiz("kuis-03", "Kosong", 2, nil, true)
	tg.quiz("kuis-04", "Hilang", 1, [][]string{{"Eka"}}, true)
	recaps := map[string]kuis.Recap{}
	for _, id := range []string{"kuis-02", "kuis-03", "kuis-04"} {
		r, err := tg.store.Recap(tg.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		recaps[id] = r
	}

	r := tg.kuis("purge", "kuis-01", "-archive", dir)
	if r.code != 1 || r.stdout != "" || !tg.exists("kuis-01") {
		t.Errorf("purge of a running quiz: exit %d, stdout %q, kept %v", r.code, r.stdout, tg.exists("kuis-01"))
	}
	oneLine(t, "purge of a running quiz", r.stderr, "kuis: purge kuis-01: quiz is still running")
	if _, err := os.Stat(filepath.Join(dir, "kuis-01")); !os.IsNotExist(err) {
		t.Errorf("a running quiz was archived: %v", err)
	}

	// kuis-04's directory is taken by a file: its archive fails, it stays.
	if err := os.WriteFile(filepath.Join(dir, "kuis-04"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = tg.kuis("purge", "-finished", "-archive", dir)
	want := []string{
		"kuis-02: archived in " + instanceDir(dir, recaps["kuis-02"]) + ", 5 keys deleted",
		"kuis-03: archived in " + instanceDir(dir, recaps["kuis-03"]) + ", 2 keys deleted",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 1 {
		t.Errorf("purge -finished: exit %d; stdout (-want +got):\n%s", r.code, diff)
	}
	oneLine(t, "purge -finished", r.stderr, "kuis: purge kuis-04: ", "archive failed, nothing deleted", "not a directory")
	checkArchive(t, dir, recaps["kuis-02"])
	checkArchive(t, dir, recaps["kuis-03"])
	for id, kept := range map[string]bool{"kuis-01": true, "kuis-02": false, "kuis-03": false, "kuis-04": true} {
		if tg.exists(id) != kept {
			t.Errorf("after purge -finished, %s exists: %v, want %v", id, !kept, kept)
		}
	}

	if err := os.Remove(filepath.Join(dir, "kuis-04")); err != nil {
		t.Fatal(err)
	}
	r = tg.kuis("purge", "kuis-02", "kuis-04", "kuis-99", "-archive", dir)
	want = []string{
		"kuis-02: archived in " + instanceDir(dir, recaps["kuis-02"]) + " before, no keys left",
		"kuis-04: archived in " + instanceDir(dir, recaps["kuis-04"]) + ", 5 keys deleted",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 1 {
		t.Errorf("purge of a purged, a finished and a missing quiz: exit %d; stdout (-want +got):\n%s", r.code, diff)
	}
	oneLine(t, "purge of a missing quiz", r.stderr, "kuis: purge kuis-99: no such quiz in namespace")
	checkArchive(t, dir, recaps["kuis-04"])
	if got := words(tg.must("quizzes")); len(got) != 1 || !strings.HasPrefix(got[0], "kuis-01 berjalan") {
		t.Errorf("quizzes after the purges: %q, want kuis-01 alone", got)
	}

	r = tg.kuis("purge", "-finished", "-archive", filepath.Join(instanceDir(dir, recaps["kuis-02"]), "recap.json"))
	if r.code != 1 || r.stdout != "" {
		t.Errorf("purge into a file: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "purge into a file", r.stderr, "kuis: purge: archive directory: ", "not a directory")
}

// recapOf is the library's recap of quiz id.
func (tg *target) recapOf(id string) kuis.Recap {
	tg.t.Helper()
	r, err := tg.store.Recap(tg.ctx, id)
	if err != nil {
		tg.t.Fatal(err)
	}
	return r
}

// archivedWithoutInstance makes quiz id (Citra answers its one question),
// finishes and purges it, and writes its archive as purge wrote it before
// instances existed: the four files in dir/<quiz>/, recap.json without an
// "instance" field.
func (tg *target) archivedWithoutInstance(dir, id string) {
	t := tg.t
	t.Helper()
	tg.quiz(id, "Kuis lama", 1, [][]string{{"Citra"}}, true)
	a, err := newArchive(tg.recapOf(id))
	if err != nil {
		t.Fatal(err)
	}
	tg.must("purge", id, "-archive", t.TempDir())
	var fields map[string]any
	if err := json.Unmarshal(a.files[0].data, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "instance")
	if a.files[0].data, err = json.Marshal(fields); err != nil {
		t.Fatal(err)
	}
	qdir := filepath.Join(dir, id)
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range a.files {
		if err := writeFile(qdir, f.name, f.data); err != nil {
			t.Fatal(err)
		}
	}
}

// archivedFiles are the files of an archive in qdir, by name.
func archivedFiles(t *testing.T, qdir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range archiveFiles {
		b, err := os.ReadFile(filepath.Join(qdir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		out[f.name] = string(b)
	}
	return out
}

// TestPurgeKeepsEveryInstance: a quiz ID used again, purged into the same
// DIR, keeps each quiz's files in a directory of its instance, beside an
// archive written before instances existed; a run stopped midway through
// an instance's files is completed; and a quiz named once gone counts as
// done by its latest instance.
func TestPurgeKeepsEveryInstance(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "A")
	tg.archivedWithoutInstance(dir, "kuis-02")
	legacy := archivedFiles(t, filepath.Join(dir, "kuis-02"))
	if got, want := tg.must("purge", "kuis-02", "-archive", dir), "kuis-02: archived in "+filepath.Join(dir, "kuis-02")+" before, no keys left\n"; got != want {
		t.Errorf("purge of a quiz archived before instances existed: %q, want %q", got, want)
	}

	tg.quiz("kuis-02", "Minggu 1", 3, [][]string{{"Ali", "Budi"}, {"Ali"}}, true)
	week1 := tg.recapOf("kuis-02")
	if got, want := tg.must("purge", "kuis-02", "-archive", dir), "kuis-02: archived in "+instanceDir(dir, week1)+", 5 keys deleted\n"; got != want {
		t.Errorf("purge of week 1: %q, want %q", got, want)
	}
	tg.quiz("kuis-02", "Minggu 2", 3, [][]string{nil, nil, {"Eka"}}, true)
	week2 := tg.recapOf("kuis-02")
	if week2.Instance == week1.Instance {
		t.Fatalf("both weeks have instance %s", week1.Instance)
	}
	// A run killed while writing week 2's archive left one file and a
	// temporary one.
	a, err := newArchive(week2)
	if err != nil {
		t.Fatal(err)
	}
	w2 := instanceDir(dir, week2)
	if err := os.MkdirAll(w2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(w2, a.files[1].name, a.files[1].data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w2, ".answers.csv.123.tmp"), []byte("peserta,so"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := tg.must("purge", "kuis-02", "-archive", dir), "kuis-02: archived in "+w2+", 5 keys deleted\n"; got != want {
		t.Errorf("purge of week 2: %q, want %q", got, want)
	}
	checkArchive(t, dir, week1)
	checkArchive(t, dir, week2)
	if diff := cmp.Diff(legacy, archivedFiles(t, filepath.Join(dir, "kuis-02"))); diff != "" {
		t.Errorf("the archive without instance changed (-before +after):\n%s", diff)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "kuis-02"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.IsDir() {
			got = append(got, e.Name())
		}
	}
	want := []string{week1.Instance, week2.Instance}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instances archived (-want +got):\n%s", diff)
	}
	if got, want := tg.must("purge", "kuis-02", "-archive", dir), "kuis-02: archived in "+w2+" before, no keys left\n"; got != want {
		t.Errorf("purge of kuis-02 once gone: %q, want %q", got, want)
	}
}

// TestPurgeFoldsIntoTheQuizsCourse: purge folds each quiz into the course
// its meta names; -course folds only those that name none, and refuses a
// quiz that names another, naming the quiz and both courses, with nothing
// archived, folded or deleted for it; without -course that quiz goes to its
// own course, and once gone, is folded from its archive the same way.
func TestPurgeFoldsIntoTheQuizsCourse(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip")
	tg.quiz("ipa-01", "IPA", 2, [][]string{{"Ali"}, {"Ali"}}, true, kuis.InCourse("ipa"))
	tg.quiz("mat-01", "Matematika", 2, [][]string{{"Budi", "Citra"}}, true, kuis.InCourse("mat"))
	tg.quiz("umum-01", "Umum", 1, [][]string{{"Dewi"}}, true)
	recaps := map[string]kuis.Recap{}
	for _, id := range []string{"ipa-01", "mat-01", "umum-01"} {
		recaps[id] = tg.recapOf(id)
	}

	r := tg.kuis("purge", "-finished", "-archive", dir, "-course", "ipa")
	want := []string{
		"ipa-01: archived in " + instanceDir(dir, recaps["ipa-01"]) + ", folded into ipa, 5 keys deleted",
		"umum-01: archived in " + instanceDir(dir, recaps["umum-01"]) + ", folded into ipa, 5 keys deleted",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 1 {
		t.Errorf("purge -finished -course ipa: exit %d; stdout (-want +got):\n%s", r.code, diff)
	}
	oneLine(t, "purge -course ipa of a quiz of mat", r.stderr, "kuis: purge mat-01: quiz mat-01 (instance "+recaps["mat-01"].Instance+") belongs to course mat, not to ipa")
	if _, err := os.Stat(filepath.Join(dir, "mat-01")); !tg.exists("mat-01") || !os.IsNotExist(err) {
		t.Errorf("the refused quiz: kept %v, archive %v", tg.exists("mat-01"), err)
	}
	if diff := cmp.Diff(standings("Ali", 20, "Dewi", 10), tg.courseBoard("ipa")); diff != "" {
		t.Errorf("course ipa (-want +got):\n%s", diff)
	}
	if got := tg.courseBoard("mat"); len(got) != 0 {
		t.Errorf("course mat after the refusal: %v", got)
	}

	want = []string{"mat-01: archived in " + instanceDir(dir, recaps["mat-01"]) + ", folded into mat, 5 keys deleted"}
	if diff := cmp.Diff(want, lines(tg.must("purge", "-finished", "-archive", dir))); diff != "" {
		t.Errorf("purge -finished without -course (-want +got):\n%s", diff)
	}
	checkArchive(t, dir, recaps["mat-01"])
	mat := standings("Citra", 10, "Budi", 10)
	if diff := cmp.Diff(mat, tg.courseBoard("mat")); diff != "" {
		t.Errorf("course mat (-want +got):\n%s", diff)
	}

	// Gone, archived: its archived recap names mat too.
	r = tg.kuis("purge", "mat-01", "-archive", dir, "-course", "ipa")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("purge -course ipa of mat-01 gone: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "purge -course ipa of mat-01 gone", r.stderr, "kuis: purge mat-01: quiz mat-01 ", "belongs to course mat, not to ipa")
	want = []string{"mat-01: archived in " + instanceDir(dir, recaps["mat-01"]) + " before, folded into mat before, no keys left"}
	if diff := cmp.Diff(want, lines(tg.must("purge", "mat-01", "-archive", dir))); diff != "" {
		t.Errorf("purge of mat-01 gone (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(standings("Ali", 20, "Dewi", 10), tg.courseBoard("ipa")); diff != "" {
		t.Errorf("course ipa at the end (-want +got):\n%s", diff)
	}
}

// TestCourseFoldFromArchive: course fold -from-archive folds a recap that
// purge archived, by its directory or its recap.json, once; one archived
// before instances existed too; and refuses what is no quiz's recap.json,
// a path that is not there, and a quiz that names another course.
func TestCourseFoldFromArchive(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip")
	tg.reference("kuis-01", true)
	tg.quiz("mat-01", "Matematika", 1, [][]string{{"Budi"}}, true, kuis.InCourse("mat"))
	ref, mat := tg.recapOf("kuis-01"), tg.recapOf("mat-01")
	tg.must("purge", "kuis-01", "mat-01", "-archive", dir)
	tg.archivedWithoutInstance(dir, "kuis-07")
	notQuiz := filepath.Join(t.TempDir(), "recap.json")
	if err := os.WriteFile(notQuiz, []byte(`{"course_id":"ipa-8a","standings":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		path, stdout, stderr string
	}{
		{instanceDir(dir, ref), "kuis-01: folded into ipa-8a: 4 participant(s), 90 points\n", ""},
		{filepath.Join(instanceDir(dir, ref), "recap.json"), "kuis-01: folded into ipa-8a before: nothing added\n", ""},
		{filepath.Join(dir, "kuis-07"), "kuis-07: folded into ipa-8a: 1 participant(s), 10 points\n", ""},
		{notQuiz, "", "kuis: course fold ipa-8a: " + notQuiz + " is not a quiz's recap.json"},
		{filepath.Join(dir, "kuis-99"), "", "kuis: course fold ipa-8a: open " + filepath.Join(dir, "kuis-99")},
		{instanceDir(dir, mat), "", "kuis: course fold ipa-8a mat-01: quiz mat-01 (instance " + mat.Instance + ") belongs to course mat, not to ipa-8a"},
	} {
		r := tg.kuis("course", "fold", "ipa-8a", "-from-archive", tc.path)
		if r.stdout != tc.stdout || (r.code == 0) != (tc.stderr == "") {
			t.Errorf("course fold -from-archive %s: exit %d, stdout %q; want %q", tc.path, r.code, r.stdout, tc.stdout)
		}
		if tc.stderr != "" {
			oneLine(t, "course fold -from-archive "+tc.path, r.stderr, tc.stderr)
		}
	}
	if diff := cmp.Diff(standings("Citra", 40, "Ali", 30, "Budi", 20, "Dewi", 10), tg.courseBoard("ipa-8a")); diff != "" {
		t.Errorf("the course (-want +got):\n%s", diff)
	}
	if h := tg.must("course", "fold", "-h"); !strings.Contains(h, `no "instance" field: it folds as the`+"\n"+`quiz's instance kuis.NoInstance`) {
		t.Errorf("course fold -h does not say how a recap.json without instance folds:\n%s", h)
	}
}

// TestPurgeFoldsEveryInstance: a quiz ID used again is another quiz in the
// course too: purge folds each week's kuis-02 into the course it names, and
// course fold -from-archive folds a recap.json archived before instances
// existed as the ID's NoInstance, each counted once beside the others.
func TestPurgeFoldsEveryInstance(t *testing.T) {
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "A")
	tg.archivedWithoutInstance(dir, "kuis-02")

	tg.quiz("kuis-02", "Minggu 1", 3, [][]string{{"Ali", "Budi"}, {"Ali"}}, true, kuis.InCourse("ipa"))
	week1 := tg.recapOf("kuis-02")
	if got, want := tg.must("purge", "kuis-02", "-archive", dir), "kuis-02: archived in "+instanceDir(dir, week1)+", folded into ipa, 5 keys deleted\n"; got != want {
		t.Errorf("purge of week 1: %q, want %q", got, want)
	}
	tg.quiz("kuis-02", "Minggu 2", 3, [][]string{nil, nil, {"Eka", "Ali"}}, true, kuis.InCourse("ipa"))
	week2 := tg.recapOf("kuis-02")
	if got, want := tg.must("purge", "kuis-02", "-archive", dir), "kuis-02: archived in "+instanceDir(dir, week2)+", folded into ipa, 5 keys deleted\n"; got != want {
		t.Errorf("purge of week 2: %q, want %q", got, want)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "kuis-02"): "kuis-02: folded into ipa: 1 participant(s), 10 points\n",
		instanceDir(dir, week1):       "kuis-02: folded into ipa before: nothing added\n",
		instanceDir(dir, week2):       "kuis-02: folded into ipa before: nothing added\n",
	} {
		if got := tg.must("course", "fold", "ipa", "-from-archive", path); got != want {
			t.Errorf("course fold -from-archive %s: %q, want %q", path, got, want)
		}
	}
	if diff := cmp.Diff(standings("Ali", 30, "Eka", 10, "Citra", 10, "Budi", 10), tg.courseBoard("ipa")); diff != "" {
		t.Errorf("the course (-want +got):\n%s", diff)
	}
}

// TestPurgeDelimiter: purge -delimiter writes the archive's CSV files with
// the library's WithDelimiter, which read back with encoding/csv's Comma ';'
// as the default form's do with ','; recap.json is the same JSON.
func TestPurgeDelimiter(t *testing.T) {
	tg := newTarget(t)
	dir := t.TempDir()
	tg.quiz("kuis-01", "Kuis", 2, [][]string{{"Ali", "Siti; A."}, {"Søren"}}, true)
	recap := tg.recapOf("kuis-01")
	want := "kuis-01: archived in " + instanceDir(dir, recap) + ", 5 keys deleted\n"
	if out := tg.must("purge", "kuis-01", "-archive", dir, "-delimiter", ";"); out != want {
		t.Errorf("purge -delimiter ';': %q, want %q", out, want)
	}
	checkArchive(t, dir, recap, kuis.WithDelimiter(';'))
	got := archivedFiles(t, instanceDir(dir, recap))
	for _, f := range archiveFiles[1:] {
		plain, err := render(recap, f.format)
		if err != nil {
			t.Fatal(err)
		}
		sameRecords(t, f.name, ';', got[f.name], string(plain))
	}
}

// finishedQuiz writes, behind the library's back, quiz id as Create,
// RecordAnswer and Finish would have written it had the server's clock read
// started then, each of names answering question 1 a millisecond apart, and
// the finish at finished: a quiz finished in the past, which no server's
// clock can be set back to write. It fails the test unless Audit finds the
// quiz clean.
func (tg *target) finishedQuiz(id string, started, finished time.Time, names ...string) {
	tg.t.Helper()
	k := tg.keys(id)
	ms := started.UnixMilli()
	tg.raw("HSET", k.Meta(), "judul", "Kuis "+id, "jumlah_soal", "1", "status", "selesai")
	tg.raw("XADD", k.Log(), fmt.Sprintf("%d-0", ms), "status", "berjalan")
	for i, name := range names {
		at := ms + int64(i) + 1
		tg.raw("ZINCRBY", k.Board(), "10", name)
		tg.raw("SADD", k.Answers(), "1:"+name)
		tg.raw("ZADD", k.Order(), strconv.FormatInt(wire.PlaceUnit+wire.PlaceUnit-1-at, 10), name)
		tg.raw("XADD", k.Log(), fmt.Sprintf("%d-0", at), "peserta", name, "soal", "1", "skor", "10")
	}
	tg.raw("XADD", k.Log(), fmt.Sprintf("%d-0", finished.UnixMilli()), "status", "selesai")
	vs, err := tg.store.Audit(tg.ctx, id)
	if err != nil || len(vs) > 0 {
		tg.t.Fatalf("audit of %s as written: %v %v", id, vs, err)
	}
}

// TestPurgeOlderThan: -older-than purges exactly the finished quizzes whose
// log's finish entry is before the cut (this machine's clock minus AGE),
// each archived and folded into its course; a quiz finished after the cut,
// a running one and one finished by a raw HSET without a finish entry keep
// every key, the last listed as such.
func TestPurgeOlderThan(t *testing.T) {
	tg := newTarget(t)
	dir := t.TempDir()
	day := 24 * time.Hour
	now := time.Now()
	tg.finishedQuiz("lama-40", now.Add(-41*day), now.Add(-40*day), "Ali", "Budi")
	tg.finishedQuiz("lama-31", now.Add(-31*day-time.Hour), now.Add(-31*day), "Citra")
	tg.finishedQuiz("baru-29", now.Add(-30*day), now.Add(-29*day), "Dewi") // started before the cut, finished after it
	tg.reference("baru-0", true)                                           // finished just now
	tg.reference("jalan", false)
	tg.reference("tanpa-akhir", false)
	tg.raw("HSET", tg.keys("tanpa-akhir").Meta(), "status", "selesai") // finished without a finish entry
	course := tg.course("ipa-8a")
	recaps := map[string]kuis.Recap{}
	for _, id := range []string{"lama-40", "lama-31"} {
		recaps[id] = tg.recapOf(id)
	}

	r := tg.kuis("purge", "-finished", "-older-than", "30d", "-archive", dir, "-course", "ipa-8a")
	want := []string{
		"lama-31: archived in " + instanceDir(dir, recaps["lama-31"]) + ", folded into ipa-8a, 5 keys deleted",
		"lama-40: archived in " + instanceDir(dir, recaps["lama-40"]) + ", folded into ipa-8a, 5 keys deleted",
		"tanpa-akhir: no finish time in its log: kept",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 0 || r.stderr != "" {
		t.Errorf("purge -older-than 30d: exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, diff)
	}
	for id, kept := range map[string]bool{"lama-40": false, "lama-31": false, "baru-29": true, "baru-0": true, "jalan": true, "tanpa-akhir": true} {
		if tg.exists(id) != kept {
			t.Errorf("after purge -older-than, %s exists: %v, want %v", id, !kept, kept)
		}
	}
	checkArchive(t, dir, recaps["lama-40"])
	checkArchive(t, dir, recaps["lama-31"])
	archived := dirNames(t, dir)
	if diff := cmp.Diff([]string{"lama-31", "lama-40"}, archived); diff != "" {
		t.Errorf("archive directory holds (-want +got):\n%s", diff)
	}
	board, err := course.Standings(tg.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(standings("Citra", 10, "Budi", 10, "Ali", 10), board); diff != "" {
		t.Errorf("course board after the purge (-want +got):\n%s", diff)
	}

	// Nothing is left before the cut: a second run purges nothing, and a
	// shorter age reaches the quiz finished 29 days ago.
	r = tg.kuis("purge", "-finished", "-older-than", "720h", "-archive", dir)
	if diff := cmp.Diff([]string{"tanpa-akhir: no finish time in its log: kept"}, lines(r.stdout)); diff != "" || r.code != 0 {
		t.Errorf("purge -older-than 720h again: exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, diff)
	}
	baru29 := tg.recapOf("baru-29")
	r = tg.kuis("purge", "-finished", "-older-than", "28d", "-archive", dir)
	want = []string{
		"baru-29: archived in " + instanceDir(dir, baru29) + ", 5 keys deleted",
		"tanpa-akhir: no finish time in its log: kept",
	}
	if diff := cmp.Diff(want, lines(r.stdout)); diff != "" || r.code != 0 {
		t.Errorf("purge -older-than 28d: exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, diff)
	}
	checkArchive(t, dir, baru29)
	for _, id := range []string{"baru-0", "jalan", "tanpa-akhir"} {
		if !tg.exists(id) {
			t.Errorf("purge -older-than 28d deleted %s", id)
		}
	}
}

// TestPurgeOlderThanUsage: an age kuis cannot read, or -older-than without
// -finished, is a usage error found before connecting.
func TestPurgeOlderThanUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"without -finished", []string{"kuis-01", "-older-than", "30d"}, "kuis purge: -older-than needs -finished"},
		{"fraction of a day", []string{"-finished", "-older-than", "1.5d"}, "kuis purge: invalid value \"1.5d\" for flag -older-than: \"1.5d\": days are whole"},
		{"zero days", []string{"-finished", "-older-than", "0d"}, "kuis purge: invalid value \"0d\" for flag -older-than: must be more than zero"},
		{"negative", []string{"-finished", "-older-than", "-5h"}, "kuis purge: invalid value \"-5h\" for flag -older-than: must be more than zero"},
		{"no unit", []string{"-finished", "-older-than", "30"}, "kuis purge: invalid value \"30\" for flag -older-than: \"30\": want a whole number of days"},
		{"a word", []string{"-finished", "-older-than", "month"}, "kuis purge: invalid value \"month\" for flag -older-than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runKuis(nil, append([]string{"-addr", unreachable, "purge", "-archive", t.TempDir()}, tc.args...)...)
			if r.code != 2 || r.stdout != "" {
				t.Errorf("exit %d, stdout %q", r.code, r.stdout)
			}
			oneLine(t, tc.name, r.stderr, tc.want)
		})
	}
}

// TestAge: the ages -older-than reads, as durations.
func TestAge(t *testing.T) {
	for s, want := range map[string]time.Duration{"30d": 720 * time.Hour, "1d": 24 * time.Hour, "720h": 720 * time.Hour,
		"36h30m": 36*time.Hour + 30*time.Minute, "36500d": 36500 * 24 * time.Hour} {
		got, err := parseAge(s)
		if err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "d", "1.5d", "36501d", "-1d", "0s", "1e3d", "30 d"} {
		if got, err := parseAge(s); err == nil {
			t.Errorf("parseAge(%q) = %v, want an error", s, got)
		}
	}
}
