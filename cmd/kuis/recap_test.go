package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
// writer writes it with WithDelimiter, in either form ("tab" is a tab), and
// ';' reads back with encoding/csv's Comma ';' as the default form does with
// ','; a delimiter the library refuses, more than one character, or one
// given with -format json is a usage error before any connection.
func TestRecapDelimiter(t *testing.T) {
	tg := newTarget(t)
	tg.quiz("kuis-01", "Kuis", 2, [][]string{{"Ali", "Siti; A."}, {"Søren"}}, true)
	recap, err := tg.store.Recap(tg.ctx, "kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	writer := csvWriters(recap)
	for format, write := range writer {
		var plain bytes.Buffer
		if err := write(&plain); err != nil {
			t.Fatal(err)
		}
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
				got := tg.must(args...)
				if diff := cmp.Diff(want.String(), got); diff != "" {
					t.Errorf("%v (-want +got):\n%s", args, diff)
				}
				if !sheet {
					sameRecords(t, fmt.Sprint(args), comma, got, plain.String())
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

// TestDelimiterFlag: every command that writes CSV (recap, course recap,
// purge and course purge, for their archives) takes -delimiter, described
// alike, and refuses a delimiter the library refuses, or one given with
// -format json, as a usage error before any connection.
func TestDelimiterFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "arsip")
	described := map[string]bool{}
	for _, c := range []struct {
		name string
		args []string
		json string // the usage error of -delimiter with -format json
	}{
		{"recap", []string{"recap", "kuis-01"}, "-delimiter is for the CSV formats, not json"},
		{"course recap", []string{"course", "recap", "ipa"}, "-delimiter is for the CSV format, not json"},
		{"purge", []string{"purge", "kuis-01", "-archive", dir}, ""},
		{"course purge", []string{"course", "purge", "ipa", "-archive", dir}, ""},
	} {
		kuisArgs := func(more ...string) []string {
			return append(append([]string{"-addr", unreachable}, c.args...), more...)
		}
		help := runKuis(nil, kuisArgs("-h")...)
		_, flag, ok := strings.Cut(help.stdout, "\n  -delimiter C\n")
		flag, _, _ = strings.Cut(flag, "\n") // its description, one line
		if help.code != 0 || !ok || !strings.Contains(flag, "one character (or tab)") {
			t.Errorf("%s -h: exit %d, no -delimiter C, one character:\n%s", c.name, help.code, help.stdout)
		}
		described[flag] = true
		for _, tt := range []struct{ delimiter, says string }{
			{"", `-delimiter ""`},
			{";;", `-delimiter ";;"`},
			{`"`, `-delimiter "\""`},
			{"\n", `-delimiter "\n"`},
			{"\r", `-delimiter "\r"`},
			{"\x00", `-delimiter "\x00"`},
			{"\xff", `-delimiter "\xff"`},
		} {
			r := runKuis(nil, kuisArgs("-delimiter", tt.delimiter)...)
			if r.code != 2 || r.stdout != "" {
				t.Errorf("%s -delimiter %q: exit %d, stdout %q; want 2 and nothing", c.name, tt.delimiter, r.code, r.stdout)
			}
			oneLine(t, fmt.Sprintf("%s -delimiter %q", c.name, tt.delimiter), r.stderr, "kuis "+c.name+": ", tt.says)
		}
		if c.json != "" {
			r := runKuis(nil, kuisArgs("-format", "json", "-delimiter", ";")...)
			if r.code != 2 || r.stdout != "" {
				t.Errorf("%s -format json -delimiter ';': exit %d, stdout %q; want 2 and nothing", c.name, r.code, r.stdout)
			}
			oneLine(t, c.name+" -format json -delimiter ';'", r.stderr, "kuis "+c.name+": ", c.json)
		}
	}
	if len(described) != 1 {
		t.Errorf("-delimiter is described %d ways: %v", len(described), described)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused purge made its archive directory: %v", err)
	}
}
