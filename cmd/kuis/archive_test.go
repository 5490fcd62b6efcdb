package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// buildKuis builds the command into the test's temporary directory.
func buildKuis(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command to build kuis: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "kuis")
	out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// fileStates tells, for each file of a quiz's archive, whether it is there
// under its final name.
func fileStates(qdir string) (present int) {
	for _, f := range archiveFiles {
		if _, err := os.Stat(filepath.Join(qdir, f.name)); err == nil {
			present++
		}
	}
	return present
}

// checkFinalFiles fails the test for any file of the archive that is there
// under its final name and is not whole: not the recap's bytes.
func checkFinalFiles(t *testing.T, qdir string, want kuis.Recap) {
	t.Helper()
	for _, f := range archiveFiles {
		got, err := os.ReadFile(filepath.Join(qdir, f.name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Errorf("%s/%s: %v", want.QuizID, f.name, err)
			continue
		}
		w := want
		if f.format == "json" {
			var r kuis.Recap
			if err := json.Unmarshal(got, &r); err != nil {
				t.Errorf("%s/%s is not whole: %v", want.QuizID, f.name, err)
				continue
			}
			w.TakenAt = r.TakenAt
		}
		data, err := render(w, f.format)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, got) {
			t.Errorf("%s/%s under its final name is not the recap's bytes: %d bytes, want %d", want.QuizID, f.name, len(got), len(data))
		}
	}
}

// TestPurgeKilled proves the archive crash-safe: kuis purge -finished,
// built and run as a process, is killed with SIGKILL at many moments (after
// a random delay; right as a file of a quiz's archive appears, so between
// files; right as a quiz's keys are gone, so between quizzes), and run
// again. After every kill, every finished quiz is still in Redis or fully
// archived on disk, never neither, and a file under its final name is
// always whole; once a run completes, every quiz is archived and gone.
func TestPurgeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills kuis many times; skipped in -short mode")
	}
	if redistest.Cluster() {
		// What a kill can break is on the archive's side, the same on every
		// server: the miniredis and standalone runs prove it, and the
		// cluster's run saves the time.
		t.Skip("the archive's crash safety does not depend on the server: proved in the miniredis and standalone runs")
	}
	bin := buildKuis(t)
	tg := newTarget(t)
	dir := filepath.Join(t.TempDir(), "arsip")
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))

	recaps := map[string]kuis.Recap{} // every finished quiz made, by ID
	pending := map[string]bool{}      // those still in Redis
	batches := 0
	newBatch := func() {
		batches++
		for i := range 6 {
			id := fmt.Sprintf("kuis-%02d-%d", batches, i)
			tg.quiz(id, "Kuis "+id, 4, nil, false)
			// Mostly small quizzes; one a batch with a class of 80, whose
			// files take long enough to write that a kill can land inside.
			class := 1 + rng.IntN(4)
			if i == 0 {
				class = 80
			}
			var answers []kuis.AnswerInput
			for p := range class {
				for q := range 1 + rng.IntN(4) {
					answers = append(answers, kuis.AnswerInput{Participant: fmt.Sprintf("Peserta =%d", p), Question: q + 1})
				}
			}
			board, err := tg.store.Board(id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := board.RecordAnswers(tg.ctx, answers); err != nil {
				t.Fatal(err)
			}
			meta, err := tg.store.Meta(id)
			if err != nil {
				t.Fatal(err)
			}
			if err := meta.Finish(tg.ctx); err != nil {
				t.Fatal(err)
			}
			r, err := tg.store.Recap(tg.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			recaps[id], pending[id] = r, true
		}
	}
	args := append(append([]string{}, tg.flags...), "purge", "-finished", "-archive", dir)
	start := func() (*exec.Cmd, *bytes.Buffer) {
		var out bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}

	// check is the invariant, after a kill or a whole run, over the quizzes
	// that were still in Redis before it: a run never touches the archive of
	// a quiz that is gone.
	var partial, between int
	check := func() {
		t.Helper()
		seenPartial := false
		defer func() {
			if seenPartial {
				partial++
			}
		}()
		for id := range pending {
			r := recaps[id]
			qdir := instanceDir(dir, r)
			inRedis := tg.exists(id)
			checkFinalFiles(t, qdir, r)
			whole := archiveMatches(qdir, r) == nil
			switch {
			case !inRedis && !whole:
				t.Fatalf("quiz %s is neither in Redis nor fully archived", id)
			case inRedis && fileStates(qdir) > 0 && fileStates(qdir) < len(archiveFiles):
				seenPartial = true
			}
			if !inRedis {
				delete(pending, id)
			}
		}
	}

	// A whole run first: how long one takes bounds the random delays.
	newBatch()
	began := time.Now()
	cmd, out := start()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kuis purge: %v\n%s", err, out)
	}
	whole := time.Since(began)
	check()
	if len(pending) != 0 {
		t.Fatalf("a whole run left %v", pending)
	}

	kills := 0
	for round := 0; round < 400 && (round < 40 || partial == 0 || between == 0); round++ {
		if len(pending) == 0 {
			newBatch()
		}
		var ids []string
		for id := range pending {
			ids = append(ids, id)
		}
		target := ids[rng.IntN(len(ids))]
		cmd, out := start()
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		exited := func() bool {
			select {
			case <-done:
				return true
			default:
				return false
			}
		}
		strategy := rng.IntN(3)
		poll := func(cond func() bool) {
			for end := time.Now().Add(10 * time.Second); !cond() && !exited() && time.Now().Before(end); {
				time.Sleep(50 * time.Microsecond)
			}
		}
		switch strategy {
		case 0: // at any moment of a run
			time.Sleep(time.Duration(rng.Int64N(int64(whole) + 1)))
		case 1: // right as a file of a quiz's archive is renamed into place
			file := filepath.Join(instanceDir(dir, recaps[target]), archiveFiles[rng.IntN(len(archiveFiles))].name)
			poll(func() bool { _, err := os.Stat(file); return err == nil })
		case 2: // right as a quiz's keys are deleted
			poll(func() bool { return !tg.exists(target) })
		}
		before := len(pending)
		if err := cmd.Process.Kill(); err == nil {
			kills++
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("kuis did not exit after SIGKILL")
		}
		check()
		if strategy == 2 && len(pending) < before && len(pending) > 0 {
			between++
		}
		if strings.Contains(out.String(), "panic") {
			t.Fatalf("kuis panicked:\n%s", out)
		}
	}
	t.Logf("%d quizzes in %d batches; %d kills; after %d of them a quiz in Redis had part of its archive; %d landed between quizzes; a whole run of 6 quizzes took %v",
		len(recaps), batches, kills, partial, between, whole)
	if partial == 0 {
		t.Error("no kill landed between the files of an archive: the test proved less than it claims")
	}

	cmd, out = start()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	check()
	for id, r := range recaps {
		checkArchive(t, dir, r)
		if tg.exists(id) {
			t.Errorf("quiz %s is still in Redis after a whole run", id)
		}
	}
	if got := tg.must("quizzes"); got != "" {
		t.Errorf("quizzes after the last run: %q", got)
	}
}

// TestArchiveDirRefusesDots: quiz and course IDs "." and ".." are valid,
// but name no directory of their own: their archive fails instead of landing
// in the archive's directory or its parent.
func TestArchiveDirRefusesDots(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{".", ".."} {
		quiz, err := newArchive(kuis.Recap{QuizID: id})
		if err != nil {
			t.Fatal(err)
		}
		course, err := newArchive(kuis.CourseRecap{CourseID: id})
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
