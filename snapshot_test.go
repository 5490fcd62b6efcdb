package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// TestRecapInParts: a quiz too big for one recap script (here, any quiz:
// Tuning.RecapInParts) recaps exactly as one script reads it, in either tie
// order, running or finished, and PurgeQuiz archives that recap.
func TestRecapInParts(t *testing.T) {
	t.Parallel()
	for _, ties := range []kuis.TieOrder{kuis.TiesByName, kuis.TiesByTime} {
		for _, finished := range []bool{false, true} {
			t.Run(fmt.Sprintf("ties %d, finished %v", ties, finished), func(t *testing.T) {
				e := newEnv(t, kuis.WithTies(ties))
				id, _, b := e.reference()
				for _, name := range []string{"Eko", "Fajar", "Gita"} { // ties with Dewi at 10
					if _, err := b.RecordAnswer(e.ctx, name, 2); err != nil {
						t.Fatal(err)
					}
				}
				if finished {
					e.finish(id)
				}
				whole, err := e.store.Recap(e.ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				parts := e.tunedOn(e.client, kuis.Tuning{RecapInParts: true})
				got, err := parts.Recap(e.ctx, id)
				ignore := cmpopts.IgnoreFields(kuis.Recap{}, "TakenAt")
				if diff := cmp.Diff(whole, got, ignore); err != nil || diff != "" {
					t.Errorf("Recap in parts: %v (-one script +in parts):\n%s", err, diff)
				}
				if len(got.Standings) != 7 || len(got.Answers) != 12 {
					t.Errorf("Recap in parts read %d standings and %d answers; want 7 and 12", len(got.Standings), len(got.Answers))
				}
				if !finished {
					return
				}
				var archived kuis.Recap
				n, err := parts.PurgeQuiz(e.ctx, id, func(_ context.Context, r kuis.Recap) error { archived = r; return nil })
				if diff := cmp.Diff(whole, archived, ignore); err != nil || n != 5 || diff != "" {
					t.Errorf("PurgeQuiz in parts = %d, %v; archive (-one script +in parts):\n%s", n, err, diff)
				}
			})
		}
	}
}

// TestRecapInPartsNoticesChanges: a finished quiz whose board changes while
// Recap reads it in parts (here, right after the first ZSCAN page) is read
// again, and the recap holds the change; one that changes on every read is
// refused with ErrBusy. A running quiz is returned as read.
func TestRecapInPartsNoticesChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		finished bool
		changes  int // reads during which the board changes
		wantErr  error
		wantDewi int64
	}{
		{"finished, changed once", true, 1, nil, 50},
		{"finished, changed every time", true, 3, kuis.ErrBusy, 0},
		{"running, changed once", false, 1, nil, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id, _, _ := e.reference()
			if tt.finished {
				e.finish(id)
			}
			k := e.keys(id)
			changes, score := 0, 40
			hooked := watchedClient{Client: e.client, after: func() {
				if changes < tt.changes {
					changes++
					score += 10
					e.mustRaw("ZADD", k.Board(), fmt.Sprint(score), "Dewi")
				}
			}}
			got, err := e.tunedOn(hooked, kuis.Tuning{RecapInParts: true}).Recap(e.ctx, id)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Recap = %v; want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			for _, s := range got.Standings {
				if s.Participant == "Dewi" && s.Score != tt.wantDewi {
					t.Errorf("Dewi's score in the recap = %d; want %d", s.Score, tt.wantDewi)
				}
			}
		})
	}
}

// watchedClient runs after on every ZSCAN sent on a dedicated connection,
// where Recap reads a big quiz in parts.
type watchedClient struct {
	rueidis.Client
	after func()
}

func (c watchedClient) Dedicated(fn func(rueidis.DedicatedClient) error) error {
	return c.Client.Dedicated(func(d rueidis.DedicatedClient) error {
		return fn(watchedConn{DedicatedClient: d, after: c.after})
	})
}

type watchedConn struct {
	rueidis.DedicatedClient
	after func()
}

func (c watchedConn) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	name := cmd.Commands()[0] // cmd is recycled once sent
	res := c.DedicatedClient.Do(ctx, cmd)
	if strings.EqualFold(name, "ZSCAN") {
		c.after()
	}
	return res
}

// TestRecapOneScriptUpToItsBound: Recap reads a quiz of up to 10,000 board
// members, answers and log entries together (here 3,333 participants of one
// answer each, plus the log's start entry) in one script, and one item more
// in parts, on a connection of its own (WATCH, then pages); both recaps hold
// every participant and answer.
func TestRecapOneScriptUpToItsBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(1)
	rec := newRecorder(e.client)
	s := e.storeOn(rec)
	record := func(from, to int) {
		t.Helper()
		in := make([]kuis.AnswerInput, 0, to-from)
		for i := from; i < to; i++ {
			in = append(in, kuis.AnswerInput{Participant: fmt.Sprintf("murid-%04d", i), Question: 1})
		}
		res, err := b.RecordAnswers(e.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil || r.Duplicate {
				t.Fatalf("RecordAnswers: %+v", r)
			}
		}
	}
	for _, tc := range []struct {
		participants int
		inParts      bool
	}{{3333, false}, {3334, true}} { // 3n + 1 items: 10,000, then 10,003
		n, err := b.Len(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		record(int(n), tc.participants)
		rec.start()
		r, err := s.Recap(e.ctx, id)
		sent := rec.stop()
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(sent, "WATCH"); got != tc.inParts {
			t.Errorf("%d participants: Recap sent %v; want it read in parts: %v", tc.participants, sent, tc.inParts)
		}
		if len(r.Standings) != tc.participants || len(r.Answers) != tc.participants || r.Questions[0].Correct != tc.participants {
			t.Errorf("%d participants: Recap has %d standings, %d answers, %+v", tc.participants, len(r.Standings), len(r.Answers), r.Questions)
		}
	}
}
