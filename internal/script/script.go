// Package script holds the library's Lua scripts, one .lua file each, with
// gate.lua prepended to every one. Each write script is wrapped once in a
// rueidis.Lua (EVALSHA, falling back to EVAL on NOSCRIPT); Recap and Standing
// are read-only rueidis.Lua values, sent as EVALSHA_RO (EVAL_RO on NOSCRIPT);
// RecordAnswer is not a rueidis.Lua but a Batch (batch.go), which also
// pipelines many runs, with EVAL only for those answered NOSCRIPT. Each
// file's header states its KEYS, ARGV and replies.
package script

import (
	_ "embed"

	"github.com/redis/rueidis"
)

var (
	//go:embed gate.lua
	gate string
	//go:embed create.lua
	create string
	//go:embed finish.lua
	finish string
	//go:embed record_answer.lua
	recordAnswer string
	//go:embed recap.lua
	recap string
	//go:embed standing.lua
	standing string
	//go:embed repair.lua
	repair string
	//go:embed repair_stage.lua
	repairStage string
	//go:embed repair_swap.lua
	repairSwap string
	//go:embed purge_quiz.lua
	purgeQuiz string
)

var (
	// Create writes a new quiz's meta unless any key of the quiz exists.
	Create = rueidis.NewLuaScript(gate + create)
	// Finish sets a quiz's status to selesai and logs the finish.
	Finish = rueidis.NewLuaScript(gate + finish)
	// Recap reads meta, board (or order set), answers and log in one atomic step.
	Recap = rueidis.NewLuaScriptReadOnly(gate + recap)
	// Standing reads one participant's score, position and competition rank in one atomic step.
	Standing = rueidis.NewLuaScriptReadOnly(gate + standing)
	// Repair sets scores to 10 x counted answers.
	Repair = rueidis.NewLuaScript(gate + repair)
	// RepairStage writes a chunk of a rebuilt board into the repair keys.
	RepairStage = rueidis.NewLuaScript(gate + repairStage)
	// RepairSwap catches the repair keys up with the log, then puts them in place of board and order set.
	RepairSwap = rueidis.NewLuaScript(gate + repairSwap)
	// PurgeQuiz deletes a finished quiz's keys.
	PurgeQuiz = rueidis.NewLuaScript(gate + purgeQuiz)
)

// MaxAnswers bounds the answers of one RecordAnswer run. A run of 32 takes
// the server about 200 µs (BENCHMARKS.md), well under the 1 ms no run may
// hold it for; runs of 64 measured no faster.
const MaxAnswers = 32

// RecordAnswerSource is RecordAnswer's full Lua source, so that bench/ can run
// the very same atomic gate through another client (go-redis) and compare like
// with like.
var RecordAnswerSource = gate + recordAnswer
