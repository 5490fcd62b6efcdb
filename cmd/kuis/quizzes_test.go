package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestQuizzes lists every quiz with its status and counts, as text and as
// one JSON array in the library's field names, filtered by -status.
func TestQuizzes(t *testing.T) {
	tg := newTarget(t)
	if got := tg.must("quizzes"); got != "" {
		t.Errorf("quizzes of an empty namespace: %q, want nothing", got)
	}
	if got := tg.must("quizzes", "-json"); got != "[]\n" {
		t.Errorf("quizzes -json of an empty namespace: %q, want []", got)
	}
	tg.reference("kuis-01", true)
	tg.quiz("kuis-02", "Kuis IPA", 5, [][]string{{"Eka"}}, false)
	tg.quiz("kuis-03", "Kosong", 2, nil, true)

	want := []string{
		"kuis-01 selesai 3 4 9 Kuis Matematika Kelas 8",
		"kuis-02 berjalan 5 1 1 Kuis IPA",
		"kuis-03 selesai 2 0 0 Kosong",
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{nil, want},
		{[]string{"-status", "running"}, want[1:2]},
		{[]string{"-status", "finished"}, []string{want[0], want[2]}},
	} {
		if diff := cmp.Diff(tt.want, words(tg.must(append([]string{"quizzes"}, tt.args...)...))); diff != "" {
			t.Errorf("quizzes %v (-want +got):\n%s", tt.args, diff)
		}
	}

	var got []map[string]any
	out := tg.must("quizzes", "-json")
	if err := json.Unmarshal([]byte(out), &got); err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("quizzes -json: %v: %q, want one JSON document on one line", err, out)
	}
	wantJSON := []map[string]any{
		{"quiz_id": "kuis-01", "title": "Kuis Matematika Kelas 8", "questions": 3.0, "status": "selesai", "participants": 4.0, "answers": 9.0},
		{"quiz_id": "kuis-02", "title": "Kuis IPA", "questions": 5.0, "status": "berjalan", "participants": 1.0, "answers": 1.0},
		{"quiz_id": "kuis-03", "title": "Kosong", "questions": 2.0, "status": "selesai", "participants": 0.0, "answers": 0.0},
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("quizzes -json (-want +got):\n%s", diff)
	}
}

// TestShow prints a quiz's summary and the top of its board, as text and
// as JSON; a missing quiz has its own words and exit status 1.
func TestShow(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", false)
	want := []string{
		"kuis-01: Kuis Matematika Kelas 8",
		"berjalan (running), 3 questions, 4 participants, 9 answers",
		"1  Citra  30",
		"1  Ali    30",
		"3  Budi   20",
	}
	if diff := cmp.Diff(want, lines(tg.must("show", "kuis-01", "-top", "3"))); diff != "" {
		t.Errorf("show -top 3 (-want +got):\n%s", diff)
	}

	var got showResult
	if err := json.Unmarshal([]byte(tg.must("show", "-json", "kuis-01")), &got); err != nil {
		t.Fatal(err)
	}
	wantJSON := showResult{
		QuizID:  "kuis-01",
		Summary: kuis.Summary{Title: "Kuis Matematika Kelas 8", Questions: 3, Status: kuis.StatusRunning, Participants: 4, Answers: 9},
		Standings: []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 30},
			{Rank: 2, CompetitionRank: 1, Participant: "Ali", Score: 30},
			{Rank: 3, CompetitionRank: 3, Participant: "Budi", Score: 20},
			{Rank: 4, CompetitionRank: 4, Participant: "Dewi", Score: 10},
		},
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("show -json (-want +got):\n%s", diff)
	}

	r := tg.kuis("show", "kuis-99")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("show of a missing quiz: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "show of a missing quiz", r.stderr, "kuis: show kuis-99: no such quiz in namespace")
}

// words is each line of a table with its columns one space apart.
func words(s string) []string {
	ls := lines(s)
	for i, l := range ls {
		ls[i] = strings.Join(strings.Fields(l), " ")
	}
	return ls
}
