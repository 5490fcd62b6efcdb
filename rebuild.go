package kuis

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
)

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
	names := make([]string, 0, len(counts))
	for p, n := range counts {
		if n > 0 {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	chunks := slices.Collect(slices.Chunk(names, rebuildChunk))
	if len(chunks) == 0 {
		chunks = [][]string{nil} // no one has points: the new board is empty
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
		if err := run(ctx, q.s, script.RepairStage, stage, args).Error(); err != nil {
			return nil, q.dropRebuild(ctx, token, q.fail(err, "", k.repairBoard))
		}
	}
	out := []Correction{}
	for chunk := range slices.Chunk(plan.todo, step) {
		found, err := q.recount(ctx, "check", chunk, nil)
		if err != nil {
			return nil, q.dropRebuild(ctx, token, err)
		}
		out = append(out, found...)
	}
	after, most := plan.last.String(), strconv.Itoa(rebuildChunk)
	for {
		reply, err := run(ctx, q.s, script.RepairSwap, append(k.quizKeys(), stage...), []string{token, after, most}).AsStrSlice()
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
	_ = run(ctx, q.s, script.RepairStage, []string{q.keys.repairBoard, q.keys.repairOrder}, []string{token, "drop"}).Error()
	return err
}
