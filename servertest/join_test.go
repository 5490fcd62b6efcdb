package servertest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// Ports of TestReplicasJoin's servers.
const joinPortLo, joinPortHi = 34300, 34329

// TestReplicasJoin: with WithReplicas, Join waits for its write as
// RecordAnswer does: a new joiner is on the replica the moment Join
// returns; a Join of a participant on the board writes the no-op its WAIT
// follows (the log left as it was), so that its nil error means the same;
// while the replica stalls both return their Standing beside
// ErrNotReplicated, and a refusal sends no WAIT; under RoleApp's rules
// without WithReplicas the no-op is refused, and a Join of a participant on
// the board says so beside its Standing, sending no WAIT.
func TestReplicasJoin(t *testing.T) {
	t.Parallel()
	s := redistest.StandaloneServers(t, joinPortLo, joinPortHi)
	primary, replica := s.PrimaryWithReplica()
	ctx := context.Background()
	rec := redistest.NewRecorder(redistest.ClientAt(t, primary.Addr()))
	st, err := kuis.New(rec, kuis.WithReplicas(1, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	hasty, err := kuis.New(rec, kuis.WithReplicas(1, 300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	id := quizID()
	b, m := handles(t, st, id)
	if err := m.Create(ctx, "Kuis", 3); err != nil {
		t.Fatal(err)
	}
	hb, hm := handles(t, hasty, id)
	k, _ := st.Keys(id)
	type result struct {
		s   kuis.Standing
		err error
	}
	call := func(b *kuis.Board, p string) (result, []string) {
		rec.Start()
		s, err := b.Join(ctx, p)
		return result{s, err}, rec.Stop()
	}
	joined := func(p string, rank int) kuis.Standing {
		return kuis.Standing{Rank: rank, CompetitionRank: 1, Participant: p}
	}

	t.Run("acknowledged", func(t *testing.T) {
		for _, c := range []struct {
			name string
			p    string
			want kuis.Standing
		}{{"a new joiner", "Ali", joined("Ali", 1)}, {"a participant on the board", "Ali", joined("Ali", 1)}} {
			before, err := primary.Do("XINFO", "STREAM", k.Log())
			if err != nil {
				t.Fatal(err)
			}
			got, sent := call(b, c.p)
			if got != (result{s: c.want}) || countOf(sent, "WAIT") != 1 {
				t.Errorf("%s: %+v, sending %v; want %+v and one WAIT", c.name, got, sent, c.want)
			}
			if got, err := replica.Do("ZSCORE", k.Board(), c.p); err != nil || got != "0" {
				t.Errorf("%s: ZSCORE on the replica right after Join = %q, %v; want 0", c.name, got, err)
			}
			if after, err := primary.Do("XINFO", "STREAM", k.Log()); c.name != "a new joiner" && (err != nil || after != before) {
				t.Errorf("%s: XINFO STREAM after = %q, %v; want as before: %q", c.name, after, err, before)
			}
		}
	})

	t.Run("a stalled replica", func(t *testing.T) {
		resume := stall(t, replica)
		defer resume()
		for _, c := range []struct {
			name  string
			p     string
			want  result
			waits int
		}{
			{"a new joiner", "Budi", result{joined("Budi", 1), kuis.ErrNotReplicated}, 1},
			{"its retry", "Budi", result{joined("Budi", 1), kuis.ErrNotReplicated}, 1},
			{"a participant acknowledged before", "Ali", result{joined("Ali", 2), kuis.ErrNotReplicated}, 1},
		} {
			got, sent := call(hb, c.p)
			if got.s != c.want.s || !errors.Is(got.err, c.want.err) || countOf(sent, "WAIT") != c.waits {
				t.Errorf("%s: %+v, sending %v; want %+v and %d WAITs", c.name, got, sent, c.want, c.waits)
			}
		}
		if err := hm.Finish(ctx); !errors.Is(err, kuis.ErrNotReplicated) {
			t.Fatalf("Finish while the replica stalls: %v; want ErrNotReplicated", err)
		}
		got, sent := call(hb, "Citra")
		if !errors.Is(got.err, kuis.ErrQuizFinished) || countOf(sent, "WAIT") != 0 {
			t.Errorf("a new joiner after the finish: %+v, sending %v; want ErrQuizFinished and no WAIT", got, sent)
		}
	})

	t.Run("RoleApp's rules without WithReplicas", func(t *testing.T) {
		rules := append(kuis.ACLRules(kuis.RoleApp), "+role") // so that New may count the replicas
		user := "app-join-" + id
		as, arec := replicasStoreAs(t, primary, user, rules)
		ab, _ := handles(t, as, id)
		arec.Start()
		got, err := ab.Join(ctx, "Ali")
		sent := arec.Stop()
		if got != joined("Ali", 2) || !errors.Is(err, kuis.ErrNotReplicated) || !strings.Contains(fmt.Sprint(err), "no-op") || countOf(sent, "WAIT") != 0 {
			t.Errorf("a Join of a participant on the board as %s: %+v, %v, sending %v; want Ali's standing beside ErrNotReplicated saying the no-op failed, and no WAIT",
				user, got, err, sent)
		}
	})
	if diff := cmp.Diff([]string{"Ali", "Budi"}, boardMembers(t, primary, k)); diff != "" {
		t.Errorf("board (-want +got):\n%s", diff)
	}
}

// boardMembers is the quiz's board's members on srv, by name.
func boardMembers(t *testing.T, srv *redistest.Server, k kuis.Keys) []string {
	t.Helper()
	out, err := srv.Do("ZRANGE", k.Board(), "0", "-1")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(out)
}
