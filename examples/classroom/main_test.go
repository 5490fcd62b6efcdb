package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"regexp"
	"slices"
	"strconv"
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

// csvAfter parses the CSV block of out that starts with the line header and
// ends at the first empty line.
func csvAfter(t *testing.T, out, header string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "\n"+header+"\n")
	if !ok {
		t.Fatalf("no CSV with the header %q in the output:\n%s", header, out)
	}
	block, _, _ := strings.Cut(rest, "\n\n")
	rows, err := csv.NewReader(strings.NewReader(block)).ReadAll()
	if err != nil {
		t.Fatalf("CSV after %q: %v", header, err)
	}
	return rows
}

// checkGradebook reads the gradebook CSV the story printed and compares it
// with the plans, worked out here apart from the program's own checks: a row
// per student with a correct answer, in the standings CSV's order, a 1 under
// each question the student sent at least once and a 0 under the others, and
// 10 points per 1.
func checkGradebook(t *testing.T, out string, plans []plan) {
	t.Helper()
	header := "participant,score"
	for q := 1; q <= questions; q++ {
		header += "," + strconv.Itoa(q)
	}
	want := map[string][]string{}
	for _, p := range plans {
		cells := slices.Repeat([]string{"0"}, questions)
		for _, s := range p.submissions {
			cells[s.question-1] = "1"
		}
		if n := strings.Count(strings.Join(cells, ""), "1"); n > 0 {
			want[p.student] = append([]string{p.student, strconv.Itoa(10 * n)}, cells...)
		}
	}
	var order []string
	for _, row := range csvAfter(t, out, "rank,competition_rank,participant,score,correct_answers") {
		order = append(order, row[2])
	}
	got := csvAfter(t, out, header)
	if len(got) != len(want) || len(order) != len(want) {
		t.Fatalf("gradebook of %d rows and standings of %d, want %d students", len(got), len(order), len(want))
	}
	for i, row := range got {
		if diff := cmp.Diff(want[order[i]], row); diff != "" {
			t.Errorf("gradebook row %d, want %s's (-want +got):\n%s", i+1, order[i], diff)
		}
	}
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
		checkGradebook(t, out.String(), planClass(seed))
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

// TestCheckCatchesWhatThePlansRuleOut proves the final check can fail. Ayu
// answers two questions, tapping the second twice; Bagus and Citra tie on 10
// points and Bagus finished first, so he must stand above her (Redis's name
// order would put Citra first), with the earlier time in the log; Dimas
// answers nothing.
func TestCheckCatchesWhatThePlansRuleOut(t *testing.T) {
	plans := []plan{
		{student: "Ayu Lestari", submissions: []submission{{question: 2}, {question: 1, how: doubleTap}}, finish: 2},
		{student: "Bagus Pratama", submissions: []submission{{question: 1}}, finish: 0},
		{student: "Citra Maharani", submissions: []submission{{question: 1, how: lostReply}}, finish: 1},
		{student: "Dimas Prasetyo", finish: 3},
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
			FinishedAt: at(20),
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
		counted int64 // calls the tally counted; 0 means the 4 planned
		wantErr bool
	}{
		{name: "as planned", change: func(*kuis.Recap) {}},
		{name: "a double tap counted twice", change: func(r *kuis.Recap) {
			r.Standings[0].Score = 30
			r.Answers = append(r.Answers, kuis.AnswerRecord{Participant: "Ayu Lestari", Question: 1, At: at(15)})
		}, counted: 5, wantErr: true},
		{name: "right total, wrong students", change: func(r *kuis.Recap) {
			r.Standings[0].Score, r.Standings[1].Score = 10, 20
		}, wantErr: true},
		{name: "right recap, a reply counted twice", change: func(*kuis.Recap) {}, counted: 5, wantErr: true},
		{name: "an answer logged under the wrong question", change: func(r *kuis.Recap) { r.Answers[0].Question = 3 }, wantErr: true},
		{name: "tie in name order", change: func(r *kuis.Recap) {
			r.Standings[1].Participant, r.Standings[2].Participant = "Citra Maharani", "Bagus Pratama"
		}, wantErr: true},
		{name: "finishes in one millisecond", change: func(r *kuis.Recap) { r.Answers[2].At = at(10) }, wantErr: true},
		{name: "an answer missing from the log", change: func(r *kuis.Recap) { r.Answers = r.Answers[:3] }, wantErr: true},
		{name: "a question miscounted", change: func(r *kuis.Recap) { r.Questions[1].Correct = 2 }, wantErr: true},
		{name: "a student missing", change: func(r *kuis.Recap) { r.Standings = r.Standings[:2] }, wantErr: true},
		{name: "an answer after the finish", change: func(r *kuis.Recap) { r.FinishedAt = at(13) }, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good()
			tt.change(&r)
			tl := &tally{}
			tl.counted.Store(4)
			if tt.counted != 0 {
				tl.counted.Store(tt.counted)
			}
			err := check(&bytes.Buffer{}, r, expect(plans), tl)
			if (err != nil) != tt.wantErr {
				t.Errorf("check = %v; want error: %v", err, tt.wantErr)
			}
		})
	}
}
