package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

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
// drawn, with what a terminal would act on escaped (visibleWords).
func (c *cli) errorLine(msg string) {
	if c.progress != nil {
		c.progress.clear()
	}
	fmt.Fprintln(c.stderr, visibleWords(msg))
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
	var node *nodeError
	if errors.As(err, &node) {
		addrs = node.addr
	}
	var opErr *net.OpError
	var re *rueidis.RedisError
	switch {
	case loginRefusal(err) != "":
		return fmt.Sprintf("Redis at %s refused the login of user %q: %s", c.refusedBy(node), user, loginRefusal(err))
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

// nodeError is the error of one node, which words names instead of the
// servers kuis was given.
type nodeError struct {
	addr string
	err  error
}

func (e *nodeError) Error() string { return e.err.Error() } // the line that reports it names the node
func (e *nodeError) Unwrap() error { return e.err }

// loginRefusal is the server's words when err is its refusal of a login,
// else "": WRONGPASS or NOAUTH, or NOPERM for HELLO, the handshake rueidis
// sends first (Redis names the command it refused in its words; the
// library passes them on in an ErrForbidden when the refusal came as a
// command's reply, on a cluster node rueidis logged in to late).
func loginRefusal(err error) string {
	if err == nil {
		return ""
	}
	var re *rueidis.RedisError
	if errors.As(err, &re) && (strings.HasPrefix(re.Error(), "WRONGPASS") || strings.HasPrefix(re.Error(), "NOAUTH")) {
		return re.Error()
	}
	if _, refusal, ok := strings.Cut(err.Error(), "NOPERM"); ok && strings.Contains(refusal, "'hello'") {
		return "NOPERM" + refusal
	}
	return ""
}

// loginProbe bounds refusedBy's logins.
const loginProbe = 10 * time.Second

// refusedBy names the nodes that refuse kuis's login: node when the
// refusal came from it, the server on a standalone one; on a cluster, where
// rueidis does not say which node refused (it logs in to a node the first
// time it sends it a command), those of the seeds and of the nodes the
// client knows that refuse a login now, else the seeds.
func (c *cli) refusedBy(node *nodeError) string {
	switch {
	case node != nil:
		return node.addr
	case c.g.cluster == "":
		return strings.Join(c.addrs, ",")
	}
	addrs := slices.Clone(c.addrs)
	if c.client != nil {
		for addr := range c.client.Nodes() {
			if !slices.Contains(addrs, addr) {
				addrs = append(addrs, addr)
			}
		}
	}
	wait := loginProbe
	if c.g.timeout > 0 {
		wait = min(wait, c.g.timeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	refused := make([]bool, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Go(func() { refused[i] = loginRefusal(login(ctx, addr, c.g.user, c.password, false)) != "" })
	}
	wg.Wait()
	var named []string
	for i, addr := range addrs {
		if refused[i] {
			named = append(named, addr)
		}
	}
	if len(named) == 0 {
		return strings.Join(c.addrs, ",")
	}
	slices.Sort(named)
	return strings.Join(named, ",")
}

// conflictWords says, from the fields of the library's *kuis.ConflictError,
// what the course holds against what it was given and what the operator
// does about it; each field read from the data is visible.
func conflictWords(err error) string {
	var ce *kuis.ConflictError
	if !errors.As(err, &ce) {
		return strings.TrimPrefix(err.Error(), "kuis: ")
	}
	shown := *ce // a copy: the caller's error keeps its fields as they are
	ce = &shown
	for _, f := range []*string{&ce.Course, &ce.Quiz, &ce.Instance, &ce.Held, &ce.Given} {
		*f = visible(*f)
	}
	ce.Instances = slices.Clone(ce.Instances)
	for i, id := range ce.Instances {
		ce.Instances[i] = visible(id)
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
