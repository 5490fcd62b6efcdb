package kuis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// Team is a named group of participants, as the caller's own records hold
// it: a team's score is derived from its members' scores, never written.
type Team struct {
	Name    string   `json:"name"` // a name as CleanParticipant returns it, as a member's
	Members []string `json:"members"`
}

// TeamScoring is how a team's score is made of its members' scores.
type TeamScoring int

// The team scorings. Both fill TeamStanding's Sum and Mean; the scoring
// decides which of them ranks the teams.
const (
	TeamSum  TeamScoring = iota // the members' points added
	TeamMean                    // their mean: fair to teams of different sizes (a member without points counts 0)
)

// TeamStanding is one team's line of a team board.
type TeamStanding struct {
	Rank            int     `json:"rank"`             // 1-based; equal scores by team name
	CompetitionRank int     `json:"competition_rank"` // equal scores share it
	Team            string  `json:"team"`
	Members         int     `json:"members"` // the roster's size
	Sum             int64   `json:"sum"`
	Mean            float64 `json:"mean"` // Sum / Members
}

// Bounds of one Teams call.
const (
	maxTeams       = 1000
	maxTeamMembers = 10000
)

// Teams ranks the teams by their members' scores on the board: the sum of
// their points (TeamSum) or its mean over the roster (TeamMean), a member
// without points counting 0. Both Sum and Mean are filled whatever the
// scoring. Equal scores rank by team name in ascending byte order and share
// a CompetitionRank; means are compared exactly, as fractions. It reads the
// members' scores in one round trip (ZMSCORE of up to 1,000 members a
// command, pipelined, behind HLEN meta), through the client-side cache with
// WithClientCache: O(M), M the members.
//
// Errors, before any I/O: ErrInvalidTeam (no teams, more than 1,000 teams or
// 10,000 members in all, a team without members, a team name twice or that
// breaks CleanParticipant's rule, as a member's name may not, so that no
// name shows reversed, blank or as another's; a member listed twice, in one
// team or two), ErrInvalidParticipant (a member's name breaks
// CleanParticipant's rule), ErrInvalidOption (a scoring
// other than TeamSum and TeamMean); then ErrQuizNotFound, ErrCorrupt (a score
// that is not sound, or a team whose points add up past 2^63 - 1),
// ErrForbidden.
func (b *Board) Teams(ctx context.Context, teams []Team, by TeamScoring) ([]TeamStanding, error) {
	return b.ranked().teams(ctx, teams, by)
}

// Teams ranks the teams by their members' totals in the course, as
// Board.Teams ranks them on a quiz's board, with the same bounds and ties,
// in one round trip (ZMSCORE of up to 1,000 members a command, pipelined):
// O(M), M the members. Errors, before any I/O: ErrInvalidTeam,
// ErrInvalidParticipant, ErrInvalidOption, as Board.Teams; then ErrCorrupt,
// ErrForbidden.
func (c *Course) Teams(ctx context.Context, teams []Team, by TeamScoring) ([]TeamStanding, error) {
	return c.ranked().teams(ctx, teams, by)
}

// teams is Teams on the board r reads: the members' scores in one round
// trip, then the teams ranked.
func (r rankedBoard) teams(ctx context.Context, teams []Team, by TeamScoring) ([]TeamStanding, error) {
	members, err := checkTeams(r.about(""), teams, by)
	if err != nil {
		return nil, err
	}
	res, err := r.read(ctx, zmscores(r.s.client, r.board, members)...)
	if err != nil {
		return nil, err
	}
	scores, err := r.scores(res, members)
	if err != nil {
		return nil, err
	}
	return rankTeams(r.board, teams, members, scores, by)
}

// checkTeams refuses what Teams refuses before any I/O and returns every
// member, team by team, in roster order.
func checkTeams(subject string, teams []Team, by TeamScoring) ([]string, error) {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrInvalidTeam, subject, fmt.Sprintf(format, args...))
	}
	if by != TeamSum && by != TeamMean {
		return nil, fmt.Errorf("%w: %s: team scoring %d (want TeamSum or TeamMean)", ErrInvalidOption, subject, by)
	}
	switch n := len(teams); {
	case n == 0:
		return nil, invalid("no teams")
	case n > maxTeams:
		return nil, invalid("%d teams (want at most %d)", n, maxTeams)
	}
	total := 0
	for _, t := range teams {
		total += len(t.Members)
	}
	if total > maxTeamMembers {
		return nil, invalid("%d members in all (want at most %d)", total, maxTeamMembers)
	}
	names := make(map[string]bool, len(teams))
	team := make(map[string]string, total) // member → their team
	members := make([]string, 0, total)
	for _, t := range teams {
		if problem := nameProblem(t.Name); problem != "" {
			return nil, invalid("team name %s %s", quote(t.Name), problem)
		}
		switch {
		case names[t.Name]:
			return nil, invalid("team %s is listed twice", quote(t.Name))
		case len(t.Members) == 0:
			return nil, invalid("team %s has no members", quote(t.Name))
		}
		names[t.Name] = true
		for _, m := range t.Members {
			if problem := nameProblem(m); problem != "" {
				return nil, fmt.Errorf("%w: %s: team %s: participant %s %s", ErrInvalidParticipant, subject, quote(t.Name), quote(m), problem)
			}
			if other, ok := team[m]; ok {
				return nil, invalid("participant %s is listed in team %s and in team %s", quote(m), quote(other), quote(t.Name))
			}
			team[m] = t.Name
			members = append(members, m)
		}
	}
	return members, nil
}

// rankTeams ranks the teams by the scores of their members (in roster
// order, for the first that is not sound), read from key.
func rankTeams(key string, teams []Team, members []string, read map[string]float64, by TeamScoring) ([]TeamStanding, error) {
	scores := make(map[string]int64, len(read))
	for _, m := range members {
		if f, ok := read[m]; ok {
			var err error
			if scores[m], err = decodeScore(key, m, f); err != nil {
				return nil, err
			}
		}
	}
	out := make([]TeamStanding, len(teams))
	for i, t := range teams {
		var sum int64
		for _, m := range t.Members {
			if sum > math.MaxInt64-scores[m] {
				return nil, corrupt(key, "the points of team %s add up past 2^63 - 1", quote(t.Name))
			}
			sum += scores[m]
		}
		out[i] = TeamStanding{Team: t.Name, Members: len(t.Members), Sum: sum, Mean: float64(sum) / float64(len(t.Members))}
	}
	score := func(a, b TeamStanding) int { // > 0 when a scores more than b
		if by == TeamSum {
			return cmp.Compare(a.Sum, b.Sum)
		}
		// a.Sum / a.Members against b.Sum / b.Members, exactly: cross-multiplied in 128 bits.
		ahi, alo := bits.Mul64(uint64(a.Sum), uint64(b.Members))
		bhi, blo := bits.Mul64(uint64(b.Sum), uint64(a.Members))
		return cmp.Or(cmp.Compare(ahi, bhi), cmp.Compare(alo, blo))
	}
	slices.SortFunc(out, func(a, b TeamStanding) int { return cmp.Or(score(b, a), strings.Compare(a.Team, b.Team)) })
	for i := range out {
		out[i].Rank = i + 1
		out[i].CompetitionRank = i + 1
		if i > 0 && score(out[i], out[i-1]) == 0 {
			out[i].CompetitionRank = out[i-1].CompetitionRank
		}
	}
	return out, nil
}
