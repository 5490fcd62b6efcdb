package main

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// archiveSize is the one line whose bytes may differ between runs: the
// archive's size depends on how many digits TakenAt's nanoseconds need.
var archiveSize = regexp.MustCompile(`\(\d+ bytes,`)

// answerRow is a row of the answers CSV: participant, question, server time.
var answerRow = regexp.MustCompile(`^[^,]+,\d+,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// normalize takes out what may change between runs with one seed: the
// archive's size, and in the answers CSV the times and the order in which
// answers sent at the same moment were counted (its rows are sorted). Every
// row must carry a server time.
func normalize(t *testing.T, out string) string {
	t.Helper()
	out = archiveSize.ReplaceAllString(out, "(N bytes,")
	const header = "participant,question,answered_at\n"
	before, rest, ok := strings.Cut(out, header)
	if !ok {
		t.Fatalf("no answers CSV in the output:\n%s", out)
	}
	block, after, _ := strings.Cut(rest, "\n\n")
	rows := strings.Split(block, "\n")
	for i, row := range rows {
		if !answerRow.MatchString(row) {
			t.Errorf("answers CSV row %q is not participant,question,time", row)
		}
		rows[i] = row[:strings.LastIndexByte(row, ',')]
	}
	slices.Sort(rows)
	return before + header + strings.Join(rows, "\n") + "\n\n" + after
}

// TestStoryDependsOnlyOnSeed tells the story twice with one seed: the
// goroutines interleave differently, the output may not, but for the answers
// CSV's times and order of simultaneous answers. Other seeds must hold the
// invariants too.
func TestStoryDependsOnlyOnSeed(t *testing.T) {
	dir := t.TempDir()
	tell := func(seed uint64) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(context.Background(), &out, seed, dir); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, out.String())
		}
		return normalize(t, out.String())
	}
	first := tell(8)
	if diff := cmp.Diff(first, tell(8)); diff != "" {
		t.Errorf("two runs with seed 8 differ (-first +second):\n%s", diff)
	}
	for _, seed := range []uint64{1, 2, 3} {
		if got := tell(seed); got == first {
			t.Errorf("seed %d told the story of seed 8", seed)
		}
	}
}

// TestCheckInvariantCatchesAnExtraAnswer proves the final check can fail: a
// board with one answer counted twice breaks it.
func TestCheckInvariantCatchesAnExtraAnswer(t *testing.T) {
	plans := []plan{
		{student: "Ayu Lestari", submissions: []submission{{question: 1}, {question: 2, how: doubleTap}}},
		{student: "Bagus Pratama", submissions: []submission{{question: 1, how: lostReply}}},
	}
	counted := func(n int64) *tally {
		tl := &tally{}
		tl.counted.Store(n)
		return tl
	}
	tests := []struct {
		name    string
		scores  map[string]int64
		tally   *tally
		wantErr bool
	}{
		{name: "exactly once", scores: map[string]int64{"Ayu Lestari": 20, "Bagus Pratama": 10}, tally: counted(3)},
		{name: "a double tap counted twice", scores: map[string]int64{"Ayu Lestari": 30, "Bagus Pratama": 10}, tally: counted(4), wantErr: true},
		{name: "right total, wrong student", scores: map[string]int64{"Ayu Lestari": 10, "Bagus Pratama": 20}, tally: counted(3), wantErr: true},
		{name: "right board, a reply counted twice", scores: map[string]int64{"Ayu Lestari": 20, "Bagus Pratama": 10}, tally: counted(4), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r kuis.Recap
			for _, name := range sortedNames(tt.scores) {
				r.Standings = append(r.Standings, kuis.Standing{Participant: name, Score: tt.scores[name]})
			}
			err := checkInvariant(&bytes.Buffer{}, r, plans, tt.tally)
			if (err != nil) != tt.wantErr {
				t.Errorf("checkInvariant = %v; want error: %v", err, tt.wantErr)
			}
		})
	}
}

// TestCheckRecapCatchesWrongOrderTimesAndCounts proves the recap check can
// fail: Bagus and Citra tie on 10 points and Bagus finished first, so he must
// stand above her (Redis's name order would put Citra first), with the
// earlier time in the log.
func TestCheckRecapCatchesWrongOrderTimesAndCounts(t *testing.T) {
	plans := []plan{
		{student: "Ayu Lestari", submissions: []submission{{question: 2}, {question: 1, how: doubleTap}}, finish: 2},
		{student: "Bagus Pratama", submissions: []submission{{question: 1}}, finish: 0},
		{student: "Citra Maharani", submissions: []submission{{question: 1, how: lostReply}}, finish: 1},
		{student: "Dimas Prasetyo", finish: 3}, // answered nothing
	}
	at := func(ms int) time.Time { return time.UnixMilli(1_800_000_000_000 + int64(ms)).UTC() }
	good := func() kuis.Recap {
		r := kuis.Recap{
			Standings: []kuis.Standing{
				{Rank: 1, CompetitionRank: 1, Participant: "Ayu Lestari", Score: 20},
				{Rank: 2, CompetitionRank: 2, Participant: "Bagus Pratama", Score: 10},
				{Rank: 3, CompetitionRank: 2, Participant: "Citra Maharani", Score: 10},
			},
			Answers: []kuis.AnswerRecord{
				{Participant: "Ayu Lestari", Question: 2, At: at(0)},
				{Participant: "Bagus Pratama", Question: 1, At: at(10)},
				{Participant: "Citra Maharani", Question: 1, At: at(12)},
				{Participant: "Ayu Lestari", Question: 1, At: at(14)},
			},
		}
		for q := 1; q <= questions; q++ {
			r.Questions = append(r.Questions, kuis.QuestionResult{Question: q})
		}
		r.Questions[0].Correct, r.Questions[1].Correct = 3, 1
		return r
	}
	tests := []struct {
		name    string
		change  func(r *kuis.Recap)
		wantErr bool
	}{
		{name: "as planned", change: func(*kuis.Recap) {}},
		{name: "tie in name order", change: func(r *kuis.Recap) {
			r.Standings[1].Participant, r.Standings[2].Participant = "Citra Maharani", "Bagus Pratama"
		}, wantErr: true},
		{name: "finishes in one millisecond", change: func(r *kuis.Recap) { r.Answers[2].At = at(10) }, wantErr: true},
		{name: "an answer missing from the log", change: func(r *kuis.Recap) { r.Answers = r.Answers[:3] }, wantErr: true},
		{name: "a question miscounted", change: func(r *kuis.Recap) { r.Questions[1].Correct = 2 }, wantErr: true},
		{name: "a student missing", change: func(r *kuis.Recap) { r.Standings = r.Standings[:2] }, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good()
			tt.change(&r)
			err := checkRecap(&bytes.Buffer{}, r, plans)
			if (err != nil) != tt.wantErr {
				t.Errorf("checkRecap = %v; want error: %v", err, tt.wantErr)
			}
		})
	}
}
