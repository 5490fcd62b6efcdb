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
// (Audit reports them). The caller tells an empty hash (a missing key) apart.
func decodeInfo(key string, fields map[string]string) (Info, error) {
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
		return "", corrupt(key, "field status is %s, want %q or %q", quote(s), StatusRunning, StatusFinished)
	}
}

// maxQuestionsDigits bounds jumlah_soal's length so that the Lua gate (whose
// numbers are float64) and Go read the same values: 15 digits stay exact.
const maxQuestionsDigits = 15

// decodeQuestions accepts a positive decimal integer of at most 15 digits
// without sign or leading zeros, the only form Create writes (internal/script
// gate.lua applies the same rule).
// It parses to int64 on every platform: a 32-bit int would refuse counts
// of 10 or more digits that the gate accepts.
func decodeQuestions(key, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || len(s) > maxQuestionsDigits || strconv.FormatInt(n, 10) != s {
		return 0, corrupt(key, "field jumlah_soal is %s, want a positive integer", quote(s))
	}
	return n, nil
}

// maxScore is the largest score a float64 holds exactly.
const maxScore = 1 << 53

// decodeScore accepts a board score only if it is a non-negative multiple of
// 10 that a float64 holds exactly.
func decodeScore(key, member string, f float64) (int64, error) {
	if math.IsNaN(f) || f < 0 || f > maxScore || f != math.Trunc(f) || int64(f)%10 != 0 {
		return 0, corrupt(key, "member %s has score %s, want a non-negative multiple of 10", quote(member), number(f))
	}
	return int64(f), nil
}

// number prints a score for a message: whole numbers in full
// (100000000000000000000, not 1e+20), others as short decimals.
func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// decodeStandings turns ZRANGE ... REV WITHSCORES of r's set into standings whose
// display rank starts at first. Competition ranks are counted from the first
// standing, as if it began a group of equal scores: a caller whose range
// starts inside a group corrects them (Board.rangeByRank).
func decodeStandings(r ranking, zs []rueidis.ZScore, first int) ([]Standing, error) {
	out := make([]Standing, len(zs))
	for i, z := range zs {
		score, err := r.points(z.Member, z.Score)
		if err != nil {
			return nil, err
		}
		comp := first + i
		if i > 0 && score == out[i-1].Score {
			comp = out[i-1].CompetitionRank
		}
		out[i] = Standing{Rank: first + i, CompetitionRank: comp, Participant: z.Member, Score: score}
	}
	return out, nil
}
