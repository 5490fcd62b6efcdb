package wire

import (
	"fmt"
	"math"
	"strconv"
)

// The answer log's entry fields, as the scripts write them.
const (
	LogParticipant = "peserta"
	LogQuestion    = "soal"
	LogScore       = "skor"
	LogStatus      = "status"
)

// JoinScore is the skor of a join entry: the participant's score once
// joined, before any answer.
const JoinScore = "0"

// Kind is what a log entry records.
type Kind int

// The kinds of log entries.
const (
	Other  Kind = iota // written behind the library's back: every reader skips it
	Answer             // a counted answer: peserta, soal, skor
	Start              // the start, the log's first: the single field status = berjalan
	Finish             // the finish: the single field status = selesai
	Join               // a participant put on the board with 0 points: exactly peserta and skor = 0
)

// Entry is one decoded entry of the answer log.
type Entry struct {
	ID          ID
	Kind        Kind
	Participant string
	Question    int
	Score       int64 // the participant's score after the answer; 0 for a join
}

// DecodeEntry decodes one log entry of a quiz of questions questions. An
// entry of exactly the fields peserta and skor = 0 is a join, and must name
// a stored name under an ID that is a time. Any other entry with a peserta
// field is an answer and must be whole: a stored name, a question number
// (Question's rule), a score that is a positive sound one, and an ID that is
// a time. Otherwise the error says what is wrong, and the entry's ID, kind
// and participant are set even then. The single field status = berjalan is
// the start, status = selesai the finish; anything else is Other.
func DecodeEntry(id string, fields map[string]string, questions int) (Entry, error) {
	parsed, ok := ParseID(id)
	if !ok {
		return Entry{}, fmt.Errorf("entry ID %s is not <ms>-<seq>", Quote(id))
	}
	e := Entry{ID: parsed}
	p, isAnswer := fields[LogParticipant]
	switch {
	case isAnswer && len(fields) == 2 && fields[LogScore] == JoinScore:
		e.Kind, e.Participant = Join, p
		if !StoredName(p) {
			return e, fmt.Errorf("entry %s: field %s %s is not a participant", id, LogParticipant, Quote(p))
		}
		if parsed.MS > math.MaxInt64 {
			return e, fmt.Errorf("entry %s: the ID is not a time", id)
		}
		return e, nil
	case isAnswer:
		e.Kind, e.Participant = Answer, p
	case len(fields) == 1 && fields[LogStatus] == Finished:
		e.Kind = Finish
		return e, nil
	case len(fields) == 1 && fields[LogStatus] == Running:
		e.Kind = Start
		return e, nil
	default:
		return e, nil
	}
	q, valid := Question(fields[LogQuestion], questions)
	if !valid || !StoredName(p) {
		return e, fmt.Errorf("entry %s: fields %s %s and %s %s are not a participant and a question of 1 to %d",
			id, LogParticipant, Quote(p), LogQuestion, Quote(fields[LogQuestion]), questions)
	}
	e.Question = q
	s, err := strconv.ParseInt(fields[LogScore], 10, 64)
	if _, sound := Score(float64(s)); err != nil || s < Points || !sound {
		return e, fmt.Errorf("entry %s: field %s is %s, want a positive multiple of 10", id, LogScore, Quote(fields[LogScore]))
	}
	e.Score = s
	if parsed.MS > math.MaxInt64 {
		return e, fmt.Errorf("entry %s: the ID is not a time", id)
	}
	return e, nil
}

// Pair is the answers set member of an answer entry.
func (e Entry) Pair() string { return Pair(e.Question, e.Participant) }
