package kuis

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What a teacher keeps of a quiz: the recap's tables in a form to archive or
// open in a spreadsheet. By default every writer uses encoding/csv and writes
// names exactly as stored, so a file reads back byte for byte: the form to
// archive. ForSpreadsheet makes the form to open in a spreadsheet. Each
// returns w's error as it is.

// CSVOption chooses the form of the file a CSV writer of the recap writes
// (Recap.WriteCSV, WriteGradebookCSV, WriteAnswersCSV, WriteGradesCSV,
// CourseRecap.WriteCSV, CourseRecap.WriteGradesCSV).
// Without one, a writer writes plain encoding/csv, fields separated by
// commas, names byte for byte as stored.
type CSVOption func(*csvOptions)

// csvOptions are what the CSVOptions of one call set.
type csvOptions struct {
	spreadsheet bool // ForSpreadsheet's form
	comma       rune // WithDelimiter's; 0 for the default ','
}

// WithDelimiter separates the fields with r instead of a comma, in either
// form: ';' for a spreadsheet in a locale whose decimal separator is the
// comma (Excel in Indonesian and most European locales splits a file it
// opens on ';'), or '\t'. A writer given a delimiter encoding/csv refuses
// (0, '"', '\r', '\n', U+FFFD or a rune that is not valid) returns
// ErrInvalidOption and writes nothing. Read such a file back with
// encoding/csv's Reader.Comma set to r.
func WithDelimiter(r rune) CSVOption {
	return func(o *csvOptions) { o.comma = r }
}

// ForSpreadsheet writes the file for a spreadsheet (Excel, LibreOffice Calc,
// Google Sheets) to open, rather than for a program to read back, as OWASP's
// advice on CSV injection says:
//   - the file starts with a UTF-8 byte order mark, so that Excel reads the
//     names as UTF-8 ("Søren", not "SÃ¸ren");
//   - a cell that a spreadsheet would run as a formula, one that starts with
//     '=', '+', '-', '@', a tab or a carriage return (a student named
//     =HYPERLINK("http://…","Ali")), gets a single quote (') in front, so that
//     the spreadsheet takes it as text;
//   - every cell is quoted (a quote inside doubled) and every row ends with
//     CRLF, so that a spreadsheet that splits fields on ';' or a tab, as Excel
//     does in many locales, never starts a cell inside a name.
//
// The rows and columns are the default form's. Read back with encoding/csv,
// such a file gives the cells with the quote in front of those that had one
// added: keep the default form for an archive.
func ForSpreadsheet() CSVOption {
	return func(o *csvOptions) { o.spreadsheet = true }
}

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
// opts choose the file's form (ForSpreadsheet, WithDelimiter); a delimiter
// encoding/csv refuses is ErrInvalidOption, with nothing written.
func (r Recap) WriteGradebookCSV(w io.Writer, opts ...CSVOption) error {
	cw := newCSVWriter(w, opts)
	header := []string{"participant", "score"}
	for _, q := range r.Questions {
		header = append(header, strconv.Itoa(q.Question))
	}
	if err := cw.write(header); err != nil {
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
		if err := cw.write(append(row, cells...)); err != nil {
			return err
		}
	}
	return cw.flush()
}

// WriteCSV writes the standings with encoding/csv: the header row
// "rank,competition_rank,participant,score,correct_answers", then one row per
// participant; correct_answers is score / 10. opts choose the file's form
// (ForSpreadsheet, WithDelimiter); a delimiter encoding/csv refuses is
// ErrInvalidOption, with nothing written.
func (r Recap) WriteCSV(w io.Writer, opts ...CSVOption) error {
	cw := newCSVWriter(w, opts)
	if err := cw.write([]string{"rank", "competition_rank", "participant", "score", "correct_answers"}); err != nil {
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
		if err := cw.write(row); err != nil {
			return err
		}
	}
	return cw.flush()
}

// WriteAnswersCSV writes every counted answer with encoding/csv: the header
// row "participant,question,answered_at", then one row per answer in
// Recap.Answers' order; answered_at is RFC 3339 in UTC to the millisecond
// (2026-11-30T09:15:02.125Z), empty for an answer without a time. opts
// choose the file's form (ForSpreadsheet, WithDelimiter); a delimiter
// encoding/csv refuses is ErrInvalidOption, with nothing written.
func (r Recap) WriteAnswersCSV(w io.Writer, opts ...CSVOption) error {
	cw := newCSVWriter(w, opts)
	if err := cw.write([]string{"participant", "question", "answered_at"}); err != nil {
		return err
	}
	for _, a := range r.Answers {
		at := ""
		if !a.At.IsZero() {
			at = a.At.UTC().Format(millisUTC)
		}
		if err := cw.write([]string{a.Participant, strconv.Itoa(a.Question), at}); err != nil {
			return err
		}
	}
	return cw.flush()
}

// millisUTC is RFC 3339 to the millisecond, the form the recap's writers
// give a time in, in UTC ("2026-11-30T09:15:02.125Z").
const millisUTC = "2006-01-02T15:04:05.000Z07:00"

// csvWriter writes the rows of one file in the form its options chose.
type csvWriter struct {
	plain   *csv.Writer   // the default form
	sheet   *bufio.Writer // ForSpreadsheet's form
	comma   rune          // the delimiter
	started bool          // ForSpreadsheet's byte order mark is written
	err     error         // options refused: every write and the flush return it
}

// newCSVWriter returns the writer of one file to w in the form opts choose.
// Options it refuses make a writer that writes nothing and returns their
// ErrInvalidOption from its first write, so that each CSV writer of the
// library refuses them where it is called.
func newCSVWriter(w io.Writer, opts []CSVOption) *csvWriter {
	o := csvOptions{comma: ','}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if !validDelimiter(o.comma) {
		return &csvWriter{err: fmt.Errorf("%w: CSV delimiter %+q (want a valid rune other than '\\x00', '\"', '\\r', '\\n' and U+FFFD)", ErrInvalidOption, o.comma)}
	}
	if !o.spreadsheet {
		plain := csv.NewWriter(w)
		plain.Comma = o.comma
		return &csvWriter{plain: plain, comma: o.comma}
	}
	return &csvWriter{sheet: bufio.NewWriter(w), comma: o.comma}
}

// validDelimiter reports whether encoding/csv takes r as a delimiter.
func validDelimiter(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && utf8.ValidRune(r) && r != utf8.RuneError
}

// write writes one row.
func (c *csvWriter) write(row []string) error {
	switch {
	case c.err != nil:
		return c.err
	case c.plain != nil:
		return c.plain.Write(row)
	}
	var b strings.Builder
	if !c.started {
		b.WriteString("\uFEFF")
		c.started = true
	}
	for i, cell := range row {
		if i > 0 {
			b.WriteRune(c.comma)
		}
		if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
			cell = "'" + cell
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(cell, `"`, `""`))
		b.WriteByte('"')
	}
	b.WriteString("\r\n")
	_, err := c.sheet.WriteString(b.String())
	return err
}

// flush writes what is buffered and returns the first error of the file.
func (c *csvWriter) flush() error {
	if c.err != nil {
		return c.err
	}
	if c.plain != nil {
		c.plain.Flush()
		return c.plain.Error()
	}
	return c.sheet.Flush()
}
