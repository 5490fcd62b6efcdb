package kuis_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// orderUnit is 2^42: the order set's score is count*2^42 + (2^42 - 1 - ms).
const orderUnit = 1 << 42

// place is the order set's score for count answers, the latest at ms (0: no time).
func place(count, ms int64) string {
	p := count * orderUnit
	if ms > 0 {
		p += orderUnit - 1 - ms
	}
	return strconv.FormatInt(p, 10)
}

// byTime is a Store on the env's namespace that orders equal scores by time.
func (e *env) byTime() *kuis.Store {
	e.t.Helper()
	return e.storeOn(e.client, kuis.WithTies(kuis.TiesByTime))
}

// turn is one participant answering questions 1 to answers.
type turn struct {
	name    string
	answers int
}

// playInTurn plays the turns in order, moving the server's clock on (tick)
// after each answer, so that every counted answer gets a later millisecond
// of the server's clock than the one before it.
func playInTurn(e *env, b *kuis.Board, turns ...turn) {
	e.t.Helper()
	for _, tn := range turns {
		for q := 1; q <= tn.answers; q++ {
			if a, err := b.RecordAnswer(e.ctx, tn.name, q); err != nil || a.Duplicate {
				e.t.Fatalf("RecordAnswer(%q, %d) = %+v, %v; want counted", tn.name, q, a, err)
			}
			tick(e)
		}
	}
}

// setClock is the clock a test set on a miniredis of its own (SetTime): the
// server's time stands still until tick moves it.
type setClock struct {
	m  *miniredis.Miniredis
	at time.Time
}

// setClocks holds the setClock of each env made by clockEnv on miniredis.
var setClocks sync.Map // *env → *setClock

// clockEnv is newEnv whose server's clock tick can move: on miniredis, one of
// the test's own whose time the test sets; on a real server, the target.
func clockEnv(t *testing.T) *env {
	t.Helper()
	if redistest.Real() {
		return newEnv(t)
	}
	m, client := redistest.Miniredis(t)
	e := envWith(t, client)
	c := &setClock{m: m, at: time.Now().Truncate(time.Millisecond)}
	m.SetTime(c.at)
	setClocks.Store(e, c)
	t.Cleanup(func() { setClocks.Delete(e) })
	return e
}

// clockOf returns the clock the test set on e's server, if it did.
func clockOf(e *env) (*setClock, bool) {
	c, ok := setClocks.Load(e)
	if !ok {
		return nil, false
	}
	return c.(*setClock), true
}

// tick makes the server's clock show a later millisecond than any entry
// logged so far: a set clock is moved on by one (SetTime); any other is
// waited for (nextMillisecond), never slept on.
func tick(e *env) {
	e.t.Helper()
	if c, ok := clockOf(e); ok {
		c.at = c.at.Add(time.Millisecond)
		c.m.SetTime(c.at)
		return
	}
	e.nextMillisecond()
}

// logEntry is one entry of a quiz's answer log as the server holds it.
type logEntry struct{ ID, Participant, Question, Score string }

// ms is the entry ID's time part: the server's clock when it was counted.
func (l logEntry) ms() int64 {
	n, _ := strconv.ParseInt(strings.SplitN(l.ID, "-", 2)[0], 10, 64)
	return n
}

// answerLog reads the answers in the quiz's log with XRANGE; the start and
// finish entries (the single field status = berjalan, selesai) are not
// answers and are left out.
func answerLog(e *env, k kuis.Keys) []logEntry {
	e.t.Helper()
	entries, err := e.mustRaw("XRANGE", k.Log(), "-", "+").AsXRange()
	if err != nil {
		e.t.Fatalf("XRANGE %s: %v", k.Log(), err)
	}
	out := make([]logEntry, 0, len(entries))
	for _, x := range entries {
		f := x.FieldValues
		if len(f) == 1 && (f["status"] == "selesai" || f["status"] == "berjalan") {
			continue
		}
		out = append(out, logEntry{x.ID, f["peserta"], f["soal"], f["skor"]})
		if len(f) != 3 {
			e.t.Errorf("log entry %s has fields %v; want peserta, soal, skor", x.ID, f)
		}
	}
	return out
}

// checkReads checks every read of store on quiz id against want, the whole
// board in order: Standings, Recap.Standings, every Page (offsets 0 to
// len+1, limits 1 to len+1), every Around window (each member, radius 0 to
// len) and each member's Standing, whose Rank must also be ZREVRANK + 1 in
// ranked, the set the reads must follow.
func checkReads(t *testing.T, e *env, store *kuis.Store, id, ranked string, want []kuis.Standing) {
	t.Helper()
	b, err := store.Board(id)
	if err != nil {
		t.Fatal(err)
	}
	window := func(from, to int) []kuis.Standing {
		from = min(len(want), max(0, from))
		return want[from:max(from, min(len(want), to))]
	}
	got, err := b.Standings(e.ctx)
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Standings: %v (-want +got):\n%s", err, diff)
	}
	recap, err := store.Recap(e.ctx, id)
	if diff := cmp.Diff(want, recap.Standings); err != nil || diff != "" {
		t.Errorf("Recap.Standings: %v (-want +got):\n%s", err, diff)
	}
	for offset := 0; offset <= len(want)+1; offset++ {
		for limit := 1; limit <= len(want)+1; limit++ {
			got, err := b.Page(e.ctx, offset, limit)
			if diff := cmp.Diff(window(offset, offset+limit), got); err != nil || diff != "" {
				t.Errorf("Page(%d, %d): %v (-want +got):\n%s", offset, limit, err, diff)
			}
		}
	}
	for i, s := range want {
		for radius := 0; radius <= len(want); radius++ {
			got, err := b.Around(e.ctx, s.Participant, radius)
			if diff := cmp.Diff(window(i-radius, i+radius+1), got); err != nil || diff != "" {
				t.Errorf("Around(%s, %d): %v (-want +got):\n%s", s.Participant, radius, err, diff)
			}
		}
		got, err := b.Standing(e.ctx, s.Participant)
		if diff := cmp.Diff(s, got); err != nil || diff != "" {
			t.Errorf("Standing(%s): %v (-want +got):\n%s", s.Participant, err, diff)
		}
		if pos, err := e.mustRaw("ZREVRANK", ranked, s.Participant).AsInt64(); err != nil || int(pos)+1 != s.Rank {
			t.Errorf("ZREVRANK %s %s = %d, %v; want %d", ranked, s.Participant, pos, err, s.Rank-1)
		}
	}
}

// timedBoard plays a quiz of 5 questions in which, in every group of equal
// scores, time order and name order disagree at every place, and the groups
// straddle page boundaries. It returns the quiz with its board in both orders.
func timedBoard(e *env) (id string, byName, byTime []kuis.Standing) {
	e.t.Helper()
	id, _, b := e.running(5)
	playInTurn(e, b, turn{"Ayu", 5}, turn{"Citra", 4}, turn{"Dewi", 3}, turn{"Ali", 4}, turn{"Zahra", 4},
		turn{"Eko", 3}, turn{"Budi", 4}, turn{"Fay", 1})
	return id, []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Ayu", Score: 50},
			{Rank: 2, CompetitionRank: 2, Participant: "Zahra", Score: 40},
			{Rank: 3, CompetitionRank: 2, Participant: "Citra", Score: 40},
			{Rank: 4, CompetitionRank: 2, Participant: "Budi", Score: 40},
			{Rank: 5, CompetitionRank: 2, Participant: "Ali", Score: 40},
			{Rank: 6, CompetitionRank: 6, Participant: "Eko", Score: 30},
			{Rank: 7, CompetitionRank: 6, Participant: "Dewi", Score: 30},
			{Rank: 8, CompetitionRank: 8, Participant: "Fay", Score: 10},
		}, []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Ayu", Score: 50},
			{Rank: 2, CompetitionRank: 2, Participant: "Citra", Score: 40},
			{Rank: 3, CompetitionRank: 2, Participant: "Ali", Score: 40},
			{Rank: 4, CompetitionRank: 2, Participant: "Zahra", Score: 40},
			{Rank: 5, CompetitionRank: 2, Participant: "Budi", Score: 40},
			{Rank: 6, CompetitionRank: 6, Participant: "Dewi", Score: 30},
			{Rank: 7, CompetitionRank: 6, Participant: "Eko", Score: 30},
			{Rank: 8, CompetitionRank: 8, Participant: "Fay", Score: 10},
		}
}

// TestTiesOnEveryRead: the same quiz read by a TiesByName and a TiesByTime
// Store gives each order exactly, in every read, with the same competition
// ranks; pages and windows that start inside a group of equal scores too.
func TestTiesOnEveryRead(t *testing.T) {
	t.Parallel()
	e := clockEnv(t)
	id, byName, byTime := timedBoard(e)
	k := e.keys(id)
	t.Run("TiesByName", func(t *testing.T) { checkReads(t, e, e.store, id, k.Board(), byName) })
	t.Run("TiesByTime", func(t *testing.T) { checkReads(t, e, e.byTime(), id, k.Order(), byTime) })
}

// TestTiesByTimeFollowsTheServerClock: each counted answer is logged at the
// server's time, later for every answer of the sequence; the order set places
// each participant at the time of their latest answer; and reaching a rival's
// score later puts a participant behind them, whatever the names.
func TestTiesByTimeFollowsTheServerClock(t *testing.T) {
	t.Parallel()
	e := clockEnv(t)
	id, _, b := e.running(3)
	k := e.keys(id)
	timed, err := e.byTime().Board(id)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		question int
		want     []kuis.Standing
	}{
		{"Zahra", 1, []kuis.Standing{{Rank: 1, CompetitionRank: 1, Participant: "Zahra", Score: 10}}},
		{"Ali", 1, []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Zahra", Score: 10},
			{Rank: 2, CompetitionRank: 1, Participant: "Ali", Score: 10}}},
		{"Ali", 2, []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Ali", Score: 20},
			{Rank: 2, CompetitionRank: 2, Participant: "Zahra", Score: 10}}},
		// Zahra reaches 20 after Ali: behind him, although name order puts her first.
		{"Zahra", 2, []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Ali", Score: 20},
			{Rank: 2, CompetitionRank: 1, Participant: "Zahra", Score: 20}}},
	}
	start := time.Now().Truncate(time.Millisecond)
	var wantLog []logEntry
	count := map[string]int64{}
	for i, st := range steps {
		tick(e)
		if _, err := b.RecordAnswer(e.ctx, st.name, st.question); err != nil {
			t.Fatal(err)
		}
		count[st.name]++
		got := answerLog(e, k)
		if len(got) != i+1 {
			t.Fatalf("after answer %d the log has %d entries: %v", i+1, len(got), got)
		}
		last := got[i]
		if i > 0 && last.ms() <= got[i-1].ms() {
			t.Errorf("answer %d logged at %d ms, not after answer %d at %d ms", i+1, last.ms(), i, got[i-1].ms())
		}
		if c, ok := clockOf(e); ok {
			if at := time.UnixMilli(last.ms()); !at.Equal(c.at) {
				t.Errorf("answer %d logged at %v; want the server's time, %v", i+1, at, c.at)
			}
		} else if at := time.UnixMilli(last.ms()); at.Before(start) || at.After(time.Now()) {
			t.Errorf("answer %d logged at %v; want between %v and now", i+1, at, start)
		}
		wantLog = append(wantLog, logEntry{last.ID, st.name, strconv.Itoa(st.question), strconv.FormatInt(10*count[st.name], 10)})
		if diff := cmp.Diff(wantLog, got); diff != "" {
			t.Errorf("log after answer %d (-want +got):\n%s", i+1, diff)
		}
		if p, err := e.mustRaw("ZSCORE", k.Order(), st.name).ToString(); err != nil || p != place(count[st.name], last.ms()) {
			t.Errorf("order set place of %s = %s, %v; want %s", st.name, p, err, place(count[st.name], last.ms()))
		}
		standings, err := timed.Standings(e.ctx)
		if diff := cmp.Diff(st.want, standings); err != nil || diff != "" {
			t.Errorf("after %s answered %d: Standings: %v (-want +got):\n%s", st.name, st.question, err, diff)
		}
	}
}

// TestDuplicateKeepsAnswerTime: a repeated answer, one by one, in a batch or
// after Finish, writes nothing: the log, the order set and the time order
// stay as they were.
func TestDuplicateKeepsAnswerTime(t *testing.T) {
	t.Parallel()
	e := clockEnv(t)
	id, _, b := e.running(2)
	playInTurn(e, b, turn{"Ali", 1}, turn{"Zahra", 1})
	k := e.keys(id)
	keys := []string{k.Board(), k.Answers(), k.Order()}
	before, beforeLog := e.dump(keys...), answerLog(e, k)
	want := []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Ali", Score: 10},
		{Rank: 2, CompetitionRank: 1, Participant: "Zahra", Score: 10},
	}
	timed, err := e.byTime().Board(id)
	if err != nil {
		t.Fatal(err)
	}
	retries := []func() ([]kuis.Answer, error){
		func() ([]kuis.Answer, error) { a, err := b.RecordAnswer(e.ctx, "Ali", 1); return []kuis.Answer{a}, err },
		func() ([]kuis.Answer, error) {
			res, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{Participant: "Ali", Question: 1}, {Participant: "Ali", Question: 1}})
			var out []kuis.Answer
			for _, r := range res {
				out = append(out, r.Answer)
				if err == nil {
					err = r.Err
				}
			}
			return out, err
		},
		func() ([]kuis.Answer, error) {
			e.finish(id)
			a, err := b.RecordAnswer(e.ctx, "Ali", 1)
			return []kuis.Answer{a}, err
		},
	}
	for i, retry := range retries {
		tick(e) // a retry that wrote would write a later time
		got, err := retry()
		for _, a := range got {
			if err != nil || a != (kuis.Answer{Score: 10, Duplicate: true}) {
				t.Errorf("retry %d = %+v, %v; want {Score: 10, Duplicate: true}", i, got, err)
			}
		}
		if diff := cmp.Diff(before, e.dump(keys...)); diff != "" {
			t.Errorf("retry %d changed keys (-before +after):\n%s", i, diff)
		}
		if diff := cmp.Diff(beforeLog, answerLog(e, k)); diff != "" {
			t.Errorf("retry %d changed the log (-before +after):\n%s", i, diff)
		}
		standings, err := timed.Standings(e.ctx)
		if diff := cmp.Diff(want, standings); err != nil || diff != "" {
			t.Errorf("retry %d: Standings: %v (-want +got):\n%s", i, err, diff)
		}
	}
}

// TestEqualTimesFallBackToNameOrder: two participants whose latest answers
// have the same millisecond (written raw: a real server rarely gives it on
// demand) are in name order, reverse byte order, as with TiesByName.
func TestEqualTimesFallBackToNameOrder(t *testing.T) {
	t.Parallel()
	e := clockEnv(t)
	id, _, b := e.running(2)
	playInTurn(e, b, turn{"Ali", 1}, turn{"Zahra", 1}, turn{"Budi", 2})
	k := e.keys(id)
	checkReads(t, e, e.byTime(), id, k.Order(), []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Budi", Score: 20},
		{Rank: 2, CompetitionRank: 2, Participant: "Ali", Score: 10},
		{Rank: 3, CompetitionRank: 2, Participant: "Zahra", Score: 10},
	})
	ali := answerLog(e, k)[0]
	e.mustRaw("ZADD", k.Order(), place(1, ali.ms()), "Zahra")
	checkReads(t, e, e.byTime(), id, k.Order(), []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Budi", Score: 20},
		{Rank: 2, CompetitionRank: 2, Participant: "Zahra", Score: 10},
		{Rank: 3, CompetitionRank: 2, Participant: "Ali", Score: 10},
	})
}

// TestTiesByTimeFallsBackUntilRepair: an order set that does not hold the
// board's members is read in name order by every read of a TiesByTime
// Store; Repair, which changes no score, puts every place back where the log
// says, and time order returns.
func TestTiesByTimeFallsBackUntilRepair(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tamper func(e *env, k kuis.Keys)
	}{
		{"a member missing", func(e *env, k kuis.Keys) { e.mustRaw("ZREM", k.Order(), "Ali") }},
		{"a stranger", func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Order(), place(1, 1), "Eko") }},
	}
	byName := []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Zahra", Score: 10},
		{Rank: 2, CompetitionRank: 1, Participant: "Budi", Score: 10},
		{Rank: 3, CompetitionRank: 1, Participant: "Ali", Score: 10},
	}
	byTime := []kuis.Standing{
		{Rank: 1, CompetitionRank: 1, Participant: "Ali", Score: 10},
		{Rank: 2, CompetitionRank: 1, Participant: "Zahra", Score: 10},
		{Rank: 3, CompetitionRank: 1, Participant: "Budi", Score: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := clockEnv(t)
			id, _, b := e.running(1)
			playInTurn(e, b, turn{"Ali", 1}, turn{"Zahra", 1}, turn{"Budi", 1})
			k := e.keys(id)
			store := e.byTime()
			checkReads(t, e, store, id, k.Order(), byTime)
			before := e.dump(k.Board(), k.Order())
			tt.tamper(e, k)
			checkReads(t, e, store, id, k.Board(), byName)
			fixed, err := store.Repair(e.ctx, id)
			if err != nil || fixed == nil || len(fixed) != 0 {
				t.Errorf("Repair = %#v, %v; want no board change", fixed, err)
			}
			if diff := cmp.Diff(before, e.dump(k.Board(), k.Order())); diff != "" {
				t.Errorf("after Repair (-before tampering +after):\n%s", diff)
			}
			checkReads(t, e, store, id, k.Order(), byTime)
		})
	}
}

// TestTimeOrderedReadsDoNotWalkTheBoard: with TiesByTime, Standing is
// O(log N) (no range read at all) and Page and Around read one range, of the
// page only, with ZCOUNT only for a page that starts inside a group of equal
// scores. It counts every command of the reads (INFO commandstats counts
// commands run inside scripts too) per call, on a real standalone server.
func TestTimeOrderedReadsDoNotWalkTheBoard(t *testing.T) {
	if redistest.Target() != "standalone" {
		t.Skipf("needs INFO commandstats of one real server; target is %s", redistest.Target())
	}
	e := newEnv(t)
	id, _, _ := timedBoard(e)
	counted := []string{"hlen", "zcard", "zscore", "zrevrank", "zcount", "zrange", "zrevrange", "zrangebyscore",
		"zrevrangebyscore", "zrangebylex", "zrangestore", "zscan", "sort", "xrange"}
	type calls map[string]int64
	reads := []struct {
		name string
		read func(b *kuis.Board) error
		want calls
	}{
		{"Standing", func(b *kuis.Board) error { _, err := b.Standing(e.ctx, "Zahra"); return err },
			calls{"hlen": 1, "zcard": 2, "zscore": 2, "zrevrank": 1, "zcount": 1}},
		{"Page at a group's start", func(b *kuis.Board) error { _, err := b.Page(e.ctx, 1, 2); return err },
			calls{"hlen": 1, "zcard": 2, "zrange": 1}},
		{"Page inside a group", func(b *kuis.Board) error { _, err := b.Page(e.ctx, 3, 3); return err },
			calls{"hlen": 1, "zcard": 2, "zrange": 1, "zcount": 1}},
		{"Around", func(b *kuis.Board) error { _, err := b.Around(e.ctx, "Zahra", 1); return err },
			calls{"hlen": 2, "zcard": 4, "zrevrank": 2, "zrange": 1, "zcount": 1}},
	}
	for _, r := range reads {
		want := calls{}
		for _, c := range counted {
			want[c] = r.want[c]
		}
		// The server may be shared: one clean attempt in five is proof, as a
		// read that walks the board does so on every attempt.
		var diff string
		for attempt := 1; attempt <= 5; attempt++ {
			b, err := e.byTime().Board(id)
			if err != nil {
				t.Fatal(err)
			}
			before := commandCalls(t, e.ctx, e.client, counted...)
			if err := r.read(b); err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
			got := commandCalls(t, e.ctx, e.client, counted...)
			for c := range got {
				got[c] -= before[c]
			}
			if diff = cmp.Diff(want, calls(got)); diff == "" {
				break
			}
		}
		if diff != "" {
			t.Errorf("%s: commands of one call (-want +got):\n%s", r.name, diff)
		}
	}
}
