package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kuisboard/kuis"
)

var cmdTeams = &command{
	usageLine: "teams (QUIZ | -course COURSE) -roster FILE [-by sum|mean] [-json]",
	short:     "rank teams by their members' points on a quiz's board or a course's",
	long: `
Ranks the teams of a roster by their members' scores on the quiz's board
(Board.Teams) or their totals in the course (Course.Teams): the sum of their
points (-by sum), or its mean over the team's roster (-by mean: fair to teams
of different sizes), a member without points counting 0. Equal scores rank by
team name. Prints one team a line: rank (equal scores share one), team,
members, sum, mean (two decimals). With -json, one JSON array of {"rank",
"competition_rank", "team", "members", "sum", "mean"}.

The roster is a CSV file (FILE, or - for the standard input) of rows
team,member: one row per member, each member in one team, names exactly as
on the board; a first row team,member is a header, and white space around a
field is dropped. Up to 1,000 teams and 10,000 members.

A roster that cannot be read exits 1. A roster that is not such a file (a row
without two fields, an empty field, a member listed twice, a name the
library refuses) is a usage error, exit 2, with its line: FILE:LINE: what is
wrong.`,
	flag: func(fs *flag.FlagSet) runFunc {
		courseID := fs.String("course", "", "rank by totals in the course `COURSE` instead of a quiz's board")
		roster := fs.String("roster", "", "the teams, a CSV `FILE` of rows team,member, - for the standard input (required)")
		by := fs.String("by", "sum", "rank by the `sum` of the members' points, or their mean")
		asJSON := fs.Bool("json", false, "print one JSON array")
		return func(ctx context.Context, c *cli, args []string) error {
			switch {
			case *courseID != "" && len(args) > 0:
				return usagef("kuis teams: QUIZ and -course: give one of them")
			case *courseID == "" && len(args) == 0:
				return usagef("kuis teams: no QUIZ: give QUIZ or -course COURSE")
			case len(args) > 1:
				return usagef("kuis teams: one QUIZ, not %d", len(args))
			case *roster == "":
				return usagef("kuis teams: no -roster FILE")
			}
			scoring, ok := map[string]kuis.TeamScoring{"sum": kuis.TeamSum, "mean": kuis.TeamMean}[*by]
			if !ok {
				return usagef("kuis teams: -by %q: want sum or mean", *by)
			}
			teams, err := c.readRoster(*roster)
			if err != nil {
				return err
			}
			what := "teams"
			var rank func(context.Context, []kuis.Team, kuis.TeamScoring) ([]kuis.TeamStanding, error)
			if *courseID != "" {
				course, err := open(ctx, c, "teams", *courseID, (*kuis.Store).Course)
				if err != nil {
					return err
				}
				what, rank = what+" -course "+*courseID, course.Teams
			} else {
				board, err := open(ctx, c, "teams", args[0], (*kuis.Store).Board)
				if err != nil {
					return err
				}
				what, rank = what+" "+args[0], board.Teams
			}
			sctx, cancel := c.step(ctx)
			defer cancel()
			standings, err := rank(sctx, teams, scoring)
			if uerr := inputError("teams -roster "+*roster, err); uerr != nil {
				return uerr
			}
			if err != nil {
				return c.fail(what, err)
			}
			if *asJSON {
				return c.printJSON(standings)
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
			for _, s := range standings {
				fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\n", s.CompetitionRank, visible(s.Team), s.Members, s.Sum, strconv.FormatFloat(s.Mean, 'f', 2, 64))
			}
			if err := tw.Flush(); err != nil {
				return fmt.Errorf("kuis: stdout: %w", err)
			}
			return nil
		}
	},
}

// readRoster reads the roster file path ("-": the standard input) into
// teams, in the order each team first appears, its members in the order
// listed. A file that cannot be read is an error of exit status 1; a roster
// that is not rows team,member, each member once and named as the library
// takes names, is a usage error naming its line.
func (c *cli) readRoster(path string) ([]kuis.Team, error) {
	in := c.stdin
	name := "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, &exitError{code: 1, msg: fmt.Sprintf("kuis: teams: roster: %v", err)}
		}
		defer f.Close()
		in, name = f, path
	}
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1 // counted below, with the line's own words
	var teams []kuis.Team
	team := map[string]int{}   // team → its index in teams
	listed := map[string]int{} // member → the line that listed them
	bad := func(line int, format string, args ...any) error {
		return usagef("kuis teams: %s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	for first := true; ; first = false {
		row, err := r.Read()
		var perr *csv.ParseError
		switch {
		case errors.Is(err, io.EOF):
			if len(teams) == 0 {
				return nil, usagef("kuis teams: roster %s has no rows team,member", name)
			}
			return teams, nil
		case errors.As(err, &perr):
			return nil, bad(perr.Line, "%v", perr.Err)
		case err != nil:
			return nil, &exitError{code: 1, msg: fmt.Sprintf("kuis: teams: roster %s: %v", name, err)}
		}
		line, _ := r.FieldPos(0)
		if first && len(row) > 0 {
			row[0] = strings.TrimPrefix(row[0], "\uFEFF") // a spreadsheet's byte order mark
		}
		if len(row) != 2 {
			return nil, bad(line, "%d field(s), want 2: team,member", len(row))
		}
		t, m := strings.TrimSpace(row[0]), strings.TrimSpace(row[1])
		switch {
		case first && strings.EqualFold(t, "team") && strings.EqualFold(m, "member"):
			continue
		case t == "":
			return nil, bad(line, "no team")
		case m == "":
			return nil, bad(line, "no member")
		}
		switch clean, err := kuis.CleanParticipant(m); {
		case err != nil:
			return nil, bad(line, "%s", strings.TrimPrefix(err.Error(), "kuis: "))
		case clean != m:
			return nil, bad(line, "member %q: a board holds this name as %q", m, clean)
		}
		if at, ok := listed[m]; ok {
			return nil, bad(line, "member %q is listed on line %d already", m, at)
		}
		listed[m] = line
		i, ok := team[t]
		if !ok {
			i = len(teams)
			team[t] = i
			teams = append(teams, kuis.Team{Name: t})
		}
		teams[i].Members = append(teams[i].Members, m)
	}
}
