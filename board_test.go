package kuis_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestRecordCorrectAddsExactlyTen: each call adds 10 to what the board holds,
// returns the new score, and touches no other member.
func TestRecordCorrectAddsExactlyTen(t *testing.T) {
	e := newEnv(t)
	id, _, b := e.running(3)
	k := b.Keys()
	// A score that did not come from this handle: RecordCorrect must add to it, not set it.
	e.mustRaw("ZADD", k.Board(), "40", "Budi")
	for i, want := range []int64{10, 20, 30} {
		got, err := b.RecordCorrect(e.ctx, "Ali")
		if err != nil || got != want {
			t.Fatalf("RecordCorrect(Ali) #%d = %d, %v; want %d", i+1, got, err, want)
		}
	}
	if got, err := b.RecordCorrect(e.ctx, "Budi"); err != nil || got != 50 {
		t.Fatalf("RecordCorrect(Budi) = %d, %v; want 50", got, err)
	}
	zs, err := e.mustRaw("ZRANGE", k.Board(), "0", "-1", "WITHSCORES").AsZScores()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, z := range zs {
		got[z.Member] = z.Score
	}
	if diff := cmp.Diff(map[string]float64{"Ali": 30, "Budi": 50}, got); diff != "" {
		t.Errorf("board %s of quiz %s (-want +got):\n%s", k.Board(), id, diff)
	}
}

// metaHash writes a meta hash raw, for states Create never produces.
func metaHash(fields ...string) func(e *env, k kuis.Keys) {
	return func(e *env, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), fields...) }
}

// TestRecordCorrectRefusalsWriteNothing: every refusal leaves all three keys
// exactly as they were; in particular no empty or one-member board appears.
func TestRecordCorrectRefusalsWriteNothing(t *testing.T) {
	create := func(e *env, k kuis.Keys) {
		if err := e.meta(k.QuizID()).Create(e.ctx, "Kuis", 3); err != nil {
			e.t.Fatal(err)
		}
	}
	tests := []struct {
		name        string
		setup       func(e *env, k kuis.Keys)
		participant string
		wantErr     error
	}{
		{"no meta", func(*env, kuis.Keys) {}, "Ali", kuis.ErrQuizNotFound},
		{"no meta but a board", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Ali") }, "Ali", kuis.ErrQuizNotFound},
		{"finished", func(e *env, k kuis.Keys) {
			create(e, k)
			if err := e.meta(k.QuizID()).Finish(e.ctx); err != nil {
				e.t.Fatal(err)
			}
		}, "Ali", kuis.ErrQuizFinished},
		{"finished with a board", func(e *env, k kuis.Keys) {
			create(e, k)
			if _, err := e.board(k.QuizID()).RecordCorrect(e.ctx, "Ali"); err != nil {
				e.t.Fatal(err)
			}
			if err := e.meta(k.QuizID()).Finish(e.ctx); err != nil {
				e.t.Fatal(err)
			}
		}, "Ali", kuis.ErrQuizFinished},
		{"meta is a string", func(e *env, k kuis.Keys) { e.mustRaw("SET", k.Meta(), "berjalan") }, "Ali", kuis.ErrCorrupt},
		{"meta is a list", func(e *env, k kuis.Keys) { e.mustRaw("RPUSH", k.Meta(), "berjalan") }, "Ali", kuis.ErrCorrupt},
		{"unknown status", metaHash("judul", "Kuis", "jumlah_soal", "3", "status", "jeda"), "Ali", kuis.ErrCorrupt},
		{"missing status", metaHash("judul", "Kuis", "jumlah_soal", "3"), "Ali", kuis.ErrCorrupt},
		{"malformed jumlah_soal", metaHash("judul", "Kuis", "jumlah_soal", "x", "status", "berjalan"), "Ali", kuis.ErrCorrupt},
		// 16 digits: Go reads it as an int, the Lua gate would not read it exactly; both refuse.
		{"jumlah_soal of 16 digits", metaHash("judul", "Kuis", "jumlah_soal", "1000000000000000", "status", "berjalan"), "Ali", kuis.ErrCorrupt},
		{"board is a string", func(e *env, k kuis.Keys) {
			create(e, k)
			e.mustRaw("SET", k.Board(), "papan")
		}, "Ali", kuis.ErrCorrupt},
		{"board is a hash", func(e *env, k kuis.Keys) {
			create(e, k)
			e.mustRaw("HSET", k.Board(), "Ali", "10")
		}, "Ali", kuis.ErrCorrupt},
	}
	for _, tt := range invalidParticipants {
		tests = append(tests, struct {
			name        string
			setup       func(e *env, k kuis.Keys)
			participant string
			wantErr     error
		}{"participant " + tt.name, create, tt.participant, kuis.ErrInvalidParticipant})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := quizID()
			k := quizKeys(e, id)
			tt.setup(e, k)
			before := rawState(e, allKeys(k)...)
			score, err := e.board(id).RecordCorrect(e.ctx, tt.participant)
			if !errors.Is(err, tt.wantErr) || score != 0 {
				t.Errorf("RecordCorrect(%q) = %d, %v; want 0, %v", tt.participant, score, err, tt.wantErr)
			}
			if diff := cmp.Diff(before, rawState(e, allKeys(k)...)); diff != "" {
				t.Errorf("a refused RecordCorrect changed keys (-before +after):\n%s", diff)
			}
		})
	}
}

// invalidParticipants break the name rule: 1 to 64 bytes of valid UTF-8
// without control characters.
var invalidParticipants = []struct{ name, participant string }{
	{"empty", ""},
	{"65 bytes", strings.Repeat("a", 65)},
	{"65 bytes of multi-byte runes", strings.Repeat("é", 32) + "a"},
	{"invalid UTF-8", "Ali\xff"},
	{"truncated rune", "Ali\xe6\x9d"},
	{"newline", "Ali\n"},
	{"tab", "Ali\tBaba"},
	{"NUL", "Ali\x00"},
	{"escape", "\x1b[31mAli"},
	{"DEL", "Ali\x7f"},
	{"U+0085 next line", "Ali\u0085"},
}

// TestParticipantNamesAccepted: the bounds and real names, including
// non-Latin scripts and emoji, are recorded and read back unchanged.
func TestParticipantNamesAccepted(t *testing.T) {
	names := []string{
		strings.Repeat("a", 64),
		strings.Repeat("é", 32),
		"A",
		"Siti Nurhaliza",
		"Nguyễn",
		"李雷",
		"🧑‍🎓 Dewi 🎉",
		"O'Brien-Smith, Jr.",
		"kuis:papan:*", // a name is a member, never part of a key
	}
	e := newEnv(t)
	_, _, b := e.running(3)
	for _, name := range names {
		if got, err := b.RecordCorrect(e.ctx, name); err != nil || got != 10 {
			t.Errorf("RecordCorrect(%q) = %d, %v; want 10", name, got, err)
			continue
		}
		if got, err := b.Score(e.ctx, name); err != nil || got != 10 {
			t.Errorf("Score(%q) = %d, %v; want 10", name, got, err)
		}
		if _, err := b.Rank(e.ctx, name); err != nil {
			t.Errorf("Rank(%q): %v", name, err)
		}
	}
	standings, err := b.Standings(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range standings {
		got = append(got, s.Participant)
	}
	if diff := cmp.Diff(len(names), len(got)); diff != "" {
		t.Errorf("Standings has %d participants, want %d: %q", len(got), len(names), got)
	}
}

// TestReadsOfTheReferenceBoard: Standings, Rank and Score on the contract's
// reference session, and ErrNotOnBoard / ErrInvalidParticipant for the rest.
func TestReadsOfTheReferenceBoard(t *testing.T) {
	e := newEnv(t)
	_, _, b := e.reference()

	standings, err := b.Standings(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []kuis.Standing{
		{Rank: 1, Participant: "Citra", Score: 30},
		{Rank: 2, Participant: "Ali", Score: 30},
		{Rank: 3, Participant: "Budi", Score: 20},
		{Rank: 4, Participant: "Dewi", Score: 10},
	}
	if diff := cmp.Diff(want, standings); diff != "" {
		t.Errorf("Standings (-want +got):\n%s", diff)
	}
	// Rank and Score agree with Standings line by line (Ali 2, Dewi 4).
	for _, s := range want {
		if got, err := b.Rank(e.ctx, s.Participant); err != nil || got != s.Rank {
			t.Errorf("Rank(%s) = %d, %v; want %d", s.Participant, got, err, s.Rank)
		}
		if got, err := b.Score(e.ctx, s.Participant); err != nil || got != s.Score {
			t.Errorf("Score(%s) = %d, %v; want %d", s.Participant, got, err, s.Score)
		}
	}

	tests := []struct {
		name        string
		participant string
		wantErr     error
	}{
		{"absent", "Eka", kuis.ErrNotOnBoard},
		{"absent by case", "ali", kuis.ErrNotOnBoard},
		{"absent by trailing space", "Ali ", kuis.ErrNotOnBoard},
		{"invalid", "", kuis.ErrInvalidParticipant},
		{"control character", "Ali\n", kuis.ErrInvalidParticipant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := b.Rank(e.ctx, tt.participant); !errors.Is(err, tt.wantErr) || got != 0 {
				t.Errorf("Rank(%q) = %d, %v; want 0, %v", tt.participant, got, err, tt.wantErr)
			}
			if got, err := b.Score(e.ctx, tt.participant); !errors.Is(err, tt.wantErr) || got != 0 {
				t.Errorf("Score(%q) = %d, %v; want 0, %v", tt.participant, got, err, tt.wantErr)
			}
		})
	}
}

// TestBoardReadsRefuseCorruptBoards: a board of the wrong type, or holding a
// score the contract forbids, is ErrCorrupt rather than a wrong answer.
func TestBoardReadsRefuseCorruptBoards(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *env, k kuis.Keys)
		// who is a participant on the corrupt board; "" when the board is not a sorted set.
		who string
		// rankOK: ZREVRANK does not look at scores, so Rank still answers.
		rankOK bool
	}{
		{"score 15", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "15", "Eka") }, "Eka", true},
		{"score -10", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "-10", "Eka") }, "Eka", true},
		{"score 12.5", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "12.5", "Eka") }, "Eka", true},
		{"score 5", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "5", "Eka") }, "Eka", true},
		{"score inf", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "+inf", "Eka") }, "Eka", true},
		{"board is a string", func(e *env, k kuis.Keys) {
			e.mustRaw("DEL", k.Board())
			e.mustRaw("SET", k.Board(), "papan")
		}, "", false},
		{"board is a hash", func(e *env, k kuis.Keys) {
			e.mustRaw("DEL", k.Board())
			e.mustRaw("HSET", k.Board(), "Ali", "30")
		}, "", false},
		{"board is a set", func(e *env, k kuis.Keys) {
			e.mustRaw("DEL", k.Board())
			e.mustRaw("SADD", k.Board(), "Ali")
		}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, _, b := e.reference()
			k := b.Keys()
			tt.setup(e, k)
			if got, err := b.Standings(e.ctx); !errors.Is(err, kuis.ErrCorrupt) || got != nil {
				t.Errorf("Standings = %v, %v; want nil, ErrCorrupt", got, err)
			} else if !strings.Contains(err.Error(), k.Board()) || !strings.Contains(err.Error(), tt.who) {
				t.Errorf("Standings error %q does not name %s and %q", err, k.Board(), tt.who)
			}
			who := tt.who
			if who == "" {
				who = "Ali"
			}
			if _, err := b.Score(e.ctx, who); !errors.Is(err, kuis.ErrCorrupt) {
				t.Errorf("Score(%s) = %v; want ErrCorrupt", who, err)
			}
			_, err := b.Rank(e.ctx, who)
			switch {
			case tt.rankOK && err != nil:
				t.Errorf("Rank(%s) = %v; want a rank", who, err)
			case !tt.rankOK && !errors.Is(err, kuis.ErrCorrupt):
				t.Errorf("Rank(%s) = %v; want ErrCorrupt", who, err)
			}
		})
	}
}

// TestEmptyBoardReadsAsNoStandings: a running quiz with no answers yet has an
// empty board, which is not an error.
func TestEmptyBoardReadsAsNoStandings(t *testing.T) {
	e := newEnv(t)
	_, _, b := e.running(3)
	got, err := b.Standings(e.ctx)
	if err != nil || len(got) != 0 {
		t.Errorf("Standings = %v, %v; want empty, nil", got, err)
	}
	if _, err := b.Rank(e.ctx, "Ali"); !errors.Is(err, kuis.ErrNotOnBoard) {
		t.Errorf("Rank(Ali) = %v; want ErrNotOnBoard", err)
	}
}

// TestNoOperationSetsTTL runs a quiz's whole life through the library and
// checks that no key ever carries a TTL.
func TestNoOperationSetsTTL(t *testing.T) {
	e := newEnv(t)
	id, m, b := e.reference()
	k := b.Keys()
	noTTL := func(step string) {
		t.Helper()
		for _, key := range allKeys(k) {
			if !e.exists(key) {
				continue
			}
			if ttl, err := e.mustRaw("PTTL", key).AsInt64(); err != nil || ttl != -1 {
				t.Errorf("after %s: PTTL %s = %d, %v; want -1", step, key, ttl, err)
			}
		}
	}
	noTTL("Create and RecordCorrect")
	if _, err := b.RecordAnswer(e.ctx, "Eka", 1); err != nil {
		t.Fatal(err)
	}
	if !e.exists(k.Answers()) {
		t.Fatalf("RecordAnswer wrote no %s", k.Answers())
	}
	noTTL("RecordAnswer")
	if _, err := b.Standings(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Rank(e.ctx, "Ali"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Score(e.ctx, "Ali"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Status(e.ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	noTTL("Finish")
	if _, err := b.RecordCorrect(e.ctx, "Ali"); !errors.Is(err, kuis.ErrQuizFinished) {
		t.Fatalf("RecordCorrect after Finish = %v; want ErrQuizFinished", err)
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := kuis.Audit(e.ctx, e.client, id, e.opts...); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
	noTTL("the refused answer, the second Finish and Audit")
	for _, key := range allKeys(k) {
		if !e.exists(key) {
			t.Errorf("%s is gone; the life cycle should have kept it", key)
		}
	}
}
