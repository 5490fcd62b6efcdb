package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
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
			opts, err := csvOptions("recap", *format, recapFormats, *sheet)
			if err != nil {
				return err
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
			sctx, cancel := c.step(ctx)
			defer cancel()
			r, err := c.store.Recap(sctx, id)
			if err != nil {
				return c.fail("recap "+id, err)
			}
			return c.output("recap "+id, *out, r, *format, opts)
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

// csvOptions checks -format against a recap's formats (json last) and
// makes -spreadsheet, which is for the CSV formats, its option.
func csvOptions(name, format string, formats []string, sheet bool) ([]kuis.CSVOption, error) {
	csv := formats[:len(formats)-1]
	switch {
	case !slices.Contains(formats, format):
		return nil, usagef("kuis %s: -format %q: want %s or json", name, format, strings.Join(csv, ", "))
	case !sheet:
		return nil, nil
	case format == "json" && len(csv) > 1:
		return nil, usagef("kuis %s: -spreadsheet is for the CSV formats, not json", name)
	case format == "json":
		return nil, usagef("kuis %s: -spreadsheet is for the CSV format, not json", name)
	}
	return []kuis.CSVOption{kuis.ForSpreadsheet()}, nil
}

// output writes the recap in a format to stdout, or, when out is not empty,
// to the file out, whole or not at all: a temporary file of its directory,
// flushed and renamed, then the directory flushed. what is the failure's
// subject.
func (c *cli) output(what, out string, r recap, format string, opts []kuis.CSVOption) error {
	data, err := render(r, format, opts...)
	if err != nil {
		return c.fail(what, err)
	}
	if format == "json" {
		data = append(data, '\n')
	}
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
