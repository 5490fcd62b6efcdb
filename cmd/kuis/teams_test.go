package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestTeams ranks a roster's teams on a quiz's board and on a course's, by
// sum and by mean, as the library ranks them, in text and in JSON; the
// roster comes from a file or the standard input; a missing quiz fails in
// its own words.
func TestTeams(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true) // Citra 30, Ali 30, Budi 20, Dewi 10
	tg.must("course", "fold", "ipa-8a", "kuis-01")
	// A spreadsheet's export: a byte order mark, a header, CRLF, spaces.
	const roster = "\uFEFFTeam,Member\r\nElang,Ali\r\nElang , Budi\r\nElang,Dewi\r\nGaruda,Citra\r\nRajawali,Eka\r\n"
	teams := []kuis.Team{{Name: "Elang", Members: []string{"Ali", "Budi", "Dewi"}}, {Name: "Garuda", Members: []string{"Citra"}}, {Name: "Rajawali", Members: []string{"Eka"}}}
	file := rosterFile(t, roster)
	board, err := tg.store.Board("kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	course := tg.course("ipa-8a")

	tests := []struct {
		args []string
		by   kuis.TeamScoring
		want []string
		rank func(kuis.TeamScoring) ([]kuis.TeamStanding, error)
	}{
		{[]string{"kuis-01"}, kuis.TeamSum, []string{"1 Elang 3 60 20.00", "2 Garuda 1 30 30.00", "3 Rajawali 1 0 0.00"},
			func(by kuis.TeamScoring) ([]kuis.TeamStanding, error) { return board.Teams(tg.ctx, teams, by) }},
		{[]string{"kuis-01", "-by", "mean"}, kuis.TeamMean, []string{"1 Garuda 1 30 30.00", "2 Elang 3 60 20.00", "3 Rajawali 1 0 0.00"},
			func(by kuis.TeamScoring) ([]kuis.TeamStanding, error) { return board.Teams(tg.ctx, teams, by) }},
		{[]string{"-course", "ipa-8a", "-by", "mean"}, kuis.TeamMean, []string{"1 Garuda 1 30 30.00", "2 Elang 3 60 20.00", "3 Rajawali 1 0 0.00"},
			func(by kuis.TeamScoring) ([]kuis.TeamStanding, error) { return course.Teams(tg.ctx, teams, by) }},
		{[]string{"-course", "ipa-8a", "-by", "sum"}, kuis.TeamSum, []string{"1 Elang 3 60 20.00", "2 Garuda 1 30 30.00", "3 Rajawali 1 0 0.00"},
			func(by kuis.TeamScoring) ([]kuis.TeamStanding, error) { return course.Teams(tg.ctx, teams, by) }},
	}
	for _, tt := range tests {
		args := append([]string{"teams", "-roster", file}, tt.args...)
		if diff := cmp.Diff(tt.want, words(tg.must(args...))); diff != "" {
			t.Errorf("%v (-want +got):\n%s", args, diff)
		}
		want, err := tt.rank(tt.by)
		if err != nil {
			t.Fatal(err)
		}
		var got []kuis.TeamStanding
		if err := json.Unmarshal([]byte(tg.must(append(args, "-json")...)), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v -json (-want +got):\n%s", args, diff)
		}
		stdin := tg.kuisIn(tg.ctx, roster, append([]string{"teams", "-roster", "-"}, tt.args...)...)
		if diff := cmp.Diff(tt.want, words(stdin.stdout)); diff != "" || stdin.code != 0 || stdin.stderr != "" {
			t.Errorf("%v with the roster on stdin: exit %d, stderr %q; stdout (-want +got):\n%s", args, stdin.code, stdin.stderr, diff)
		}
	}
	var raw []map[string]any
	if err := json.Unmarshal([]byte(tg.must("teams", "kuis-01", "-roster", file, "-json")), &raw); err != nil {
		t.Fatal(err)
	}
	for k := range raw[0] {
		switch k {
		case "rank", "competition_rank", "team", "members", "sum", "mean":
		default:
			t.Errorf("teams -json: field %q is none of the library's", k)
		}
	}

	r := tg.kuis("teams", "kuis-99", "-roster", file)
	if r.code != 1 || r.stdout != "" {
		t.Errorf("teams of a missing quiz: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "teams of a missing quiz", r.stderr, "kuis: teams kuis-99: no such quiz in namespace")
	if out := words(tg.must("teams", "-course", "kosong", "-roster", file)); len(out) != 3 || out[0] != "1 Elang 3 0 0.00" {
		t.Errorf("teams of an empty course: %q", out)
	}
}

// TestTeamsRoster: a roster that is not rows team,member, each member once
// and named as a board holds names, is a usage error (exit 2, nothing on
// stdout) naming its line; one the library refuses as a whole is a usage
// error too; one that cannot be read exits 1.
func TestTeamsRoster(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true)
	tests := []struct {
		roster string
		says   string
	}{
		{"A,Ali\nB,Budi,Citra\n", "roster.csv:2: 3 field(s), want 2: team,member"},
		{"A,Ali\nB\n", "roster.csv:2: 1 field(s), want 2"},
		{"A,Ali\n,Budi\n", "roster.csv:2: no team"},
		{"A,Ali\n\nB, \n", "roster.csv:3: no member"},
		{"A,Ali\nB,Budi\nC,Ali\n", `roster.csv:3: member "Ali" is listed on line 1 already`},
		{"A,Ali\nB,Ａli\n", `roster.csv:2: member "Ａli": a board holds this name as "Ali"`},
		{"A,Ali\nB,Bu\u200bdi\n", `roster.csv:2: invalid participant: "Bu\u200bdi"`},
		{"A,Ali\nB,\"Budi\n", "roster.csv:2: extraneous or missing \" in quoted-field"},
		{"team,member\n", "roster.csv has no rows team,member"},
		{"", "roster.csv has no rows team,member"},
		{"A,Ali\n" + strings.Repeat("x", 257) + ",Budi\n", "kuis teams -roster roster.csv: invalid team"},
		{"A,Ali\n\u202eB,Budi\n", `invalid team: quiz "kuis-01": team name "\u202eB" holds a hidden`},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "roster.csv"), []byte(tt.roster), 0o600); err != nil {
			t.Fatal(err)
		}
		r := tg.kuis("teams", "kuis-01", "-roster", filepath.Join(dir, "roster.csv"))
		if r.code != 2 || r.stdout != "" {
			t.Errorf("roster %q: exit %d, stdout %q; want 2 and nothing", tt.roster, r.code, r.stdout)
		}
		// The file's name as given is in the message: make it relative to compare.
		oneLine(t, "roster "+tt.roster, strings.ReplaceAll(r.stderr, dir+string(filepath.Separator), ""), "kuis teams", tt.says)
	}
	r := tg.kuis("teams", "kuis-01", "-roster", filepath.Join(t.TempDir(), "missing.csv"))
	if r.code != 1 || r.stdout != "" {
		t.Errorf("a missing roster: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "a missing roster", r.stderr, "kuis: teams: roster: ", "no such file")
	r = tg.kuisIn(tg.ctx, "A,Ali\nA,Ali\n", "teams", "kuis-01", "-roster", "-")
	if r.code != 2 || r.stdout != "" {
		t.Errorf("a bad roster on stdin: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "a bad roster on stdin", r.stderr, `kuis teams: stdin:2: member "Ali" is listed on line 1 already`)
}
