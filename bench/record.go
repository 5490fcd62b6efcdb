package main

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// recordSource is the library's record script, byte for byte. bench sends it
// itself to measure the server's side alone (-cpu), and through go-redis to
// compare clients, not scripts.
var recordSource = script.RecordAnswer.Source()

// recordSHA is the script's SHA1: its name in EVALSHA and in SLOWLOG.
var recordSHA = func() string {
	sum := sha1.Sum([]byte(recordSource))
	return hex.EncodeToString(sum[:])
}()

// recordKeys are the keys the record script takes, in its order.
func recordKeys(k kuis.Keys) []string {
	return []string{k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()}
}

// recordRun is one run of the record script over keys (five per quiz) for
// the answers in args (quiz number, participant, question, ...): EVALSHA, or
// with bySource EVAL, which also puts the script in the server's script cache.
func recordRun(b rueidis.Builder, bySource bool, keys, args []string) rueidis.Completed {
	if bySource {
		return b.Eval().Script(recordSource).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
	}
	return b.Evalsha().Sha1(recordSHA).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
}

// answerArgs are the record script's arguments for one answer of the run's
// quiz number quiz (1 for the first five keys).
func answerArgs(quiz int, participant string, question int) []string {
	return []string{strconv.Itoa(quiz), participant, strconv.Itoa(question)}
}

// checkCounted checks a run's reply, one score per answer of args: every
// answer counted (a repeat's score ends in 1).
func checkCounted(res rueidis.RedisResult, args []string) error {
	replies, err := res.ToArray()
	if err == nil && 3*len(replies) != len(args) {
		err = fmt.Errorf("%d replies for %d answers", len(replies), len(args)/3)
	}
	if err != nil {
		return fmt.Errorf("record script: %w", err)
	}
	for i, m := range replies {
		score, err := m.AsInt64()
		if err == nil && score%10 != 0 {
			err = errors.New("counted as a duplicate")
		}
		if err != nil {
			return fmt.Errorf("answer (%s, %s): %w", args[3*i+1], args[3*i+2], err)
		}
	}
	return nil
}
