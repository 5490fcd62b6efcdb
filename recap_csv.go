package kuis

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
)

// What a teacher keeps of a quiz: the recap's tables in a form to archive or
// open in a spreadsheet. Every writer uses encoding/csv and writes names
// exactly as stored, so a file reads back byte for byte; a spreadsheet may
// treat a name that starts with '=', '+', '-' or '@' as a formula, so escape
// names before opening the file in one if students typed them. Each returns
// w's error as it is.

// GradeRow is one participant's line of the gradebook.
type GradeRow struct {
	Participant string `json:"participant"`
	Score       int64  `json:"score"`
	Correct     []int  `json:"correct"` // questions answered correctly, ascending ([] when none)
}

// Gradebook returns one row per participant on the board, in the order of
// Standings, with the questions each answered correctly as Answers lists
// them: the log's answers, and for a quiz whose answers predate the log, the
// answers set's. It does no I/O.
func (r Recap) Gradebook() []GradeRow {
	correct := make(map[string][]int, len(r.Standings))
	for _, a := range r.Answers {
		correct[a.Participant] = append(correct[a.Participant], a.Question)
	}
	rows := make([]GradeRow, len(r.Standings))
	for i, s := range r.Standings {
		qs := correct[s.Participant]
		slices.Sort(qs)
		rows[i] = GradeRow{Participant: s.Participant, Score: s.Score, Correct: append([]int{}, slices.Compact(qs)...)}
	}
	return rows
}

// WriteGradebookCSV writes the gradebook: the header row
// "participant,score,1,2,...,n" with one column per question of
// Recap.Questions (1 to jumlah_soal), then one row per participant in
// Gradebook's order, each question's cell 1 when answered correctly, else 0.
func (r Recap) WriteGradebookCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{"participant", "score"}
	for _, q := range r.Questions {
		header = append(header, strconv.Itoa(q.Question))
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, g := range r.Gradebook() {
		row := []string{g.Participant, strconv.FormatInt(g.Score, 10)}
		cells := make([]string, len(r.Questions))
		for i := range cells {
			cells[i] = "0"
		}
		for _, q := range g.Correct {
			if q >= 1 && q <= len(cells) {
				cells[q-1] = "1"
			}
		}
		if err := cw.Write(append(row, cells...)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSV writes the standings with encoding/csv: the header row
// "rank,competition_rank,participant,score,correct_answers", then one row per
// participant; correct_answers is score / 10.
func (r Recap) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"rank", "competition_rank", "participant", "score", "correct_answers"}); err != nil {
		return err
	}
	for _, s := range r.Standings {
		row := []string{
			strconv.Itoa(s.Rank),
			strconv.Itoa(s.CompetitionRank),
			s.Participant,
			strconv.FormatInt(s.Score, 10),
			strconv.FormatInt(s.Score/10, 10),
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteAnswersCSV writes every counted answer with encoding/csv: the header
// row "participant,question,answered_at", then one row per answer in
// Recap.Answers' order; answered_at is RFC 3339 in UTC to the millisecond
// (2026-11-30T09:15:02.125Z), empty for an answer without a time.
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
