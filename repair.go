package kuis

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/kuisboard/kuis/internal/script"
)

// Correction is one participant's board entry that Repair changed.
type Correction struct {
	Participant string `json:"participant"`
	Was         int64  `json:"was"` // score on the board before; 0 when missing
	Now         int64  `json:"now"` // 10 x counted answers; 0 means the member was removed
}

// Bounds of Repair's steps.
const (
	repairChecks   = 2000 // SISMEMBER calls in one repair script
	repairAttempts = 3    // rebuilds tried while other Repairs take the repair keys over
)

// Repair rewrites the board of quiz quizID from its answers so that every
// score is exactly 10 x that participant's counted answers: it adds missing
// members, removes members with no counted answer, and puts each participant
// back in the order set (TiesByTime) at the time of their latest logged
// answer. It returns what it changed on the board, in participant order, and
// an empty slice when nothing needed it: a Correction only for a participant
// whose board entry differed from 10 x their counted answers at one moment
// of the Repair, whatever is answered meanwhile. It works on a running or finished
// quiz; answers counted meanwhile are never undone, and a reader sees the old
// board or the new one, never a mix.
//
// It reads the quiz in pages, so no step blocks the server long. Up to 500
// participants to correct (the usual case: a few changed behind the
// library's back), it recounts and corrects them on the server in one atomic
// script. More than that, it rebuilds the board and order set in the repair
// keys (Keys.RepairBoard, Keys.RepairOrder), catches them up with the
// answers logged since it began, and replaces board and order set with them
// in one atomic step. A rebuild needs memory for a second copy of the board
// and order set while it runs. A Repair that stops midway (a timeout, a lost
// connection) leaves the board as it was and the repair keys behind: Audit
// reports them, and the next Repair, PurgeQuiz and Purge delete them.
//
// It is the operator's operation (ACLRules(RoleOperator)). Errors:
// ErrInvalidQuizID, ErrQuizNotFound, ErrCorrupt (a key of the wrong type, or
// a jumlah_soal above 1000, which Create never writes and Repair will not
// recount), ErrForbidden (nothing written), ErrBusy (other Repairs of the
// quiz kept taking its rebuild over; nothing replaced).
func (s *Store) Repair(ctx context.Context, quizID string) ([]Correction, error) {
	out, err := s.repair(ctx, quizID)
	if err == nil {
		s.counts.corrections.Add(int64(len(out)))
	}
	return out, err
}

func (s *Store) repair(ctx context.Context, quizID string) ([]Correction, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return nil, err
	}
	fields, err := (&Meta{q: q}).fields(ctx)
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
		if len(snap.todo) <= max(1, min(q.s.tune.repairStep, repairChecks/n)) {
			return q.correct(ctx, snap)
		}
		out, err := q.rebuild(ctx, snap, max(1, repairChecks/n))
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
	return q.recount(ctx, snap.last.String(), snap.todo, snap.latest)
}

// recount runs repair.lua on participants: mode is the last log ID read, to
// correct them, or "check" to only report, per participant at one moment,
// whose board entry is not 10 x their counted answers.
func (q quiz) recount(ctx context.Context, mode string, participants []string, latest map[string]int64) ([]Correction, error) {
	out := []Correction{}
	args := make([]string, 0, 1+2*len(participants))
	args = append(args, mode)
	for _, p := range participants {
		args = append(args, p, strconv.FormatInt(latest[p], 10))
	}
	flat, err := run(ctx, q.s.client, script.Repair, q.keys.every(), args).AsStrSlice()
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
	last   streamID           // the last log ID read (0-0 for none)
	counts map[string]int64   // participant -> counted answers
	scores map[string]float64 // the board as read
	latest map[string]int64   // participant -> ms of their latest logged answer
	todo   []string           // sorted: participants whose board entry or place is wrong
}

// repairSnapshot reads the quiz in pages and finds the participants whose
// board entry or place in the order set is not what their answers make it.
func (q quiz) repairSnapshot(ctx context.Context) (repairSnapshot, error) {
	k, c := q.keys, q.s.client
	snap := repairSnapshot{counts: map[string]int64{}, scores: map[string]float64{}, latest: map[string]int64{}}
	// An answer counted while SSCAN runs may be missed by it: every answer
	// logged after since that the scan missed is counted from the log.
	since, err := q.lastLogID(ctx)
	if err != nil {
		return snap, err
	}
	members, err := q.scanMembers(ctx, c, k.answers)
	if err != nil {
		return snap, err
	}
	counted := map[string]bool{}
	for _, m := range members {
		if _, p, ok := answerPair(m); ok {
			snap.counts[p]++
			counted[m] = true
		}
	}
	board, err := q.scanSorted(ctx, c, k.board)
	if err != nil {
		return snap, err
	}
	for _, z := range board {
		snap.scores[z.Member] = z.Score
	}
	order, err := q.scanSorted(ctx, c, k.order)
	if err != nil {
		return snap, err
	}
	places := map[string]float64{}
	for _, z := range order {
		places[z.Member] = z.Score
	}
	// Only the first entry of a counted answer places its participant.
	placed := map[string]bool{}
	last, err := q.readLog(ctx, c, nil, func(e logEntry, err error) error {
		if err != nil || e.kind != entryAnswer {
			return nil // an entry that is no whole answer places no one
		}
		pair := e.pair()
		if !counted[pair] && since.less(e.id) {
			counted[pair] = true
			snap.counts[e.participant]++
		}
		if counted[pair] && !placed[pair] {
			placed[pair] = true
			snap.latest[e.participant] = int64(e.id.ms)
		}
		return nil
	})
	if err != nil {
		return snap, err
	}
	if last != nil {
		snap.last = *last
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
		place, isPlaced := places[p]
		switch {
		case n == 0 && (onBoard || isPlaced):
		case n > 0 && (!onBoard || score != float64(10*n) || !isPlaced || place != float64(orderPlace(n, snap.latest[p]))):
		default:
			continue
		}
		snap.todo = append(snap.todo, p)
	}
	slices.Sort(snap.todo)
	return snap, nil
}

// lastLogID returns the ID of the log's last entry, 0-0 when it has none.
func (q quiz) lastLogID(ctx context.Context) (streamID, error) {
	k := q.keys.log
	entries, err := sendOne(ctx, q.s.client, q.s.client.B().Xrevrange().Key(k).End("+").Start("-").Count(1).Build()).AsXRange()
	if err != nil || len(entries) == 0 {
		return streamID{}, q.fail(err, "", k)
	}
	return q.entryID(entries[0].ID)
}
