package kuis_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// env is one test's view of the target server (miniredis, REDIS_ADDR or
// REDIS_CLUSTER_ADDRS): a client, a namespace of the test's own, and the Store
// built on them (WithHashTag on a cluster).
type env struct {
	t      testing.TB
	ctx    context.Context
	client rueidis.Client
	ns     string
	opts   []kuis.Option // what store was built with
	tune   kuis.Tuning   // and this
	store  *kuis.Store
}

// newEnv connects to the target; extra options are added after the defaults.
func newEnv(t testing.TB, extra ...kuis.Option) *env {
	t.Helper()
	return envWith(t, redistest.Client(t), extra...)
}

// newTunedEnv is newEnv whose stores have the library's bounds changed by tune.
func newTunedEnv(t testing.TB, tune kuis.Tuning, extra ...kuis.Option) *env {
	t.Helper()
	return envTuned(t, redistest.Client(t), tune, extra...)
}

// envWith is newEnv on a given client (another ACL user, a miniredis of the test's own).
func envWith(t testing.TB, client rueidis.Client, extra ...kuis.Option) *env {
	t.Helper()
	return envTuned(t, client, kuis.Tuning{}, extra...)
}

// testSilence is the silence bound of the tests' Stores: a loaded 2-core
// machine running -race may take seconds over one big command on miniredis,
// which a test of something else must not fail for. servertest's silence
// tests set their own.
const testSilence = time.Minute

func envTuned(t testing.TB, client rueidis.Client, tune kuis.Tuning, extra ...kuis.Option) *env {
	t.Helper()
	ns := redistest.Namespace(t)
	opts := []kuis.Option{kuis.WithNamespace(ns), kuis.WithSilence(testSilence)}
	if redistest.Cluster() {
		opts = append(opts, kuis.WithHashTag())
	}
	opts = append(opts, extra...)
	e := &env{t: t, ctx: context.Background(), client: client, ns: ns, opts: opts, tune: tune}
	e.store = e.storeOn(client)
	t.Cleanup(func() {
		// Leave a shared server as we found it; Purge touches only our namespace.
		if _, err := e.store.Purge(context.Background()); err != nil {
			t.Logf("cleanup purge of %s: %v", ns, err)
		}
	})
	return e
}

// storeOn is a Store of the env's namespace, options and tuning on another
// client (another ACL user, a second connection), with extra options added.
func (e *env) storeOn(client rueidis.Client, extra ...kuis.Option) *kuis.Store {
	e.t.Helper()
	return e.tunedOn(client, e.tune, extra...)
}

// tunedOn is storeOn with the library's bounds changed by tune instead.
func (e *env) tunedOn(client rueidis.Client, tune kuis.Tuning, extra ...kuis.Option) *kuis.Store {
	e.t.Helper()
	s, err := kuis.NewTuned(client, tune, append(append([]kuis.Option{}, e.opts...), extra...)...)
	if err != nil {
		e.t.Fatalf("kuis.New: %v", err)
	}
	return s
}

var quizSeq atomic.Int64

// quizID returns a quiz ID unused in this process.
func quizID() string { return fmt.Sprintf("kuis-%02d", quizSeq.Add(1)) }

// meta returns the teacher's handle on quiz id.
func (e *env) meta(id string) *kuis.Meta {
	e.t.Helper()
	m, err := e.store.Meta(id)
	if err != nil {
		e.t.Fatalf("Meta(%q): %v", id, err)
	}
	return m
}

// board returns the application's handle on quiz id.
func (e *env) board(id string) *kuis.Board {
	e.t.Helper()
	b, err := e.store.Board(id)
	if err != nil {
		e.t.Fatalf("Board(%q): %v", id, err)
	}
	return b
}

// keys returns the key names of quiz id.
func (e *env) keys(id string) kuis.Keys {
	e.t.Helper()
	k, err := e.store.Keys(id)
	if err != nil {
		e.t.Fatalf("Keys(%q): %v", id, err)
	}
	return k
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

// handles returns s's Board and Meta of quiz id.
func handles(t testing.TB, s *kuis.Store, id string) (*kuis.Board, *kuis.Meta) {
	t.Helper()
	b, err := s.Board(id)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Meta(id)
	if err != nil {
		t.Fatal(err)
	}
	return b, m
}

// finish finishes quiz id.
func (e *env) finish(id string) {
	e.t.Helper()
	if err := e.meta(id).Finish(e.ctx); err != nil {
		e.t.Fatalf("Finish(%q): %v", id, err)
	}
}

// referenceRounds is the contract's reference session, one question per
// round: round 1 Ali, Citra; round 2 Ali, Budi, Citra; round 3 all four.
var referenceRounds = [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}}

// reference plays the reference session's writes on a new quiz of 3
// questions: question r is answered by round r. Board: Citra 30, Ali 30,
// Budi 20, Dewi 10.
func (e *env) reference() (string, *kuis.Meta, *kuis.Board) {
	e.t.Helper()
	id, m, b := e.running(3)
	for q, round := range referenceRounds {
		for _, name := range round {
			if _, err := b.RecordAnswer(e.ctx, name, q+1); err != nil {
				e.t.Fatalf("RecordAnswer(%q, %d): %v", name, q+1, err)
			}
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

// instance is the ID of quiz id's first log entry, the Recap's Instance,
// read from the log itself; kuis.NoInstance for an empty log.
func (e *env) instance(id string) string {
	e.t.Helper()
	entries, err := e.client.Do(e.ctx, e.client.B().Xrange().Key(e.keys(id).Log()).Start("-").End("+").Count(1).Build()).AsXRange()
	if err != nil {
		e.t.Fatalf("XRANGE %s: %v", e.keys(id).Log(), err)
	}
	if len(entries) == 0 {
		return kuis.NoInstance
	}
	return entries[0].ID
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

// dump is dumpKeys of keys through the env's client.
func (e *env) dump(keys ...string) map[string]string {
	e.t.Helper()
	return dumpKeys(e.t, e.ctx, e.client, keys...)
}

// dumpKeys and commandCalls read a server behind the library's back; the
// tests of servertest/ share them.
var (
	dumpKeys     = redistest.DumpKeys
	commandCalls = redistest.CommandCalls
)

// recorder is redistest.Recorder under the names the root's tests call it by.
type recorder struct{ *redistest.Recorder }

func newRecorder(c rueidis.Client) recorder { return recorder{redistest.NewRecorder(c)} }

func (r recorder) start() { r.Start() }

func (r recorder) stop() []string { return r.Stop() }

// csvRows takes the quiz's recap, writes it with WriteCSV and reads it back
// with encoding/csv: the header row, then one row per participant.
func (e *env) csvRows(id string) [][]string {
	e.t.Helper()
	recap, err := e.store.Recap(e.ctx, id)
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

// serverMillis reads the server's clock (TIME) in Unix milliseconds.
func (e *env) serverMillis() int64 {
	e.t.Helper()
	tm, err := e.client.Do(e.ctx, e.client.B().Time().Build()).AsStrSlice()
	if err != nil || len(tm) != 2 {
		e.t.Fatalf("TIME: %q, %v", tm, err)
	}
	s, err1 := strconv.ParseInt(tm[0], 10, 64)
	us, err2 := strconv.ParseInt(tm[1], 10, 64)
	if err1 != nil || err2 != nil {
		e.t.Fatalf("TIME: %q", tm)
	}
	return s*1000 + us/1000
}

// nextMillisecond waits until the server's clock shows a later millisecond
// than when it was called, so that the next log entry's time is later than
// the last's: a signal from the server, not a sleep of a guessed length. On
// miniredis whose clock a test set, call SetTime instead.
func (e *env) nextMillisecond() {
	e.t.Helper()
	start := e.serverMillis()
	for deadline := time.Now().Add(5 * time.Second); e.serverMillis() <= start; {
		if time.Now().After(deadline) {
			e.t.Fatal("the server's clock did not move in 5 s")
		}
	}
}

// signalWait bounds a test's wait for a signal that comes in milliseconds on
// an idle machine: generous, so that only a missing signal fails the test.
const signalWait = 30 * time.Second

// longBlock is the feed's XREAD BLOCK in tests that prove a reader ends on its
// ctx: far beyond signalWait, so that a block timing out cannot pass for it.
const longBlock = 10 * time.Minute

// libraryGoroutines returns the stacks of the goroutines the library runs:
// those whose entry function, or the function that started them, is code of
// package kuis or its internal packages (outside _test.go files and
// internal/redistest), such as a feed hub's run or a coalescer's drive. A
// goroutine of a test, even inside a library call, and those of rueidis,
// miniredis and the testing package never count.
func libraryGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	// A frame is two lines: the function, then its file; a goroutine's
	// entry function is its last frame, followed by "created by".
	library := func(fn, file string) bool {
		fn = strings.TrimPrefix(fn, "created by ")
		file, _, _ = strings.Cut(strings.TrimSpace(file), ":")
		return (strings.HasPrefix(fn, "github.com/kuisboard/kuis.") || strings.HasPrefix(fn, "github.com/kuisboard/kuis/internal/")) &&
			!strings.HasPrefix(fn, "github.com/kuisboard/kuis/internal/redistest.") && !strings.HasSuffix(file, "_test.go")
	}
	var out []string
	for _, g := range strings.Split(strings.TrimSpace(string(buf)), "\n\n") {
		lines := strings.Split(g, "\n")
		created := len(lines)
		for i, l := range lines {
			if strings.HasPrefix(l, "created by ") {
				created = i
				break
			}
		}
		entry := created >= 3 && library(lines[created-2], lines[created-1])
		creator := created+1 < len(lines) && library(lines[created], lines[created+1])
		if entry || creator {
			out = append(out, g)
		}
	}
	return out
}

// libraryGoroutinesAfter polls libraryGoroutines until none is left, for at
// most within, and returns those left then.
func libraryGoroutinesAfter(within time.Duration) []string {
	deadline := time.Now().Add(within)
	for {
		gs := libraryGoroutines()
		if len(gs) == 0 || time.Now().After(deadline) {
			return gs
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// errOf is the error of a call's two results.
func errOf[T any](_ T, err error) error { return err }

// quietRound runs read calls times and returns how many of each watched
// command the server ran meanwhile, and their total. The counters are
// server-wide and another client (another package's tests) may share the
// server: unless once is set, it tries again until one round sends at most
// handful commands or signalWait has passed, so that a cached read passes if
// one round is quiet, while an uncached read pays in every round.
func quietRound(t testing.TB, e *env, watched []string, calls, handful int, read func(), once bool) (map[string]int64, int64) {
	t.Helper()
	var sent map[string]int64
	var total int64
	for deadline := time.Now().Add(signalWait); ; {
		before := commandCalls(t, e.ctx, e.client, watched...)
		for range calls {
			read()
		}
		sent, total = commandCalls(t, e.ctx, e.client, watched...), 0
		for c := range sent {
			sent[c] -= before[c]
			total += sent[c]
		}
		if once || total <= int64(handful) || time.Now().After(deadline) {
			return sent, total
		}
	}
}

// countOf is how many times s holds v.
func countOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// logOf is the quiz's log without entry IDs, one word per entry, in order:
// "start", "finish", "join <participant>", "answer <participant> <question>
// <score>", or the fields of any other entry.
func logOf(e *env, k kuis.Keys) []string {
	e.t.Helper()
	entries, err := e.mustRaw("XRANGE", k.Log(), "-", "+").AsXRange()
	if err != nil {
		e.t.Fatalf("XRANGE %s: %v", k.Log(), err)
	}
	out := []string{}
	for _, x := range entries {
		f := x.FieldValues
		p, named := f["peserta"]
		switch {
		case len(f) == 1 && f["status"] == "berjalan":
			out = append(out, "start")
		case len(f) == 1 && f["status"] == "selesai":
			out = append(out, "finish")
		case len(f) == 2 && named && f["skor"] == "0":
			out = append(out, "join "+p)
		case len(f) == 3 && named:
			out = append(out, "answer "+p+" "+f["soal"]+" "+f["skor"])
		default:
			out = append(out, fmt.Sprint(f))
		}
	}
	return out
}

// readResults are reads by name: each one's value, or its error's text in
// its place, so that two users' reads compare whole.
type readResults map[string]any

// pick records the read name.
func (r readResults) pick(name string, v any, err error) {
	if err != nil {
		r[name] = err.Error()
		return
	}
	r[name] = v
}
