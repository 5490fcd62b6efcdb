package servertest_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestMovedOnADedicatedConnectionIsFollowed: a client whose view of the
// cluster predates a slot's move sends its first command for the slot on a
// dedicated connection (a course snapshot's WATCH, a run waited for with
// WithReplicas); the old owner answers MOVED, and the call goes on at the
// new owner instead of failing.
func TestMovedOnADedicatedConnectionIsFollowed(t *testing.T) {
	t.Parallel()
	servers := redistest.StandaloneServers(t, silencePortLo, silencePortHi)
	c := servers.Cluster(3, 1)
	ctx := context.Background()
	setup, err := kuis.New(redistest.ClientAt(t, c.Addrs()...), kuis.WithHashTag())
	if err != nil {
		t.Fatal(err)
	}
	// A finished quiz folded into a course, and a running quiz.
	done, running, courseID := quizID(), quizID(), "kelas-"+quizID()
	for _, id := range []string{done, running} {
		if _, m := handles(t, setup, id); m.Create(ctx, "Kuis "+id, 3) != nil {
			t.Fatalf("Create %s failed", id)
		}
	}
	b, m := handles(t, setup, done)
	for _, p := range []string{"Ali", "Budi"} {
		if _, err := b.RecordAnswer(ctx, p, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	recap, err := setup.Recap(ctx, done)
	if err != nil {
		t.Fatal(err)
	}
	course, err := setup.Course(courseID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := course.Fold(ctx, recap); err != nil {
		t.Fatal(err)
	}

	// The stale client learns the layout now, then both slots move.
	stale := &movedCounter{Client: redistest.ClientAt(t, c.Addrs()...)}
	plain, err := kuis.New(stale, kuis.WithHashTag())
	if err != nil {
		t.Fatal(err)
	}
	waited, err := kuis.New(stale, kuis.WithHashTag(), kuis.WithReplicas(1, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	moveSlot(t, c, "{"+courseID+"}")
	moveSlot(t, c, "{"+running+"}")

	got, err := mustCourse(t, plain, courseID).Recap(ctx)
	if err != nil || len(got.Standings) != 2 {
		t.Errorf("the course's Recap after its slot moved: %d standings, %v; want 2", len(got.Standings), err)
	}
	wb, _ := handles(t, waited, running)
	if a, err := wb.RecordAnswer(ctx, "Citra", 2); err != nil || a.Score != 10 {
		t.Errorf("RecordAnswer with WithReplicas after the slot moved: %+v, %v; want 10 points", a, err)
	}
	if n := stale.moved.Load(); n < 2 {
		t.Errorf("%d MOVED replies on dedicated connections; want one for each call at least", n)
	}
}

func mustCourse(t *testing.T, s *kuis.Store, id string) *kuis.Course {
	t.Helper()
	c, err := s.Course(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// movedCounter is a client that counts the MOVED replies its dedicated
// connections receive.
type movedCounter struct {
	rueidis.Client
	moved atomic.Int64
}

func (m *movedCounter) Dedicated(fn func(rueidis.DedicatedClient) error) error {
	return m.Client.Dedicated(func(c rueidis.DedicatedClient) error { return fn(&movedConn{c, m}) })
}

type movedConn struct {
	rueidis.DedicatedClient
	m *movedCounter
}

func (c *movedConn) count(r rueidis.RedisResult) {
	if re, ok := rueidis.IsRedisErr(r.Error()); ok {
		if _, moved := re.IsMoved(); moved {
			c.m.moved.Add(1)
		}
	}
}

func (c *movedConn) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	r := c.DedicatedClient.Do(ctx, cmd)
	c.count(r)
	return r
}

func (c *movedConn) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	res := c.DedicatedClient.DoMulti(ctx, cmds...)
	for _, r := range res {
		c.count(r)
	}
	return res
}

// moveSlot moves the slot of key, with its keys, from the primary that
// serves it to another, as redis-cli --cluster reshard does, and returns
// once every primary says so: the replicas learn it by gossip.
func moveSlot(t *testing.T, c *redistest.OwnCluster, key string) {
	t.Helper()
	slotText, err := c.Primaries[0].Do("CLUSTER", "KEYSLOT", key)
	if err != nil {
		t.Fatal(err)
	}
	slot, _ := strconv.Atoi(slotText)
	from := c.Primaries[slot*len(c.Primaries)/16384]
	to := c.Primaries[(slot*len(c.Primaries)/16384+1)%len(c.Primaries)]
	id := func(s *redistest.Server) string {
		out, err := s.Do("CLUSTER", "MYID")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fromID, toID := id(from), id(to)
	must := func(s *redistest.Server, args ...string) string {
		t.Helper()
		out, err := s.Do(args...)
		if err != nil {
			t.Fatalf("%v on %s: %v", args, s.Addr(), err)
		}
		return out
	}
	must(to, "CLUSTER", "SETSLOT", slotText, "IMPORTING", fromID)
	must(from, "CLUSTER", "SETSLOT", slotText, "MIGRATING", toID)
	for {
		keys := strings.Fields(must(from, "CLUSTER", "GETKEYSINSLOT", slotText, "100"))
		if len(keys) == 0 {
			break
		}
		must(from, append([]string{"MIGRATE", "127.0.0.1", strconv.Itoa(to.Port), "", "0", "5000", "KEYS"}, keys...)...)
	}
	for _, p := range c.Primaries {
		must(p, "CLUSTER", "SETSLOT", slotText, "NODE", toID)
	}
	// SETSLOT NODE on every primary: each answers for the slot as moved at once.
}
