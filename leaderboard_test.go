package kuis_test

import (
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// readErrors runs each board read once, about participant who where it takes
// one, and returns its error.
func readErrors(e *env, b *kuis.Board, who string) map[string]error {
	_, standings := b.Standings(e.ctx)
	_, page := b.Page(e.ctx, 0, 10)
	_, around := b.Around(e.ctx, who, 1)
	_, standing := b.Standing(e.ctx, who)
	_, length := b.Len(e.ctx)
	return map[string]error{"Standings": standings, "Page": page, "Around": around, "Standing": standing, "Len": length}
}

// TestBoardReadsRefuseMissingQuiz: every read is ErrQuizNotFound without meta,
// whatever the board holds; a quiz without answers is an empty board.
func TestBoardReadsRefuseMissingQuiz(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(e *env, id string)
	}{
		{"no key at all", func(*env, string) {}},
		{"a board written raw", func(e *env, id string) { e.mustRaw("ZADD", e.keys(id).Board(), "10", "Ali", "20", "Budi") }},
		{"meta deleted after answers", func(e *env, id string) {
			if err := e.meta(id).Create(e.ctx, "Kuis", 3); err != nil {
				e.t.Fatal(err)
			}
			if _, err := e.board(id).RecordAnswer(e.ctx, "Ali", 1); err != nil {
				e.t.Fatal(err)
			}
			e.mustRaw("DEL", e.keys(id).Meta())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := quizID()
			tt.setup(e, id)
			for read, err := range readErrors(e, e.board(id), "Ali") {
				if !errors.Is(err, kuis.ErrQuizNotFound) {
					t.Errorf("%s = %v; want ErrQuizNotFound", read, err)
				}
			}
		})
	}

	t.Run("no answers yet", func(t *testing.T) {
		e := newEnv(t)
		_, _, b := e.running(3)
		if got, err := b.Standings(e.ctx); err != nil || got == nil || len(got) != 0 {
			t.Errorf("Standings = %#v, %v; want [], nil", got, err)
		}
		if got, err := b.Page(e.ctx, 0, 10); err != nil || got == nil || len(got) != 0 {
			t.Errorf("Page(0, 10) = %#v, %v; want [], nil", got, err)
		}
		if n, err := b.Len(e.ctx); err != nil || n != 0 {
			t.Errorf("Len = %d, %v; want 0, nil", n, err)
		}
		if _, err := b.Standing(e.ctx, "Ali"); !errors.Is(err, kuis.ErrNotOnBoard) {
			t.Errorf("Standing(Ali) = %v; want ErrNotOnBoard", err)
		}
		if _, err := b.Around(e.ctx, "Ali", 1); !errors.Is(err, kuis.ErrNotOnBoard) {
			t.Errorf("Around(Ali, 1) = %v; want ErrNotOnBoard", err)
		}
	})
}

// TestBoardReadsRefuseCorruptBoards: a board of the wrong type, or a score the
// contract forbids, is ErrCorrupt rather than a wrong answer.
func TestBoardReadsRefuseCorruptBoards(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cmd     string
		args    []string
		corrupt []string // the reads that must refuse; the others must succeed
	}{
		{"board is a string", "SET", []string{"papan"}, []string{"Standings", "Page", "Around", "Standing", "Len"}},
		{"board is a hash", "HSET", []string{"Ali", "30"}, []string{"Standings", "Page", "Around", "Standing", "Len"}},
		{"score 15", "ZADD", []string{"30", "Budi", "15", "Ali"}, []string{"Standings", "Page", "Around", "Standing"}},
		{"score -10", "ZADD", []string{"30", "Budi", "-10", "Ali"}, []string{"Standings", "Page", "Around", "Standing"}},
		{"score 12.5", "ZADD", []string{"30", "Budi", "12.5", "Ali"}, []string{"Standings", "Page", "Around", "Standing"}},
		{"score inf", "ZADD", []string{"30", "Budi", "+inf", "Ali"}, []string{"Standings", "Page", "Around", "Standing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id, _, b := e.running(3)
			e.mustRaw(tt.cmd, e.keys(id).Board(), tt.args...)
			for read, err := range readErrors(e, b, "Ali") {
				want := error(nil)
				if slices.Contains(tt.corrupt, read) {
					want = kuis.ErrCorrupt
				}
				if !errors.Is(err, want) {
					t.Errorf("%s = %v; want %v", read, err, want)
				}
			}
		})
	}
}

// tieBoard plays answers onto a running quiz of 5 questions so that the board
// holds groups of equal scores that straddle page boundaries, and returns it
// with the standings expected of it: Redis orders equal scores by reverse
// byte order of names, and a competition rank is 1 + the number of higher
// scores, counted here by hand.
func tieBoard(e *env) (string, *kuis.Board, []kuis.Standing) {
	e.t.Helper()
	id, _, b := e.running(5)
	for name, answers := range map[string]int{"Ayu": 5, "Bagus": 4, "Cahya": 4, "Dimas": 4, "Eka": 4, "Fitri": 3, "Gilang": 3, "Hana": 1} {
		for q := 1; q <= answers; q++ {
			if _, err := b.RecordAnswer(e.ctx, name, q); err != nil {
				e.t.Fatalf("RecordAnswer(%q, %d): %v", name, q, err)
			}
		}
	}
	return id, b, []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Ayu", Score: 50},
		{Rank: 2, CompetitionRank: 2, Participant: "Eka", Score: 40},
		{Rank: 3, CompetitionRank: 2, Participant: "Dimas", Score: 40},
		{Rank: 4, CompetitionRank: 2, Participant: "Cahya", Score: 40},
		{Rank: 5, CompetitionRank: 2, Participant: "Bagus", Score: 40},
		{Rank: 6, CompetitionRank: 6, Participant: "Gilang", Score: 30},
		{Rank: 7, CompetitionRank: 6, Participant: "Fitri", Score: 30},
		{Rank: 8, CompetitionRank: 8, Participant: "Hana", Score: 10},
	}
}

// TestRanksOnEveryRead: every read gives both ranks of every standing, also
// for a page or window that starts inside a group of equal scores: every
// read (checkReads) against the board computed by hand.
func TestRanksOnEveryRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, want := tieBoard(e)
	checkReads(t, e, e.store, id, e.keys(id).Board(), want)
}

// TestStandingTop: Top goes by competition rank, (CompetitionRank - 1) x 100
// < percent x of, so that equal scores are all in or all out (five tied for
// first are all in the top 10 % of 28, whatever their Rank); percent is
// taken as 0 below 0 and as 100 above 100; a board of no participants, and a
// standing without a competition rank, hold nobody; large boards do not
// overflow.
func TestStandingTop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rank, comp int
		percent    int
		of         int64
		want       bool
	}{
		{5, 1, 10, 28, true}, // tied for first, fifth in Redis's order of names
		{3, 3, 10, 28, true}, // 200 < 280
		{4, 4, 10, 28, false},
		{7, 3, 10, 28, true}, // tied for third
		{1, 1, 10, 10, true},
		{2, 2, 10, 10, false}, // 100 is not < 100: exactly 10 % score more
		{1, 1, 1, 1, true},    // a class of one is its own top 1 %
		{28, 28, 100, 28, true},
		{28, 28, 97, 28, true}, // 27 of 28 above is 96.4 %
		{28, 28, 96, 28, false},
		{1, 1, 0, 28, false},
		{1, 1, -5, 28, false},
		{28, 28, 101, 28, true},
		{28, 28, math.MaxInt, 28, true},
		{1, 1, math.MinInt, 28, false},
		{1, 1, 10, 0, false},
		{1, 1, 10, -1, false},
		{1, 1, 100, math.MinInt64, false},
		{0, 0, 100, 28, false},
		{-1, -1, 100, 28, false},
		{29, 29, 100, 28, false}, // a standing of another board
		{math.MaxInt, math.MaxInt, 100, math.MaxInt64, true},
		{math.MaxInt - 1, math.MaxInt - 1, 100, math.MaxInt64, true},
	}
	if strconv.IntSize == 64 { // ranks past int32: products past int64
		two := int64(2)
		tests = append(tests, []struct {
			rank, comp int
			percent    int
			of         int64
			want       bool
		}{
			{math.MaxInt, math.MaxInt, 99, math.MaxInt64, false},      // (2^63 - 2) x 100 > 99 x (2^63 - 1)
			{int(two << 59), int(two << 59), 1, math.MaxInt64, false}, // 2^60 x 100 is past int64
			{int(two << 55), int(two << 55), 1, math.MaxInt64, true},  // 2^56 x 100 < 2^63 - 1
			{int(two << 56), int(two << 56), 1, math.MaxInt64, false}, // 2^57 x 100 > 2^63 - 1
		}...)
	}
	for _, tt := range tests {
		s := kuis.Standing{Rank: tt.rank, CompetitionRank: tt.comp, Participant: "Ali", Score: 10}
		if got := s.Top(tt.percent, tt.of); got != tt.want {
			t.Errorf("Standing{Rank: %d, CompetitionRank: %d}.Top(%d, %d) = %v, want %v", tt.rank, tt.comp, tt.percent, tt.of, got, tt.want)
		}
	}
}

// TestReadBounds: Page and Around refuse ranges out of bounds before any I/O,
// answer an empty page past the end (also at offsets near math.MaxInt), and
// refuse participants who are not on the board or not valid names.
func TestReadBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, b, want := tieBoard(e)
	pages := []struct {
		offset, limit int
		want          []kuis.Standing
		wantErr       error
	}{
		{offset: 0, limit: 1000, want: want},
		{offset: 8, limit: 1, want: []kuis.Standing{}},
		{offset: 1_000_000, limit: 1000, want: []kuis.Standing{}},
		{offset: math.MaxInt, limit: 1000, want: []kuis.Standing{}},
		{offset: math.MaxInt, limit: 1, want: []kuis.Standing{}},
		{offset: math.MaxInt - 1000, limit: 1000, want: []kuis.Standing{}},
		{offset: -1, limit: 1, wantErr: kuis.ErrInvalidRange},
		{offset: math.MinInt, limit: 1, wantErr: kuis.ErrInvalidRange},
		{offset: 0, limit: 0, wantErr: kuis.ErrInvalidRange},
		{offset: 0, limit: -1, wantErr: kuis.ErrInvalidRange},
		{offset: 0, limit: 1001, wantErr: kuis.ErrInvalidRange},
	}
	for _, tt := range pages {
		got, err := b.Page(e.ctx, tt.offset, tt.limit)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("Page(%d, %d) error = %v; want %v", tt.offset, tt.limit, err, tt.wantErr)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Page(%d, %d) (-want +got):\n%s", tt.offset, tt.limit, diff)
		}
	}
	arounds := []struct {
		participant string
		radius      int
		want        []kuis.Standing
		wantErr     error
	}{
		{participant: "Dimas", radius: 500, want: want},
		{participant: "Dimas", radius: -1, wantErr: kuis.ErrInvalidRange},
		{participant: "Dimas", radius: 501, wantErr: kuis.ErrInvalidRange},
		{participant: "Zaki", radius: 1, wantErr: kuis.ErrNotOnBoard},
		{participant: "dimas", radius: 1, wantErr: kuis.ErrNotOnBoard},
		{participant: "", radius: 1, wantErr: kuis.ErrInvalidParticipant},
		{participant: strings.Repeat("x", 65), radius: 1, wantErr: kuis.ErrInvalidParticipant},
	}
	for _, tt := range arounds {
		got, err := b.Around(e.ctx, tt.participant, tt.radius)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("Around(%q, %d) error = %v; want %v", tt.participant, tt.radius, err, tt.wantErr)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Around(%q, %d) (-want +got):\n%s", tt.participant, tt.radius, diff)
		}
	}
	standings := []struct {
		participant string
		wantErr     error
	}{
		{"Zaki", kuis.ErrNotOnBoard},
		{"ayu", kuis.ErrNotOnBoard},
		{"Ayu ", kuis.ErrInvalidParticipant},
		{"", kuis.ErrInvalidParticipant},
		{"Ayu\n", kuis.ErrInvalidParticipant},
	}
	for _, tt := range standings {
		if got, err := b.Standing(e.ctx, tt.participant); !errors.Is(err, tt.wantErr) || got != (kuis.Standing{}) {
			t.Errorf("Standing(%q) = %+v, %v; want the zero Standing, %v", tt.participant, got, err, tt.wantErr)
		}
	}
}

// TestParticipantNamesReadBack: names at the bounds, in any script, and with
// characters that mean something in keys, globs or hash tags are stored and
// read back byte for byte, as board members and in the answers set.
func TestParticipantNamesReadBack(t *testing.T) {
	t.Parallel()
	names := []string{
		strings.Repeat("a", 64),
		strings.Repeat("é", 64),
		strings.Repeat("李", 64),
		strings.Repeat("🎓", 64),
		"A",
		"Ali Baba",
		"Nguyễn Thị Lan",
		"李雷",
		"🧑‍🎓 Dewi 🎉",
		"\u0645\u06cc\u200c\u062e\u0648\u0627\u0645", // a Persian name with a zero-width non-joiner
		"O'Brien-Smith, Jr.",
		"kuis:papan:*",
		"{kuis-01}",
		"a?b[c]\\d",
		"=1+1",
		"\"quoted\"",
	}
	e := newEnv(t)
	id, _, b := e.running(1)
	var wantPairs []string
	for _, name := range names {
		if got, err := b.RecordAnswer(e.ctx, name, 1); err != nil || got != (kuis.Answer{Score: 10}) {
			t.Errorf("RecordAnswer(%q, 1) = %+v, %v; want {Score: 10}", name, got, err)
		}
		wantPairs = append(wantPairs, "1:"+name)
		if got, err := b.Standing(e.ctx, name); err != nil || got.Participant != name || got.Score != 10 {
			t.Errorf("Standing(%q) = %+v, %v; want the name back with 10 points", name, got, err)
		}
	}
	// Equal scores: Redis orders the names by their bytes, highest first.
	want := append([]string(nil), names...)
	sort.Sort(sort.Reverse(sort.StringSlice(want)))
	standings, err := b.Standings(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range standings {
		got = append(got, s.Participant)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Standings names (-want +got):\n%s", diff)
	}
	sort.Strings(wantPairs)
	if diff := cmp.Diff(wantPairs, pairsAnswered(e, e.keys(id))); diff != "" {
		t.Errorf("answers set (-want +got):\n%s", diff)
	}
}

// TestStandingDoesNotReadTheBoard: Standing is O(log N): the server runs
// ZSCORE, ZREVRANK and ZCOUNT for it, never a range of the board. It counts
// the server's range reads (INFO commandstats, which counts commands run
// inside scripts too) around Standing calls, uncached and cached; ZSCORE,
// one per call either way, shows the counters see the calls.
func TestStandingDoesNotReadTheBoard(t *testing.T) {
	if redistest.Target() != "standalone" {
		t.Skipf("needs INFO commandstats of one real server; target is %s", redistest.Target())
	}
	e := newEnv(t)
	id, _, _ := e.reference()
	names := []string{"Citra", "Ali", "Budi", "Dewi"}
	ranges := []string{"zrange", "zrevrange", "zrangebyscore", "zrevrangebyscore", "zrangebylex", "zrangestore"}
	counted := append([]string{"zscore"}, ranges...)
	for _, opts := range [][]kuis.Option{nil, {kuis.WithClientCache(time.Minute)}} {
		// The server is shared with whatever else runs (other packages' live
		// boards poll it), whose range reads raise the same counters. A
		// Standing that reads the board raises them on every attempt, so one
		// clean attempt in twenty is proof; an attempt is one call, so that
		// its window is short. Each attempt has a client of its own, so that
		// nothing is served from a cache yet.
		clean := false
		for attempt := 1; attempt <= 20 && !clean; attempt++ {
			client := redistest.Client(t)
			b, err := e.storeOn(client, opts...).Board(id)
			if err != nil {
				t.Fatal(err)
			}
			name := names[attempt%len(names)]
			before := commandCalls(t, e.ctx, client, counted...)
			if _, err := b.Standing(e.ctx, name); err != nil {
				t.Fatalf("options %v: Standing(%s): %v", opts, name, err)
			}
			after := commandCalls(t, e.ctx, client, counted...)
			if after["zscore"] < before["zscore"]+1 {
				t.Fatalf("zscore calls went from %d to %d over a Standing call; the counters are not what this test thinks",
					before["zscore"], after["zscore"])
			}
			clean = true
			for _, c := range ranges {
				if after[c] != before[c] {
					clean = false
					t.Logf("attempt %d: %s calls went from %d to %d", attempt, c, before[c], after[c])
				}
			}
		}
		if !clean {
			t.Errorf("cached %v: every attempt saw range reads of the board during Standing", len(opts) > 0)
		}
	}
}
