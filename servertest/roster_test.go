package servertest_test

import (
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// Ports of TestRosterWritesWaitForTheirReplica's servers.
const rosterPortLo, rosterPortHi = 34360, 34399

// TestRosterWritesWaitForTheirReplica: with WithReplicas, on servers of the
// test's own (a primary with a replica), an Enroll or Withdraw that writes
// sends one WAIT on its connection after its script and returns once the
// replica holds the roster; one whose script writes nothing (students
// enrolled already, IDs not enrolled, a refusal) sends none.
func TestRosterWritesWaitForTheirReplica(t *testing.T) {
	t.Parallel()
	primary, replica := redistest.StandaloneServers(t, rosterPortLo, rosterPortHi).PrimaryWithReplica()
	rec := redistest.NewRecorder(redistest.ClientAt(t, primary.Addr()))
	s, err := kuis.New(rec, kuis.WithReplicas(1, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Class("8a")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ali, budi := kuis.Student{ID: "S1", Name: "Ali"}, kuis.Student{ID: "S2", Name: "Budi"}
	calls := []struct {
		name  string
		waits int
		call  func() error
	}{
		{"Enroll", 1, func() error { return c.Enroll(ctx, ali, budi) }},
		{"Enroll again", 0, func() error { return c.Enroll(ctx, budi, ali) }},
		{"Enroll of a name taken", 0, func() error {
			return wantErr(c.Enroll(ctx, kuis.Student{ID: "S3", Name: "BUDI"}), kuis.ErrNameTaken)
		}},
		{"Withdraw", 1, func() error { return c.Withdraw(ctx, "S1", "S9") }},
		{"Withdraw of IDs not enrolled", 0, func() error { return c.Withdraw(ctx, "S1", "S9") }},
	}
	for _, call := range calls {
		rec.Start()
		err := call.call()
		sent := rec.Stop()
		if err != nil || countOf(sent, "WAIT") != call.waits {
			t.Errorf("%s: %v, sent %v; want %d WAIT", call.name, err, sent, call.waits)
		}
		if err := writesThenWait(sent); call.waits > 0 && err != nil {
			t.Errorf("%s sent %v: %v", call.name, sent, err)
		}
	}
	// Acknowledged: the replica has what the calls wrote the moment they returned.
	k := c.Keys()
	for key, want := range map[string]string{k.Roster(): "S2\nBudi", k.Names(): "Budi\nS2"} {
		got, err := replica.Do("HGETALL", key)
		if err != nil || got != want {
			t.Errorf("HGETALL %s on the replica = %q, %v; want %q", key, got, err, want)
		}
	}
}
