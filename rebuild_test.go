package kuis_test

import (
	"context"
	"errors"
	"fmt"

	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestRepairRebuildIsOneStep: 600 of 1,200 participants tampered with are more
// than one repair script corrects, so Repair rebuilds the board; readers
// reading the whole board meanwhile (one ZRANGE each: atomic) must see either
// every tampered score or none, never a board half repaired.
func TestRepairRebuildIsOneStep(t *testing.T) {
	t.Parallel()
	const participants, tampered, readers = 1200, 600, 4
	e := newEnv(t)
	id, _, b := e.running(1)
	k := e.keys(id)
	inputs := make([]kuis.AnswerInput, participants)
	for i := range inputs {
		inputs[i] = kuis.AnswerInput{Participant: fmt.Sprintf("Siswa %04d", i), Question: 1}
	}
	if _, err := b.RecordAnswers(e.ctx, inputs); err != nil {
		t.Fatal(err)
	}
	want := make([]kuis.Correction, 0, tampered)
	for i := range tampered {
		name := inputs[2*i].Participant
		e.mustRaw("ZINCRBY", k.Board(), "5", name)
		want = append(want, kuis.Correction{Participant: name, Was: 15, Now: 10})
	}

	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		seen  = map[int]int{} // tampered scores in one read -> reads
		fails []error
		done  = make(chan struct{})
	)
	for range readers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				zs, err := e.client.Do(e.ctx, e.client.B().Zrange().Key(k.Board()).Min("0").Max("-1").Withscores().Build()).AsZScores()
				mu.Lock()
				if err != nil {
					fails = append(fails, err)
				}
				n := 0
				for _, z := range zs {
					if z.Score == 15 {
						n++
					}
				}
				seen[n]++
				mu.Unlock()
			}
		})
	}
	got, err := e.store.Repair(e.ctx, id)
	close(done)
	wg.Wait()
	for _, err := range fails {
		t.Errorf("reader: %v", err)
	}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Repair: %v (-want +got):\n%s", err, diff)
	}
	for n, reads := range seen {
		if n != 0 && n != tampered {
			t.Errorf("%d reads saw %d tampered scores; want %d or none", reads, n, tampered)
		}
	}
	t.Logf("reads: %v (tampered scores -> reads)", seen)
	checkClean(t, e, id)
}

// TestRepairRebuildsRace: Repairs of one quiz that rebuild at the same time
// take the repair keys from each other; each ends repaired or ErrBusy (nothing
// replaced), at least one repairs, and no repair key is left behind.
func TestRepairRebuildsRace(t *testing.T) {
	t.Parallel()
	const repairs = 4
	e := newTunedEnv(t, kuis.Tuning{RepairStep: 1})
	id, _, _ := e.reference()
	k := e.keys(id)
	e.mustRaw("ZADD", k.Board(), "70", "Ali")
	e.mustRaw("ZREM", k.Board(), "Budi")
	errs := make([]error, repairs)
	var wg sync.WaitGroup
	for i := range repairs {
		wg.Go(func() { _, errs[i] = e.store.Repair(e.ctx, id) })
	}
	wg.Wait()
	repaired := 0
	for i, err := range errs {
		switch {
		case err == nil:
			repaired++
		case !errors.Is(err, kuis.ErrBusy):
			t.Errorf("Repair %d: %v; want nil or ErrBusy", i, err)
		}
	}
	if repaired == 0 {
		t.Errorf("no Repair of %d repaired: %v", repairs, errs)
	}
	if e.exists(k.RepairBoard()) || e.exists(k.RepairOrder()) {
		t.Errorf("repair keys left behind: %v", e.dump(k.RepairBoard(), k.RepairOrder()))
	}
	want := map[string]float64{"Citra": 30, "Ali": 30, "Budi": 20, "Dewi": 10}
	if diff := cmp.Diff(want, scoresOnBoard(e, k)); diff != "" {
		t.Errorf("board (-want +got):\n%s", diff)
	}
	checkClean(t, e, id)
}

// TestRepairLeftovers: repair keys left by a Repair that stopped midway are
// reported by Audit, deleted by the next Repair, whether it corrects in one
// script or rebuilds (their members never reach the board), and by PurgeQuiz.
func TestRepairLeftovers(t *testing.T) {
	t.Parallel()
	e := newTunedEnv(t, kuis.Tuning{RepairStep: 1})
	id, _, _ := e.reference()
	k := e.keys(id)
	leave := func() {
		e.mustRaw("ZADD", k.RepairBoard(), "990", "Zaki")
		e.mustRaw("ZADD", k.RepairOrder(), "990", "Zaki")
	}
	leave()
	v, err := e.store.Audit(e.ctx, id)
	var rules []string
	for _, x := range v {
		rules = append(rules, x.Key+" "+x.Rule)
	}
	wantRules := []string{k.RepairBoard() + " exists", k.RepairOrder() + " exists"}
	if diff := cmp.Diff(wantRules, rules); err != nil || diff != "" {
		t.Errorf("Audit with leftovers: %v (-want +got):\n%s", err, diff)
	}
	for _, tt := range []struct {
		name   string
		tamper [][]string
		want   []kuis.Correction
	}{
		{"one correction, one script", [][]string{{"ZINCRBY", "10", "Dewi"}}, []kuis.Correction{{Participant: "Dewi", Was: 20, Now: 10}}},
		{"two corrections, a rebuild", [][]string{{"ZINCRBY", "10", "Dewi"}, {"ZREM", "Budi"}},
			[]kuis.Correction{{Participant: "Budi", Was: 0, Now: 20}, {Participant: "Dewi", Was: 20, Now: 10}}},
	} {
		leave()
		for _, c := range tt.tamper {
			e.mustRaw(c[0], k.Board(), c[1:]...)
		}
		got, err := e.store.Repair(e.ctx, id)
		if err != nil || !cmp.Equal(tt.want, got) {
			t.Errorf("%s: Repair over leftovers = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
		if e.exists(k.RepairBoard()) || e.exists(k.RepairOrder()) {
			t.Errorf("%s: repair keys after Repair: %v", tt.name, e.dump(k.RepairBoard(), k.RepairOrder()))
		}
		want := map[string]float64{"Citra": 30, "Ali": 30, "Budi": 20, "Dewi": 10}
		if diff := cmp.Diff(want, scoresOnBoard(e, k)); diff != "" {
			t.Errorf("%s: board after Repair (-want +got):\n%s", tt.name, diff)
		}
		checkClean(t, e, id)
	}

	leave()
	e.finish(id)
	n, err := e.store.PurgeQuiz(e.ctx, id, func(_ context.Context, _ kuis.Recap) error { return nil })
	if err != nil || n != 7 {
		t.Errorf("PurgeQuiz = %d, %v; want 7 keys deleted", n, err)
	}
	for _, key := range []string{k.RepairBoard(), k.RepairOrder()} {
		if e.exists(key) {
			t.Errorf("%s after PurgeQuiz", key)
		}
	}
}
