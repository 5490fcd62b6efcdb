package kuis

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// Log entry field names, as record_answer.lua writes them.
const (
	logParticipant = "peserta"
	logQuestion    = "soal"
)

// decodeLog reads XRANGE's entries, as a script returns them: {id, {field,
// value, ...}} each. The entry ID's first part is the server's time in ms.
// Entries without a peserta field (the finish entry) are not answers and are
// skipped.
func decodeLog(key string, m rueidis.RedisMessage) ([]AnswerRecord, error) {
	entries, err := m.ToArray()
	if err != nil {
		return nil, corrupt(key, "not a list of entries: %v", err)
	}
	out := make([]AnswerRecord, 0, len(entries))
	for _, e := range entries {
		parts, err := e.ToArray()
		if err != nil || len(parts) != 2 {
			return nil, corrupt(key, "an entry is not {id, fields}")
		}
		id, err := parts[0].ToString()
		if err != nil {
			return nil, corrupt(key, "an entry has no ID")
		}
		flat, err := parts[1].AsStrSlice()
		if err != nil || len(flat)%2 != 0 {
			return nil, corrupt(key, "entry %s has no field/value list", id)
		}
		if !slices.Contains(fieldNames(flat), logParticipant) {
			continue
		}
		a, err := logEntry(id, flat)
		if err != nil {
			return nil, corrupt(key, "entry %s: %v", id, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// logEntry decodes one entry's ID and fields.
func logEntry(id string, flat []string) (AnswerRecord, error) {
	msText, _, _ := strings.Cut(id, "-")
	ms, err := strconv.ParseInt(msText, 10, 64)
	if err != nil || ms < 0 {
		return AnswerRecord{}, errors.New("ID is not <ms>-<seq>")
	}
	a := AnswerRecord{At: time.UnixMilli(ms).UTC()}
	for i := 0; i < len(flat); i += 2 {
		switch flat[i] {
		case logParticipant:
			a.Participant = flat[i+1]
		case logQuestion:
			a.Question, err = strconv.Atoi(flat[i+1])
			if err != nil {
				return AnswerRecord{}, fmt.Errorf("field %s is %s, want a question number", logQuestion, quote(flat[i+1]))
			}
		}
	}
	if !validText(a.Participant, maxParticipantLen) || a.Question < 1 {
		return AnswerRecord{}, fmt.Errorf("want fields %s and %s", logParticipant, logQuestion)
	}
	return a, nil
}

// fieldNames lists the field names of a flat field/value list.
func fieldNames(flat []string) []string {
	names := make([]string, 0, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		names = append(names, flat[i])
	}
	return names
}

// answerPair splits an answers set member "<question>:<participant>".
func answerPair(member string) (int, string, bool) {
	q, participant, ok := strings.Cut(member, ":")
	n, err := strconv.Atoi(q)
	if !ok || err != nil || n < 1 || strconv.Itoa(n) != q || !validText(participant, maxParticipantLen) {
		return 0, "", false
	}
	return n, participant, true
}

// tally counts the answers set's members per question, and lists every
// counted answer: those the log lacks (written before it existed) first, by
// question then participant and without a time, then the log in order.
func tally(key string, questions int, members []string, logged []AnswerRecord) ([]QuestionResult, []AnswerRecord, error) {
	type pair struct {
		q int
		p string
	}
	inLog := make(map[pair]bool, len(logged))
	for _, a := range logged {
		inLog[pair{a.Question, a.Participant}] = true
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
		if !inLog[pair{q, p}] {
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

// WriteAnswersCSV writes every counted answer with encoding/csv: the header
// row "participant,question,answered_at", then one row per answer in
// Recap.Answers' order; answered_at is RFC 3339 in UTC to the millisecond
// (2026-11-30T09:15:02.125Z), empty for an answer without a time. It returns
// w's error as it is.
func (r Recap) WriteAnswersCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"participant", "question", "answered_at"}); err != nil {
		return err
	}
	for _, a := range r.Answers {
		at := ""
		if !a.At.IsZero() {
			at = a.At.UTC().Format("2006-01-02T15:04:05.000Z07:00")
		}
		if err := cw.Write([]string{a.Participant, strconv.Itoa(a.Question), at}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
