package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// globals are the flags before the command.
type globals struct {
	addr, cluster, user, passwordFile, namespace, ties string
	hashTag                                            bool
	timeout                                            time.Duration
}

// cli is one run of kuis: where it reads and writes, its environment, its
// flags, and the connection once a command asked for it.
type cli struct {
	stdin          io.Reader // read by a command given "-" for a file (teams -roster -)
	stdout, stderr io.Writer
	getenv         func(string) string
	g              globals
	addrs          []string // the servers, as connect dials them
	password       string

	client   rueidis.Client
	store    *kuis.Store
	progress *progress // the progress line on stderr, while long work runs
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

// root is kuis itself: the group of every command, whose flags (the
// globals) stand before the command.
var root = &command{
	usageLine: "kuis [flags] <command> [arguments]",
	short: `kuis operates the quizzes of a kuis deployment on Redis: it lists, shows and
watches them, recaps, audits and repairs them, archives and purges finished ones,
folds them into course boards, ranks teams, and makes the ACL users of the
library's roles on every node.`,
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
	commands: []*command{cmdQuizzes, cmdShow, cmdWatch, cmdRecap, cmdAudit, cmdRepair, cmdPurge, cmdCourse, cmdTeams, cmdACL},
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

// connect opens the client and the Store, once a run. The client is
// rueidis's as the library recommends it: a single client on a standalone
// server (rueidis would otherwise probe CLUSTER SLOTS, which a restricted
// user may not send, and guess), a cluster client on Redis Cluster.
// Client-side caching stays off: kuis makes no cached read, and an ACL user
// made by ACLRules without WithClientCache may not turn tracking on, which
// rueidis would do as it connects.
func (c *cli) connect(ctx context.Context) error {
	if c.store != nil {
		return nil
	}
	opt := rueidis.ClientOption{
		InitAddress:       c.addrs,
		Username:          c.g.user,
		Password:          c.password,
		DisableCache:      true,
		ForceSingleClient: c.g.cluster == "",
	}
	if c.g.timeout > 0 {
		opt.Dialer.Timeout = c.g.timeout
	}
	sctx, cancel := c.step(ctx)
	defer cancel()
	client, err := newClient(sctx, opt)
	if err != nil {
		return fmt.Errorf("kuis: %s", c.words(err))
	}
	c.client = client
	if c.g.cluster != "" && client.Mode() != rueidis.ClientModeCluster {
		return fmt.Errorf("kuis: -cluster %s: not a Redis Cluster (use -addr for a standalone server)", c.g.cluster)
	}
	store, err := kuis.New(client, c.options()...)
	if err != nil {
		return fmt.Errorf("kuis: %w", err)
	}
	c.store = store
	return nil
}

// newClient is rueidis.NewClient, which dials and logs in, bounded by ctx.
func newClient(ctx context.Context, opt rueidis.ClientOption) (rueidis.Client, error) {
	type result struct {
		client rueidis.Client
		err    error
	}
	done := make(chan result, 1)
	go func() {
		client, err := rueidis.NewClient(opt)
		done <- result{client, err}
	}()
	select {
	case r := <-done:
		return r.client, r.err
	case <-ctx.Done():
		go func() { // close what the dial still returns
			if r := <-done; r.client != nil {
				r.client.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// step is the context of one step of a command: ctx bounded by -timeout.
func (c *cli) step(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.g.timeout > 0 {
		return context.WithTimeout(ctx, c.g.timeout)
	}
	return context.WithCancel(ctx)
}

// fail is the error of what failed (a command and its quiz: "purge kuis-07")
// in the words words gives it.
func (c *cli) fail(what string, err error) error {
	return &exitError{code: 1, msg: "kuis: " + what + ": " + c.words(err)}
}

// report prints the failure of what as one line and goes on.
func (c *cli) report(what string, err error) {
	c.errorLine("kuis: " + what + ": " + c.words(err))
}

// errorLine prints one line on stderr, below the progress line if one is
// drawn.
func (c *cli) errorLine(msg string) {
	if c.progress != nil {
		c.progress.clear()
	}
	fmt.Fprintln(c.stderr, strings.ReplaceAll(msg, "\n", " "))
	if c.progress != nil {
		c.progress.draw()
	}
}

// words says what went wrong in an operator's words: a refused role, a
// missing quiz, a running quiz, a course that holds a quiz otherwise than its
// recap, an unreachable or not ready server, a refused login, a timeout and
// an interrupt each have their own; anything else is the library's message.
func (c *cli) words(err error) string {
	user := c.g.user
	if user == "" {
		user = "default"
	}
	addrs := strings.Join(c.addrs, ",")
	var opErr *net.OpError
	var re *rueidis.RedisError
	switch {
	case errors.Is(err, kuis.ErrForbidden), errors.As(err, &re) && strings.HasPrefix(re.Error(), "NOPERM"):
		return fmt.Sprintf("refused by the server's ACL: user %q may not do this (kuis acl rules ROLE lists what a role may)", user)
	case errors.Is(err, kuis.ErrQuizNotFound):
		if c.g.hashTag {
			return fmt.Sprintf("no such quiz in namespace %q (hash-tagged keys)", c.g.namespace)
		}
		return fmt.Sprintf("no such quiz in namespace %q", c.g.namespace)
	case errors.Is(err, kuis.ErrQuizRunning):
		return "quiz is still running"
	case errors.Is(err, kuis.ErrConflict):
		return conflictWords(err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("timed out after %v (-timeout)", c.g.timeout)
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.As(err, &re) && (strings.HasPrefix(re.Error(), "WRONGPASS") || strings.HasPrefix(re.Error(), "NOAUTH")):
		return fmt.Sprintf("Redis at %s refused the login of user %q: %s", addrs, user, re.Error())
	case errors.As(err, &re) && strings.HasPrefix(re.Error(), "MOVED"):
		return fmt.Sprintf("%s is a Redis Cluster node: use -cluster", addrs)
	case errors.Is(err, kuis.ErrUnavailable) && errors.As(err, &re):
		return fmt.Sprintf("Redis at %s is not ready: %s; try again later", addrs, re.Error())
	case errors.As(err, &opErr), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, kuis.ErrUnavailable):
		reason := strings.TrimPrefix(err.Error(), kuis.ErrUnavailable.Error()+": ")
		switch {
		case opErr != nil && opErr.Err != nil:
			reason = opErr.Err.Error()
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			reason = "the server closed the connection"
		}
		return fmt.Sprintf("cannot reach Redis at %s: %s", addrs, reason)
	}
	return strings.TrimPrefix(err.Error(), "kuis: ")
}

// conflictWords says, from the fields of the library's *kuis.ConflictError,
// what the course holds against what it was given and what the operator
// does about it.
func conflictWords(err error) string {
	var ce *kuis.ConflictError
	if !errors.As(err, &ce) {
		return strings.TrimPrefix(err.Error(), "kuis: ")
	}
	quiz, unfold := ce.Quiz, "kuis course unfold "+ce.Course+" "+ce.Quiz
	if ce.Instance != "" && ce.Instance != kuis.NoInstance {
		quiz += " (instance " + ce.Instance + ")"
		unfold += " -instance " + ce.Instance
	}
	var what string
	switch ce.Reason {
	case kuis.ConflictRecap:
		return fmt.Sprintf("course %s holds another recap of quiz %s folded in part: fold that recap again to finish it, or %s",
			ce.Course, quiz, unfold)
	case kuis.ConflictInstances:
		return fmt.Sprintf("course %s holds quiz %s in %d instances (%s): kuis course unfold %s %s -instance ID, of the one meant",
			ce.Course, ce.Quiz, len(ce.Instances), strings.Join(ce.Instances, ", "), ce.Course, ce.Quiz)
	case kuis.ConflictCourse:
		return fmt.Sprintf("quiz %s belongs to course %s, not to %s: fold it into its own course", quiz, ce.Held, ce.Given)
	case kuis.ConflictPoints:
		what = fmt.Sprintf("participant %q was folded with %s points, and the recap gives %s", ce.Participant, ce.Held, ce.Given)
	case kuis.ConflictParticipants:
		what = fmt.Sprintf("participant %q is folded with %s points, and the recap lacks them", ce.Participant, ce.Held)
		if ce.Given != "" {
			what = fmt.Sprintf("the recap gives participant %q %s points, and the course lacks them", ce.Participant, ce.Given)
		}
	case kuis.ConflictQuestions:
		what = fmt.Sprintf("the quiz was folded as worth %s points, and the recap makes it %s", ce.Held, ce.Given)
	default:
		return strings.TrimPrefix(err.Error(), "kuis: ")
	}
	return fmt.Sprintf("course %s holds quiz %s otherwise than its recap (the quiz changed since it was folded): %s; %s, then fold it again",
		ce.Course, quiz, what, unfold)
}

// inputError is the library's refusal of what the command was given (a quiz
// or course ID, a team or a member of a roster), as a usage error of command
// name, found before anything is read; nil for any other error.
func inputError(name string, err error) error {
	for _, sentinel := range []error{kuis.ErrInvalidQuizID, kuis.ErrInvalidCourseID, kuis.ErrInvalidTeam, kuis.ErrInvalidParticipant} {
		if errors.Is(err, sentinel) {
			return usagef("kuis %s: %s", name, strings.TrimPrefix(err.Error(), "kuis: "))
		}
	}
	return nil
}

// quizArgs are the quiz IDs of a command's arguments, each once, or, when
// all is set, the quizzes of the namespace (Store.Quizzes) whose status keep
// accepts (every one when keep is nil). It returns how many quizzes it could
// not read the status of, each reported.
func (c *cli) quizArgs(ctx context.Context, name string, args []string, all bool, keep func(kuis.Status) bool) ([]string, int, error) {
	if !all {
		var ids []string
		for _, id := range args {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		return ids, 0, c.checkIDs(name, ids...)
	}
	sctx, cancel := c.step(ctx)
	defer cancel()
	ids, err := c.store.Quizzes(sctx)
	if err != nil {
		return nil, 0, c.fail(name, err)
	}
	if keep == nil {
		return ids, 0, nil
	}
	var kept []string
	failed := 0
	for _, id := range ids {
		meta, err := c.store.Meta(id)
		if err != nil {
			return nil, 0, c.fail(name+" "+id, err)
		}
		st, err := meta.Status(sctx)
		switch {
		case errors.Is(err, kuis.ErrQuizNotFound): // purged meanwhile
		case err != nil:
			c.report(name+" "+id, err)
			failed++
		case keep(st):
			kept = append(kept, id)
		}
	}
	return kept, failed, nil
}

// checkIDs makes an invalid quiz ID a usage error (no I/O).
func (c *cli) checkIDs(name string, ids ...string) error {
	for _, id := range ids {
		if _, err := c.store.Keys(id); err != nil {
			return cmp.Or(inputError(name, err), err)
		}
	}
	return nil
}

// open connects and returns what of gives for id (*kuis.Store's Board,
// Course or Keys): an invalid ID is a usage error of command name.
func open[T any](ctx context.Context, c *cli, name, id string, of func(*kuis.Store, string) (T, error)) (T, error) {
	if err := c.connect(ctx); err != nil {
		var none T
		return none, err
	}
	h, err := of(c.store, id)
	return h, cmp.Or(inputError(name, err), err)
}

// isTerminal reports whether w is a terminal, where progress is redrawn in
// place and the live board is drawn as a screen.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
