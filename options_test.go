package kuis_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// TestWithReplicasBadArguments: n < 1 or a timeout <= 0 is ErrInvalidOption,
// before any I/O; ACLRules then returns nil, as for any invalid option.
func TestWithReplicasBadArguments(t *testing.T) {
	e := newEnv(t)
	rec := newRecorder(e.client)
	for _, tc := range []struct {
		n       int
		timeout time.Duration
	}{{0, time.Second}, {-1, time.Second}, {1, 0}, {1, -time.Millisecond}, {0, 0}} {
		name := fmt.Sprintf("WithReplicas(%d, %v)", tc.n, tc.timeout)
		rec.start()
		_, err := kuis.New(rec, append(e.opts, kuis.WithReplicas(tc.n, tc.timeout))...)
		if sent := rec.stop(); len(sent) > 0 {
			t.Errorf("New with %s sent %v; want no I/O", name, sent)
		}
		if !errors.Is(err, kuis.ErrInvalidOption) {
			t.Errorf("New with %s: %v; want ErrInvalidOption", name, err)
		}
		if rules := kuis.ACLRules(kuis.RoleApp, kuis.WithReplicas(tc.n, tc.timeout)); rules != nil {
			t.Errorf("ACLRules with %s = %q; want nil", name, rules)
		}
	}
}

// TestWithReplicasRefusedWithoutReplicas: the target has no replicas, so New
// refuses WithReplicas(1), saying how many it found; miniredis has no ROLE,
// and New returns that error.
func TestWithReplicasRefusedWithoutReplicas(t *testing.T) {
	e := newEnv(t)
	_, err := kuis.New(e.client, append(e.opts, kuis.WithReplicas(1, time.Second))...)
	switch {
	case !redistest.Real():
		if err == nil || errors.Is(err, kuis.ErrInvalidOption) {
			t.Errorf("New on miniredis, which has no ROLE: %v; want ROLE's error", err)
		}
	case !errors.Is(err, kuis.ErrInvalidOption) || !strings.Contains(err.Error(), "has 0 replica(s)"):
		t.Errorf("New with WithReplicas(1) on a server without replicas: %v; want ErrInvalidOption saying it has 0 replica(s)", err)
	}
}

// TestWithoutReplicasNoWait: without WithReplicas, neither New nor any call
// sends WAIT or ROLE, or takes a dedicated connection.
func TestWithoutReplicasNoWait(t *testing.T) {
	e := newEnv(t)
	rec := newRecorder(e.client)
	rec.start()
	s := e.storeOn(rec)
	if sent := rec.stop(); slices.Contains(sent, "ROLE") {
		t.Errorf("New sent %v; want no ROLE", sent)
	}
	b, m := handles(t, s, quizID())
	rec.start()
	err := errors.Join(
		m.Create(e.ctx, "Kuis", 3),
		func() error { _, err := b.RecordAnswer(e.ctx, "Ali", 1); return err }(),
		func() error {
			_, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Budi", 1}, {"Budi", 2}})
			return err
		}(),
		m.Finish(e.ctx),
	)
	sent := rec.stop()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"WAIT", "ROLE"} {
		if slices.Contains(sent, c) {
			t.Errorf("a Store without WithReplicas sent %s: %v", c, sent)
		}
	}
	if !slices.Contains(sent, "EVALSHA") {
		t.Errorf("sent %v; want the scripts' EVALSHA, to know the recorder saw them", sent)
	}
	if n := rec.DedicatedCalls(); n != 0 {
		t.Errorf("%d calls took a dedicated connection; want none", n)
	}
}

// TestWithReplicasACL: the rules of a role given WithReplicas allow New's
// ROLE (then New refuses: the target has no replicas), and those without it
// do not (ErrForbidden); every role's rules allow WAIT.
func TestWithReplicasACL(t *testing.T) {
	e := newEnv(t)
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher, kuis.RoleOperator} {
		for _, withReplicas := range []bool{true, false} {
			opts := slices.Clone(e.opts)
			if withReplicas {
				opts = append(opts, kuis.WithReplicas(1, time.Second))
			}
			rules := kuis.ACLRules(role, opts...)
			if !slices.Contains(rules, "+wait") || slices.Contains(rules, "+role") != withReplicas {
				t.Errorf("ACLRules(%v), WithReplicas %v: %q; want +wait, and +role only with WithReplicas", role, withReplicas, rules)
			}
			if !redistest.Real() {
				continue
			}
			client := aclUser(t, e, rules)
			_, err := kuis.New(client, append(slices.Clone(e.opts), kuis.WithReplicas(1, time.Second))...)
			if want := map[bool]error{true: kuis.ErrInvalidOption, false: kuis.ErrForbidden}[withReplicas]; !errors.Is(err, want) {
				t.Errorf("New with WithReplicas as %v, rules with WithReplicas %v: %v; want %v", role, withReplicas, err, want)
			}
		}
	}
}
