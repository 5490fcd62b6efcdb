package kuis_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
)

// TestReferenceSession replays the contract's reference session and checks
// every reply the contract lists, and the keys it leaves.
func TestReferenceSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := quizID()
	m, b := e.meta(id), e.board(id)
	if err := m.Create(e.ctx, "Kuis Sejarah: Kemerdekaan", 3); err != nil {
		t.Fatal(err)
	}
	var replies []int64
	for q, round := range referenceRounds {
		for _, name := range round {
			a, err := b.RecordAnswer(e.ctx, name, q+1)
			if err != nil || a.Duplicate {
				t.Fatalf("RecordAnswer(%s, %d) = %+v, %v; want a counted answer", name, q+1, a, err)
			}
			replies = append(replies, a.Score)
		}
	}
	if diff := cmp.Diff([]int64{10, 10, 20, 10, 20, 30, 20, 30, 10}, replies); diff != "" {
		t.Errorf("RecordAnswer scores (-want +got):\n%s", diff)
	}

	want := []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 30},
		{Rank: 2, CompetitionRank: 1, Participant: "Ali", Score: 30},
		{Rank: 3, CompetitionRank: 3, Participant: "Budi", Score: 20},
		{Rank: 4, CompetitionRank: 4, Participant: "Dewi", Score: 10},
	}
	standings, err := b.Standings(e.ctx)
	if diff := cmp.Diff(want, standings); err != nil || diff != "" {
		t.Errorf("Standings: %v (-want +got):\n%s", err, diff)
	}
	for name, rank := range map[string]int{"Ali": 2, "Dewi": 4} {
		if got, err := b.Standing(e.ctx, name); err != nil || got.Rank != rank {
			t.Errorf("Standing(%s) = %+v, %v; want Rank %d", name, got, err, rank)
		}
	}
	info, err := m.Get(e.ctx)
	if diff := cmp.Diff(kuis.Info{Title: "Kuis Sejarah: Kemerdekaan", Questions: 3, Status: kuis.StatusRunning, Visibility: kuis.VisibilityShown}, info); err != nil || diff != "" {
		t.Errorf("Get: %v (-want +got):\n%s", err, diff)
	}
	k := e.keys(id)
	for _, key := range fiveKeys(k) {
		if ttl, err := e.mustRaw("TTL", key).AsInt64(); err != nil || ttl != -1 {
			t.Errorf("TTL %s = %d, %v; want -1 (no TTL)", key, ttl, err)
		}
	}
	wantPairs := []string{"1:Ali", "1:Citra", "2:Ali", "2:Budi", "2:Citra", "3:Ali", "3:Budi", "3:Citra", "3:Dewi"}
	if diff := cmp.Diff(wantPairs, pairsAnswered(e, k)); diff != "" {
		t.Errorf("answers set (-want +got):\n%s", diff)
	}
	wantLog := [][3]string{{"Ali", "1", "10"}, {"Citra", "1", "10"}, {"Ali", "2", "20"}, {"Budi", "2", "10"}, {"Citra", "2", "20"},
		{"Ali", "3", "30"}, {"Budi", "3", "20"}, {"Citra", "3", "30"}, {"Dewi", "3", "10"}}
	if diff := cmp.Diff(wantLog, logFields(e, k)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	// The order set places each participant by points, then by the log's time of their latest answer.
	at := referenceTimes(e, k)
	wantOrder := map[string]string{"Citra": at.Replace("P3(Citra)"), "Ali": at.Replace("P3(Ali)"),
		"Budi": at.Replace("P2(Budi)"), "Dewi": at.Replace("P1(Dewi)")}
	zs, err := e.mustRaw("ZRANGE", k.Order(), "0", "-1", "WITHSCORES").AsZScores()
	gotOrder := map[string]string{}
	for _, z := range zs {
		gotOrder[z.Member] = strconv.FormatFloat(z.Score, 'f', -1, 64)
	}
	if diff := cmp.Diff(wantOrder, gotOrder); err != nil || diff != "" {
		t.Errorf("order set: %v (-want +got):\n%s", err, diff)
	}
	if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
}

// TestContractOnlyQuiz: a quiz written by redis-cli as the contract's
// session writes it (meta and board only: no answers set, log or order set)
// still reads, in either tie order (time order falls back to name order),
// recaps in one script and in parts, follows its feed to the end once the
// status says selesai, and is archived and purged.
func TestContractOnlyQuiz(t *testing.T) {
	t.Parallel()
	for _, ties := range []kuis.TieOrder{kuis.TiesByName, kuis.TiesByTime} {
		t.Run(fmt.Sprintf("ties %d", ties), func(t *testing.T) {
			e := newEnv(t, kuis.WithTies(ties))
			id := quizID()
			k := e.keys(id)
			e.mustRaw("HSET", k.Meta(), "judul", "Kuis Matematika Kelas 8", "jumlah_soal", "3", "status", "berjalan")
			for _, round := range referenceRounds {
				for _, name := range round {
					e.mustRaw("ZINCRBY", k.Board(), "10", name)
				}
			}
			b := e.board(id)
			want := referenceAnswers(id)
			want["Get"] = kuis.Info{Title: "Kuis Matematika Kelas 8", Questions: 3, Status: kuis.StatusRunning, Visibility: kuis.VisibilityShown}
			if diff := cmp.Diff(want, readAll(t, e.ctx, e.store, id)); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
			e.mustRaw("HSET", k.Meta(), "status", "selesai") // the contract's finish
			var events []kuis.Event
			for ev, err := range b.Events(e.ctx, "") {
				if err != nil {
					t.Fatalf("Events: %v", err)
				}
				events = append(events, ev)
			}
			if len(events) != 1 || events[0].Kind != kuis.EventFinished {
				t.Errorf("Events = %+v; want one finished event", events)
			}
			wantRecap := kuis.Recap{QuizID: id, Instance: kuis.NoInstance /* no log: the contract's writes only */, Info: kuis.Info{Title: "Kuis Matematika Kelas 8", Questions: 3, Status: kuis.StatusFinished},
				Standings: want["Standings"].([]kuis.Standing), Answers: []kuis.AnswerRecord{},
				Questions: []kuis.QuestionResult{{Question: 1}, {Question: 2}, {Question: 3}}}
			ignore := cmpopts.IgnoreFields(kuis.Recap{}, "TakenAt")
			for _, s := range []*kuis.Store{e.store, e.tunedOn(e.client, kuis.Tuning{RecapInParts: true})} {
				got, err := s.Recap(e.ctx, id)
				if diff := cmp.Diff(wantRecap, got, ignore); err != nil || diff != "" {
					t.Errorf("Recap: %v (-want +got):\n%s", err, diff)
				}
			}
			var archived kuis.Recap
			n, err := e.store.PurgeQuiz(e.ctx, id, func(_ context.Context, r kuis.Recap) error { archived = r; return nil })
			if diff := cmp.Diff(wantRecap, archived, ignore); err != nil || n != 2 || diff != "" {
				t.Errorf("PurgeQuiz = %d, %v; want 2, nil; archived (-want +got):\n%s", n, err, diff)
			}
			if got := e.dump(k.Meta(), k.Board()); !cmp.Equal(got, map[string]string{k.Meta(): "none", k.Board(): "none"}) {
				t.Errorf("after PurgeQuiz: %v", got)
			}
		})
	}
}
