package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
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
	shown := info // Get reads a meta without tampilan as shown; a recap leaves it empty
	shown.Visibility = kuis.VisibilityShown
	reads := map[string]any{"Standings": board, "Page": board[1:3], "Around": board[2:4], "Standing": board[1],
		"Len": int64(4), "Get": shown, "Status": status}
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
	return redistest.Primaries(t, e.ctx, e.client)
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
	return redistest.KeysByNode(t, e.ctx, primaries, e.ns+":*")
}

// node sends one command to one node and returns the reply.
func node(ctx context.Context, c rueidis.Client, cmd ...string) rueidis.RedisResult {
	return c.Do(ctx, c.B().Arbitrary(cmd...).Build())
}

// TestClusterSlotMovesMidScan: a slot that moves while Purge or Quizzes scans
// the primaries one by one, from a primary not yet scanned to one already
// scanned, is still seen. The move is real (CLUSTER SETSLOT, MIGRATE), made
// between two SCAN pages; "moved" finishes it there, "open" leaves the slot
// migrating until the call returned.
func TestClusterSlotMovesMidScan(t *testing.T) {
	redistest.NeedCluster(t)
	for _, mode := range []string{"moved", "open"} {
		for _, op := range []string{"Quizzes", "Purge"} {
			t.Run(op+"/"+mode, func(t *testing.T) { slotMoveCase(t, op, mode == "open") })
		}
	}
}

func slotMoveCase(t *testing.T, op string, leaveOpen bool) {
	e := newEnv(t)
	primaries := primaryNodes(t, e)
	if len(primaries) != 3 {
		t.Fatalf("%d primaries; the test needs three", len(primaries))
	}
	ids := map[string]string{} // primary address -> node ID
	for addr, p := range primaries {
		ids[addr] = redistest.NodeID(t, e.ctx, p)
	}
	// Three quizzes, two keys each, on every primary.
	byOwner := map[string][]string{}
	var all []string
	for len(all) < 9 {
		id := quizID()
		k := e.keys(id)
		owner := ownerOf(t, e, k.Meta())
		if len(byOwner[owner]) == 3 {
			continue
		}
		if err := e.meta(id).Create(e.ctx, "Kuis "+id, 3); err != nil {
			t.Fatal(err)
		}
		e.mustRaw("ZINCRBY", k.Board(), "10", "Ali")
		byOwner[owner] = append(byOwner[owner], id)
		all = append(all, id)
	}
	slices.Sort(all)

	// When the second primary's scan begins, the third one's quizzes move to
	// the first, which will not be scanned again.
	var first string
	moved := 0
	hook := func(addr string) {
		switch {
		case moved > 0 || addr == "" || addr == first:
		case first == "":
			first = addr
		default:
			for third := range primaries {
				if third == first || third == addr {
					continue
				}
				for _, id := range byOwner[third] {
					slot, err := e.client.Do(e.ctx, e.client.B().ClusterKeyslot().Key(e.keys(id).Meta()).Build()).AsInt64()
					if err != nil {
						t.Errorf("CLUSTER KEYSLOT: %v", err)
						return
					}
					if err := moveSlot(t, e.ctx, primaries, ids, slot, third, first, !leaveOpen); err != nil {
						t.Errorf("moving slot %d of %s from %s to %s: %v", slot, id, third, first, err)
						return
					}
					moved++
				}
			}
		}
	}
	scanWhileMoving(t, e, hook, op, all, primaries)
	if moved != 3 {
		t.Errorf("%d slots moved during the scan, want 3", moved)
	}
}

// moveSlot migrates slot from primary from to primary to as redis-cli
// --cluster reshard does: IMPORTING on the target, MIGRATING on the source,
// MIGRATE of its keys, then (with finish) the new owner on every primary.
// An unfinished move is finished at cleanup.
func moveSlot(t *testing.T, ctx context.Context, primaries map[string]rueidis.Client, ids map[string]string, slot int64, from, to string, finish bool) error {
	src, dst, n := primaries[from], primaries[to], strconv.FormatInt(slot, 10)
	if err := node(ctx, dst, "CLUSTER", "SETSLOT", n, "IMPORTING", ids[from]).Error(); err != nil {
		return err
	}
	if err := node(ctx, src, "CLUSTER", "SETSLOT", n, "MIGRATING", ids[to]).Error(); err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(to)
	for {
		keys, err := node(ctx, src, "CLUSTER", "GETKEYSINSLOT", n, "100").AsStrSlice()
		if err != nil || len(keys) == 0 {
			if err != nil {
				return err
			}
			break
		}
		args := append([]string{"MIGRATE", host, port, "", "0", "5000", "KEYS"}, keys...)
		if err := node(ctx, src, args...).Error(); err != nil {
			return err
		}
	}
	assign := func() error {
		// The target first, as redis-cli does: it then owns the slot whatever
		// the source says meanwhile.
		for _, addr := range append([]string{to, from}, otherThan(primaries, to, from)...) {
			if err := node(ctx, primaries[addr], "CLUSTER", "SETSLOT", n, "NODE", ids[to]).Error(); err != nil {
				return err
			}
		}
		return nil
	}
	if finish {
		return assign()
	}
	t.Cleanup(func() {
		if err := assign(); err != nil {
			t.Errorf("finishing the move of slot %s: %v", n, err)
		}
	})
	return nil
}

// otherThan lists the addresses of primaries other than the ones given.
func otherThan(primaries map[string]rueidis.Client, not ...string) []string {
	var out []string
	for addr := range primaries {
		if !slices.Contains(not, addr) {
			out = append(out, addr)
		}
	}
	return out
}

// TestClusterMigrationOpenThroughout: slots that migrate from before the call
// until after it, and whose keys move between two SCAN pages from a primary
// not scanned yet to one already scanned, are still seen, although the
// layout reads the same before and after the scan.
func TestClusterMigrationOpenThroughout(t *testing.T) {
	redistest.NeedCluster(t)
	for _, op := range []string{"Quizzes", "Purge"} {
		t.Run(op, func(t *testing.T) { openMigrationCase(t, op) })
	}
}

func openMigrationCase(t *testing.T, op string) {
	e := newEnv(t)
	primaries := primaryNodes(t, e)
	if len(primaries) != 3 {
		t.Fatalf("%d primaries; the test needs three", len(primaries))
	}
	ids := map[string]string{} // primary address -> node ID
	for addr, p := range primaries {
		ids[addr] = redistest.NodeID(t, e.ctx, p)
	}
	// The scan order is not known in advance: one quiz, in a slot of its
	// own, migrating between every ordered pair of primaries.
	type move struct{ from, to string }
	type quiz struct {
		id   string
		slot int64
	}
	quizzes, taken := map[move]quiz{}, map[int64]bool{}
	var all []string
	var movedKeys move
	// Only the migration whose keys moved is finished: Redis 7.0 can lose a
	// slot (no node claims it) when several finish in every direction at once.
	t.Cleanup(func() {
		for m, q := range quizzes {
			if m == movedKeys {
				if err := moveSlot(t, e.ctx, primaries, ids, q.slot, m.from, m.to, true); err != nil {
					t.Errorf("finishing the move of slot %d: %v", q.slot, err)
				}
				continue
			}
			for _, addr := range []string{m.to, m.from} {
				if err := node(e.ctx, primaries[addr], "CLUSTER", "SETSLOT", strconv.FormatInt(q.slot, 10), "STABLE").Error(); err != nil {
					t.Errorf("CLUSTER SETSLOT %d STABLE on %s: %v", q.slot, addr, err)
				}
			}
		}
	})
	for len(quizzes) < len(primaries)*(len(primaries)-1) {
		id := quizID()
		k := e.keys(id)
		slot, err := e.client.Do(e.ctx, e.client.B().ClusterKeyslot().Key(k.Meta()).Build()).AsInt64()
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT: %v", err)
		}
		from := ownerOf(t, e, k.Meta())
		var m move
		for to := range primaries {
			if _, ok := quizzes[move{from, to}]; to != from && !ok && !taken[slot] {
				m = move{from, to}
			}
		}
		if m.to == "" {
			continue
		}
		if err := e.meta(id).Create(e.ctx, "Kuis "+id, 3); err != nil {
			t.Fatal(err)
		}
		e.mustRaw("ZINCRBY", k.Board(), "10", "Ali")
		quizzes[m], taken[slot] = quiz{id, slot}, true
		all = append(all, id)
		n := strconv.FormatInt(slot, 10)
		if err := node(e.ctx, primaries[m.to], "CLUSTER", "SETSLOT", n, "IMPORTING", ids[m.from]).Error(); err != nil {
			t.Fatal(err)
		}
		if err := node(e.ctx, primaries[m.from], "CLUSTER", "SETSLOT", n, "MIGRATING", ids[m.to]).Error(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(all)

	// When the second primary's scan begins, the keys of the quiz migrating
	// from the third to the first move there.
	var first string
	moved := 0
	hook := func(addr string) {
		switch {
		case moved > 0 || addr == first:
		case first == "":
			first = addr
		default:
			third := otherThan(primaries, first, addr)[0]
			k := e.keys(quizzes[move{third, first}].id)
			host, port, _ := net.SplitHostPort(first)
			if err := node(e.ctx, primaries[third], "MIGRATE", host, port, "", "0", "5000", "KEYS", k.Meta(), k.Board()).Error(); err != nil {
				t.Errorf("MIGRATE from %s to %s: %v", third, first, err)
			}
			movedKeys = move{third, first}
			moved++
		}
	}
	scanWhileMoving(t, e, hook, op, all, primaries)
	if moved != 1 {
		t.Errorf("keys moved %d times during the scan, want 1", moved)
	}
}

// TestClusterTryAgainIsSentAgain: while the quiz's slot migrates with some of
// its keys moved and some not, a Redis Cluster answers TRYAGAIN to a script
// on the quiz's keys without running it. The library sends it again after a
// short pause, while the caller's context lives: once the migration is done
// the answer counts, and the recap reads, with no error.
func TestClusterTryAgainIsSentAgain(t *testing.T) {
	redistest.NeedCluster(t)
	e := newEnv(t)
	primaries := primaryNodes(t, e)
	ids := map[string]string{}
	for addr, p := range primaries {
		ids[addr] = redistest.NodeID(t, e.ctx, p)
	}
	id, _, _ := e.reference()
	k := e.keys(id)
	slot, err := e.client.Do(e.ctx, e.client.B().ClusterKeyslot().Key(k.Meta()).Build()).AsInt64()
	if err != nil {
		t.Fatal(err)
	}
	from := ownerOf(t, e, k.Meta())
	to := otherThan(primaries, from)[0]
	src, dst, n := primaries[from], primaries[to], strconv.FormatInt(slot, 10)
	for _, c := range []struct {
		node rueidis.Client
		cmd  []string
	}{{dst, []string{"CLUSTER", "SETSLOT", n, "IMPORTING", ids[from]}}, {src, []string{"CLUSTER", "SETSLOT", n, "MIGRATING", ids[to]}}} {
		if err := node(e.ctx, c.node, c.cmd...).Error(); err != nil {
			t.Fatal(err)
		}
	}
	host, port, _ := net.SplitHostPort(to)
	if err := node(e.ctx, src, "MIGRATE", host, port, "", "0", "5000", "KEYS", k.Board()).Error(); err != nil {
		t.Fatal(err) // the board moves, meta and the rest stay: half migrated
	}
	watch := &tryAgainWatch{Client: e.client, seen: make(chan struct{})}
	s := e.storeOn(watch)
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	type result struct {
		name string
		err  error
	}
	results := make(chan result, 2)
	b, _ := handles(t, s, id)
	go func() {
		a, err := b.RecordAnswer(ctx, "Eka", 1)
		if err == nil && a != (kuis.Answer{Score: 10}) {
			err = fmt.Errorf("answer %+v, want 10 points", a)
		}
		results <- result{"RecordAnswer", err}
	}()
	go func() { _, err := s.Recap(ctx, id); results <- result{"Recap", err} }()
	select {
	case <-watch.seen:
	case <-ctx.Done():
		t.Fatal("no call was answered TRYAGAIN")
	}
	if err := moveSlot(t, e.ctx, primaries, ids, slot, from, to, true); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if r := <-results; r.err != nil {
			t.Errorf("%s while the slot migrated: %v", r.name, r.err)
		}
	}
}

// scanWhileMoving runs op (Quizzes or Purge) through a scan of pages of 2
// keys, hook called after each page, and checks that it finds every quiz of
// all, or deletes every key of them.
func scanWhileMoving(t *testing.T, e *env, hook func(addr string), op string, all []string, primaries map[string]rueidis.Client) {
	t.Helper()
	s := e.tunedOn(&scanWatch{Client: e.client, after: hook}, kuis.Tuning{ScanCount: 2})
	switch op {
	case "Quizzes":
		got, err := s.Quizzes(e.ctx)
		if diff := cmp.Diff(all, got); err != nil || diff != "" {
			t.Errorf("Quizzes: %v (-want +got):\n%s", err, diff)
		}
	case "Purge":
		if n, err := s.Purge(e.ctx); err != nil || n != int64(3*len(all)) { // meta, log and board of each quiz
			t.Errorf("Purge = %d, %v; want %d, nil", n, err, 3*len(all))
		}
		if left := keysByNode(t, e, primaries); len(left) != 0 {
			t.Errorf("keys left after Purge: %v", left)
		}
	}
}

// scanWatch is a client whose nodes call after, with the node's address,
// once each of their SCAN pages is answered: a test moves keys between the
// pages of a scan with it.
type scanWatch struct {
	rueidis.Client
	after func(addr string)
}

func (c *scanWatch) Nodes() map[string]rueidis.Client {
	nodes := c.Client.Nodes()
	for addr, n := range nodes {
		nodes[addr] = &nodeScanWatch{Client: n, addr: addr, after: c.after}
	}
	return nodes
}

type nodeScanWatch struct {
	rueidis.Client
	addr  string
	after func(addr string)
}

func (c *nodeScanWatch) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	scan := cmd.Commands()[0] == "SCAN" // rueidis recycles cmd once it is answered
	res := c.Client.Do(ctx, cmd)
	if scan {
		c.after(c.addr)
	}
	return res
}

// tryAgainWatch closes seen when a command is first answered TRYAGAIN.
type tryAgainWatch struct {
	rueidis.Client
	seen chan struct{}
	once sync.Once
}

func (c *tryAgainWatch) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	res := c.Client.Do(ctx, cmd)
	if re, ok := rueidis.IsRedisErr(res.Error()); ok && re.IsTryAgain() {
		c.once.Do(func() { close(c.seen) })
	}
	return res
}
