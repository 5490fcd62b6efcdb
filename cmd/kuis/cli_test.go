package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// runKuis runs kuis in-process with the environment env.
func runKuis(env map[string]string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// unreachable is an address where nothing listens: a usage error must be
// found before kuis tries to connect.
const unreachable = "127.0.0.1:1"

// TestUsageErrors: every usage error exits 2 with one line on stderr naming
// what is wrong and nothing on stdout, before any connection.
func TestUsageErrors(t *testing.T) {
	pwFile := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(pwFile, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		says string
	}{
		{nil, "no command"},
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"-bogus", "quizzes"}, "-bogus"},
		{[]string{"-password", "secret", "quizzes"}, "never a flag's value"},
		{[]string{"-password=secret", "quizzes"}, "never a flag's value"},
		{[]string{"--password", "secret", "quizzes"}, "never a flag's value"},
		{[]string{"quizzes", "-password", "secret"}, "never a flag's value"},
		{[]string{"acl", "apply", "app", "-user", "u", "-password", "secret"}, "never a flag's value"},
		{[]string{"-password-file", pwFile, "quizzes"}, "is empty"},
		{[]string{"-addr", "a:1", "-cluster", "b:1", "quizzes"}, "-addr and -cluster"},
		{[]string{"-cluster", ",", "quizzes"}, "names no node"},
		{[]string{"-ties", "age", "quizzes"}, `-ties "age"`},
		{[]string{"-namespace", "a:b", "quizzes"}, `-namespace "a:b"`},
		{[]string{"-timeout", "-1s", "quizzes"}, "-timeout"},
		{[]string{"quizzes", "extra"}, `unexpected argument "extra"`},
		{[]string{"quizzes", "-status", "done"}, `-status "done"`},
		{[]string{"quizzes", "-bogus"}, "-bogus"},
		{[]string{"show"}, "no QUIZ"},
		{[]string{"show", "a", "b"}, "one QUIZ"},
		{[]string{"show", "q", "-top", "0"}, "-top 0"},
		{[]string{"show", "q", "-top", "x"}, "-top"},
		{[]string{"watch", "q", "-top", "1001"}, "-top 1001"},
		{[]string{"recap", "q", "-format", "xml"}, `-format "xml"`},
		{[]string{"recap", "q", "-format", "json", "-spreadsheet"}, "-spreadsheet"},
		{[]string{"audit"}, "no quiz"},
		{[]string{"audit", "q", "-all"}, "give one of them"},
		{[]string{"repair"}, "no QUIZ"},
		{[]string{"purge", "-finished"}, "no -archive"},
		{[]string{"purge", "-archive", "d"}, "no quiz"},
		{[]string{"purge", "q", "-finished", "-archive", "d"}, "give one of them"},
		{[]string{"purge", "-finished", "-archive", "d", "-course"}, "flag needs an argument: -course"},
		{[]string{"course"}, "which one"},
		{[]string{"course", "grade"}, `unknown command "grade"`},
		{[]string{"course", "fold"}, "no COURSE"},
		{[]string{"course", "fold", "c"}, "no QUIZ after the course"},
		{[]string{"course", "fold", "c", "q", "-from-archive", "p"}, `unexpected argument "q"`},
		{[]string{"course", "fold", "-from-archive", "p"}, "no COURSE"},
		{[]string{"course", "unfold", "c"}, "no QUIZ after the course"},
		{[]string{"course", "unfold", "c", "q", "r"}, `unexpected argument "r"`},
		{[]string{"course", "unfold", "c", "q", "-all"}, "-all"},
		{[]string{"course", "show"}, "no COURSE"},
		{[]string{"course", "show", "c", "d"}, `unexpected argument "d"`},
		{[]string{"course", "show", "c", "-top", "0"}, "-top 0"},
		{[]string{"course", "recap", "c", "-format", "gradebook"}, `-format "gradebook"`},
		{[]string{"course", "audit"}, "no COURSE"},
		{[]string{"course", "audit", "c", "d"}, `unexpected argument "d"`},
		{[]string{"course", "repair"}, "no COURSE"},
		{[]string{"course", "purge", "c"}, "no -archive"},
		{[]string{"course", "purge", "-archive", "d"}, "no COURSE"},
		{[]string{"teams"}, "no QUIZ"},
		{[]string{"teams", "-roster", "r"}, "no QUIZ: give QUIZ or -course COURSE"},
		{[]string{"teams", "q", "-course", "c", "-roster", "r"}, "give one of them"},
		{[]string{"teams", "q", "r", "-roster", "x"}, "one QUIZ, not 2"},
		{[]string{"teams", "q"}, "no -roster"},
		{[]string{"teams", "q", "-roster", "r", "-by", "median"}, `-by "median"`},
		{[]string{"acl"}, "which one"},
		{[]string{"acl", "grant"}, `unknown command "grant"`},
		{[]string{"acl", "rules"}, "one ROLE"},
		{[]string{"acl", "rules", "admin"}, `role "admin"`},
		{[]string{"acl", "apply", "app"}, "-user"},
		{[]string{"acl", "apply", "app", "-user", "u"}, "no password"},
	}
	for _, tt := range tests {
		args := append([]string{"-addr", unreachable}, tt.args...)
		if slices.Contains(tt.args, "-addr") || slices.Contains(tt.args, "-cluster") {
			args = tt.args
		}
		r := runKuis(nil, args...)
		what := strings.Join(tt.args, " ")
		if r.code != 2 || r.stdout != "" {
			t.Errorf("kuis %s: exit %d, stdout %q; want 2 and nothing", what, r.code, r.stdout)
		}
		oneLine(t, "kuis "+what, r.stderr, "kuis", tt.says)
	}
}

// TestHelp: kuis -h, kuis <command> -h and kuis <group> -h print to stdout
// and exit 0; kuis -h names every command, and a group's -h each of its
// commands.
func TestHelp(t *testing.T) {
	r := runKuis(nil, "-h")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("kuis -h: exit %d, stderr %q", r.code, r.stderr)
	}
	var walk func(words []string, cmd *command)
	walk = func(words []string, cmd *command) {
		words = append(slices.Clip(words), cmd.name())
		h := runKuis(nil, append(words, "-h")...)
		if cmd.commands != nil {
			for _, sub := range cmd.commands {
				if sub.commands == nil && !strings.Contains(h.stdout, "  "+strings.Join(words, " ")+" "+sub.usageLine+"\n") {
					t.Errorf("kuis %s -h does not list %q", strings.Join(words, " "), sub.usageLine)
				}
				walk(words, sub)
			}
			return
		}
		line := strings.Join(words[:len(words)-1], " ") + " " + cmd.usageLine
		if !strings.Contains(r.stdout, "  "+strings.TrimSpace(line)+"\n") {
			t.Errorf("kuis -h does not list %q", line)
		}
		if h.code != 0 || h.stderr != "" || !strings.HasPrefix(h.stdout, "Usage: kuis [flags] "+strings.TrimSpace(line)+"\n") {
			t.Errorf("kuis %s -h: exit %d, stderr %q, stdout %q", strings.Join(words, " "), h.code, h.stderr, h.stdout)
		}
	}
	for _, cmd := range root.commands {
		walk(nil, cmd)
	}
	for _, flag := range []string{"-addr", "-cluster", "-user", "-password-file", "-namespace", "-hash-tag", "-ties", "-timeout"} {
		if !strings.Contains(r.stdout, "  "+flag+" ") && !strings.Contains(r.stdout, "  "+flag+"\n") {
			t.Errorf("kuis -h does not list the flag %s", flag)
		}
	}
}

// TestUnreachable: a server that cannot be reached has its own words, in
// one line, exit 1.
func TestUnreachable(t *testing.T) {
	r := runKuis(nil, "-addr", unreachable, "quizzes")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", r.code, r.stdout)
	}
	oneLine(t, "unreachable", r.stderr, "kuis: ", "cannot reach Redis at "+unreachable, "connection refused")
}

// TestServerFromEnvironment: without -addr and -cluster, kuis takes
// $REDIS_CLUSTER_ADDRS, else $REDIS_ADDR, else 127.0.0.1:6379; an explicit
// -addr wins over both.
func TestServerFromEnvironment(t *testing.T) {
	tests := []struct {
		env   map[string]string
		args  []string
		addrs []string
		hash  bool
	}{
		{nil, nil, []string{"127.0.0.1:6379"}, false},
		{map[string]string{"REDIS_ADDR": "10.0.0.1:7"}, nil, []string{"10.0.0.1:7"}, false},
		{map[string]string{"REDIS_ADDR": "10.0.0.1:7", "REDIS_CLUSTER_ADDRS": "10.0.0.2:1, 10.0.0.3:1"}, nil, []string{"10.0.0.2:1", "10.0.0.3:1"}, true},
		{map[string]string{"REDIS_CLUSTER_ADDRS": "10.0.0.2:1"}, []string{"-addr", "10.0.0.4:1"}, []string{"10.0.0.4:1"}, false},
		{map[string]string{"REDIS_ADDR": "10.0.0.1:7"}, []string{"-cluster", "10.0.0.5:1"}, []string{"10.0.0.5:1"}, true},
	}
	for _, tt := range tests {
		c := &cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(k string) string { return tt.env[k] }}
		// acl rules needs no server: run resolves the flags and stops there.
		if err := c.run(context.Background(), append(tt.args, "acl", "rules", "app")); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.addrs, c.addrs); diff != "" || c.g.hashTag != tt.hash {
			t.Errorf("env %v, flags %v: hash tag %v; addresses (-want +got):\n%s", tt.env, tt.args, c.g.hashTag, diff)
		}
	}
}

// TestPasswordSources: the password is -password-file's first line, else
// $REDIS_PASSWORD; a missing file is an error of its own.
func TestPasswordSources(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("from file\r\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, ""},
		{map[string]string{"REDIS_PASSWORD": "from env"}, nil, "from env"},
		{map[string]string{"REDIS_PASSWORD": "from env"}, []string{"-password-file", file}, "from file"},
	} {
		c := &cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(k string) string { return tt.env[k] }}
		if err := c.run(context.Background(), append(tt.args, "acl", "rules", "app")); err != nil {
			t.Fatal(err)
		}
		if c.password != tt.want {
			t.Errorf("env %v, flags %v: password %q, want %q", tt.env, tt.args, c.password, tt.want)
		}
	}
	r := runKuis(nil, "-password-file", filepath.Join(t.TempDir(), "missing"), "acl", "rules", "app")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("missing password file: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "missing password file", r.stderr, "kuis: password file: ", "no such file")
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
