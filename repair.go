package kuis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Correction is one participant's board entry that Repair changed.
type Correction struct {
	Participant string `json:"participant"`
	Was         int64  `json:"was"` // score on the board before; 0 when missing
	Now         int64  `json:"now"` // 10 x counted answers; 0 means the member was removed
}

// Bounds of Repair's steps.
const (
	repairScanCount = 1000 // SSCAN, ZSCAN and XRANGE page size
	repairChecks    = 2000 // SISMEMBER calls in one repair script
	repairAttempts  = 3    // rebuilds tried while other Repairs take the repair keys over
)

// Repair rewrites the board of quiz quizID from its answers so that every
// score is exactly 10 x that participant's counted answers: it adds missing
// members, removes members with no counted answer, and puts each participant
// back in the order set (TiesByTime) at the time of their latest logged
// answer. It returns what it changed on the board, in participant order, and
// an empty slice when nothing needed it. It works on a running or finished
// quiz; answers counted meanwhile are never undone, and a reader sees the old
// board or the new one, never a mix.
//
// Repair reads the log's last ID (XREVRANGE ... COUNT 1), then the answers
// set, the board, the order set and the log in pages (SSCAN, ZSCAN, XRANGE
// ... COUNT 1000), so no step blocks the server long. Up to 500 participants
// to correct (the usual case: a few changed behind the library's back), it
// recounts each on the server (SISMEMBER of each question) and corrects them
// in one atomic script of at most 2,000 checks. More than that, it rebuilds
// the board and order set in the repair keys (Keys.RepairBoard,
// Keys.RepairOrder: ZADD in scripts of 1,000 participants), recounts there
// the participants of answers logged since it began, and then, in one script,
// UNLINKs the board and order set (freed in the background) and RENAMEs the
// repair keys in their place. A rebuild needs memory for a second copy of the
// board and order set while it runs. A Repair that stops midway (a timeout,
// a lost connection) leaves the board as it was and the repair keys behind:
// Audit reports them, and the next Repair, PurgeQuiz and Purge delete them.
//
// It is the teacher's operation: ACLRules(RoleTeacher) allows it, and the app
// user is refused (ErrForbidden) with nothing written. Errors also:
// ErrInvalidQuizID, ErrQuizNotFound, ErrCorrupt (a key of the wrong type, or
// a jumlah_soal above 1000, which Create never writes and Repair will not
// recount), ErrBusy (other Repairs of the quiz kept taking its rebuild over).
func (s *Store) Repair(ctx context.Context, quizID string) ([]Correction, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return nil, err
	}
	m := Meta{q: q}
	fields, err := m.fields(ctx)
	if err != nil {
		return nil, err
	}
	info, err := decodeInfo(q.keys.meta, fields)
	if err != nil {
		return nil, err
	}
	if info.Questions > maxQuestions {
		return nil, corrupt(q.keys.meta, "field jumlah_soal is %d, above the %d Repair recounts", info.Questions, maxQuestions)
	}
	n := int(info.Questions)
	for attempt := 1; ; attempt++ {
		snap, err := q.repairSnapshot(ctx)
		if err != nil {
			return nil, err
		}
		if len(snap.todo) <= max(1, min(q.opts.repairStep, repairChecks/n)) {
			return q.correct(ctx, snap)
		}
		out, err := q.rebuild(ctx, snap)
		if errors.Is(err, ErrBusy) && attempt < repairAttempts {
			continue
		}
		return out, err
	}
}

// correct recounts the snapshot's participants to correct on the server and
// corrects them in one atomic script, which also deletes any repair keys left
// by a rebuild that stopped midway.
func (q quiz) correct(ctx context.Context, snap repairSnapshot) ([]Correction, error) {
	out := []Correction{}
	args := make([]string, 0, 1+2*len(snap.todo))
	args = append(args, snap.last)
	for _, p := range snap.todo {
		args = append(args, p, strconv.FormatInt(snap.latest[p], 10))
	}
	flat, err := script.Repair.Exec(ctx, q.client, q.keys.every(), args).AsStrSlice()
	if err != nil {
		return nil, q.fail(err, "", q.keys.board)
	}
	for i := 0; i+2 < len(flat); i += 3 {
		was, _ := strconv.ParseFloat(cmp.Or(flat[i+1], "0"), 64)
		now, _ := strconv.ParseInt(flat[i+2], 10, 64)
		out = append(out, Correction{Participant: flat[i], Was: int64(was), Now: now})
	}
	return out, nil
}

// repairSnapshot is the quiz as Repair read it, in pages.
type repairSnapshot struct {
	since  string             // the log's last ID before the reads began ("0-0" for none)
	last   string             // the last log ID read ("0-0" for none)
	counts map[string]int64   // participant -> counted answers
	scores map[string]float64 // the board as read
	latest map[string]int64   // participant -> ms of their latest logged answer
	todo   []string           // sorted: participants whose board entry or place is wrong
}

// repairSnapshot reads the quiz in pages and finds the participants whose
// board entry or place in the order set is not what their answers make it.
func (q quiz) repairSnapshot(ctx context.Context) (repairSnapshot, error) {
	k := q.keys
	snap := repairSnapshot{counts: map[string]int64{}}
	var err error
	if snap.since, err = q.lastLogID(ctx); err != nil {
		return snap, err
	}
	counted := map[string]bool{}
	err = q.scan(ctx, k.answers, func(page []string) {
		for _, m := range page {
			// SSCAN may return a member twice.
			if _, p, ok := answerPair(m); ok && !counted[m] {
				snap.counts[p]++
				counted[m] = true
			}
		}
	})
	if err != nil {
		return snap, err
	}
	if snap.scores, err = q.scanScores(ctx, k.board); err != nil {
		return snap, err
	}
	places, err := q.scanScores(ctx, k.order)
	if err != nil {
		return snap, err
	}
	if err := q.readAnswerLog(ctx, &snap, counted); err != nil {
		return snap, err
	}
	seen := map[string]bool{}
	for _, names := range []map[string]float64{snap.scores, places} {
		for p := range names {
			seen[p] = true
		}
	}
	for p := range snap.counts {
		seen[p] = true
	}
	for p := range seen {
		n := snap.counts[p]
		score, onBoard := snap.scores[p]
		place, placed := places[p]
		switch {
		case n == 0 && (onBoard || placed):
		case n > 0 && (!onBoard || score != float64(10*n) || !placed || place != float64(orderPlace(n, snap.latest[p]))):
		default:
			continue
		}
		snap.todo = append(snap.todo, p)
	}
	slices.Sort(snap.todo)
	return snap, nil
}

// lastLogID returns the ID of the log's last entry, "0-0" when it has none.
func (q quiz) lastLogID(ctx context.Context) (string, error) {
	k := q.keys.log
	entries, err := q.client.Do(ctx, q.client.B().Xrevrange().Key(k).End("+").Start("-").Count(1).Build()).AsXRange()
	if err != nil {
		return "", q.fail(err, "", k)
	}
	if len(entries) == 0 {
		return "0-0", nil
	}
	return entries[0].ID, nil
}

// orderPlace is the order set's score for n counted answers, the latest at
// ms (0: no time known, placed after every timed participant with as many).
func orderPlace(n, ms int64) int64 {
	place := min(n, 2047) * orderUnit
	if ms > 0 {
		place += orderUnit - 1 - ms
	}
	return place
}

// scan pages through SSCAN of the set key, handing each page to page.
func (q quiz) scan(ctx context.Context, key string, page func([]string)) error {
	return q.scanWith(ctx, key, func(cursor uint64) rueidis.Completed {
		return q.client.B().Sscan().Key(key).Cursor(cursor).Count(repairScanCount).Build()
	}, page)
}

// scanScores reads a sorted set whole with ZSCAN pages: member -> score.
func (q quiz) scanScores(ctx context.Context, key string) (map[string]float64, error) {
	out := map[string]float64{}
	var bad error
	err := q.scanWith(ctx, key, func(cursor uint64) rueidis.Completed {
		return q.client.B().Zscan().Key(key).Cursor(cursor).Count(repairScanCount).Build()
	}, func(flat []string) {
		for i := 0; i+1 < len(flat); i += 2 {
			f, err := strconv.ParseFloat(flat[i+1], 64)
			if err != nil && bad == nil {
				bad = corrupt(key, "member %s has score %s", quote(flat[i]), quote(flat[i+1]))
			}
			out[flat[i]] = f
		}
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// scanWith runs a SCAN-family command from cursor 0 until it is 0 again.
func (q quiz) scanWith(ctx context.Context, key string, cmd func(uint64) rueidis.Completed, page func([]string)) error {
	var cursor uint64
	for {
		entry, err := q.client.Do(ctx, cmd(cursor)).AsScanEntry()
		if err != nil {
			return q.fail(err, "", key)
		}
		page(entry.Elements)
		if cursor = entry.Cursor; cursor == 0 {
			return nil
		}
	}
}

// readAnswerLog reads the log in pages of XRANGE ... COUNT 1000 into the
// snapshot: its last ID, and each participant's latest time, taking only the
// first entry of each counted answer (an entry for an answer not counted, or
// logged again, places no one). An answer logged after since but missing
// from the answers set's scan was counted while SSCAN ran, and SSCAN may
// have missed it: it is counted here.
func (q quiz) readAnswerLog(ctx context.Context, snap *repairSnapshot, counted map[string]bool) error {
	snap.latest = map[string]int64{}
	placed := map[string]bool{}
	since, err := parseID(snap.since)
	if err != nil {
		return corrupt(q.keys.log, "%v", err)
	}
	snap.last, err = q.readLog(ctx, func(e rueidis.XRangeEntry, ms int64) {
		p := e.FieldValues[logParticipant]
		pair := e.FieldValues[logQuestion] + ":" + p
		if id, err := parseID(e.ID); !counted[pair] && err == nil && id.after(since) {
			if _, _, ok := answerPair(pair); ok {
				counted[pair] = true
				snap.counts[p]++
			}
		}
		if counted[pair] && !placed[pair] {
			placed[pair] = true
			snap.latest[p] = ms
		}
	})
	return err
}

// readLog hands every log entry, in order, with its time in ms to each, in
// pages of XRANGE ... COUNT 1000, and returns the last entry's ID ("0-0" for
// none).
func (q quiz) readLog(ctx context.Context, each func(e rueidis.XRangeEntry, ms int64)) (string, error) {
	k := q.keys.log
	last, start := "0-0", "-"
	for {
		entries, err := q.client.Do(ctx, q.client.B().Xrange().Key(k).Start(start).End("+").Count(repairScanCount).Build()).AsXRange()
		if err != nil {
			return "", q.fail(err, "", k)
		}
		for _, e := range entries {
			msText, _, _ := strings.Cut(e.ID, "-")
			ms, err := strconv.ParseInt(msText, 10, 64)
			if err != nil {
				return "", corrupt(k, "entry ID %s is not <ms>-<seq>", quote(e.ID))
			}
			each(e, ms)
			last = e.ID
		}
		if len(entries) < repairScanCount {
			return last, nil
		}
		if start, err = nextID(last); err != nil {
			return "", corrupt(k, "%v", err)
		}
	}
}

// streamID is a stream entry ID, <ms>-<seq>.
type streamID struct{ ms, seq uint64 }

// parseID parses a stream entry ID.
func parseID(id string) (streamID, error) {
	ms, seq, ok := strings.Cut(id, "-")
	m, err1 := strconv.ParseUint(ms, 10, 64)
	n, err2 := strconv.ParseUint(seq, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return streamID{}, fmt.Errorf("entry ID %s is not <ms>-<seq>", quote(id))
	}
	return streamID{m, n}, nil
}

// after reports whether id comes after o in the stream.
func (id streamID) after(o streamID) bool {
	return id.ms > o.ms || id.ms == o.ms && id.seq > o.seq
}

// nextID is the stream ID right after id.
func nextID(id string) (string, error) {
	s, err := parseID(id)
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(s.ms, 10) + "-" + strconv.FormatUint(s.seq+1, 10), nil
}
