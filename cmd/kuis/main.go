// Command kuis operates the quizzes of a kuis deployment on Redis without Go
// code: it lists, shows and watches quizzes, recaps them to CSV or JSON,
// audits and repairs them, archives finished quizzes to files and purges
// them, folds them into course boards (which it shows, recaps, audits,
// repairs and purges in turn), keeps class rosters (enrolls, shows and
// withdraws students), erases a participant from every quiz, course and
// roster and from the archived files (kuis erase NAME -archive DIR), joins a
// quiz's or a course's grades with a roster (a gradebook CSV, LTI AGS
// scores, OneRoster files), ranks teams by their members' points, and makes
// the Redis ACL users of the library's roles on every node.
//
// Install it with
//
//	go install github.com/kuisboard/kuis/cmd/kuis@latest
//
// and run
//
//	kuis [flags] <command> [arguments]
//
// kuis -h lists the flags and the commands, kuis <command> -h tells a
// command's details, and kuis <group> -h lists a group's commands (course,
// class and acl nest theirs: kuis course fold, kuis class enroll, kuis acl
// apply). It talks to Redis as the library recommends: through
// rueidis, a single client on a standalone server (-addr, default
// $REDIS_ADDR, else 127.0.0.1:6379), a cluster client with hash-tagged keys
// on Redis Cluster (-cluster, default $REDIS_CLUSTER_ADDRS), and no
// client-side cache, so that an ACL user made by ACLRules without the cache
// connects. A password is read from $REDIS_PASSWORD or -password-file, never
// from a flag's value.
//
// The result goes to stdout, nothing else: it pipes. With -json, a command
// prints one JSON document (an array, or show's, course show's and erase's
// object; erase -archive adds one object a line per archive file)
// in the library's field names, with quiz_id or course_id beside them. A
// name or title is whatever was written to Redis, so the text output prints
// what a terminal would act on in it (control and bidi characters, line
// separators, bytes that are not UTF-8) escaped as Go escapes it (\x1b, \n,
// \u202e, \xff, a backslash as \\), and the JSON \u-escapes them; the CSV
// keeps every byte, as the file it is.
// Errors go to stderr, one line each, naming what failed ("kuis: purge
// kuis-07: quiz is still running"), and so does the progress of long work
// (a line redrawn on a terminal, plain lines otherwise). The exit status is 0 when all went well,
// 1 when a check found something or some quizzes failed (the rest still
// done, each failure listed), 2 for a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kuisboard/kuis"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// globals are the flags before the command.
type globals struct {
	addr, cluster, user, passwordFile, namespace, ties string
	hashTag                                            bool
	timeout                                            time.Duration
}

// run is kuis: it parses args (without the program's name), runs the
// command they name, and returns the exit status. It reads the environment
// through getenv and a file named "-" from stdin, writes the result to
// stdout and everything else to stderr, and ends when ctx does (an
// interrupt).
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	err := c.run(ctx, args)
	if c.client != nil {
		c.client.Close()
	}
	var exit *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if exit.msg != "" {
			c.errorLine(exit.msg)
		}
		return exit.code
	default:
		c.errorLine(err.Error())
		return 1
	}
}

func (c *cli) run(ctx context.Context, args []string) error {
	if err := noPasswordFlag(args); err != nil {
		return err
	}
	return c.exec(ctx, "kuis", root, args)
}

// root is kuis itself: the group at the top, holding every command, whose
// flags (the globals) stand before the command. Each group of commands
// lives in a file of its own (course.go, class.go, acl.go); the others in the file
// of their job (quizzes.go holds quizzes and show, audit.go audit and
// repair).
var root = &command{
	usageLine: "kuis [flags] <command> [arguments]",
	short: `kuis operates the quizzes of a kuis deployment on Redis: it lists, shows and
watches them, recaps, audits and repairs them, archives and purges finished ones,
folds them into course boards, keeps class rosters and joins grades with them,
erases a participant everywhere (archives too), ranks teams, and makes the ACL
users of the library's roles on every node.`,
	long: `The result goes to stdout; errors, one line each, and the progress of long work
go to stderr. Exit status: 0 when all went well; 1 when a check found something,
or a quiz failed (each failure has its line, the rest is still done), or the
server could not be reached; 2 for a usage error. kuis <command> -h tells more.`,
	flag: func(fs *flag.FlagSet) runFunc {
		var g globals
		fs.StringVar(&g.addr, "addr", "", "the standalone Redis server, `host:port` (default $REDIS_ADDR, else 127.0.0.1:6379)")
		fs.StringVar(&g.cluster, "cluster", "", "the seed nodes of a Redis Cluster, `host:port,...` (default $REDIS_CLUSTER_ADDRS); implies -hash-tag")
		fs.StringVar(&g.user, "user", "", "log in as the ACL user `NAME` (default: the default user)")
		fs.StringVar(&g.passwordFile, "password-file", "", "read the user's password from `FILE` (default $REDIS_PASSWORD; never a flag's value)")
		fs.StringVar(&g.namespace, "namespace", kuis.DefaultNamespace, "the keys' first segment, `NS`, as WithNamespace sets it")
		fs.BoolVar(&g.hashTag, "hash-tag", false, "quiz IDs in braces in key names, as WithHashTag sets them")
		fs.StringVar(&g.ties, "ties", "name", "the order of equal scores, `name` or time, as WithTies sets it")
		fs.DurationVar(&g.timeout, "timeout", time.Minute, "the longest one step may take: connecting, or one quiz's or course's read, fold, audit, repair or purge; 0: no limit")
		return func(_ context.Context, c *cli, _ []string) error {
			c.g = g
			return c.resolve(fs)
		}
	},
	commands: []*command{cmdQuizzes, cmdShow, cmdWatch, cmdRecap, cmdAudit, cmdRepair, cmdPurge, cmdErase, cmdGrades, cmdCourse, cmdClass, cmdTeams, cmdACL},
}

// noPasswordFlag refuses a password given as a flag's value, anywhere in
// args: ps and the shell's history would show it to everyone.
func noPasswordFlag(args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "password" {
			return usagef("kuis: %s: a password is never a flag's value (ps and shell history show it): use $REDIS_PASSWORD or -password-file FILE", a)
		}
	}
	return nil
}

// resolve checks the global flags and fills in their defaults from the
// environment.
func (c *cli) resolve(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	g := &c.g
	switch {
	case set["addr"] && set["cluster"]:
		return usagef("kuis: -addr and -cluster: give one of them")
	case set["addr"]:
		g.cluster = ""
	case set["cluster"]:
	case c.getenv("REDIS_CLUSTER_ADDRS") != "":
		g.cluster = c.getenv("REDIS_CLUSTER_ADDRS")
	case c.getenv("REDIS_ADDR") != "":
		g.addr = c.getenv("REDIS_ADDR")
	default:
		g.addr = "127.0.0.1:6379"
	}
	if g.cluster != "" {
		g.hashTag = true
		for _, a := range strings.Split(g.cluster, ",") {
			if a = strings.TrimSpace(a); a != "" {
				c.addrs = append(c.addrs, a)
			}
		}
		if len(c.addrs) == 0 {
			return usagef("kuis: -cluster %q names no node", g.cluster)
		}
	} else {
		c.addrs = []string{g.addr}
	}
	if g.ties != "name" && g.ties != "time" {
		return usagef("kuis: -ties %q: want name or time", g.ties)
	}
	if _, err := kuis.ContractTable(kuis.WithNamespace(g.namespace)); err != nil {
		return usagef("kuis: -namespace %q: want 1 to 64 ASCII letters, digits, '-', '_' or '.'", g.namespace)
	}
	if g.timeout < 0 {
		return usagef("kuis: -timeout %v: want 0 (no limit) or more", g.timeout)
	}
	if g.passwordFile != "" {
		pw, err := readPassword(g.passwordFile)
		if err != nil {
			return err
		}
		c.password = pw
	} else {
		c.password = c.getenv("REDIS_PASSWORD")
	}
	return nil
}

// readPassword reads a password file: its first line, without the line end.
func readPassword(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &exitError{code: 1, msg: fmt.Sprintf("kuis: password file: %v", err)}
	}
	pw, _, _ := strings.Cut(string(b), "\n")
	pw = strings.TrimSuffix(pw, "\r")
	if pw == "" {
		return "", usagef("kuis: password file %s is empty", path)
	}
	return pw, nil
}

// options are the library's options the global flags select.
func (c *cli) options() []kuis.Option {
	opts := []kuis.Option{kuis.WithNamespace(c.g.namespace)}
	if c.g.hashTag {
		opts = append(opts, kuis.WithHashTag())
	}
	if c.g.ties == "time" {
		opts = append(opts, kuis.WithTies(kuis.TiesByTime))
	}
	return opts
}
