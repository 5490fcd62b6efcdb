package wire

import (
	"strconv"
	"strings"
	"testing"
)

func TestLedgerField(t *testing.T) {
	tests := []struct {
		field             string
		quiz, participant string
		ok                bool
	}{
		{"kuis-01:Ali", "kuis-01", "Ali", true},
		{"kuis-01:", "kuis-01", "", true},                   // the marker
		{"kuis-01:a:b", "kuis-01", "a:b", true},             // a name may hold ':'
		{"kuis-01:Ali Zahra", "kuis-01", "Ali Zahra", true}, // and spaces
		{":Ali", "", "", false},
		{"kuis-01", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		quiz, participant, ok := ParseLedgerField(tt.field)
		if quiz != tt.quiz || participant != tt.participant || ok != tt.ok {
			t.Errorf("ParseLedgerField(%q) = %q, %q, %v; want %q, %q, %v", tt.field, quiz, participant, ok, tt.quiz, tt.participant, tt.ok)
		}
	}
	if got := LedgerField("kuis-01", "Ali"); got != "kuis-01:Ali" {
		t.Errorf("LedgerField = %q", got)
	}
	if got := LedgerMarker("kuis-01"); got != "kuis-01:" {
		t.Errorf("LedgerMarker = %q", got)
	}
}

func TestLedgerPoints(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"10", 10, true},
		{"30", 30, true},
		{"9007199254740990", MaxScore, true},
		{"9007199254741000", 0, false}, // past 2^53 - 2
		{"99999999999999990", 0, false},
		{"0", 0, false},
		{"00", 0, false},
		{"010", 0, false},
		{"15", 0, false},
		{"-10", 0, false},
		{"+10", 0, false},
		{"1e1", 0, false},
		{" 10", 0, false},
		{"10.0", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseLedgerPoints(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseLedgerPoints(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if MaxScore%Points != 0 || len(strconv.FormatInt(MaxScore, 10)) != maxLedgerDigits {
		t.Errorf("MaxScore %d is not a multiple of %d of %d digits", int64(MaxScore), Points, maxLedgerDigits)
	}
}

// FuzzLedgerField: every field that parses is the field of what it parses
// to, and every (quiz, participant) of a quiz ID without ':' parses back.
func FuzzLedgerField(f *testing.F) {
	for _, s := range []string{"kuis-01:Ali", "kuis-01:", ":", "a:b:c", "", "x"} {
		f.Add(s, "Ali")
	}
	f.Fuzz(func(t *testing.T, field, participant string) {
		if quiz, p, ok := ParseLedgerField(field); ok {
			if quiz == "" || strings.Contains(quiz, LedgerSeparator) || LedgerField(quiz, p) != field {
				t.Errorf("ParseLedgerField(%q) = %q, %q: not its field", field, quiz, p)
			}
			if (p == "") != (LedgerMarker(quiz) == field) {
				t.Errorf("ParseLedgerField(%q): participant %q, marker %q", field, p, LedgerMarker(quiz))
			}
		}
		quiz, _, _ := strings.Cut(field, LedgerSeparator)
		if quiz == "" {
			return
		}
		q, p, ok := ParseLedgerField(LedgerField(quiz, participant))
		if !ok || q != quiz || p != participant {
			t.Errorf("ParseLedgerField(LedgerField(%q, %q)) = %q, %q, %v", quiz, participant, q, p, ok)
		}
	})
}

// FuzzLedgerPoints: a value that parses is a positive multiple of 10 of at
// most MaxScore, written back byte for byte; every such number parses.
func FuzzLedgerPoints(f *testing.F) {
	for _, s := range []string{"10", "0", "010", "15", "9007199254740990", "9007199254741000", "-10"} {
		f.Add(s, int64(len(s)))
	}
	f.Fuzz(func(t *testing.T, s string, n int64) {
		if p, ok := ParseLedgerPoints(s); ok {
			if p <= 0 || p%Points != 0 || p > MaxScore || FormatLedgerPoints(p) != s {
				t.Errorf("ParseLedgerPoints(%q) = %d", s, p)
			}
		}
		p, ok := ParseLedgerPoints(FormatLedgerPoints(n))
		if want := n > 0 && n%Points == 0 && n <= MaxScore; ok != want || ok && p != n {
			t.Errorf("ParseLedgerPoints(FormatLedgerPoints(%d)) = %d, %v; want ok %v", n, p, ok, want)
		}
	})
}
