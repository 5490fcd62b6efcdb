package main

import (
	"context"
	"flag"
	"io"
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
		delimiter := delimiterFlag(fs)
		out := fs.String("o", "", "write to `FILE` instead of stdout")
		return func(ctx context.Context, c *cli, args []string) error {
			id, err := oneQuiz("recap", args)
			if err != nil {
				return err
			}
			opts, err := csvOptions("recap", *format, recapFormats, *sheet, *delimiter)
			if err != nil {
				return err
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

// delimiterFlag declares -delimiter on fs: the one definition of the flag
// of every command that writes CSV (recap, course recap, purge, course
// purge). Its value is the comma unless given; delimiterOption reads it.
func delimiterFlag(fs *flag.FlagSet) *string {
	return fs.String("delimiter", ",", "separate the CSV's fields with `C`, one character (or tab), as WithDelimiter does")
}

// delimiterOption is -delimiter's option for command name: nothing for the
// comma, else WithDelimiter of the one character given, or of a tab for the
// word tab. A delimiter the library refuses, or more than one character, is
// a usage error.
func delimiterOption(name, s string) ([]kuis.CSVOption, error) {
	if s == "," {
		return nil, nil
	}
	if s == "tab" {
		return []kuis.CSVOption{kuis.WithDelimiter('\t')}, nil
	}
	r, size := utf8.DecodeRuneInString(s)
	// An empty recap written to nowhere asks the library whether it takes r.
	if size != len(s) || s == "" || (kuis.Recap{}).WriteCSV(io.Discard, kuis.WithDelimiter(r)) != nil {
		return nil, usagef("kuis %s: -delimiter %+q: want one character other than '\"', CR and LF, or tab", name, s)
	}
	return []kuis.CSVOption{kuis.WithDelimiter(r)}, nil
}

// csvOptions checks -format against a recap's formats (json last) and
// makes -spreadsheet and -delimiter, which are for the CSV formats, its
// options.
func csvOptions(name, format string, formats []string, sheet bool, delimiter string) ([]kuis.CSVOption, error) {
	csv := formats[:len(formats)-1]
	formatsWord := "formats"
	if len(csv) == 1 {
		formatsWord = "format"
	}
	if !slices.Contains(formats, format) {
		return nil, usagef("kuis %s: -format %q: want %s or json", name, format, strings.Join(csv, ", "))
	}
	opts, err := delimiterOption(name, delimiter)
	switch {
	case err != nil:
		return nil, err
	case format == "json" && sheet:
		return nil, usagef("kuis %s: -spreadsheet is for the CSV %s, not json", name, formatsWord)
	case format == "json" && opts != nil:
		return nil, usagef("kuis %s: -delimiter is for the CSV %s, not json", name, formatsWord)
	case sheet:
		opts = append(opts, kuis.ForSpreadsheet())
	}
	return opts, nil
}

// output writes the recap in a format (JSON with what a terminal would act
// on \u-escaped, visibleJSON) to stdout, or, when out is not empty,
// to the file out, whole or not at all: a temporary file of its directory,
// flushed and renamed, then the directory flushed. what is the failure's
// subject.
func (c *cli) output(what, out string, r recap, format string, opts []kuis.CSVOption) error {
	data, err := render(r, format, opts...)
	if err != nil {
		return c.fail(what, err)
	}
	if format == "json" {
		data = append(visibleJSON(data), '\n')
	}
	return c.writeOut(what, out, data)
}
