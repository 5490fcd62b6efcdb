package main

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"

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

// recordRun is one run of the record script over keys for the answers in
// args (participant, question, participant, question, ...): EVALSHA, or with
// bySource EVAL, which also puts the script in the server's script cache.
func recordRun(b rueidis.Builder, bySource bool, keys, args []string) rueidis.Completed {
	if bySource {
		return b.Eval().Script(recordSource).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
	}
	return b.Evalsha().Sha1(recordSHA).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
}

// checkCounted checks a run's reply, one {score, duplicate} per answer of
// args: every answer counted.
func checkCounted(res rueidis.RedisResult, args []string) error {
	replies, err := res.ToArray()
	if err == nil && 2*len(replies) != len(args) {
		err = fmt.Errorf("%d replies for %d answers", len(replies), len(args)/2)
	}
	if err != nil {
		return fmt.Errorf("record script: %w", err)
	}
	for i, m := range replies {
		answer, err := m.ToArray()
		if err == nil && len(answer) != 2 {
			err = fmt.Errorf("reply of %d elements, want 2", len(answer))
		}
		if err == nil {
			var dup int64
			if dup, err = answer[1].AsInt64(); err == nil && dup != 0 {
				err = errors.New("counted as a duplicate")
			}
		}
		if err != nil {
			return fmt.Errorf("answer (%s, %s): %w", args[2*i], args[2*i+1], err)
		}
	}
	return nil
}
