package kuis_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// TestCompetitionRankSharesRanksOfEqualScores checks both rank flavours on the
// reference board (Citra 30, Ali 30, Budi 20, Dewi 10) and their refusals.
func TestCompetitionRankSharesRanksOfEqualScores(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(t *testing.T, e *env, b *kuis.Board)
		participant string
		wantComp    int
		wantRank    int
		wantErr     error
	}{
		{name: "Citra, first of a tie", participant: "Citra", wantComp: 1, wantRank: 1},
		{name: "Ali, second of a tie, shares rank 1", participant: "Ali", wantComp: 1, wantRank: 2},
		{name: "Budi, after a tie of two, skips to 3", participant: "Budi", wantComp: 3, wantRank: 3},
		{name: "Dewi", participant: "Dewi", wantComp: 4, wantRank: 4},
		{
			name: "a three-way tie below the top",
			setup: func(t *testing.T, e *env, b *kuis.Board) {
				for _, n := range []string{"Eko", "Eko"} {
					if _, err := b.RecordCorrect(e.ctx, n); err != nil {
						t.Fatal(err)
					}
				}
			},
			// Budi 20, Eko 20 (Eko sorts above Budi), Dewi 10.
			participant: "Budi", wantComp: 3, wantRank: 4,
		},
		{name: "not on the board", participant: "Eko", wantErr: kuis.ErrNotOnBoard},
		{name: "empty participant", participant: "", wantErr: kuis.ErrInvalidParticipant},
		{name: "participant with a control character", participant: "Ali\t", wantErr: kuis.ErrInvalidParticipant},
		{
			name: "score that is not a multiple of 10",
			setup: func(t *testing.T, e *env, b *kuis.Board) {
				e.mustRaw("ZADD", b.Keys().Board(), "15", "Eko")
			},
			participant: "Eko", wantErr: kuis.ErrCorrupt,
		},
		{
			name: "board of the wrong type",
			setup: func(t *testing.T, e *env, b *kuis.Board) {
				e.mustRaw("DEL", b.Keys().Board())
				e.mustRaw("SET", b.Keys().Board(), "Ali")
			},
			participant: "Ali", wantErr: kuis.ErrCorrupt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, _, b := e.reference()
			if tt.setup != nil {
				tt.setup(t, e, b)
			}
			comp, err := b.CompetitionRank(e.ctx, tt.participant)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("CompetitionRank(%q) = %d, %v; want error %v", tt.participant, comp, err, tt.wantErr)
			}
			if comp != tt.wantComp {
				t.Errorf("CompetitionRank(%q) = %d; want %d", tt.participant, comp, tt.wantComp)
			}
			if tt.wantErr != nil {
				return
			}
			// Rank stays the contract's ZREVRANK + 1, ties broken by Redis's order.
			rank, err := b.Rank(e.ctx, tt.participant)
			if err != nil || rank != tt.wantRank {
				t.Errorf("Rank(%q) = %d, %v; want %d", tt.participant, rank, err, tt.wantRank)
			}
		})
	}
}

// commandCalls returns the calls= count of each command in INFO commandstats
// (0 for a command never run).
func commandCalls(t *testing.T, e *env, commands ...string) map[string]int64 {
	t.Helper()
	info, err := e.client.Do(e.ctx, e.client.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	out := make(map[string]int64, len(commands))
	for _, c := range commands {
		out[c] = 0
	}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		cmd, isStat := strings.CutPrefix(name, "cmdstat_")
		if !ok || !isStat {
			continue
		}
		if _, want := out[cmd]; !want {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
		n, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			t.Fatalf("INFO commandstats line %q: %v", line, err)
		}
		out[cmd] = n
	}
	return out
}

// TestCompetitionRankDoesNotReadTheBoard counts the server's range reads
// around CompetitionRank calls: O(log N) means ZSCORE and ZCOUNT, never a
// range of the board.
func TestCompetitionRankDoesNotReadTheBoard(t *testing.T) {
	if redistest.Target() != "standalone" {
		t.Skipf("needs INFO commandstats of one real server; target is %s", redistest.Target())
	}
	e := newEnv(t)
	_, _, b := e.reference()
	reads := []string{"zrevrange", "zrange", "zrangebyscore", "zrevrangebyscore", "zrangestore"}
	counted := append([]string{"zcount"}, reads...)
	// The server is shared with whatever else runs (other test packages), whose
	// range reads raise the same counters. A CompetitionRank that reads the
	// board raises them on every attempt, so one clean attempt in five is proof.
	for attempt := 1; attempt <= 5; attempt++ {
		before := commandCalls(t, e, counted...)
		for _, name := range []string{"Citra", "Ali", "Budi", "Dewi"} {
			if _, err := b.CompetitionRank(e.ctx, name); err != nil {
				t.Fatal(err)
			}
		}
		after := commandCalls(t, e, counted...)
		if after["zcount"] < before["zcount"]+4 {
			t.Fatalf("zcount calls went from %d to %d over 4 CompetitionRank calls; the counters are not what this test thinks",
				before["zcount"], after["zcount"])
		}
		clean := true
		for _, c := range reads {
			if after[c] != before[c] {
				clean = false
				t.Logf("attempt %d: %s calls went from %d to %d", attempt, c, before[c], after[c])
			}
		}
		if clean {
			return
		}
	}
	t.Error("every attempt saw range reads of the board during CompetitionRank")
}

// TestPageSlicesTheBoardWithGlobalRanks reads pages of the reference board.
func TestPageSlicesTheBoardWithGlobalRanks(t *testing.T) {
	citra, ali, budi, dewi := kuis.Standing{Rank: 1, Participant: "Citra", Score: 30},
		kuis.Standing{Rank: 2, Participant: "Ali", Score: 30},
		kuis.Standing{Rank: 3, Participant: "Budi", Score: 20},
		kuis.Standing{Rank: 4, Participant: "Dewi", Score: 10}
	tests := []struct {
		name          string
		offset, limit int
		want          []kuis.Standing
		wantErr       error
	}{
		{name: "the top two", offset: 0, limit: 2, want: []kuis.Standing{citra, ali}},
		{name: "a middle page keeps global ranks", offset: 1, limit: 2, want: []kuis.Standing{ali, budi}},
		{name: "a page clipped at the end", offset: 2, limit: 10, want: []kuis.Standing{budi, dewi}},
		{name: "one line", offset: 3, limit: 1, want: []kuis.Standing{dewi}},
		{name: "the largest limit", offset: 0, limit: 1000, want: []kuis.Standing{citra, ali, budi, dewi}},
		{name: "just past the end", offset: 4, limit: 1, want: []kuis.Standing{}},
		{name: "far past the end", offset: 1_000_000, limit: 1000, want: []kuis.Standing{}},
		{name: "negative offset", offset: -1, limit: 1, wantErr: kuis.ErrInvalidRange},
		{name: "limit 0", offset: 0, limit: 0, wantErr: kuis.ErrInvalidRange},
		{name: "negative limit", offset: 0, limit: -1, wantErr: kuis.ErrInvalidRange},
		{name: "limit 1001", offset: 0, limit: 1001, wantErr: kuis.ErrInvalidRange},
	}
	e := newEnv(t)
	_, _, b := e.reference()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := b.Page(e.ctx, tt.offset, tt.limit)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Page(%d, %d) = %v, %v; want error %v", tt.offset, tt.limit, got, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Page(%d, %d) (-want +got):\n%s", tt.offset, tt.limit, diff)
			}
		})
	}
}

// TestAroundShowsNeighboursWithGlobalRanks reads windows of a seven-line
// board (scores 70 down to 10) around different participants.
func TestAroundShowsNeighboursWithGlobalRanks(t *testing.T) {
	names := []string{"Ayu", "Bagus", "Cahya", "Dimas", "Eka", "Fitri", "Gilang"}
	e := newEnv(t)
	_, _, b := e.running(7)
	var want []kuis.Standing
	for i, n := range names {
		points := len(names) - i
		for q := 1; q <= points; q++ {
			if _, err := b.RecordAnswer(e.ctx, n, q); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, kuis.Standing{Rank: i + 1, Participant: n, Score: int64(10 * points)})
	}
	tests := []struct {
		name        string
		participant string
		radius      int
		want        []kuis.Standing
		wantErr     error
	}{
		{name: "radius 0 is the participant alone", participant: "Dimas", radius: 0, want: want[3:4]},
		{name: "radius 1 in the middle", participant: "Dimas", radius: 1, want: want[2:5]},
		{name: "radius 2 in the middle", participant: "Dimas", radius: 2, want: want[1:6]},
		{name: "clipped at the top", participant: "Ayu", radius: 1, want: want[0:2]},
		{name: "partly clipped at the top", participant: "Bagus", radius: 3, want: want[0:5]},
		{name: "clipped at the bottom", participant: "Gilang", radius: 1, want: want[5:7]},
		{name: "clipped at both ends", participant: "Dimas", radius: 500, want: want},
		{name: "radius -1", participant: "Dimas", radius: -1, wantErr: kuis.ErrInvalidRange},
		{name: "radius 501", participant: "Dimas", radius: 501, wantErr: kuis.ErrInvalidRange},
		{name: "not on the board", participant: "Hana", radius: 1, wantErr: kuis.ErrNotOnBoard},
		{name: "empty participant", participant: "", radius: 1, wantErr: kuis.ErrInvalidParticipant},
		{name: "participant of 65 bytes", participant: strings.Repeat("x", 65), radius: 1, wantErr: kuis.ErrInvalidParticipant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := b.Around(e.ctx, tt.participant, tt.radius)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Around(%q, %d) = %v, %v; want error %v", tt.participant, tt.radius, got, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Around(%q, %d) (-want +got):\n%s", tt.participant, tt.radius, diff)
			}
		})
	}
}

// TestLenCountsParticipants checks Len (ZCARD) on boards of several shapes.
func TestLenCountsParticipants(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, e *env) *kuis.Board
		want    int64
		wantErr error
	}{
		{
			name: "the reference board",
			setup: func(t *testing.T, e *env) *kuis.Board {
				_, _, b := e.reference()
				return b
			},
			want: 4,
		},
		{
			name: "a running quiz with no answers yet",
			setup: func(t *testing.T, e *env) *kuis.Board {
				_, _, b := e.running(3)
				return b
			},
			want: 0,
		},
		{
			name: "a quiz that does not exist",
			setup: func(t *testing.T, e *env) *kuis.Board {
				return e.board(quizID())
			},
			want: 0,
		},
		{
			name: "a board of the wrong type",
			setup: func(t *testing.T, e *env) *kuis.Board {
				b := e.board(quizID())
				e.mustRaw("SET", b.Keys().Board(), "Ali")
				return b
			},
			wantErr: kuis.ErrCorrupt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			b := tt.setup(t, e)
			got, err := b.Len(e.ctx)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Len = %d, %v; want error %v", got, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Len = %d; want %d", got, tt.want)
			}
		})
	}
}
