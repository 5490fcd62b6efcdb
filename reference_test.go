package kuis_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestReferenceSession replays the contract's reference session and checks
// every reply the contract lists, and the keys it leaves.
func TestReferenceSession(t *testing.T) {
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
	if diff := cmp.Diff(kuis.Info{Title: "Kuis Sejarah: Kemerdekaan", Questions: 3, Status: kuis.StatusRunning}, info); err != nil || diff != "" {
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
