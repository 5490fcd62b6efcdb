package kuis_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// rankedReads are the reads Board and Course share.
type rankedReads interface {
	Standings(context.Context) ([]kuis.Standing, error)
	Page(context.Context, int, int) ([]kuis.Standing, error)
	Around(context.Context, string, int) ([]kuis.Standing, error)
	Standing(context.Context, string) (kuis.Standing, error)
	Len(context.Context) (int64, error)
	Teams(context.Context, []kuis.Team, kuis.TeamScoring) ([]kuis.TeamStanding, error)
}

// TestRankedBoardsReadAlike: a quiz's board and a course holding the same
// points (the quiz folded into it) answer every read they share alike,
// cached or not, with the same refusals of bad input and of a participant
// without points.
func TestRankedBoardsReadAlike(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	recap := e.finishedReference()
	courseID := courseID()
	if _, err := e.course(courseID).Fold(e.ctx, recap); err != nil {
		t.Fatal(err)
	}
	teams := []kuis.Team{{Name: "A", Members: []string{"Ali", "Budi"}}, {Name: "B", Members: []string{"Citra", "Dewi", "Eka"}}}
	tests := []struct {
		name    string
		read    func(r rankedReads) (any, error)
		wantErr error
	}{
		{"Standings", func(r rankedReads) (any, error) { return r.Standings(e.ctx) }, nil},
		{"Page", func(r rankedReads) (any, error) { return r.Page(e.ctx, 1, 2) }, nil},
		{"Page past the end", func(r rankedReads) (any, error) { return r.Page(e.ctx, 9, 2) }, nil},
		{"Around", func(r rankedReads) (any, error) { return r.Around(e.ctx, "Budi", 1) }, nil},
		{"Standing", func(r rankedReads) (any, error) { return r.Standing(e.ctx, "Ali") }, nil},
		{"Len", func(r rankedReads) (any, error) { return r.Len(e.ctx) }, nil},
		{"Teams", func(r rankedReads) (any, error) { return r.Teams(e.ctx, teams, kuis.TeamMean) }, nil},
		{"Page bounds", func(r rankedReads) (any, error) { return r.Page(e.ctx, 0, 1001) }, kuis.ErrInvalidRange},
		{"Around bounds", func(r rankedReads) (any, error) { return r.Around(e.ctx, "Ali", 501) }, kuis.ErrInvalidRange},
		{"Around of a bad name", func(r rankedReads) (any, error) { return r.Around(e.ctx, " Ali", 1) }, kuis.ErrInvalidParticipant},
		{"Standing of a bad name", func(r rankedReads) (any, error) { return r.Standing(e.ctx, "") }, kuis.ErrInvalidParticipant},
		{"Teams of no team", func(r rankedReads) (any, error) { return r.Teams(e.ctx, nil, kuis.TeamSum) }, kuis.ErrInvalidTeam},
		{"Around of a stranger", func(r rankedReads) (any, error) { return r.Around(e.ctx, "Fajar", 1) }, kuis.ErrNotOnBoard},
		{"Standing of a stranger", func(r rankedReads) (any, error) { return r.Standing(e.ctx, "Fajar") }, kuis.ErrNotOnBoard},
	}
	for _, cached := range []bool{false, true} {
		s := e.store
		if cached {
			s = e.storeOn(e.client, cacheMinute)
		}
		b, _ := handles(t, s, recap.QuizID)
		c := courseOn(t, s, courseID)
		for _, tt := range tests {
			quiz, qErr := tt.read(b)
			course, cErr := tt.read(c)
			if !errors.Is(qErr, tt.wantErr) || !errors.Is(cErr, tt.wantErr) {
				t.Errorf("%s (cached %v): Board %v, Course %v; want %v", tt.name, cached, qErr, cErr, tt.wantErr)
			}
			if diff := cmp.Diff(quiz, course); diff != "" {
				t.Errorf("%s (cached %v): (-Board +Course):\n%s", tt.name, cached, diff)
			}
		}
	}
}

// TestCourseStandingIsOneScript: uncached, Course.Standing sends one
// read-only script and no plain read (EVAL_RO only when the server lacks
// the script), as Board.Standing; a course board of the wrong type is
// ErrCorrupt naming it, cached or not.
func TestCourseStandingIsOneScript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rec := newRecorder(e.client)
	recap := e.finishedReference()
	c := courseOn(t, e.storeOn(rec), courseID())
	if _, err := c.Fold(e.ctx, recap); err != nil {
		t.Fatal(err)
	}
	rec.start()
	got, err := c.Standing(e.ctx, "Budi")
	sent := rec.stop()
	if want := (kuis.Standing{Rank: 3, CompetitionRank: 3, Participant: "Budi", Score: 20}); err != nil || got != want {
		t.Errorf("Standing(Budi) = %+v, %v; want %+v", got, err, want)
	}
	other := func(cmd string) bool { return cmd != "EVALSHA_RO" && cmd != "EVAL_RO" }
	if len(sent) == 0 || sent[0] != "EVALSHA_RO" || slices.ContainsFunc(sent, other) {
		t.Errorf("Standing sent %v; want EVALSHA_RO (then EVAL_RO, on NOSCRIPT) and nothing else", sent)
	}

	wrong := courseID()
	e.mustRaw("SET", courseOn(t, e.store, wrong).Keys().Board(), "x")
	for _, s := range []*kuis.Store{e.store, e.storeOn(e.client, cacheMinute)} {
		if _, err := courseOn(t, s, wrong).Standing(e.ctx, "Ali"); !errors.Is(err, kuis.ErrCorrupt) {
			t.Errorf("Standing on a course board of the wrong type = %v; want ErrCorrupt", err)
		}
	}
}
