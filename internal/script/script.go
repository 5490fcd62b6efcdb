// Package script holds the library's Lua scripts, one .lua file each, with
// prelude.lua prepended to every one. Each file's header states its KEYS,
// ARGV and replies. A Script builds the commands that run it; the kuis
// package sends them (EVALSHA first, EVAL when the server answers NOSCRIPT).
package script

import (
	"crypto/sha1"
	"embed"
	"encoding/hex"

	"github.com/redis/rueidis"
)

var (
	//go:embed prelude.lua
	prelude string
	//go:embed *.lua
	files embed.FS
)

// Script is one Lua script: its source (the prelude and the file) and SHA1.
type Script struct {
	name, src, sha string
	readOnly       bool
}

// newScript is the script of the embedded file name. A name without its
// file is a fault of the table below, so it panics as the package loads.
func newScript(name string, readOnly bool) Script {
	body, err := files.ReadFile(name)
	if err != nil {
		panic(err)
	}
	src := prelude + string(body)
	sum := sha1.Sum([]byte(src))
	return Script{name: name, src: src, sha: hex.EncodeToString(sum[:]), readOnly: readOnly}
}

// The scripts. The read-only ones run as EVALSHA_RO and EVAL_RO.
var (
	// Create writes a new quiz's meta unless any key of the quiz exists.
	Create = newScript("create.lua", false)
	// Finish sets a quiz's status to selesai and logs the finish.
	Finish = newScript("finish.lua", false)
	// Visibility sets who sees a quiz's board (meta field tampilan).
	Visibility = newScript("visibility.lua", false)
	// RecordAnswer counts up to MaxAnswers correct answers, each once.
	RecordAnswer = newScript("record_answer.lua", false)
	// Join puts a participant on a running quiz's board with 0 points, and reads their place.
	Join = newScript("join.lua", false)
	// Recap reads meta, board (or order set), answers and log in one atomic step.
	Recap = newScript("recap.lua", true)
	// Standing reads one participant's score, position and competition rank
	// on a quiz's or a course's board in one atomic step.
	Standing = newScript("standing.lua", true)
	// Ranked reads positions of the board in time order, with their board scores, in one atomic step.
	Ranked = newScript("ranked.lua", true)
	// Repair sets scores to 10 x counted answers.
	Repair = newScript("repair.lua", false)
	// RepairStage writes a chunk of a rebuilt board into the repair keys.
	RepairStage = newScript("repair_stage.lua", false)
	// RepairSwap catches the repair keys up with the log, then puts them in place of board and order set.
	RepairSwap = newScript("repair_swap.lua", false)
	// PurgeQuiz deletes a finished quiz's keys.
	PurgeQuiz = newScript("purge_quiz.lua", false)
	// Course folds a part of a quiz instance into a course's board, index
	// and the instance's ledger, or takes one out.
	Course = newScript("course.lua", false)
	// CourseCheck reads whether the ACL user may make a course operation's writes.
	CourseCheck = newScript("course_check.lua", true)
	// Enroll adds students to a class's roster, all or none.
	Enroll = newScript("enroll.lua", false)
	// Withdraw takes students out of a class's roster.
	Withdraw = newScript("withdraw.lua", false)
	// Erase removes one participant from a quiz that is not running.
	Erase = newScript("erase.lua", false)
)

// MaxAnswers bounds the answers of one RecordAnswer run, so that no run
// holds the server long.
const MaxAnswers = 32

// Name is the script's file name.
func (s Script) Name() string { return s.name }

// Source is the script's whole Lua source, prelude included, so that bench/
// can run the very same script through another client.
func (s Script) Source() string { return s.src }

// ReadOnly reports whether the script only reads.
func (s Script) ReadOnly() bool { return s.readOnly }

// BySHA builds the command that runs the script cached on the server:
// EVALSHA, or EVALSHA_RO.
func (s Script) BySHA(b rueidis.Builder, keys, args []string) rueidis.Completed {
	if s.readOnly {
		return b.EvalshaRo().Sha1(s.sha).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
	}
	return b.Evalsha().Sha1(s.sha).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
}

// BySource builds the command that sends the whole script: EVAL, or EVAL_RO.
func (s Script) BySource(b rueidis.Builder, keys, args []string) rueidis.Completed {
	if s.readOnly {
		return b.EvalRo().Script(s.src).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
	}
	return b.Eval().Script(s.src).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
}
