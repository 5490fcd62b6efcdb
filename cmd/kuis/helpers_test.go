package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// target is the server of a test of the command (miniredis, REDIS_ADDR or
// REDIS_CLUSTER_ADDRS, as the rest of the suite): the flags that point kuis
// at it in a namespace of the test's own, and the library's Store there,
// which sets up what kuis then reads.
type target struct {
	t      *testing.T
	ctx    context.Context
	ns     string
	flags  []string // before the command: -addr or -cluster, -namespace
	client rueidis.Client
	store  *kuis.Store
	env    map[string]string // what kuis's getenv sees: nothing unless a test sets it
}

func newTarget(t *testing.T) *target {
	t.Helper()
	ns := redistest.Namespace(t)
	tg := &target{t: t, ctx: context.Background(), ns: ns, env: map[string]string{}}
	opts := []kuis.Option{kuis.WithNamespace(ns)}
	switch redistest.Target() {
	case "miniredis":
		m, c := redistest.Miniredis(t)
		tg.client, tg.flags = c, []string{"-addr", m.Addr()}
	case "standalone":
		tg.client, tg.flags = redistest.Client(t), []string{"-addr", redistest.Nodes()[0]}
	case "cluster":
		tg.client, tg.flags = redistest.Client(t), []string{"-cluster", strings.Join(redistest.Nodes(), ",")}
		opts = append(opts, kuis.WithHashTag())
	}
	tg.flags = append(tg.flags, "-namespace", ns)
	return tg.on(tg.client, tg.flags, opts...)
}

// on completes tg for a client and the flags that reach its server, and
// purges the namespace at cleanup.
func (tg *target) on(client rueidis.Client, flags []string, opts ...kuis.Option) *target {
	tg.t.Helper()
	store, err := kuis.New(client, opts...)
	if err != nil {
		tg.t.Fatal(err)
	}
	tg.client, tg.flags, tg.store = client, flags, store
	tg.t.Cleanup(func() {
		if _, err := store.Purge(context.Background()); err != nil {
			tg.t.Errorf("purge namespace %s: %v", tg.ns, err)
		}
	})
	return tg
}

// result is what one run of kuis did.
type result struct {
	code           int
	stdout, stderr string
}

// kuis runs the command in-process with the target's flags first.
func (tg *target) kuis(args ...string) result {
	tg.t.Helper()
	return tg.kuisCtx(tg.ctx, args...)
}

func (tg *target) kuisCtx(ctx context.Context, args ...string) result {
	return tg.kuisIn(ctx, "", args...)
}

// kuisIn runs the command in-process with stdin as its standard input.
func (tg *target) kuisIn(ctx context.Context, stdin string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(ctx, append(append([]string{}, tg.flags...), args...), tg.getenv, strings.NewReader(stdin), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

func (tg *target) getenv(k string) string { return tg.env[k] }

// must runs kuis and fails the test unless it exits 0 with nothing on stderr.
func (tg *target) must(args ...string) string {
	tg.t.Helper()
	r := tg.kuis(args...)
	if r.code != 0 || r.stderr != "" {
		tg.t.Fatalf("kuis %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

// reference is the contract's reference session in quiz id: Citra 30, Ali
// 30, Budi 20, Dewi 10, finished when finish is set.
func (tg *target) reference(id string, finish bool) {
	tg.t.Helper()
	tg.quiz(id, "Kuis Matematika Kelas 8", 3, [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}}, finish)
}

// quiz creates quiz id with the library, with opts: rounds[q-1] answer
// question q.
func (tg *target) quiz(id, title string, questions int, rounds [][]string, finish bool, opts ...kuis.CreateOption) {
	tg.t.Helper()
	meta, err := tg.store.Meta(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	if err := meta.Create(tg.ctx, title, questions, opts...); err != nil {
		tg.t.Fatal(err)
	}
	board, err := tg.store.Board(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	for q, names := range rounds {
		for _, name := range names {
			if _, err := board.RecordAnswer(tg.ctx, name, q+1); err != nil {
				tg.t.Fatal(err)
			}
		}
	}
	if finish {
		if err := meta.Finish(tg.ctx); err != nil {
			tg.t.Fatal(err)
		}
	}
}

// keys are the key names of quiz id.
func (tg *target) keys(id string) kuis.Keys {
	tg.t.Helper()
	k, err := tg.store.Keys(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	return k
}

// raw sends a command behind the library's back, to break the contract.
func (tg *target) raw(args ...string) {
	tg.t.Helper()
	if err := tg.client.Do(tg.ctx, tg.client.B().Arbitrary(args...).Build()).Error(); err != nil {
		tg.t.Fatalf("%v: %v", args, err)
	}
}

// exists reports whether quiz id still has its meta key.
func (tg *target) exists(id string) bool {
	tg.t.Helper()
	n, err := tg.client.Do(tg.ctx, tg.client.B().Exists().Key(tg.keys(id).Meta()).Build()).AsInt64()
	if err != nil {
		tg.t.Fatal(err)
	}
	return n == 1
}

// lines splits output into its lines, without the last line end.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// progressLine is a line of progress, which a slow machine may print
// among the errors.
var progressLine = regexp.MustCompile(`^[a-z ]+: [0-9]+/[0-9]+ quizzes`)

// oneLine fails the test unless stderr is exactly one line (progress
// aside) that starts with prefix and holds each of words.
func oneLine(t *testing.T, what, stderr, prefix string, words ...string) {
	t.Helper()
	var ls []string
	for _, l := range lines(stderr) {
		if !progressLine.MatchString(l) {
			ls = append(ls, l)
		}
	}
	if len(ls) != 1 || !strings.HasPrefix(ls[0], prefix) {
		t.Errorf("%s: stderr %q, want one line starting %q", what, stderr, prefix)
		return
	}
	for _, w := range words {
		if !strings.Contains(ls[0], w) {
			t.Errorf("%s: stderr %q does not say %q", what, ls[0], w)
		}
	}
}

// syncBuffer is a bytes.Buffer that a run on another goroutine writes while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runKuis runs kuis in-process with the environment env.
func runKuis(env map[string]string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// unreachable is an address where nothing listens: a usage error must be
// found before kuis tries to connect.
const unreachable = "127.0.0.1:1"

// course is the library's handle on course id in the target's namespace.
func (tg *target) course(id string) *kuis.Course {
	tg.t.Helper()
	c, err := tg.store.Course(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	return c
}

// courseBoard is the whole board of course id, as the library reads it.
func (tg *target) courseBoard(id string) []kuis.Standing {
	tg.t.Helper()
	s, err := tg.course(id).Standings(tg.ctx)
	if err != nil {
		tg.t.Fatal(err)
	}
	return s
}

// standings is a board of participants and scores, ranked as the library
// ranks a course: by score, equal scores in reverse byte order of names.
func standings(pairs ...any) []kuis.Standing {
	out := []kuis.Standing{}
	for i := 0; i+1 < len(pairs); i += 2 {
		s := kuis.Standing{Rank: len(out) + 1, CompetitionRank: len(out) + 1, Participant: pairs[i].(string), Score: int64(pairs[i+1].(int))}
		if n := len(out); n > 0 && out[n-1].Score == s.Score {
			s.CompetitionRank = out[n-1].CompetitionRank
		}
		out = append(out, s)
	}
	return out
}

// dirNames lists the names in directory dir, sorted, failing the test when
// it cannot be read.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// instanceDir is where purge archives the recap's quiz under dir:
// dir/<quiz>/<instance>/.
func instanceDir(dir string, r kuis.Recap) string {
	return filepath.Join(dir, r.QuizID, r.Instance)
}

// checkArchive fails the test unless dir/<quiz>/<instance>/ holds the four
// files of want's archive, whole: each CSV the library's writer's bytes with
// opts (none: the default form), and recap.json json.Marshal of want with
// the time it was taken at, readable by their owner only, and no temporary
// file beside them.
func checkArchive(t *testing.T, dir string, want kuis.Recap, opts ...kuis.CSVOption) {
	t.Helper()
	qdir := instanceDir(dir, want)
	var files []string
	entries, err := os.ReadDir(qdir)
	if err != nil {
		t.Errorf("archive of %s: %v", want.QuizID, err)
		return
	}
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if diff := cmp.Diff([]string{"answers.csv", "gradebook.csv", "recap.json", "standings.csv"}, files); diff != "" {
		t.Errorf("archive of %s holds (-want +got):\n%s", want.QuizID, diff)
	}
	if err := archiveMatches(qdir, want, opts...); err != nil {
		t.Errorf("archive of %s: %v", want.QuizID, err)
	}
	for _, f := range archiveFiles {
		switch st, err := os.Stat(filepath.Join(qdir, f.name)); {
		case err != nil:
			t.Errorf("archive of %s: %v", want.QuizID, err)
		case st.Mode().Perm() != 0o600:
			t.Errorf("archive of %s: %s has mode %v, want 0600", want.QuizID, f.name, st.Mode())
		}
	}
}

// archiveMatches says how the four files in qdir differ from want's
// archive, its CSV files written with opts, or nil when each is whole and
// the same.
func archiveMatches(qdir string, want kuis.Recap, opts ...kuis.CSVOption) error {
	for _, f := range archiveFiles {
		got, err := os.ReadFile(filepath.Join(qdir, f.name))
		if err != nil {
			return err
		}
		if f.format == "json" {
			var taken struct {
				TakenAt json.RawMessage `json:"taken_at"`
			}
			if err := json.Unmarshal(got, &taken); err != nil {
				return err
			}
			if err := json.Unmarshal(taken.TakenAt, &want.TakenAt); err != nil {
				return err
			}
		}
		data, err := render(want, f.format, opts...)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(string(data), string(got)); diff != "" {
			return &mismatch{f.name, diff}
		}
	}
	return nil
}

type mismatch struct{ file, diff string }

func (m *mismatch) Error() string { return m.file + " (-want +got):\n" + m.diff }

// rosterFile writes a roster into the test's temporary directory.
func rosterFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "roster.csv")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitFor polls until cond holds, or fails the test after a generous bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// words is each line of a table with its columns one space apart.
func words(s string) []string {
	ls := lines(s)
	for i, l := range ls {
		ls[i] = strings.Join(strings.Fields(l), " ")
	}
	return ls
}

// sameRecords fails the test unless got, read with encoding/csv's Comma set
// to comma, holds the records that plain, the default form, holds, and
// holds comma: the delimiter separated the fields.
func sameRecords(t *testing.T, what string, comma rune, got, plain string) {
	t.Helper()
	read := func(s string, comma rune) [][]string {
		r := csv.NewReader(strings.NewReader(s))
		r.Comma = comma
		r.FieldsPerRecord = -1
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return rows
	}
	want := read(plain, ',')
	if diff := cmp.Diff(want, read(got, comma)); diff != "" || len(want) < 2 || len(want[0]) < 2 {
		t.Errorf("%s read with Comma %q (-want +got):\n%s", what, comma, diff)
	}
	if comma != ',' && !strings.ContainsRune(got, comma) {
		t.Errorf("%s: no %q in %q", what, comma, got)
	}
}
