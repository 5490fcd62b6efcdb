package kuis

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Correction is one participant's board entry that Repair changed.
type Correction struct {
	Participant string `json:"participant"`
	Was         int64  `json:"was"` // score on the board before; 0 when missing
	Now         int64  `json:"now"` // 10 x counted answers; 0 means the member was removed
}

// Bounds of Repair's steps.
const (
	repairScanCount = 1000 // SSCAN, ZSCAN and XRANGE page size
	repairChecks    = 2000 // SISMEMBER calls in one repair script
	repairBatch     = 500  // participants in one repair script
)

// Repair rewrites the board of quiz quizID from its answers so that every
// score is exactly 10 x that participant's counted answers: it adds missing
// members, removes members with no counted answer, and puts each participant
// back in the order set (TiesByTime) at the time of their latest logged
// answer. It returns what it changed on the board, in participant order, and
// an empty slice when nothing needed it. It works on a running or finished
// quiz; answers counted meanwhile are never undone.
//
// Repair reads the answers set, the board, the order set and the log in
// pages (SSCAN, ZSCAN, XRANGE ... COUNT 1000: no step blocks the server
// long), then corrects only the participants that need it, each recounted on
// the server (SISMEMBER of each question), in atomic scripts of at most 500
// participants and 2,000 checks, so no step blocks the server for long: a
// participant's board entry changes in one step, and when all corrections fit in one script (the usual case: a few
// participants changed behind the library's back) a reader sees the old board
// or the new one.
//
// It is the teacher's operation: ACLRules(RoleTeacher) allows it, and the app
// user is refused (ErrForbidden) with nothing written. Errors also:
// ErrInvalidQuizID, ErrQuizNotFound, ErrCorrupt (a key of the wrong type, or
// a jumlah_soal above 1000, which Create never writes and Repair will not
// recount).
func (s *Store) Repair(ctx context.Context, quizID string) ([]Correction, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return nil, err
	}
	m := Meta{q: q}
	fields, err := m.fields(ctx)
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
	todo, last, latest, err := q.repairCandidates(ctx)
	if err != nil {
		return nil, err
	}
	out := []Correction{}
	step := max(1, min(repairBatch, repairChecks/int(info.Questions)))
	for chunk := range slices.Chunk(todo, step) {
		args := make([]string, 0, 1+2*len(chunk))
		args = append(args, last)
		for _, p := range chunk {
			args = append(args, p, strconv.FormatInt(latest[p], 10))
		}
		flat, err := script.Repair.Exec(ctx, q.client, q.keys.all(), args).AsStrSlice()
		if err != nil {
			return out, q.fail(err, "", q.keys.board)
		}
		for i := 0; i+2 < len(flat); i += 3 {
			was, _ := strconv.ParseFloat(cmp.Or(flat[i+1], "0"), 64)
			now, _ := strconv.ParseInt(flat[i+2], 10, 64)
			out = append(out, Correction{Participant: flat[i], Was: int64(was), Now: now})
		}
	}
	return out, nil
}

// repairCandidates reads the quiz in pages and returns, sorted, the
// participants whose board entry or place in the order set is not what their
// answers make it; the ID of the last log entry read ("0-0" for none); and
// each participant's latest logged time in ms.
func (q quiz) repairCandidates(ctx context.Context) ([]string, string, map[string]int64, error) {
	k := q.keys
	counts := map[string]int64{}
	counted := map[string]bool{}
	err := q.scan(ctx, k.answers, func(page []string) {
		for _, m := range page {
			if _, p, ok := answerPair(m); ok {
				counts[p]++
				counted[m] = true
			}
		}
	})
	if err != nil {
		return nil, "", nil, err
	}
	scores, err := q.scanScores(ctx, k.board)
	if err != nil {
		return nil, "", nil, err
	}
	places, err := q.scanScores(ctx, k.order)
	if err != nil {
		return nil, "", nil, err
	}
	last, latest, err := q.latestAnswers(ctx, counted)
	if err != nil {
		return nil, "", nil, err
	}
	var todo []string
	seen := map[string]bool{}
	for _, names := range []map[string]float64{scores, places} {
		for p := range names {
			seen[p] = true
		}
	}
	for p := range counts {
		seen[p] = true
	}
	for p := range seen {
		n := counts[p]
		score, onBoard := scores[p]
		place, placed := places[p]
		switch {
		case n == 0 && (onBoard || placed):
		case n > 0 && (!onBoard || score != float64(10*n) || !placed || place != float64(orderPlace(n, latest[p]))):
		default:
			continue
		}
		todo = append(todo, p)
	}
	slices.Sort(todo)
	return todo, last, latest, nil
}

// orderPlace is the order set's score for n counted answers, the latest at
// ms (0: no time known, placed after every timed participant with as many).
func orderPlace(n, ms int64) int64 {
	place := min(n, 2047) * orderUnit
	if ms > 0 {
		place += orderUnit - 1 - ms
	}
	return place
}

// scan pages through SSCAN of the set key, handing each page to page.
func (q quiz) scan(ctx context.Context, key string, page func([]string)) error {
	return q.scanWith(ctx, key, func(cursor uint64) rueidis.Completed {
		return q.client.B().Sscan().Key(key).Cursor(cursor).Count(repairScanCount).Build()
	}, page)
}

// scanScores reads a sorted set whole with ZSCAN pages: member -> score.
func (q quiz) scanScores(ctx context.Context, key string) (map[string]float64, error) {
	out := map[string]float64{}
	var bad error
	err := q.scanWith(ctx, key, func(cursor uint64) rueidis.Completed {
		return q.client.B().Zscan().Key(key).Cursor(cursor).Count(repairScanCount).Build()
	}, func(flat []string) {
		for i := 0; i+1 < len(flat); i += 2 {
			f, err := strconv.ParseFloat(flat[i+1], 64)
			if err != nil && bad == nil {
				bad = corrupt(key, "member %s has score %s", quote(flat[i]), quote(flat[i+1]))
			}
			out[flat[i]] = f
		}
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// scanWith runs a SCAN-family command from cursor 0 until it is 0 again.
func (q quiz) scanWith(ctx context.Context, key string, cmd func(uint64) rueidis.Completed, page func([]string)) error {
	var cursor uint64
	for {
		entry, err := q.client.Do(ctx, cmd(cursor)).AsScanEntry()
		if err != nil {
			return q.fail(err, "", key)
		}
		page(entry.Elements)
		if cursor = entry.Cursor; cursor == 0 {
			return nil
		}
	}
}

// latestAnswers reads the log in pages of XRANGE ... COUNT 1000 and returns
// the last entry's ID ("0-0" for none) and each participant's latest time,
// taking only the first entry of each answer in counted (an entry for an
// answer not counted, or logged again, places no one).
func (q quiz) latestAnswers(ctx context.Context, counted map[string]bool) (string, map[string]int64, error) {
	latest := map[string]int64{}
	seen := map[string]bool{}
	last, err := q.readLog(ctx, func(e rueidis.XRangeEntry, ms int64) {
		p := e.FieldValues[logParticipant]
		pair := e.FieldValues[logQuestion] + ":" + p
		if counted[pair] && !seen[pair] {
			seen[pair] = true
			latest[p] = ms
		}
	})
	return last, latest, err
}

// readLog hands every log entry, in order, with its time in ms to each, in
// pages of XRANGE ... COUNT 1000, and returns the last entry's ID ("0-0" for
// none).
func (q quiz) readLog(ctx context.Context, each func(e rueidis.XRangeEntry, ms int64)) (string, error) {
	k := q.keys.log
	last, start := "0-0", "-"
	for {
		entries, err := q.client.Do(ctx, q.client.B().Xrange().Key(k).Start(start).End("+").Count(repairScanCount).Build()).AsXRange()
		if err != nil {
			return "", q.fail(err, "", k)
		}
		for _, e := range entries {
			msText, _, _ := strings.Cut(e.ID, "-")
			ms, err := strconv.ParseInt(msText, 10, 64)
			if err != nil {
				return "", corrupt(k, "entry ID %s is not <ms>-<seq>", quote(e.ID))
			}
			each(e, ms)
			last = e.ID
		}
		if len(entries) < repairScanCount {
			return last, nil
		}
		if start, err = nextID(last); err != nil {
			return "", corrupt(k, "%v", err)
		}
	}
}

// nextID is the stream ID right after id.
func nextID(id string) (string, error) {
	ms, seq, ok := strings.Cut(id, "-")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil {
		return "", fmt.Errorf("entry ID %s is not <ms>-<seq>", quote(id))
	}
	return ms + "-" + strconv.FormatUint(n+1, 10), nil
}
