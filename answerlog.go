package kuis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// The answer log's wire format, once: its entry IDs, its entries, and the
// paged read every reader of the log goes through.

// streamID is a stream entry ID, <ms>-<seq>.
type streamID struct{ ms, seq uint64 }

// parseStreamID parses an entry ID: two decimal numbers of at most 20
// digits, without sign, joined by '-'.
func parseStreamID(s string) (streamID, bool) {
	ms, seq, found := strings.Cut(s, "-")
	if !found || !decimal(ms) || !decimal(seq) {
		return streamID{}, false
	}
	m, err1 := strconv.ParseUint(ms, 10, 64)
	n, err2 := strconv.ParseUint(seq, 10, 64)
	return streamID{m, n}, err1 == nil && err2 == nil
}

func decimal(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (id streamID) String() string {
	return strconv.FormatUint(id.ms, 10) + "-" + strconv.FormatUint(id.seq, 10)
}

func (id streamID) less(o streamID) bool {
	return id.ms < o.ms || id.ms == o.ms && id.seq < o.seq
}

// next is the ID right after id; ok is false for the greatest ID a stream
// can hold, which has none.
func (id streamID) next() (next streamID, ok bool) {
	switch {
	case id.seq < math.MaxUint64:
		return streamID{id.ms, id.seq + 1}, true
	case id.ms < math.MaxUint64:
		return streamID{id.ms + 1, 0}, true
	default:
		return id, false
	}
}

// entryID parses the ID of an entry the log returned: a malformed one is ErrCorrupt.
func (q quiz) entryID(s string) (streamID, error) {
	id, ok := parseStreamID(s)
	if !ok {
		return id, corrupt(q.keys.log, "entry ID %s is not <ms>-<seq>", quote(s))
	}
	return id, nil
}

// time is the server time the ID was made at, to the millisecond.
func (id streamID) time() time.Time {
	return time.UnixMilli(int64(min(id.ms, math.MaxInt64))).UTC()
}

// Log entry fields, as the scripts write them.
const (
	logParticipant = "peserta"
	logQuestion    = "soal"
	logScore       = "skor"
	logStatus      = "status"
)

// entryKind is what a log entry records.
type entryKind int

const (
	entryOther  entryKind = iota // written behind the library's back: every reader skips it
	entryAnswer                  // a counted answer: peserta, soal, skor
	entryStart                   // the start, the log's first: the single field status = berjalan
	entryFinish                  // the finish: the single field status = selesai
)

// logEntry is one decoded entry of the answer log.
type logEntry struct {
	id          streamID
	kind        entryKind
	participant string
	question    int
	score       int64 // the participant's score after the answer
}

// decodeEntry decodes one log entry: an entry with a peserta field is an
// answer and must be whole, its ID a time (otherwise the error says what is
// wrong, and the entry's ID and kind are set even then); the single field
// status = berjalan is the start, status = selesai the finish; anything else
// is entryOther.
func decodeEntry(e rueidis.XRangeEntry) (logEntry, error) {
	id, ok := parseStreamID(e.ID)
	if !ok {
		return logEntry{}, fmt.Errorf("entry ID %s is not <ms>-<seq>", quote(e.ID))
	}
	out := logEntry{id: id}
	p, isAnswer := e.FieldValues[logParticipant]
	switch {
	case isAnswer:
		out.kind, out.participant = entryAnswer, p
	case len(e.FieldValues) == 1 && e.FieldValues[logStatus] == string(StatusFinished):
		out.kind = entryFinish
		return out, nil
	case len(e.FieldValues) == 1 && e.FieldValues[logStatus] == string(StatusRunning):
		out.kind = entryStart
		return out, nil
	default:
		return out, nil
	}
	q, err := strconv.Atoi(e.FieldValues[logQuestion])
	if err != nil || q < 1 || !validText(p, maxStoredName) {
		return out, fmt.Errorf("entry %s: want fields %s and %s", e.ID, logParticipant, logQuestion)
	}
	out.question = q
	s, err := strconv.ParseInt(e.FieldValues[logScore], 10, 64)
	if err != nil || s < 10 || s%10 != 0 {
		return out, fmt.Errorf("entry %s: field %s is %s, want a positive multiple of 10",
			e.ID, logScore, quote(e.FieldValues[logScore]))
	}
	out.score = s
	if id.ms > math.MaxInt64 {
		return out, fmt.Errorf("entry %s: the ID is not a time", e.ID)
	}
	return out, nil
}

// pair is the entry's answers set member, "<question>:<participant>".
func (e logEntry) pair() string { return strconv.Itoa(e.question) + ":" + e.participant }

// readLog hands every entry of the log after after (nil: from the start) to
// each, in order, with decodeEntry's error, in pages of XRANGE ... COUNT
// pageSize on c, and returns the last entry's ID (after itself when there is
// none). It stops at the first error each returns.
func (q quiz) readLog(ctx context.Context, c rueidis.CommandClient, after *streamID, each func(logEntry, error) error) (*streamID, error) {
	k, last := q.keys.log, after
	for {
		start := "-"
		if last != nil {
			next, ok := last.next()
			if !ok {
				return last, nil // the greatest ID: nothing can follow it
			}
			start = next.String()
		}
		entries, err := sendOne(ctx, c, c.B().Xrange().Key(k).Start(start).End("+").Count(q.s.tune.pageSize).Build()).AsXRange()
		if err != nil {
			return nil, q.fail(err, "", k)
		}
		for _, raw := range entries {
			id, err := q.entryID(raw.ID)
			if err != nil {
				return nil, err
			}
			e, err := decodeEntry(raw)
			if err := each(e, err); err != nil {
				return nil, err
			}
			last = &id
		}
		if int64(len(entries)) < q.s.tune.pageSize {
			return last, nil
		}
	}
}

// answerPair splits an answers set member "<question>:<participant>".
func answerPair(member string) (int, string, bool) {
	q, participant, ok := strings.Cut(member, ":")
	n, err := strconv.Atoi(q)
	if !ok || err != nil || n < 1 || strconv.Itoa(n) != q || !validText(participant, maxStoredName) {
		return 0, "", false
	}
	return n, participant, true
}

// AnswerRecord is one counted answer.
type AnswerRecord struct {
	Participant string    `json:"participant"`
	Question    int       `json:"question"`
	At          time.Time `json:"at"` // the Redis server's time when it was counted, UTC, to the millisecond
}

// tally counts the answers set's members per question, and lists every
// counted answer: those the log lacks (written before it existed) first, by
// question then participant and without a time, then the log's in order.
func tally(key string, questions int, members []string, logged []AnswerRecord) ([]QuestionResult, []AnswerRecord, error) {
	type answer struct {
		q int
		p string
	}
	inLog := make(map[answer]bool, len(logged))
	for _, a := range logged {
		inLog[answer{a.Question, a.Participant}] = true
	}
	correct := map[int]int{}
	unlogged := []AnswerRecord{}            // never nil: an archive of a quiz without answers says [] in JSON
	highest := min(questions, maxQuestions) // a jumlah_soal Create never writes lists only what was answered
	for _, m := range members {
		q, p, ok := answerPair(m)
		if !ok {
			return nil, nil, corrupt(key, "member %s is not <question>:<participant>", quote(m))
		}
		correct[q]++
		highest = max(highest, q)
		if !inLog[answer{q, p}] {
			unlogged = append(unlogged, AnswerRecord{Participant: p, Question: q})
		}
	}
	results := make([]QuestionResult, highest)
	for i := range results {
		results[i] = QuestionResult{Question: i + 1, Correct: correct[i+1]}
	}
	slices.SortFunc(unlogged, func(a, b AnswerRecord) int {
		return cmp.Or(cmp.Compare(a.Question, b.Question), strings.Compare(a.Participant, b.Participant))
	})
	return results, append(unlogged, logged...), nil
}
