// Package servertest_test holds the tests that start their own redis-server
// processes (redistest.Servers), on a primary with a replica or broken on
// purpose: replicas, a course's writes that wait for one, faults, failover,
// a server that cannot serve, a cluster's dead replica. Each runs in the one
// target's run its servers suit, and skips in -short mode.
package servertest_test

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// env is a test's Store, in a namespace of its own purged at cleanup, on a
// client: the target's (newEnv) or that of a server of the test's own
// (envWith).
type env struct {
	store  *kuis.Store
	client rueidis.Client
	ns     string
	ctx    context.Context
	t      testing.TB
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return envWith(t, redistest.Client(t))
}

func envWith(t testing.TB, client rueidis.Client) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), client: client, ns: redistest.Namespace(t)}
	e.store = e.storeOn(client)
	t.Cleanup(func() {
		if _, err := e.store.Purge(context.Background()); err != nil {
			t.Logf("cleanup purge of %s: %v", e.ns, err)
		}
	})
	return e
}

// storeOn is a Store of the env's namespace (hash-tagged on a cluster) on
// client, with the extra options.
func (e *env) storeOn(client rueidis.Client, extra ...kuis.Option) *kuis.Store {
	e.t.Helper()
	opts := append([]kuis.Option{kuis.WithNamespace(e.ns)}, extra...)
	if redistest.Cluster() {
		opts = append(opts, kuis.WithHashTag())
	}
	s, err := kuis.New(client, opts...)
	if err != nil {
		e.t.Fatalf("kuis.New: %v", err)
	}
	return s
}

var quizSeq atomic.Int64

// quizID returns a quiz ID unused in this process.
func quizID() string { return fmt.Sprintf("kuis-%02d", quizSeq.Add(1)) }

// handles returns s's Board and Meta of quiz id.
func handles(t testing.TB, s *kuis.Store, id string) (*kuis.Board, *kuis.Meta) {
	t.Helper()
	b, errB := s.Board(id)
	m, errM := s.Meta(id)
	if err := errors.Join(errB, errM); err != nil {
		t.Fatal(err)
	}
	return b, m
}

func (e *env) board(id string) *kuis.Board { b, _ := handles(e.t, e.store, id); return b }

func (e *env) meta(id string) *kuis.Meta { _, m := handles(e.t, e.store, id); return m }

// keys returns the key names of quiz id.
func (e *env) keys(id string) kuis.Keys {
	e.t.Helper()
	k, err := e.store.Keys(id)
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}

// fiveKeys is the quiz's keys: meta, board, answers, log, order set.
func fiveKeys(k kuis.Keys) []string {
	return []string{k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()}
}

// running creates a fresh running quiz and returns its ID and handles.
func (e *env) running(questions int) (string, *kuis.Meta, *kuis.Board) {
	e.t.Helper()
	id := quizID()
	b, m := handles(e.t, e.store, id)
	if err := m.Create(e.ctx, "Kuis "+id, questions); err != nil {
		e.t.Fatalf("Create(%q): %v", id, err)
	}
	return id, m, b
}

// hostileQuiz creates a quiz of 5 questions in which Ali answered questions 1
// and 2 (20 points) and Budi question 1 (10 points), finished if asked.
func (e *env) hostileQuiz(finished bool) string {
	e.t.Helper()
	id, m, b := e.running(5)
	res, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: "Ali", Question: 1}, {Participant: "Ali", Question: 2}, {Participant: "Budi", Question: 1}})
	for _, r := range res {
		err = errors.Join(err, r.Err)
	}
	if err == nil && finished {
		err = m.Finish(e.ctx)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// mustRaw sends one command about key, failing the test on an error reply.
func (e *env) mustRaw(cmd, key string, args ...string) rueidis.RedisResult {
	e.t.Helper()
	res := e.client.Do(e.ctx, e.client.B().Arbitrary(cmd).Keys(key).Args(args...).Build())
	if err := res.Error(); err != nil && !rueidis.IsRedisNil(err) {
		e.t.Fatalf("%s %s %v: %v", cmd, key, args, err)
	}
	return res
}

func (e *env) dump(keys ...string) map[string]string {
	e.t.Helper()
	return redistest.DumpKeys(e.t, e.ctx, e.client, keys...)
}

var commandCalls = redistest.CommandCalls

// errOf is the error of a call's two results.
func errOf[T any](_ T, err error) error { return err }

// sentinelsOf lists the library's refusals err wraps: a refusal wraps
// exactly one, and a retry of it fails the same way.
func sentinelsOf(err error) []error {
	var out []error
	for _, s := range []error{
		kuis.ErrInvalidQuizID, kuis.ErrInvalidNamespace, kuis.ErrInvalidOption, kuis.ErrInvalidParticipant, kuis.ErrInvalidMeta,
		kuis.ErrInvalidQuestion, kuis.ErrInvalidRange, kuis.ErrNoClient, kuis.ErrQuizExists,
		kuis.ErrQuizNotFound, kuis.ErrQuizFinished, kuis.ErrQuizRunning, kuis.ErrNotOnBoard,
		kuis.ErrNoArchive, kuis.ErrCorrupt, kuis.ErrNeedsHashTag, kuis.ErrForbidden,
	} {
		if errors.Is(err, s) {
			out = append(out, s)
		}
	}
	return out
}

// runCounter is a client that counts the answers and the quizzes of every
// run of the record script it sends (one EVALSHA; its EVAL after NOSCRIPT
// is the same run).
type runCounter struct {
	rueidis.Client
	mu      sync.Mutex
	runs    []int // answers per run
	quizzes []int // quizzes per run
}

// recordSHA names the record script in EVALSHA.
var recordSHA = fmt.Sprintf("%x", sha1.Sum([]byte(script.RecordAnswer.Source())))

func newRunCounter(c rueidis.Client) *runCounter { return &runCounter{Client: c} }

func (c *runCounter) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	args := cmd.Commands()
	if len(args) > 3 && args[0] == "EVALSHA" && args[1] == recordSHA {
		keys, _ := strconv.Atoi(args[2])
		c.mu.Lock()
		c.runs, c.quizzes = append(c.runs, (len(args)-3-keys)/3), append(c.quizzes, keys/5)
		c.mu.Unlock()
	}
	return c.Client.Do(ctx, cmd)
}

// replicasStoreAs makes the ACL user with rules on primary (password "pw")
// and returns a Store WithReplicas(1, 10s) logged in as it, through a
// recorder of what it sends.
func replicasStoreAs(t *testing.T, primary *redistest.Server, user string, rules []string) (*kuis.Store, *redistest.Recorder) {
	t.Helper()
	if _, err := primary.Do(append([]string{"ACL", "SETUSER", user, "reset", "on", ">pw"}, rules...)...); err != nil {
		t.Fatal(err)
	}
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{primary.Addr()}, Username: user, Password: "pw", DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	rec := redistest.NewRecorder(c)
	s, err := kuis.New(rec, kuis.WithReplicas(1, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return s, rec
}
