package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// instanceDir is where purge archives the recap's quiz under dir:
// dir/<quiz>/<instance>/.
func instanceDir(dir string, r kuis.Recap) string {
	return filepath.Join(dir, r.QuizID, r.Instance)
}

// checkArchive fails the test unless dir/<quiz>/<instance>/ holds the four
// files of want's archive, whole: each CSV the library's default writer's
// bytes, and recap.json json.Marshal of want with the time it was taken at,
// readable by their owner only, and no temporary file beside them.
func checkArchive(t *testing.T, dir string, want kuis.Recap) {
	t.Helper()
	qdir := instanceDir(dir, want)
	var files []string
	entries, err := os.ReadDir(qdir)
	if err != nil {
		t.Errorf("archive of %s: %v", want.QuizID, err)
		return
	}
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if diff := cmp.Diff([]string{"answers.csv", "gradebook.csv", "recap.json", "standings.csv"}, files); diff != "" {
		t.Errorf("archive of %s holds (-want +got):\n%s", want.QuizID, diff)
	}
	if err := archiveMatches(qdir, want); err != nil {
		t.Errorf("archive of %s: %v", want.QuizID, err)
	}
	for _, f := range archiveFiles {
		switch st, err := os.Stat(filepath.Join(qdir, f.name)); {
		case err != nil:
			t.Errorf("archive of %s: %v", want.QuizID, err)
		case st.Mode().Perm() != 0o600:
			t.Errorf("archive of %s: %s has mode %v, want 0600", want.QuizID, f.name, st.Mode())
		}
	}
}

// archiveMatches says how the four files in qdir differ from want's
// archive, or nil when each is whole and the same.
func archiveMatches(qdir string, want kuis.Recap) error {
	for _, f := range archiveFiles {
		got, err := os.ReadFile(filepath.Join(qdir, f.name))
		if err != nil {
			return err
		}
		if f.format == "json" {
			var taken struct {
				TakenAt json.RawMessage `json:"taken_at"`
			}
			if err := json.Unmarshal(got, &taken); err != nil {
				return err
			}
			if err := json.Unmarshal(taken.TakenAt, &want.TakenAt); err != nil {
				return err
			}
		}
		data, err := render(want, f.format)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(string(data), string(got)); diff != "" {
			return &mismatch{f.name, diff}
		}
	}
	return nil
}

type mismatch struct{ file, diff string }

func (m *mismatch) Error() string { return m.file + " (-want +got):\n" + m.diff }

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

// TestArchiveDirRefusesDots: quiz and course IDs "." and ".." are valid,
// but name no directory of their own: their archive fails instead of landing
// in the archive's directory or its parent.
func TestArchiveDirRefusesDots(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{".", ".."} {
		quiz, err := quizArchive(kuis.Recap{QuizID: id})
		if err != nil {
			t.Fatal(err)
		}
		course, err := courseArchive(kuis.CourseRecap{CourseID: id})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []archive{quiz, course} {
			if _, err := a.write(dir); err == nil {
				t.Errorf("the archive of %s: no error", a.owner)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || archived(dir, owner{"quiz", ".."}, names(archiveFiles)) {
		t.Errorf("the archive's directory holds %v", entries)
	}
}
