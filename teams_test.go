package kuis_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// teamScores are the points of the team tests' participants: 10 per
// question answered.
var teamScores = map[string]int{"Ali": 3, "Budi": 2, "Citra": 3, "Dewi": 1, "Eka": 4, "Fajar": 2, "Gita": 1, "Hadi": 5,
	"Lia": 1, "Mira": 1, "Nina": 1, "Oki": 1}

// teamRoster has ties of every kind: three teams of 50 points (two of them
// with a mean of 25), two of 40, two means of 6.67 from teams of 3 and 6, and
// members without points (Zahra, Indra, Joko, Kiki, Pipit, Rudi).
var teamRoster = []kuis.Team{
	{Name: "Merah", Members: []string{"Ali", "Budi"}},
	{Name: "Biru", Members: []string{"Citra", "Dewi", "Zahra"}},
	{Name: "Hijau", Members: []string{"Eka", "Gita"}},
	{Name: "Kuning", Members: []string{"Hadi"}},
	{Name: "Abu", Members: []string{"Fajar", "Indra", "Joko"}},
	{Name: "Ungu", Members: []string{"Kiki"}},
	{Name: "Putih", Members: []string{"Lia", "Mira", "Nina", "Oki", "Pipit", "Rudi"}},
}

// TestTeams ranks teamRoster on a quiz's board and on a course holding that
// quiz: sums and means, both filled whatever ranks, equal scores by team
// name in ascending byte order sharing a competition rank, exact means of
// teams of different sizes.
func TestTeams(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rc := e.finished(5, teamScores)
	c := e.course(courseID())
	if _, err := c.Fold(e.ctx, rc); err != nil {
		t.Fatal(err)
	}
	line := func(rank, comp int, team string, members int, sum int64) kuis.TeamStanding {
		return kuis.TeamStanding{Rank: rank, CompetitionRank: comp, Team: team, Members: members, Sum: sum, Mean: float64(sum) / float64(members)}
	}
	want := map[kuis.TeamScoring][]kuis.TeamStanding{
		kuis.TeamSum: {line(1, 1, "Hijau", 2, 50), line(2, 1, "Kuning", 1, 50), line(3, 1, "Merah", 2, 50),
			line(4, 4, "Biru", 3, 40), line(5, 4, "Putih", 6, 40), line(6, 6, "Abu", 3, 20), line(7, 7, "Ungu", 1, 0)},
		kuis.TeamMean: {line(1, 1, "Kuning", 1, 50), line(2, 2, "Hijau", 2, 50), line(3, 2, "Merah", 2, 50),
			line(4, 4, "Biru", 3, 40), line(5, 5, "Abu", 3, 20), line(6, 5, "Putih", 6, 40), line(7, 7, "Ungu", 1, 0)},
	}
	b := e.board(rc.QuizID)
	for by, w := range want {
		for name, call := range map[string]func() ([]kuis.TeamStanding, error){
			"Board.Teams":  func() ([]kuis.TeamStanding, error) { return b.Teams(e.ctx, teamRoster, by) },
			"Course.Teams": func() ([]kuis.TeamStanding, error) { return c.Teams(e.ctx, teamRoster, by) },
		} {
			got, err := call()
			if diff := cmp.Diff(w, got); err != nil || diff != "" {
				t.Errorf("%s(%d): %v (-want +got):\n%s", name, by, err, diff)
			}
		}
	}
	if got := want[kuis.TeamMean][5].Mean; got != want[kuis.TeamMean][4].Mean {
		t.Fatalf("40/6 = %v and 20/3 = %v: the test's tie is not one", got, want[kuis.TeamMean][4].Mean)
	}
	if _, err := e.board(quizID()).Teams(e.ctx, teamRoster, kuis.TeamSum); !errors.Is(err, kuis.ErrQuizNotFound) {
		t.Errorf("Board.Teams of no quiz = %v; want ErrQuizNotFound", err)
	}
	empty, err := e.course(courseID()).Teams(e.ctx, teamRoster[:2], kuis.TeamMean)
	if diff := cmp.Diff([]kuis.TeamStanding{line(1, 1, "Biru", 3, 0), line(2, 1, "Merah", 2, 0)}, empty); err != nil || diff != "" {
		t.Errorf("Course.Teams of an empty course: %v (-want +got):\n%s", err, diff)
	}
}

// TestTeamsRefusals: what Teams refuses before any I/O.
func TestTeamsRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	many := func(teams, members int) []kuis.Team {
		out := make([]kuis.Team, teams)
		for i := range out {
			out[i].Name = "tim-" + strconv.Itoa(i)
			for j := range members {
				out[i].Members = append(out[i].Members, fmt.Sprintf("p%d-%d", i, j))
			}
		}
		return out
	}
	ok := []kuis.Team{{Name: "Merah", Members: []string{"Ali"}}}
	tests := []struct {
		name  string
		teams []kuis.Team
		by    kuis.TeamScoring
		want  error
	}{
		{"no teams", nil, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team without a name", []kuis.Team{{Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team name with a newline", []kuis.Team{{Name: "Me\nrah", Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team name of 257 bytes", []kuis.Team{{Name: strings.Repeat("m", 257), Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team name of 65 characters", []kuis.Team{{Name: strings.Repeat("m", 65), Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team name that shows reversed", []kuis.Team{{Name: "\u202eharem", Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team name with a hidden character", []kuis.Team{{Name: "Merah\u200b", Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team name of two scripts", []kuis.Team{{Name: "M\u0435rah", Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team name that is not clean", []kuis.Team{{Name: "Ｍerah", Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team name with white space around", []kuis.Team{{Name: "Merah ", Members: []string{"Ali"}}}, kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team twice", append(ok, kuis.Team{Name: "Merah", Members: []string{"Budi"}}), kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a team without members", append(ok, kuis.Team{Name: "Biru"}), kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a member twice in one team", []kuis.Team{{Name: "Merah", Members: []string{"Ali", "Budi", "Ali"}}}, kuis.TeamMean, kuis.ErrInvalidTeam},
		{"a member in two teams", append(ok, kuis.Team{Name: "Biru", Members: []string{"Budi", "Ali"}}), kuis.TeamSum, kuis.ErrInvalidTeam},
		{"1,001 teams", many(1001, 1), kuis.TeamSum, kuis.ErrInvalidTeam},
		{"10,001 members", append(many(1000, 10), kuis.Team{Name: "lagi", Members: []string{"Ali"}}), kuis.TeamSum, kuis.ErrInvalidTeam},
		{"a member with white space around", []kuis.Team{{Name: "Merah", Members: []string{"Ali "}}}, kuis.TeamSum, kuis.ErrInvalidParticipant},
		{"an empty member", []kuis.Team{{Name: "Merah", Members: []string{""}}}, kuis.TeamSum, kuis.ErrInvalidParticipant},
		{"an unknown scoring", ok, kuis.TeamScoring(2), kuis.ErrInvalidOption},
		{"a negative scoring", ok, kuis.TeamScoring(-1), kuis.ErrInvalidOption},
	}
	rec := newRecorder(e.client)
	s := e.storeOn(rec)
	b, _ := handles(t, s, quizID())
	c := courseOn(t, s, courseID())
	for _, tt := range tests {
		for name, call := range map[string]func() ([]kuis.TeamStanding, error){
			"Board.Teams":  func() ([]kuis.TeamStanding, error) { return b.Teams(e.ctx, tt.teams, tt.by) },
			"Course.Teams": func() ([]kuis.TeamStanding, error) { return c.Teams(e.ctx, tt.teams, tt.by) },
		} {
			rec.start()
			got, err := call()
			if sent := rec.stop(); !errors.Is(err, tt.want) || got != nil || len(sent) != 0 {
				t.Errorf("%s: %s = %v, %v, sent %v; want %v before any I/O", tt.name, name, got, err, sent, tt.want)
			}
		}
	}
	// The bounds themselves are taken: 1,000 teams of 10, 10,000 members.
	if got, err := c.Teams(e.ctx, many(1000, 10), kuis.TeamSum); err != nil || len(got) != 1000 {
		t.Errorf("Course.Teams of 1,000 teams of 10 = %d lines, %v; want 1,000", len(got), err)
	}
}

// TestTeamsManyMembers: members past the first 1,000 (a second and third
// ZMSCORE in the same round trip) get their own scores; a score out of its
// form is ErrCorrupt, and so is a team whose points add up past int64.
func TestTeamsManyMembers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.course(courseID())
	k := c.Keys()
	var teams []kuis.Team
	args := []string{}
	for i := range 25 {
		team := kuis.Team{Name: fmt.Sprintf("tim-%02d", i)}
		for j := range 100 {
			name := fmt.Sprintf("p%04d", 100*i+j)
			team.Members = append(team.Members, name)
			args = append(args, strconv.Itoa(10*i), name)
		}
		teams = append(teams, team)
	}
	e.mustRaw("ZADD", k.Board(), args...)
	got, err := c.Teams(e.ctx, teams, kuis.TeamSum)
	if err != nil || len(got) != 25 {
		t.Fatalf("Teams = %v, %v", got, err)
	}
	for i, s := range got {
		team := 24 - i // more points first
		if want := int64(1000 * team); s.Team != fmt.Sprintf("tim-%02d", team) || s.Sum != want || s.Mean != float64(10*team) || s.Members != 100 {
			t.Errorf("line %d = %+v; want tim-%02d with %d points", i+1, s, team, want)
		}
	}
	e.mustRaw("ZADD", k.Board(), "15", "p0001")
	if _, err := c.Teams(e.ctx, teams, kuis.TeamSum); !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(err.Error(), k.Board()) {
		t.Errorf("Teams with a score of 15 = %v; want ErrCorrupt naming %s", err, k.Board())
	}
	e.mustRaw("ZADD", k.Board(), "10", "p0001")
	big := kuis.Team{Name: "raksasa"}
	args = args[:0]
	for i := range 1100 {
		name := fmt.Sprintf("r%04d", i)
		big.Members = append(big.Members, name)
		args = append(args, "9007199254740990", name)
	}
	e.mustRaw("ZADD", k.Board(), args...)
	if _, err := c.Teams(e.ctx, []kuis.Team{big}, kuis.TeamMean); !errors.Is(err, kuis.ErrCorrupt) {
		t.Errorf("Teams of points past int64 = %v; want ErrCorrupt", err)
	}
}
