package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

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
		{[]string{"course", "-x"}, `unknown command "-x"`},
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
		{[]string{"acl", "rules", "app", "teacher"}, "one ROLE"},
		{[]string{"acl", "apply", "app"}, "-name"},
		{[]string{"acl", "apply", "app", "-name", "u"}, "no password"},
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
