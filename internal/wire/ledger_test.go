package wire

import (
	"strconv"
	"strings"
	"testing"
)

func TestIndexField(t *testing.T) {
	tests := []struct {
		field, quiz, instance string
		ok                    bool
	}{
		{"kuis-02@1733299200000-0", "kuis-02", "1733299200000-0", true},
		{"kuis-02@0-0", "kuis-02", "0-0", true},
		{"kuis-02@", "", "", false},
		{"@0-0", "", "", false},
		{"kuis-02", "", "", false},
		{"kuis-02@kemarin", "", "", false},
		{"kuis-02@1-0@2-0", "", "", false},
	}
	for _, tt := range tests {
		quiz, instance, ok := ParseIndexField(tt.field)
		if quiz != tt.quiz || instance != tt.instance || ok != tt.ok {
			t.Errorf("ParseIndexField(%q) = %q, %q, %v; want %q, %q, %v", tt.field, quiz, instance, ok, tt.quiz, tt.instance, tt.ok)
		}
	}
	if got := IndexField("kuis-02", "1-0"); got != "kuis-02@1-0" {
		t.Errorf("IndexField = %q", got)
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
		{"0", 0, true},
		{"9007199254740990", MaxScore, true},
		{"9007199254741000", 0, false}, // past 2^53 - 2
		{"99999999999999990", 0, false},
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

// markers are marker values in and out of form, shared with the Lua test.
var markers = []string{
	"30 4 90 0123456789abcdef0123456789abcdef 1733299200000",
	"30 4 90 0123456789abcdef0123456789abcdef 0",
	"10000 0 0 0123456789abcdef0123456789abcdef 1",
	"10010 0 0 0123456789abcdef0123456789abcdef 1", // more than MaxQuestions
	"0 0 0 0123456789abcdef0123456789abcdef 1",     // no question
	"35 4 90 0123456789abcdef0123456789abcdef 1",
	"30 4 95 0123456789abcdef0123456789abcdef 1",
	"30 04 90 0123456789abcdef0123456789abcdef 1",
	"30 4 90 0123456789ABCDEF0123456789abcdef 1",
	"30 4 90 0123456789abcdef0123456789abcde 1",
	"30 4 90 0123456789abcdef0123456789abcdef",
	"30 4 90 0123456789abcdef0123456789abcdef 1 2",
	"30  4 90 0123456789abcdef0123456789abcdef 1",
	" 30 4 90 0123456789abcdef0123456789abcdef 1",
	"30 4 90 0123456789abcdef0123456789abcdef 1 ",
	"30 -4 90 0123456789abcdef0123456789abcdef 1",
	"30 4 90 0123456789abcdef0123456789abcdef 9007199254740992",
	"",
}

func TestMarker(t *testing.T) {
	want := map[int]Marker{
		0: {30, 4, 90, "0123456789abcdef0123456789abcdef", 1733299200000},
		1: {30, 4, 90, "0123456789abcdef0123456789abcdef", 0},
		2: {10000, 0, 0, "0123456789abcdef0123456789abcdef", 1},
	}
	for i, s := range markers {
		m, ok := ParseMarker(s)
		w, wantOK := want[i]
		if ok != wantOK || m != w {
			t.Errorf("ParseMarker(%q) = %+v, %v; want %+v, %v", s, m, ok, w, wantOK)
		}
		if ok && m.String() != s {
			t.Errorf("ParseMarker(%q).String() = %q", s, m.String())
		}
	}
}

func TestRecapDigest(t *testing.T) {
	a := RecapDigest("kuis-02", "1-0", 30, [][2]string{{"Ali", "20"}, {"Budi", "10"}})
	if len(a) != digestLen || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("RecapDigest = %q; want 32 lowercase hex digits", a)
	}
	for _, other := range []string{
		RecapDigest("kuis-02", "2-0", 30, [][2]string{{"Ali", "20"}, {"Budi", "10"}}),
		RecapDigest("kuis-03", "1-0", 30, [][2]string{{"Ali", "20"}, {"Budi", "10"}}),
		RecapDigest("kuis-02", "1-0", 40, [][2]string{{"Ali", "20"}, {"Budi", "10"}}),
		RecapDigest("kuis-02", "1-0", 30, [][2]string{{"Ali", "20"}, {"Budi", "0"}}),
		RecapDigest("kuis-02", "1-0", 30, [][2]string{{"Ali", "20"}}),
		RecapDigest("kuis-02", "1-0", 30, [][2]string{{"Ali", "201"}, {"Budi", "0"}}),
	} {
		if other == a {
			t.Errorf("two recaps share digest %s", a)
		}
	}
}

// FuzzIndexField: every field that parses is the field of what it parses
// to.
func FuzzIndexField(f *testing.F) {
	for _, s := range []string{"kuis-01@1-0", "kuis-01@", "@", "a@b@c", "", "x@0-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, field string) {
		if quiz, instance, ok := ParseIndexField(field); ok {
			if quiz == "" || strings.Contains(quiz, InstanceSeparator) || IndexField(quiz, instance) != field {
				t.Errorf("ParseIndexField(%q) = %q, %q: not its field", field, quiz, instance)
			}
		}
	})
}

// FuzzLedgerPoints: a value that parses is a multiple of 10 from 0 to
// MaxScore, written back byte for byte; every such number parses.
func FuzzLedgerPoints(f *testing.F) {
	for _, s := range []string{"10", "0", "010", "15", "9007199254740990", "9007199254741000", "-10"} {
		f.Add(s, int64(len(s)))
	}
	f.Fuzz(func(t *testing.T, s string, n int64) {
		if p, ok := ParseLedgerPoints(s); ok {
			if p < 0 || p%Points != 0 || p > MaxScore || FormatLedgerPoints(p) != s {
				t.Errorf("ParseLedgerPoints(%q) = %d", s, p)
			}
		}
		p, ok := ParseLedgerPoints(FormatLedgerPoints(n))
		if want := n >= 0 && n%Points == 0 && n <= MaxScore; ok != want || ok && p != n {
			t.Errorf("ParseLedgerPoints(FormatLedgerPoints(%d)) = %d, %v; want ok %v", n, p, ok, want)
		}
	})
}

// FuzzMarker: a marker that parses is written back byte for byte.
func FuzzMarker(f *testing.F) {
	for _, s := range markers {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if m, ok := ParseMarker(s); ok && m.String() != s {
			t.Errorf("ParseMarker(%q).String() = %q", s, m.String())
		}
	})
}
