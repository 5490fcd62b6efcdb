package kuis

import (
	"math"
	"strconv"

	"github.com/redis/rueidis"
)

// Meta hash field names, as the contract spells them.
const (
	fieldTitle     = "judul"
	fieldQuestions = "jumlah_soal"
	fieldStatus    = "status"
)

// metaFields lists the contract's meta fields in the contract's order.
var metaFields = []string{fieldTitle, fieldQuestions, fieldStatus}

// decodeInfo reads a meta hash strictly: every contract field present and well
// formed, or ErrCorrupt naming the key and field. Extra fields are ignored
// (Audit reports them). An empty hash is a missing key: ErrQuizNotFound.
func decodeInfo(key string, fields map[string]string) (Info, error) {
	if len(fields) == 0 {
		return Info{}, errNotFound(key)
	}
	for _, f := range metaFields {
		if _, ok := fields[f]; !ok {
			return Info{}, corrupt(key, "field %s is missing", f)
		}
	}
	status, err := decodeStatus(key, fields[fieldStatus])
	if err != nil {
		return Info{}, err
	}
	questions, err := decodeQuestions(key, fields[fieldQuestions])
	if err != nil {
		return Info{}, err
	}
	return Info{Title: fields[fieldTitle], Questions: questions, Status: status}, nil
}

func decodeStatus(key, s string) (Status, error) {
	switch st := Status(s); st {
	case StatusRunning, StatusFinished:
		return st, nil
	default:
		return "", corrupt(key, "field status is %q, want %q or %q", s, StatusRunning, StatusFinished)
	}
}

// maxQuestionsDigits bounds jumlah_soal's length so that the Lua gate (whose
// numbers are float64) and Go read the same values: 15 digits stay exact.
const maxQuestionsDigits = 15

// decodeQuestions accepts a positive decimal integer of at most 15 digits
// without sign or leading zeros, the only form Create writes (internal/script
// gate.lua applies the same rule).
func decodeQuestions(key, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || len(s) > maxQuestionsDigits || strconv.Itoa(n) != s {
		return 0, corrupt(key, "field jumlah_soal is %q, want a positive integer", s)
	}
	return n, nil
}

// maxScore is the largest score a float64 holds exactly.
const maxScore = 1 << 53

// decodeScore accepts a board score only if it is a non-negative multiple of
// 10 that a float64 holds exactly.
func decodeScore(key, member string, f float64) (int64, error) {
	if math.IsNaN(f) || f < 0 || f > maxScore || f != math.Trunc(f) || int64(f)%10 != 0 {
		return 0, corrupt(key, "member %q has score %v, want a non-negative multiple of 10", member, f)
	}
	return int64(f), nil
}

// decodeStandings turns ZREVRANGE ... WITHSCORES into standings whose display
// rank starts at first.
func decodeStandings(key string, zs []rueidis.ZScore, first int) ([]Standing, error) {
	out := make([]Standing, len(zs))
	for i, z := range zs {
		score, err := decodeScore(key, z.Member, z.Score)
		if err != nil {
			return nil, err
		}
		out[i] = Standing{Rank: first + i, Participant: z.Member, Score: score}
	}
	return out, nil
}
