package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// clusterOnly skips tests that need a real Redis Cluster.
func clusterOnly(t *testing.T) {
	t.Helper()
	if !redistest.Cluster() {
		t.Skipf("needs a real Redis Cluster (REDIS_CLUSTER_ADDRS); target is %s", redistest.Target())
	}
}

// multiKeyCalls are the library's entry points that run a script over several
// keys of one quiz, and so must refuse a cluster client without WithHashTag.
// Each returns the constructor's or the call's error; archived is set when
// PurgeQuiz calls its archive function.
func multiKeyCalls(archived *bool) []struct {
	name string
	call func(ctx context.Context, c rueidis.Client, id string, opts []kuis.Option) error
} {
	return []struct {
		name string
		call func(ctx context.Context, c rueidis.Client, id string, opts []kuis.Option) error
	}{
		{"NewBoard", func(ctx context.Context, c rueidis.Client, id string, opts []kuis.Option) error {
			_, err := kuis.NewBoard(c, id, opts...)
			return err
		}},
		{"NewMeta", func(ctx context.Context, c rueidis.Client, id string, opts []kuis.Option) error {
			_, err := kuis.NewMeta(c, id, opts...)
			return err
		}},
		{"TakeRecap", func(ctx context.Context, c rueidis.Client, id string, opts []kuis.Option) error {
			_, err := kuis.TakeRecap(ctx, c, id, opts...)
			return err
		}},
		{"PurgeQuiz", func(ctx context.Context, c rueidis.Client, id string, opts []kuis.Option) error {
			_, err := kuis.PurgeQuiz(ctx, c, id, func(context.Context, kuis.Recap) error {
				*archived = true
				return nil
			}, opts...)
			return err
		}},
	}
}

// callNoPanic runs f and turns a panic (rueidis' cross-slot check panics) into an error.
func callNoPanic(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// TestClusterModeClientWithoutHashTagGetsErrNeedsHashTag uses a client that
// rueidis runs in cluster mode (miniredis answers CLUSTER SLOTS with a one-node
// cluster), so it runs on every target: without WithHashTag every multi-key
// entry point refuses before any I/O, and with it the same calls work.
func TestClusterModeClientWithoutHashTagGetsErrNeedsHashTag(t *testing.T) {
	m := miniredis.RunT(t)
	// No ForceSingleClient: this is how a caller ends up with a cluster client.
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{m.Addr()}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if c.Mode() != rueidis.ClientModeCluster {
		t.Fatalf("client mode %q, want %q: the test needs a cluster-mode client", c.Mode(), rueidis.ClientModeCluster)
	}
	ctx := context.Background()
	var archived bool
	for _, tc := range multiKeyCalls(&archived) {
		t.Run(tc.name+"/untagged", func(t *testing.T) {
			err := callNoPanic(func() error { return tc.call(ctx, c, "kuis-01", nil) })
			if !errors.Is(err, kuis.ErrNeedsHashTag) {
				t.Errorf("err = %v, want ErrNeedsHashTag", err)
			}
		})
	}
	if archived {
		t.Error("PurgeQuiz called archive on a refused client")
	}
	if keys := m.Keys(); len(keys) != 0 {
		t.Errorf("refused calls wrote keys: %v", keys)
	}

	t.Run("tagged", func(t *testing.T) {
		opts := []kuis.Option{kuis.WithHashTag()}
		err := callNoPanic(func() error {
			meta, err := kuis.NewMeta(c, "kuis-01", opts...)
			if err != nil {
				return err
			}
			if err := meta.Create(ctx, "Kuis 1", 3); err != nil {
				return err
			}
			b, err := kuis.NewBoard(c, "kuis-01", opts...)
			if err != nil {
				return err
			}
			if _, err := b.RecordAnswer(ctx, "Ali", 1); err != nil {
				return err
			}
			if err := meta.Finish(ctx); err != nil {
				return err
			}
			recap, err := kuis.TakeRecap(ctx, c, "kuis-01", opts...)
			if err != nil {
				return err
			}
			if want := []kuis.Standing{{Rank: 1, Participant: "Ali", Score: 10}}; !cmp.Equal(want, recap.Standings) {
				return fmt.Errorf("recap standings %v, want %v", recap.Standings, want)
			}
			n, err := kuis.PurgeQuiz(ctx, c, "kuis-01", func(context.Context, kuis.Recap) error { return nil }, opts...)
			if err != nil {
				return err
			}
			if n != 3 {
				return fmt.Errorf("PurgeQuiz deleted %d keys, want 3", n)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if keys := m.Keys(); len(keys) != 0 {
			t.Errorf("keys left after PurgeQuiz: %v", keys)
		}
	})
}

// TestClusterUntaggedEntryPointsRefuseAndAuditWorks: on a real cluster the
// multi-key entry points refuse an untagged quiz, while Audit and Quizzes,
// which send one command per key, work on the contract's untagged keys.
func TestClusterUntaggedEntryPointsRefuseAndAuditWorks(t *testing.T) {
	clusterOnly(t)
	e := newEnv(t)
	untagged := []kuis.Option{kuis.WithNamespace(e.ns)}
	id := quizID()
	var archived bool
	for _, tc := range multiKeyCalls(&archived) {
		t.Run(tc.name, func(t *testing.T) {
			err := callNoPanic(func() error { return tc.call(e.ctx, e.client, id, untagged) })
			if !errors.Is(err, kuis.ErrNeedsHashTag) {
				t.Errorf("err = %v, want ErrNeedsHashTag", err)
			}
		})
	}
	if archived {
		t.Error("PurgeQuiz called archive on a refused client")
	}

	// The contract's own untagged keys, written by hand: they live in different slots.
	k, err := kuis.NewKeys(id, untagged...)
	if err != nil {
		t.Fatal(err)
	}
	e.mustRaw("HSET", k.Meta(), "judul", "Kuis "+id, "jumlah_soal", "3", "status", "berjalan")
	e.mustRaw("ZINCRBY", k.Board(), "10", "Ali")
	e.mustRaw("SADD", k.Answers(), "1:Ali")
	violations, err := kuis.Audit(e.ctx, e.client, id, untagged...)
	if err != nil || len(violations) != 0 {
		t.Errorf("Audit of a valid untagged quiz = %v, %v; want none", violations, err)
	}
	e.mustRaw("ZINCRBY", k.Board(), "5", "Budi")
	violations, err = kuis.Audit(e.ctx, e.client, id, untagged...)
	if err != nil {
		t.Fatal(err)
	}
	if len(violations) != 1 || violations[0].Key != k.Board() || violations[0].Rule != "score" {
		t.Errorf("Audit after a score of 5 = %v; want one score violation on %s", violations, k.Board())
	}

	// Quizzes lists only the key form the options select.
	ids, err := kuis.Quizzes(e.ctx, e.client, untagged...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{id}, ids); diff != "" {
		t.Errorf("Quizzes untagged (-want +got):\n%s", diff)
	}
	ids, err = kuis.Quizzes(e.ctx, e.client, e.opts...)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 0 {
		t.Errorf("Quizzes with WithHashTag = %v, want none (only an untagged quiz exists)", ids)
	}
}

// TestClusterEveryOperationOn24QuizzesAcrossAllPrimaries creates 24 hash-tagged
// quizzes placed on every primary, runs every operation of the library on each,
// then lists them, purges some one by one and the rest with small SCAN pages.
func TestClusterEveryOperationOn24QuizzesAcrossAllPrimaries(t *testing.T) {
	clusterOnly(t)
	e := newEnv(t)
	const total = 24
	owners := slotOwners(t, e)
	ids, nodeOf := spreadQuizzes(t, e, owners, total)

	for i, id := range ids {
		t.Run(id, func(t *testing.T) { everyOperation(t, e, i, id) })
	}
	if t.Failed() {
		t.FailNow()
	}

	// Each quiz's three keys live on the primary chosen for it, so all primaries hold some.
	onNode := keysByNode(t, e)
	wantOn := map[string]string{}
	for _, id := range ids {
		k, _ := kuis.NewKeys(id, e.opts...)
		for _, key := range []string{k.Meta(), k.Board(), k.Answers()} {
			wantOn[key] = nodeOf[id]
		}
	}
	if diff := cmp.Diff(wantOn, onNode); diff != "" {
		t.Errorf("keys per primary (-want +got):\n%s", diff)
	}

	small := append(append([]kuis.Option{}, e.opts...), kuis.WithScanCount(5))
	listed, err := kuis.Quizzes(e.ctx, e.client, small...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sortedIDs(ids), listed); diff != "" {
		t.Errorf("Quizzes (-want +got):\n%s", diff)
	}

	// PurgeQuiz a quarter (finished ones), after archiving their recap.
	remaining := 0
	for i, id := range ids {
		if i%4 != 0 {
			remaining++
			continue
		}
		var archived kuis.Recap
		n, err := kuis.PurgeQuiz(e.ctx, e.client, id, func(_ context.Context, r kuis.Recap) error {
			archived = r
			return nil
		}, e.opts...)
		if err != nil || n != 3 {
			t.Errorf("PurgeQuiz(%s) = %d, %v; want 3, nil", id, n, err)
		}
		if archived.QuizID != id || len(archived.Standings) != 4 {
			t.Errorf("PurgeQuiz(%s) archived %+v", id, archived)
		}
	}

	counter := &scanCounter{Client: e.client}
	n, err := kuis.Purge(e.ctx, counter, small...)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(3 * remaining); n != want {
		t.Errorf("Purge deleted %d keys, want %d (3 per remaining quiz)", n, want)
	}
	counter.checkOncePerPrimary(t, owners)
	if counter.pages() <= len(counter.starts) {
		t.Errorf("Purge used %d SCAN pages on %d primaries: COUNT 5 should need several", counter.pages(), len(counter.starts))
	}
	if left := keysByNode(t, e); len(left) != 0 {
		t.Errorf("keys left after Purge: %v", left)
	}
	listed, err = kuis.Quizzes(e.ctx, e.client, small...)
	if err != nil || len(listed) != 0 {
		t.Errorf("Quizzes after Purge = %v, %v; want none", listed, err)
	}
}

// everyOperation runs every operation of the library on quiz number i; even
// quizzes end finished, odd ones running. A participant named after i makes
// each board different, so keys of two quizzes mixed up would show.
func everyOperation(t *testing.T, e *env, i int, id string) {
	t.Helper()
	ctx := e.ctx
	m, b := e.meta(id), e.board(id)
	title := "Kuis " + id
	if err := m.Create(ctx, title, 3); err != nil {
		t.Fatal(err)
	}
	own := "Siswa-" + strconv.Itoa(i)
	var scores []int64
	for _, name := range []string{"Ali", own, "Ali"} {
		s, err := b.RecordCorrect(ctx, name)
		if err != nil {
			t.Fatalf("RecordCorrect(%s): %v", name, err)
		}
		scores = append(scores, s)
	}
	if diff := cmp.Diff([]int64{10, 10, 20}, scores); diff != "" {
		t.Errorf("RecordCorrect scores (-want +got):\n%s", diff)
	}
	var answers []kuis.Answer
	for range 2 {
		a, err := b.RecordAnswer(ctx, "Budi", 1)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, a)
	}
	batch, err := b.RecordAnswers(ctx, []kuis.AnswerInput{{"Citra", 1}, {"Citra", 2}, {"Budi", 1}})
	if err != nil {
		t.Fatal(err)
	}
	answers = append(answers, batch...)
	wantAnswers := []kuis.Answer{{10, false}, {10, true}, {10, false}, {20, false}, {10, true}}
	if diff := cmp.Diff(wantAnswers, answers); diff != "" {
		t.Errorf("RecordAnswer, RecordAnswers (-want +got):\n%s", diff)
	}

	// Citra 20 and Ali 20 tie, as do Siswa-i 10 and Budi 10: reverse byte order of names.
	want := []kuis.Standing{{1, "Citra", 20}, {2, "Ali", 20}, {3, own, 10}, {4, "Budi", 10}}
	check := func(name string, want, got any, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	got, err := b.Standings(ctx)
	check("Standings", want, got, err)
	got, err = b.Page(ctx, 1, 2)
	check("Page(1, 2)", want[1:3], got, err)
	got, err = b.Around(ctx, own, 1)
	check("Around", want[1:4], got, err)
	rank, err := b.Rank(ctx, "Budi")
	check("Rank(Budi)", 4, rank, err)
	rank, err = b.CompetitionRank(ctx, "Budi")
	check("CompetitionRank(Budi)", 3, rank, err)
	score, err := b.Score(ctx, "Citra")
	check("Score(Citra)", int64(20), score, err)
	n, err := b.Len(ctx)
	check("Len", int64(4), n, err)
	info, err := m.Get(ctx)
	check("Get", kuis.Info{Title: title, Questions: 3, Status: kuis.StatusRunning}, info, err)

	wantStatus := kuis.StatusRunning
	if i%2 == 0 {
		wantStatus = kuis.StatusFinished
		if err := m.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.RecordCorrect(ctx, "Ali"); !errors.Is(err, kuis.ErrQuizFinished) {
			t.Errorf("RecordCorrect after Finish: %v, want ErrQuizFinished", err)
		}
	}
	status, err := m.Status(ctx)
	check("Status", wantStatus, status, err)
	violations, err := kuis.Audit(ctx, e.client, id, e.opts...)
	check("Audit", []kuis.Violation(nil), violations, err)
	recap, err := kuis.TakeRecap(ctx, e.client, id, e.opts...)
	recap.TakenAt = time.Time{} // the caller's clock
	check("TakeRecap", kuis.Recap{QuizID: id, Info: kuis.Info{Title: title, Questions: 3, Status: wantStatus}, Standings: want},
		recap, err)
	if i%2 == 1 {
		_, err := kuis.PurgeQuiz(ctx, e.client, id, func(context.Context, kuis.Recap) error { return nil }, e.opts...)
		if !errors.Is(err, kuis.ErrQuizRunning) {
			t.Errorf("PurgeQuiz of a running quiz: %v, want ErrQuizRunning", err)
		}
	}
}

// slotOwners maps each of the 16384 slots to its primary's address, from CLUSTER SLOTS.
func slotOwners(t *testing.T, e *env) []string {
	t.Helper()
	ranges, err := e.client.Do(e.ctx, e.client.B().ClusterSlots().Build()).ToArray()
	if err != nil {
		t.Fatal(err)
	}
	owners := make([]string, 16384)
	for _, r := range ranges {
		f, err := r.ToArray()
		if err != nil || len(f) < 3 {
			t.Fatalf("CLUSTER SLOTS entry %v: %v", r, err)
		}
		lo, err1 := f[0].AsInt64()
		hi, err2 := f[1].AsInt64()
		primary, err3 := f[2].ToArray()
		if err := errors.Join(err1, err2, err3); err != nil || len(primary) < 2 {
			t.Fatalf("CLUSTER SLOTS entry %v: %v", r, err)
		}
		host, err1 := primary[0].ToString()
		port, err2 := primary[1].AsInt64()
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		for s := lo; s <= hi; s++ {
			owners[s] = host + ":" + strconv.FormatInt(port, 10)
		}
	}
	return owners
}

// spreadQuizzes picks n quiz IDs, as evenly as possible over the primaries,
// and returns them with the primary each quiz's keys live on. It checks with
// CLUSTER KEYSLOT that the three keys of each quiz share one slot.
func spreadQuizzes(t *testing.T, e *env, owners []string, n int) ([]string, map[string]string) {
	t.Helper()
	primaries := map[string]bool{}
	for _, o := range owners {
		if o == "" {
			t.Fatal("a slot has no primary")
		}
		primaries[o] = true
	}
	if len(primaries) < 2 {
		t.Fatalf("cluster has %d primaries; the test needs several", len(primaries))
	}
	quota := (n + len(primaries) - 1) / len(primaries)
	perNode := map[string]int{}
	nodeOf := map[string]string{}
	var ids []string
	for tries := 0; len(ids) < n; tries++ {
		if tries > 100*n {
			t.Fatalf("could not spread %d quizzes: %v", n, perNode)
		}
		id := quizID()
		k, err := kuis.NewKeys(id, e.opts...)
		if err != nil {
			t.Fatal(err)
		}
		var slots []int64
		for _, key := range []string{k.Meta(), k.Board(), k.Answers()} {
			s, err := e.client.Do(e.ctx, e.client.B().ClusterKeyslot().Key(key).Build()).AsInt64()
			if err != nil {
				t.Fatal(err)
			}
			slots = append(slots, s)
		}
		if slots[0] != slots[1] || slots[0] != slots[2] {
			t.Fatalf("keys of %s are in slots %v, want one slot", id, slots)
		}
		node := owners[slots[0]]
		if perNode[node] >= quota {
			continue
		}
		perNode[node]++
		nodeOf[id] = node
		ids = append(ids, id)
	}
	return ids, nodeOf
}

// keysByNode asks every primary directly (SCAN on that node alone) which keys
// of the test's namespace it holds, and returns key -> primary address. A key
// found twice fails the test.
func keysByNode(t *testing.T, e *env) map[string]string {
	t.Helper()
	out := map[string]string{}
	for addr, node := range e.client.Nodes() {
		role, err := node.Do(e.ctx, node.B().Role().Build()).ToArray()
		if err != nil || len(role) == 0 {
			t.Fatalf("ROLE on %s: %v", addr, err)
		}
		if name, _ := role[0].ToString(); name != "master" {
			continue
		}
		var cursor uint64
		for {
			entry, err := node.Do(e.ctx, node.B().Scan().Cursor(cursor).Match(e.ns+":*").Count(100).Build()).AsScanEntry()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range entry.Elements {
				if prev, ok := out[k]; ok && prev != addr {
					t.Errorf("key %s on %s and %s", k, prev, addr)
				}
				out[k] = addr
			}
			if cursor = entry.Cursor; cursor == 0 {
				break
			}
		}
	}
	return out
}

func sortedIDs(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// scanCounter is a client that counts the SCAN commands sent to each node it
// hands out from Nodes: a SCAN with cursor 0 starts a visit of that node.
type scanCounter struct {
	rueidis.Client
	mu     sync.Mutex
	starts map[string]int // node address -> SCANs with cursor 0
	total  int            // SCANs of any cursor
}

// Nodes wraps every node client so that its SCANs are counted.
func (c *scanCounter) Nodes() map[string]rueidis.Client {
	out := map[string]rueidis.Client{}
	for addr, n := range c.Client.Nodes() {
		out[addr] = &countedNode{Client: n, addr: addr, c: c}
	}
	return out
}

func (c *scanCounter) pages() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// checkOncePerPrimary fails unless each primary was visited exactly once and no other node was.
func (c *scanCounter) checkOncePerPrimary(t *testing.T, owners []string) {
	t.Helper()
	want := map[string]int{}
	for _, o := range owners {
		want[o] = 1
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if diff := cmp.Diff(want, c.starts, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("SCAN visits per node (-want +got):\n%s", diff)
	}
}

type countedNode struct {
	rueidis.Client
	addr string
	c    *scanCounter
}

func (n *countedNode) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	if args := cmd.Commands(); len(args) >= 2 && args[0] == "SCAN" {
		n.c.mu.Lock()
		if n.c.starts == nil {
			n.c.starts = map[string]int{}
		}
		if args[1] == "0" {
			n.c.starts[n.addr]++
		}
		n.c.total++
		n.c.mu.Unlock()
	}
	return n.Client.Do(ctx, cmd)
}

// TestClusterQuizzesVisitsEachPrimaryOnce: Quizzes, like Purge, scans every
// primary exactly once, with any SCAN page size, and lists each quiz once.
func TestClusterQuizzesVisitsEachPrimaryOnce(t *testing.T) {
	clusterOnly(t)
	e := newEnv(t)
	owners := slotOwners(t, e)
	ids, _ := spreadQuizzes(t, e, owners, 9)
	for _, id := range ids {
		if err := e.meta(id).Create(e.ctx, "Kuis "+id, 1); err != nil {
			t.Fatal(err)
		}
	}
	for _, count := range []int64{1, 5, 1000} {
		t.Run(fmt.Sprintf("count=%d", count), func(t *testing.T) {
			counter := &scanCounter{Client: e.client}
			got, err := kuis.Quizzes(e.ctx, counter, append(append([]kuis.Option{}, e.opts...), kuis.WithScanCount(count))...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sortedIDs(ids), got); diff != "" {
				t.Errorf("Quizzes (-want +got):\n%s", diff)
			}
			counter.checkOncePerPrimary(t, owners)
		})
	}
}
