package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
)

// csvWriters are recap's CSV writers, by the name -format gives each.
func csvWriters(recap kuis.Recap) map[string]func(*bytes.Buffer, ...kuis.CSVOption) error {
	return map[string]func(*bytes.Buffer, ...kuis.CSVOption) error{
		"standings": func(b *bytes.Buffer, o ...kuis.CSVOption) error { return recap.WriteCSV(b, o...) },
		"gradebook": func(b *bytes.Buffer, o ...kuis.CSVOption) error { return recap.WriteGradebookCSV(b, o...) },
		"answers":   func(b *bytes.Buffer, o ...kuis.CSVOption) error { return recap.WriteAnswersCSV(b, o...) },
	}
}

// TestRecap prints each format as the library's writers write it, the CSV
// in the default form or with -spreadsheet in ForSpreadsheet's, to stdout or
// to a file.
func TestRecap(t *testing.T) {
	tg := newTarget(t)
	tg.quiz("kuis-01", "Kuis", 2, [][]string{{"Ali", "=HYPERLINK(\"http://x.example\")"}, {"Søren"}}, true)
	recap, err := tg.store.Recap(tg.ctx, "kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	writer := csvWriters(recap)
	for format, write := range writer {
		for _, sheet := range []bool{false, true} {
			args := []string{"recap", "kuis-01", "-format", format}
			var want bytes.Buffer
			var opts []kuis.CSVOption
			if sheet {
				args = append(args, "-spreadsheet")
				opts = append(opts, kuis.ForSpreadsheet())
			}
			if err := write(&want, opts...); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), tg.must(args...)); diff != "" {
				t.Errorf("%v (-want +got):\n%s", args, diff)
			}
			file := filepath.Join(t.TempDir(), "out.csv")
			if out := tg.must(append(args, "-o", file)...); out != "" {
				t.Errorf("%v -o: stdout %q, want nothing", args, out)
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), string(got)); diff != "" {
				t.Errorf("%v -o FILE (-want +got):\n%s", args, diff)
			}
		}
	}
	if got := tg.must("recap", "kuis-01"); got != tg.must("recap", "kuis-01", "-format", "standings") {
		t.Errorf("recap's default format is not standings: %q", got)
	}

	var got kuis.Recap
	if err := json.Unmarshal([]byte(tg.must("recap", "kuis-01", "-format", "json")), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recap, got, cmpopts.IgnoreFields(kuis.Recap{}, "TakenAt"), cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("recap -format json (-want +got):\n%s", diff)
	}
	if got.TakenAt.Before(recap.TakenAt) || time.Since(got.TakenAt) > time.Hour {
		t.Errorf("recap -format json: taken_at %v, the library's recap at %v", got.TakenAt, recap.TakenAt)
	}

	r := tg.kuis("recap", "kuis-99", "-o", filepath.Join(t.TempDir(), "never"))
	if r.code != 1 || r.stdout != "" {
		t.Errorf("recap of a missing quiz: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "recap of a missing quiz", r.stderr, "kuis: recap kuis-99: no such quiz in namespace")
}

// TestRecapDelimiter: -delimiter prints each CSV format as the library's
// writer writes it with WithDelimiter, in either form ("tab" is a tab); a
// delimiter the library refuses, more than one character, or one given with
// -format json is a usage error before any connection.
func TestRecapDelimiter(t *testing.T) {
	tg := newTarget(t)
	tg.quiz("kuis-01", "Kuis", 2, [][]string{{"Ali", "Siti; A."}, {"Søren"}}, true)
	recap, err := tg.store.Recap(tg.ctx, "kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	writer := csvWriters(recap)
	for format, write := range writer {
		for flag, comma := range map[string]rune{";": ';', "tab": '\t', "|": '|', ",": ','} {
			for _, sheet := range []bool{false, true} {
				args := []string{"recap", "kuis-01", "-format", format, "-delimiter", flag}
				opts := []kuis.CSVOption{kuis.WithDelimiter(comma)}
				if sheet {
					args = append(args, "-spreadsheet")
					opts = append(opts, kuis.ForSpreadsheet())
				}
				var want bytes.Buffer
				if err := write(&want, opts...); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want.String(), tg.must(args...)); diff != "" {
					t.Errorf("%v (-want +got):\n%s", args, diff)
				}
			}
		}
	}
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"-delimiter", ""}, `-delimiter ""`},
		{[]string{"-delimiter", ";;"}, `-delimiter ";;"`},
		{[]string{"-delimiter", `"`}, `-delimiter "\""`},
		{[]string{"-delimiter", "\n"}, `-delimiter "\n"`},
		{[]string{"-delimiter", "\r"}, `-delimiter "\r"`},
		{[]string{"-delimiter", "\xff"}, `-delimiter "\xff"`},
		{[]string{"-delimiter", ";", "-format", "json"}, "-delimiter is for the CSV formats"},
	} {
		r := runKuis(nil, append([]string{"-addr", unreachable, "recap", "kuis-01"}, tt.args...)...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("recap %q: exit %d, stdout %q; want 2 and nothing", tt.args, r.code, r.stdout)
		}
		oneLine(t, fmt.Sprintf("recap %q", tt.args), r.stderr, "kuis recap", tt.says)
	}
}
