package kuis_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestNewNeedsHashTagOnClusterClient: New refuses a client in cluster mode
// without WithHashTag, and takes it with WithHashTag. A miniredis answers
// CLUSTER SLOTS as a one-node cluster, so this runs on every target; on a
// cluster target the target's own client is refused too.
func TestNewNeedsHashTagOnClusterClient(t *testing.T) {
	t.Parallel()
	m := miniredis.RunT(t)
	// No ForceSingleClient: this is how a caller ends up with a cluster client.
	mini, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{m.Addr()}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mini.Close)
	clients := map[string]rueidis.Client{"miniredis": mini}
	if redistest.Cluster() {
		clients["cluster"] = redistest.Client(t)
	}
	ctx := context.Background()
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			if c.Mode() != rueidis.ClientModeCluster {
				t.Fatalf("client mode %q, want %q", c.Mode(), rueidis.ClientModeCluster)
			}
			ns := kuis.WithNamespace(redistest.Namespace(t))
			if s, err := kuis.New(c, ns); !errors.Is(err, kuis.ErrNeedsHashTag) || s != nil {
				t.Errorf("New without WithHashTag = %v, %v; want nil, ErrNeedsHashTag", s, err)
			}
			s, err := kuis.New(c, ns, kuis.WithHashTag())
			if err != nil {
				t.Fatal(err)
			}
			id := quizID()
			b, meta := handles(t, s, id)
			if err := meta.Create(ctx, "Kuis", 3); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if _, err := s.Purge(context.Background()); err != nil {
					t.Logf("cleanup purge: %v", err)
				}
			})
			if a, err := b.RecordAnswer(ctx, "Ali", 1); err != nil || a != (kuis.Answer{Score: 10}) {
				t.Errorf("RecordAnswer = %+v, %v; want score 10", a, err)
			}
		})
	}
}

// TestClusterQuizzesOnEveryPrimary: quizzes whose five keys share one slot
// (CLUSTER KEYSLOT), spread over every primary, each go through every operation; the
// keys live where the cluster says; Quizzes lists them all with any SCAN page
// size; PurgeQuiz and then Purge with small pages leave no key on any primary.
func TestClusterQuizzesOnEveryPrimary(t *testing.T) {
	if !redistest.Cluster() {
		t.Skipf("needs a Redis Cluster (REDIS_CLUSTER_ADDRS); target is %s", redistest.Target())
	}
	const perPrimary = 4
	e := newEnv(t)
	primaries := primaryNodes(t, e)
	if len(primaries) < 3 {
		t.Fatalf("%d primaries; the test needs three", len(primaries))
	}
	// Pick quiz IDs until each primary serves perPrimary of them.
	var ids []string
	want := map[string]string{} // key -> the primary that serves it
	perNode := map[string]int{}
	for tries := 0; len(ids) < perPrimary*len(primaries); tries++ {
		if tries > 1000 {
			t.Fatalf("could not spread quizzes: %v", perNode)
		}
		id := quizID()
		keys := quizKeys(e, id)
		var slots []int64
		for _, key := range keys {
			s, err := e.client.Do(e.ctx, e.client.B().ClusterKeyslot().Key(key).Build()).AsInt64()
			if err != nil {
				t.Fatal(err)
			}
			slots = append(slots, s)
		}
		if len(slots) != 7 || slices.Min(slots) != slices.Max(slots) {
			t.Fatalf("keys %v are in slots %v, want seven keys in one slot", keys, slots)
		}
		owner := ownerOf(t, e, keys[0])
		if perNode[owner] == perPrimary {
			continue
		}
		perNode[owner]++
		ids = append(ids, id)
		for _, key := range fiveKeys(e.keys(id)) { // the repair keys exist only during a rebuild
			want[key] = owner
		}
	}

	for i, id := range ids {
		t.Run(id, func(t *testing.T) { everyOperation(t, e, i, id) })
	}
	if t.Failed() {
		t.FailNow()
	}
	// A meta key of the untagged form: Purge deletes it, Quizzes never lists it.
	untagged := e.ns + ":meta:" + quizID()
	e.mustRaw("HSET", untagged, "judul", "Kuis", "jumlah_soal", "1", "status", "berjalan")
	want[untagged] = ownerOf(t, e, untagged)
	if diff := cmp.Diff(want, keysByNode(t, e, primaries)); diff != "" {
		t.Errorf("primary of each key (-want +got):\n%s", diff)
	}
	for _, count := range []int64{1, 5, 1000} {
		got, err := e.tunedOn(e.client, kuis.Tuning{ScanCount: count}).Quizzes(e.ctx)
		if diff := cmp.Diff(slices.Sorted(slices.Values(ids)), got); err != nil || diff != "" {
			t.Errorf("Quizzes, SCAN COUNT %d: %v (-want +got):\n%s", count, err, diff)
		}
	}

	// PurgeQuiz every fourth quiz (finished, as every even one is), Purge the rest.
	left := int64(1) // the untagged key
	for i, id := range ids {
		if i%4 != 0 {
			left += 5
			continue
		}
		var archived kuis.Recap
		n, err := e.store.PurgeQuiz(e.ctx, id, func(_ context.Context, r kuis.Recap) error { archived = r; return nil })
		if diff := cmp.Diff(flowBoard(i), archived.Standings); err != nil || n != 5 || archived.QuizID != id || diff != "" {
			t.Errorf("PurgeQuiz(%s) = %d, %v, archived %s; want 5, nil, itself; standings (-want +got):\n%s",
				id, n, err, archived.QuizID, diff)
		}
	}
	if n, err := e.tunedOn(e.client, kuis.Tuning{ScanCount: 5}).Purge(e.ctx); err != nil || n != left {
		t.Errorf("Purge = %d, %v; want %d", n, err, left)
	}
	if got := keysByNode(t, e, primaries); len(got) != 0 {
		t.Errorf("keys left after Purge: %v", got)
	}
	if got, err := e.store.Quizzes(e.ctx); err != nil || len(got) != 0 {
		t.Errorf("Quizzes after Purge = %v, %v; want none", got, err)
	}
}

// flowBoard is quiz i's board after everyOperation: Citra and Ali tie at 20,
// Siswa-<i> and Budi at 10, in reverse byte order of names. A name of its own
// per quiz shows two quizzes' keys mixed up.
func flowBoard(i int) []kuis.Standing {
	return []kuis.Standing{{1, 1, "Citra", 20}, {2, 1, "Ali", 20}, {3, 3, "Siswa-" + strconv.Itoa(i), 10}, {4, 3, "Budi", 10}}
}

// everyOperation runs every operation of the library on quiz i; even quizzes
// end finished, odd ones running.
func everyOperation(t *testing.T, e *env, i int, id string) {
	ctx, s := e.ctx, e.store
	b, m := handles(t, s, id)
	if err := m.Create(ctx, "Kuis "+id, 3); err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	var got []kuis.AnswerResult
	for _, a := range []kuis.AnswerInput{{"Ali", 1}, {"Siswa-" + strconv.Itoa(i), 1}, {"Ali", 2}, {"Budi", 1}, {"Budi", 1}} {
		ans, err := b.RecordAnswer(ctx, a.Participant, a.Question)
		got = append(got, kuis.AnswerResult{Answer: ans, Err: err})
	}
	batch, err := b.RecordAnswers(ctx, []kuis.AnswerInput{{"Citra", 1}, {"Citra", 2}, {"Budi", 1}, {"Citra", 4}})
	if err != nil {
		t.Fatal(err)
	}
	a := func(score int64, dup bool) kuis.AnswerResult {
		return kuis.AnswerResult{Answer: kuis.Answer{Score: score, Duplicate: dup}}
	}
	want := []kuis.AnswerResult{a(10, false), a(10, false), a(20, false), a(10, false), a(10, true),
		a(10, false), a(20, false), a(10, true), {Err: kuis.ErrInvalidQuestion}}
	if diff := cmp.Diff(want, append(got, batch...), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("RecordAnswer, RecordAnswers (-want +got):\n%s", diff)
	}
	to := time.Now()
	// Repair's reads and scripts find every key in the quiz's slot.
	k, err := s.Keys(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.raw("ZINCRBY", k.Board(), "10", "Budi").Error(); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Repair(ctx, id); err != nil || !cmp.Equal(got, []kuis.Correction{{Participant: "Budi", Was: 20, Now: 10}}) {
		t.Errorf("Repair = %+v, %v; want Budi from 20 back to 10", got, err)
	}

	status := kuis.StatusRunning
	if i%2 == 0 {
		status = kuis.StatusFinished
		if err := m.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.RecordAnswer(ctx, "Ali", 3); !errors.Is(err, kuis.ErrQuizFinished) {
			t.Errorf("RecordAnswer after Finish: %v, want ErrQuizFinished", err)
		}
	}
	board, info := flowBoard(i), kuis.Info{Title: "Kuis " + id, Questions: 3, Status: status}
	reads := map[string]any{"Standings": board, "Page": board[1:3], "Around": board[2:4], "Standing": board[1],
		"Len": int64(4), "Get": info, "Status": status}
	if diff := cmp.Diff(reads, readAll(t, ctx, s, id)); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	if v, err := s.Audit(ctx, id); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
		t.Errorf("Audit = %#v, %v; want no violations", v, err)
	}
	recap, err := s.Recap(ctx, id)
	recap.TakenAt = time.Time{} // the caller's clock
	checkTimes(t, recap.Answers, from, to)
	checkFinishedAt(t, &recap, status == kuis.StatusFinished, from, time.Now())
	recap.Answers = untimed(recap.Answers)
	answers := []kuis.AnswerRecord{{Participant: "Ali", Question: 1}, {Participant: "Siswa-" + strconv.Itoa(i), Question: 1},
		{Participant: "Ali", Question: 2}, {Participant: "Budi", Question: 1}, {Participant: "Citra", Question: 1}, {Participant: "Citra", Question: 2}}
	wantRecap := kuis.Recap{QuizID: id, Instance: recap.Instance, Info: info, Standings: board, Questions: []kuis.QuestionResult{{1, 4}, {2, 2}, {3, 0}}, Answers: answers}
	if diff := cmp.Diff(wantRecap, recap); err != nil || diff != "" {
		t.Errorf("Recap: %v (-want +got):\n%s", err, diff)
	}
	if i%2 == 1 {
		_, err := s.PurgeQuiz(ctx, id, func(context.Context, kuis.Recap) error { return errors.New("archive called") })
		if !errors.Is(err, kuis.ErrQuizRunning) {
			t.Errorf("PurgeQuiz of a running quiz: %v, want ErrQuizRunning", err)
		}
	}
}

// primaryNodes returns the client of each primary of the cluster, by ROLE.
func primaryNodes(t *testing.T, e *env) map[string]rueidis.Client {
	t.Helper()
	out := map[string]rueidis.Client{}
	for addr, node := range e.client.Nodes() {
		role, err := node.Do(e.ctx, node.B().Role().Build()).ToArray()
		if err != nil || len(role) == 0 {
			t.Fatalf("ROLE on %s: %v", addr, err)
		}
		if name, _ := role[0].ToString(); name == "master" {
			out[addr] = node
		}
	}
	return out
}

// ownerOf returns the address of the primary that serves key: a node answers
// EXISTS itself, or names the owner in its MOVED reply.
func ownerOf(t *testing.T, e *env, key string) string {
	t.Helper()
	for addr, node := range e.client.Nodes() {
		err := node.Do(e.ctx, node.B().Exists().Key(key).Build()).Error()
		if err == nil {
			return addr
		}
		if re, ok := rueidis.IsRedisErr(err); ok {
			if owner, moved := re.IsMoved(); moved {
				return owner
			}
		}
		t.Fatalf("EXISTS %s on %s: %v", key, addr, err)
	}
	t.Fatal("the client knows no node")
	return ""
}

// keysByNode asks each primary alone (SCAN on that node) which keys of the
// env's namespace it holds, and returns key -> primary address.
func keysByNode(t *testing.T, e *env, primaries map[string]rueidis.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for addr, node := range primaries {
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
