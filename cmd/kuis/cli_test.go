package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestUnreachable: a server that cannot be reached has its own words, in
// one line, exit 1.
func TestUnreachable(t *testing.T) {
	r := runKuis(nil, "-addr", unreachable, "quizzes")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", r.code, r.stdout)
	}
	oneLine(t, "unreachable", r.stderr, "kuis: ", "cannot reach Redis at "+unreachable, "connection refused")
}

// TestInvalidQuizID: a quiz ID the library refuses is a usage error, found
// before any quiz is read; an interrupt has its own words.
func TestInvalidQuizID(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true)
	for _, args := range [][]string{
		{"show", "kuis:01"}, {"watch", "kuis 01"}, {"recap", "{kuis-01}"},
		{"audit", "kuis-01", "kuis*"}, {"repair", "kuis-01", ""}, {"purge", "kuis-01", "kuis/01", "-archive", t.TempDir()},
	} {
		r := tg.kuis(args...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want 2 and nothing", args, r.code, r.stdout)
		}
		oneLine(t, fmt.Sprintf("%q", args), r.stderr, "kuis "+args[0]+": invalid quiz ID")
	}
	if !tg.exists("kuis-01") {
		t.Error("a purge with an invalid quiz ID purged the valid one")
	}

	ctx, cancel := context.WithCancel(tg.ctx)
	cancel()
	r := tg.kuisCtx(ctx, "purge", "-finished", "-archive", t.TempDir())
	if r.code != 1 || r.stdout != "" || !tg.exists("kuis-01") {
		t.Errorf("an interrupted purge: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "an interrupted purge", r.stderr, "kuis: ", "interrupted")
}

// TestUnavailableWords: the library's ErrUnavailable has its own words: a
// server that is not ready (LOADING, BUSY, ...) says so and to try again
// later; one whose connection is gone cannot be reached.
func TestUnavailableWords(t *testing.T) {
	m, _ := redistest.Miniredis(t)
	// Without retries: rueidis sends a read again on a broken connection
	// until the caller's deadline, which kuis's -timeout is.
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{m.Addr()}, ForceSingleClient: true, DisableCache: true, DisableRetry: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	store, err := kuis.New(client, kuis.WithNamespace(redistest.Namespace(t)))
	if err != nil {
		t.Fatal(err)
	}
	course, err := store.Course("ipa-8a")
	if err != nil {
		t.Fatal(err)
	}
	c := &cli{addrs: []string{m.Addr()}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, should rueidis wait
	defer cancel()
	m.SetError("LOADING Redis is loading the dataset in memory")
	_, err = course.Len(ctx)
	if !errors.Is(err, kuis.ErrUnavailable) {
		t.Fatalf("Len on a loading server: %v, want ErrUnavailable", err)
	}
	want := "Redis at " + m.Addr() + " is not ready: LOADING Redis is loading the dataset in memory; try again later"
	if got := c.words(err); got != want {
		t.Errorf("a server not ready: %q, want %q", got, want)
	}
	m.SetError("")
	m.Close()
	_, err = course.Len(ctx)
	if !errors.Is(err, kuis.ErrUnavailable) {
		t.Fatalf("Len on a closed server: %v, want ErrUnavailable", err)
	}
	if got, want := c.words(err), "cannot reach Redis at "+c.addrs[0]+": "; !strings.HasPrefix(got, want) {
		t.Errorf("a server gone: %q, want it to start %q", got, want)
	}
}
