package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// watchRun is kuis watch running on its own goroutine.
type watchRun struct {
	out, err syncBuffer
	code     chan int
	cancel   context.CancelFunc
}

func (tg *target) startWatch(args ...string) *watchRun {
	ctx, cancel := context.WithCancel(tg.ctx)
	w := &watchRun{code: make(chan int, 1), cancel: cancel}
	go func() {
		w.code <- run(ctx, append(append([]string{}, tg.flags...), args...), tg.getenv, strings.NewReader(""), &w.out, &w.err)
	}()
	tg.t.Cleanup(cancel)
	return w
}

// exit waits for the run's exit status.
func (w *watchRun) exit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-w.code:
		return code
	case <-time.After(30 * time.Second):
		t.Fatal("kuis watch did not end")
		return -1
	}
}

// TestWatch: on a pipe, kuis watch prints whole boards, one participant and
// score a line and an empty line after each, a new one when the quiz
// changed, and ends with exit status 0 after the final board of a finished
// quiz.
func TestWatch(t *testing.T) {
	tg := newTarget(t)
	tg.quiz("kuis-01", "Kuis", 3, [][]string{{"Ali"}}, false)
	w := tg.startWatch("watch", "kuis-01", "-top", "2")
	waitFor(t, "the first board", func() bool { return strings.Contains(w.out.String(), "Ali\t10\n\n") })

	board, err := tg.store.Board("kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	for q := 1; q <= 3; q++ {
		if _, err := board.RecordAnswer(tg.ctx, "Budi", q); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the board after Budi's answers", func() bool { return strings.Contains(w.out.String(), "Budi\t30\nAli\t10\n\n") })
	if _, err := board.RecordAnswer(tg.ctx, "Citra", 1); err != nil {
		t.Fatal(err)
	}
	meta, err := tg.store.Meta("kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.Finish(tg.ctx); err != nil {
		t.Fatal(err)
	}
	if code := w.exit(t); code != 0 || w.err.String() != "" {
		t.Fatalf("watch until Finish: exit %d, stderr %q", code, w.err.String())
	}

	out := w.out.String()
	if !strings.HasSuffix(out, "\n\n") {
		t.Fatalf("watch output does not end with a whole board: %q", out)
	}
	boards := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
	for i, b := range boards {
		for _, l := range strings.Split(b, "\n") {
			if name, score, ok := strings.Cut(l, "\t"); !ok || name == "" || strings.Trim(score, "0123456789") != "" {
				t.Errorf("board %d: line %q is not participant<TAB>score", i+1, l)
			}
		}
	}
	final, err := board.Page(tg.ctx, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, s := range final {
		fmt.Fprintf(&want, "%s\t%d\n", s.Participant, s.Score)
	}
	if diff := cmp.Diff(strings.TrimSuffix(want.String(), "\n"), boards[len(boards)-1]); diff != "" {
		t.Errorf("the last board is not the final one (-want +got):\n%s", diff)
	}
	if boards[0] != "Ali\t10" {
		t.Errorf("the first board: %q", boards[0])
	}
}

// TestWatchInterrupt: Ctrl-C ends the watch of a running quiz with exit
// status 0; a missing quiz is an error of its own.
func TestWatchInterrupt(t *testing.T) {
	tg := newTarget(t)
	tg.quiz("kuis-01", "Kuis", 3, nil, false)
	w := tg.startWatch("watch", "kuis-01")
	waitFor(t, "the first, empty board", func() bool { return w.out.String() == "\n" })
	w.cancel()
	if code := w.exit(t); code != 0 || w.err.String() != "" || w.out.String() != "\n" {
		t.Errorf("watch after Ctrl-C: exit %d, stdout %q, stderr %q", code, w.out.String(), w.err.String())
	}

	r := tg.kuis("watch", "kuis-99")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("watch of a missing quiz: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "watch of a missing quiz", r.stderr, "kuis: watch kuis-99: no such quiz in namespace")
}
