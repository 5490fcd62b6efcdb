package kuis

import (
	"context"
	"errors"
	"fmt"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Join puts the participant on the board with 0 points if absent (ZADD NX), so that a student
// who came and scored nothing is told apart from one who never came; atomic with the status
// gate (ErrQuizFinished: nothing written), the app's write, an entry in the log and an Event of
// kind EventJoined. A participant already on the board: no change, no entry.
//
// It is one atomic script on the server, O(log N). A participant not on the
// board gets, together or not at all, the log's join entry (fields peserta
// and skor = 0, its ID the server's time), 0 points on the board and a place
// in the order set for no answers at that time: with WithTies(TiesByTime)
// a joiner ranks after everyone with points, and among joiners the earlier
// join first. A participant on the board (joined before, or answered) is
// left as they are, even after the quiz is finished: a retry of a Join
// whose reply was lost is answered, not refused. Join does not check a
// class's roster: an application that admits only enrolled students looks
// the name up first (Class.Lookup).
//
// It returns the participant's Standing after the call, read in the same
// step: for a new joiner, Score 0 and the rank after everyone with points
// (with name order, among the other 0-point participants by name, as
// Standing reads it).
//
// Errors, in the order checked: ErrInvalidParticipant (RecordAnswer's rule)
// before any I/O; then on the server ErrForbidden (the ACL user may not
// record answers), ErrQuizNotFound, ErrCorrupt (malformed meta, a key of the
// wrong type, the participant's score that is not sound or their place in
// the order set that does not agree with it, a log that cannot take the
// entry), ErrQuizFinished (the participant is not on the board of a finished
// quiz). A refusal writes nothing.
//
// With WithReplicas, a nil error means the participant's board entry is on
// the replicas asked, whether this call wrote it or an earlier one did: as
// for a Duplicate of RecordAnswer, a Join of a participant on the board
// writes the no-op its WAIT follows. Last of the errors, ErrNotReplicated
// beside the Standing: the participant is on the board of the primary, but
// too few replicas acknowledged the write in time, or the no-op failed.
func (b *Board) Join(ctx context.Context, participant string) (Standing, error) {
	if err := checkParticipant(participant, b.q.about); err != nil {
		return Standing{}, err
	}
	k := b.q.keys
	args := []string{participant, "", ""}
	if b.q.s.opts.ties == TiesByTime {
		args[1] = "time"
	}
	if b.q.s.opts.replicas > 0 {
		args[2] = "1"
	}
	// The reply's last element says whether the run wrote, as the record
	// script's does.
	res := b.q.s.runScriptWrote(ctx, script.Join, recordWrote, rueidis.LuaExec{Keys: k.quizKeys(), Args: args})[0]
	var unacked *notReplicated
	if errors.As(res.Error(), &unacked) {
		res = unacked.result
	}
	reply, err := res.ToArray()
	if err != nil {
		return Standing{}, b.q.fail(err, participant, k.board)
	}
	if len(reply) != 4 {
		return Standing{}, fmt.Errorf("kuis: %s: join reply of %d elements, want 4", b.q.about(participant), len(reply))
	}
	score, err := reply[0].AsFloat64()
	if err != nil {
		return Standing{}, b.q.fail(err, participant, k.board)
	}
	var nums [2]int64 // position, higher
	for i := range nums {
		if nums[i], err = reply[i+1].AsInt64(); err != nil {
			return Standing{}, b.q.fail(err, participant, k.board)
		}
	}
	st, err := b.ranked().standingOf(participant, score, nums[0], nums[1])
	if err != nil {
		return Standing{}, err
	}
	if reply[3].IsString() { // the no-op failed: nothing of this call for WAIT to follow
		why, _ := reply[3].ToString()
		unacked = &notReplicated{result: res, want: b.q.s.opts.replicas, timeout: b.q.s.opts.replicaWait,
			unwaited: "the participant was on the board, and the no-op its WAIT would follow failed: " + why}
	}
	if unacked != nil {
		return st, b.q.fail(unacked, participant, k.board)
	}
	return st, nil
}
