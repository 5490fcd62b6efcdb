package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/kuisboard/kuis"
)

// recapFormats are recap's formats.
var recapFormats = []string{"standings", "gradebook", "answers", "json"}

var cmdRecap = &command{
	usageLine: "recap QUIZ [-format standings|gradebook|answers|json] [-spreadsheet] [-delimiter C] [-o FILE]",
	short:     "a quiz's grades, as CSV or JSON",
	long: `
Takes the quiz's recap (Store.Recap: one consistent snapshot; finish the quiz
first for an exact one) and prints it in a format:
  standings  rank,competition_rank,participant,score,correct_answers (Recap.WriteCSV)
  gradebook  participant,score,1,2,...: 1 for each question answered correctly (WriteGradebookCSV)
  answers    participant,question,answered_at: every counted answer (WriteAnswersCSV)
  json       the whole Recap as one JSON object, in the library's field names
The CSV is the library's default form, which reads back byte for byte; with
-spreadsheet it is the form for Excel, LibreOffice or Google Sheets
(ForSpreadsheet): a UTF-8 byte order mark, every cell quoted, and a quote
before a cell a spreadsheet would run as a formula (a name like =HYPERLINK(...)).
-delimiter separates the fields with one character instead of a comma
(WithDelimiter): ';' for Excel in a locale whose decimal separator is the
comma (Indonesian, most European ones), or tab.
With -o FILE the file is written whole or not at all (a temporary file,
flushed and renamed), readable by its owner only.`,
	flag: func(fs *flag.FlagSet) runFunc {
		format := fs.String("format", "standings", "`FORMAT`: standings, gradebook, answers or json")
		sheet := fs.Bool("spreadsheet", false, "CSV for a spreadsheet: BOM, quoted cells, formulas made text")
		delimiter := fs.String("delimiter", ",", "separate the CSV's fields with `C`, one character (or tab)")
		out := fs.String("o", "", "write to `FILE` instead of stdout")
		return func(ctx context.Context, c *cli, args []string) error {
			id, err := oneQuiz("recap", args)
			if err != nil {
				return err
			}
			if !slices.Contains(recapFormats, *format) {
				return usagef("kuis recap: -format %q: want standings, gradebook, answers or json", *format)
			}
			var opts []kuis.CSVOption
			if *sheet {
				if *format == "json" {
					return usagef("kuis recap: -spreadsheet is for the CSV formats, not json")
				}
				opts = append(opts, kuis.ForSpreadsheet())
			}
			if *delimiter != "," {
				if *format == "json" {
					return usagef("kuis recap: -delimiter is for the CSV formats, not json")
				}
				comma, err := csvDelimiter(*delimiter)
				if err != nil {
					return err
				}
				opts = append(opts, kuis.WithDelimiter(comma))
			}
			if _, err := open(ctx, c, "recap", id, (*kuis.Store).Keys); err != nil {
				return err
			}
			return c.recap(ctx, id, *format, *out, opts)
		}
	},
}

// csvDelimiter is -delimiter's character: one that WithDelimiter takes, or
// the word tab.
func csvDelimiter(s string) (rune, error) {
	if s == "tab" {
		return '\t', nil
	}
	r, size := utf8.DecodeRuneInString(s)
	// An empty recap written to nowhere asks the library whether it takes r.
	if size != len(s) || s == "" || (kuis.Recap{}).WriteCSV(io.Discard, kuis.WithDelimiter(r)) != nil {
		return 0, usagef("kuis recap: -delimiter %+q: want one character other than '\"', CR and LF, or tab", s)
	}
	return r, nil
}

func (c *cli) recap(ctx context.Context, id, format, out string, opts []kuis.CSVOption) error {
	sctx, cancel := c.step(ctx)
	defer cancel()
	r, err := c.store.Recap(sctx, id)
	if err != nil {
		return c.fail("recap "+id, err)
	}
	data, err := render(r, format, opts...)
	if err != nil {
		return c.fail("recap "+id, err)
	}
	if format == "json" {
		data = append(data, '\n')
	}
	return c.output("recap "+id, out, data)
}

// output writes a recap's data to stdout, or, when out is not empty, to the
// file out, whole or not at all: a temporary file of its directory, flushed
// and renamed, then the directory flushed. what is the failure's subject.
func (c *cli) output(what, out string, data []byte) error {
	if out == "" {
		if _, err := c.stdout.Write(data); err != nil {
			return fmt.Errorf("kuis: stdout: %w", err)
		}
		return nil
	}
	dir := filepath.Dir(out)
	if err := writeFile(dir, filepath.Base(out), data); err != nil {
		return c.fail(what, err)
	}
	if err := syncDir(dir); err != nil {
		return c.fail(what, err)
	}
	return nil
}
