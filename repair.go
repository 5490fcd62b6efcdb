package kuis

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
)

// Correction is one participant's board entry that Repair changed.
type Correction struct {
	Participant string `json:"participant"`
	Was         int64  `json:"was"` // score on the board before; 0 when missing
	// Now is 10 x counted answers; 0 means the member was removed, but for a
	// participant who joined (a join entry in the log of a quiz, which keeps
	// them on the board with 0 points: Was 0 then says they were put back).
	Now int64 `json:"now"`
}

// Bounds of Repair's steps.
const (
	repairChecks   = 2000 // SISMEMBER calls in one repair script
	repairAttempts = 3    // rebuilds tried while other Repairs take the repair keys over
)

// Repair rewrites the board of quiz quizID from its answers and joins so
// that every score is exactly 10 x that participant's counted answers: it
// adds missing members, puts a participant who joined (Board.Join: a join
// entry in the log) and has no counted answer on it with 0 points, removes
// every other member with no counted answer, and puts each participant back
// in the order set (TiesByTime) at the time of their latest logged answer,
// or of their latest join entry when they have none. It returns what it
// changed on the board, in participant order, and an empty slice when
// nothing needed it: a Correction only for a participant whose board entry
// (a score, or none) differed from what their answers and joins make it at
// one moment of the Repair, whatever is answered meanwhile. It works on a running or finished
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
// malformed meta), ErrForbidden (nothing written), ErrBusy (other Repairs of
// the quiz kept taking its rebuild over; nothing replaced). With
// WithReplicas, ErrNotReplicated: a step of the Repair was applied on the
// primary but too few replicas acknowledged it, and the Repair stopped there
// (a rebuild's staged keys are dropped); a Repair again is safe.
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
	for attempt := 1; ; attempt++ {
		plan, err := q.repairPlan(ctx)
		if err != nil {
			return nil, err
		}
		n := int(plan.snap.info.Questions)
		if len(plan.todo) <= max(1, min(q.s.tune.repairStep, repairChecks/n)) {
			return q.recount(ctx, plan.last.String(), plan.todo, plan.counted)
		}
		out, err := q.rebuild(ctx, plan, max(1, repairChecks/n))
		if errors.Is(err, ErrBusy) && attempt < repairAttempts {
			continue
		}
		return out, err
	}
}

// recount runs repair.lua on participants: mode is the last log ID read, to
// correct them, or "check" to only report, per participant at one moment,
// whose board entry is not what their answers and joins make it. c is the
// counting of that read: the time each one's place holds, and who joined.
func (q quiz) recount(ctx context.Context, mode string, participants []string, c counting) ([]Correction, error) {
	out := []Correction{}
	args := make([]string, 0, 1+3*len(participants))
	args = append(args, mode)
	for _, p := range participants {
		joined := "0"
		if c.joined[p] {
			joined = "1"
		}
		args = append(args, p, strconv.FormatInt(c.latest[p], 10), joined)
	}
	flat, err := q.s.run(ctx, script.Repair, q.keys.withRepair(), args).AsStrSlice()
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

// repairPlan is the quiz as Repair read it, and what it must correct.
type repairPlan struct {
	snap    snapshot
	counted counting
	last    wire.ID  // the last log ID read (0-0 for none)
	todo    []string // sorted: participants whose board entry or place is wrong
}

// repairPlan reads the quiz in pages and finds the participants whose
// board entry or place in the order set is not what their answers make it.
func (q quiz) repairPlan(ctx context.Context) (repairPlan, error) {
	// An answer counted while SSCAN runs may be missed by it: every answer
	// logged after the log's tail at the start counts, from the log.
	st, err := q.state(ctx)
	if err != nil {
		return repairPlan{}, err
	}
	var since wire.ID
	if st.tail != nil {
		since = st.tail.ID
	}
	snap, err := q.readPages(ctx, q.s.client, parts{meta: true, board: true, order: true, answers: true, log: true})
	if err != nil {
		return repairPlan{}, err
	}
	if snap.infoErr != nil {
		return repairPlan{}, snap.infoErr
	}
	plan := repairPlan{snap: snap, counted: snap.count(&since)}
	if len(snap.log) > 0 {
		plan.last = snap.log[len(snap.log)-1].ID
	}
	scores, places := scoreMap(snap.board), scoreMap(snap.order)
	seen := map[string]bool{}
	for _, names := range []map[string]float64{scores, places} {
		for p := range names {
			seen[p] = true
		}
	}
	for p := range plan.counted.counts {
		seen[p] = true
	}
	for p := range plan.counted.joined {
		seen[p] = true
	}
	for p := range seen {
		n := plan.counted.counts[p]
		score, onBoard := scores[p]
		place, isPlaced := places[p]
		switch {
		case !plan.counted.onBoard(p) && (onBoard || isPlaced):
		case plan.counted.onBoard(p) && (!onBoard || score != float64(wire.Points*n) || !isPlaced || place != float64(plan.counted.place(p))):
		default:
			continue
		}
		plan.todo = append(plan.todo, p)
	}
	slices.Sort(plan.todo)
	return plan, nil
}

// rebuildChunk is the most participants one RepairStage script writes, and
// the most log entries one RepairSwap script adds.
const rebuildChunk = 1000

// rebuild is Repair's way for many corrections: it writes the board and order
// set the snapshot's answers make into the repair keys, in chunks, then has
// RepairSwap add there the answers logged after the snapshot and put the
// repair keys in place of board and order set, in one step. A token member marks the repair keys as this rebuild's, so that a
// concurrent Repair of the quiz that starts afresh makes this one ErrBusy
// rather than mix their writes.
//
// What it returns is what a recount on the server, step participants at a
// time, found wrong before the swap: answers counted meanwhile move a board
// entry and its count alike, so they never make a correction.
func (q quiz) rebuild(ctx context.Context, plan repairPlan, step int) ([]Correction, error) {
	k := q.keys
	stage := []string{k.repairBoard, k.repairOrder}
	token := "\x00repair:" + rand.Text()
	counts := plan.counted.counts
	names := make([]string, 0, len(counts)+len(plan.counted.joined))
	for p, n := range counts {
		if n > 0 {
			names = append(names, p)
		}
	}
	for p := range plan.counted.joined {
		if counts[p] == 0 {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	chunks := slices.Collect(slices.Chunk(names, rebuildChunk))
	if len(chunks) == 0 {
		chunks = [][]string{nil} // no one answered or joined: the new board is empty
	}
	for i, chunk := range chunks {
		args := make([]string, 0, 2+3*len(chunk))
		args = append(args, token, "add")
		if i == 0 {
			args[1] = "begin"
		}
		for _, p := range chunk {
			args = append(args, p, strconv.FormatInt(wire.Points*counts[p], 10), strconv.FormatInt(plan.counted.place(p), 10))
		}
		if err := q.s.run(ctx, script.RepairStage, stage, args).Error(); err != nil {
			return nil, q.dropRebuild(ctx, token, q.fail(err, "", k.repairBoard))
		}
	}
	out := []Correction{}
	for chunk := range slices.Chunk(plan.todo, step) {
		found, err := q.recount(ctx, "check", chunk, plan.counted)
		if err != nil {
			return nil, q.dropRebuild(ctx, token, err)
		}
		out = append(out, found...)
	}
	after, most := plan.last.String(), strconv.Itoa(rebuildChunk)
	for {
		reply, err := q.s.run(ctx, script.RepairSwap, append(k.quizKeys(), stage...), []string{token, after, most}).AsStrSlice()
		if err != nil {
			return nil, q.dropRebuild(ctx, token, q.fail(err, "", k.board))
		}
		if len(reply) == 0 {
			return nil, q.dropRebuild(ctx, token, fmt.Errorf("kuis: %s: empty reply from the rebuild", q.about("")))
		}
		if reply[0] == "done" {
			return out, nil
		}
		if len(reply) > 1 {
			after = reply[1]
		}
	}
}

// dropRebuild deletes the repair keys if the rebuild still owns them, on a
// context of its own (ctx may be what ended), and returns err.
func (q quiz) dropRebuild(ctx context.Context, token string, err error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_ = q.s.run(ctx, script.RepairStage, []string{q.keys.repairBoard, q.keys.repairOrder}, []string{token, "drop"}).Error()
	return err
}
