package kuis_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// env is one test's view of the target server (miniredis, REDIS_ADDR or
// REDIS_CLUSTER_ADDRS): a client, and the options every handle of the test
// shares (a namespace of its own, and WithHashTag on a cluster).
type env struct {
	t      testing.TB
	ctx    context.Context
	client rueidis.Client
	ns     string
	opts   []kuis.Option
}

// newEnv connects to the target; extra options are added after the defaults.
func newEnv(t testing.TB, extra ...kuis.Option) *env {
	t.Helper()
	return envWith(t, redistest.Client(t), extra...)
}

// envWith is newEnv on a given client (another ACL user, a miniredis of the test's own).
func envWith(t testing.TB, client rueidis.Client, extra ...kuis.Option) *env {
	t.Helper()
	ns := redistest.Namespace(t)
	opts := []kuis.Option{kuis.WithNamespace(ns)}
	if redistest.Cluster() {
		opts = append(opts, kuis.WithHashTag())
	}
	opts = append(opts, extra...)
	e := &env{t: t, ctx: context.Background(), client: client, ns: ns, opts: opts}
	t.Cleanup(func() {
		// Leave a shared server as we found it; Purge touches only our namespace.
		if _, err := kuis.Purge(context.Background(), client, kuis.WithNamespace(ns)); err != nil {
			t.Logf("cleanup purge of %s: %v", ns, err)
		}
	})
	return e
}

var quizSeq atomic.Int64

// quizID returns a quiz ID unused in this process.
func quizID() string { return fmt.Sprintf("kuis-%02d", quizSeq.Add(1)) }

// meta returns the teacher's handle on quiz id.
func (e *env) meta(id string, extra ...kuis.Option) *kuis.Meta {
	e.t.Helper()
	m, err := kuis.NewMeta(e.client, id, append(append([]kuis.Option{}, e.opts...), extra...)...)
	if err != nil {
		e.t.Fatalf("NewMeta(%q): %v", id, err)
	}
	return m
}

// board returns the application's handle on quiz id.
func (e *env) board(id string, extra ...kuis.Option) *kuis.Board {
	e.t.Helper()
	b, err := kuis.NewBoard(e.client, id, append(append([]kuis.Option{}, e.opts...), extra...)...)
	if err != nil {
		e.t.Fatalf("NewBoard(%q): %v", id, err)
	}
	return b
}

// running creates a fresh running quiz and returns its ID and handles.
func (e *env) running(questions int) (string, *kuis.Meta, *kuis.Board) {
	e.t.Helper()
	id := quizID()
	m := e.meta(id)
	if err := m.Create(e.ctx, "Kuis "+id, questions); err != nil {
		e.t.Fatalf("Create(%q): %v", id, err)
	}
	return id, m, e.board(id)
}

// reference plays the contract's reference session's writes on a new quiz:
// meta with 3 questions, then Ali, Citra; Ali, Budi, Citra; Ali, Budi, Citra, Dewi.
func (e *env) reference() (string, *kuis.Meta, *kuis.Board) {
	e.t.Helper()
	id, m, b := e.running(3)
	for _, name := range []string{"Ali", "Citra", "Ali", "Budi", "Citra", "Ali", "Budi", "Citra", "Dewi"} {
		if _, err := b.RecordCorrect(e.ctx, name); err != nil {
			e.t.Fatalf("RecordCorrect(%q): %v", name, err)
		}
	}
	return id, m, b
}

// raw sends one command about key, routed by that key on a cluster.
func (e *env) raw(cmd, key string, args ...string) rueidis.RedisResult {
	return e.client.Do(e.ctx, e.client.B().Arbitrary(cmd).Keys(key).Args(args...).Build())
}

// mustRaw is raw that fails the test on an error reply.
func (e *env) mustRaw(cmd, key string, args ...string) rueidis.RedisResult {
	e.t.Helper()
	res := e.raw(cmd, key, args...)
	if err := res.Error(); err != nil && !rueidis.IsRedisNil(err) {
		e.t.Fatalf("%s %s %v: %v", cmd, key, args, err)
	}
	return res
}

// exists reports whether key exists.
func (e *env) exists(key string) bool {
	e.t.Helper()
	n, err := e.mustRaw("EXISTS", key).AsInt64()
	if err != nil {
		e.t.Fatal(err)
	}
	return n == 1
}

// csvRows takes the quiz's recap, writes it with WriteCSV and reads it back
// with encoding/csv: the header row, then one row per participant.
func (e *env) csvRows(id string) [][]string {
	e.t.Helper()
	recap, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := recap.WriteCSV(&buf); err != nil {
		e.t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		e.t.Fatal(err)
	}
	return rows
}
