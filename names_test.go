package kuis_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestCleanParticipant: CleanParticipant trims the white space around a name
// and normalizes it to NFC, then refuses, with ErrInvalidParticipant, what
// would mislead a class: a name of spaces only or of nothing visible,
// invisible and bidirectional characters, separators, more than 64
// characters. Joiners inside a name, CJK and emoji up to 64 characters stay.
func TestCleanParticipant(t *testing.T) {
	const hidden, long = "holds a hidden, line-breaking or direction-changing character", "is longer than 64 characters"
	tests := []struct {
		in, want string // want "" for a refusal
		problem  string // what the refusal says of the name
	}{
		{"Ali", "Ali", ""},
		{"  Ali\u00a0", "Ali", ""},
		{"\u3000Ali Baba\u3000", "Ali Baba", ""},
		{"Jose\u0301", "Jos\u00e9", ""}, // NFD becomes NFC
		{"Jos\u00e9", "Jos\u00e9", ""},
		{"\u0645\u06cc\u200c\u062e\u0648\u0627\u0645", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645", ""}, // ZWNJ inside
		{"👩\u200d🎓", "👩\u200d🎓", ""},                                                                     // ZWJ inside an emoji sequence
		{strings.Repeat("李", 64), strings.Repeat("李", 64), ""},
		{strings.Repeat("🎓", 64), strings.Repeat("🎓", 64), ""},
		{" " + strings.Repeat("a", 64) + " ", strings.Repeat("a", 64), ""},
		{"", "", "is empty"},
		{"   ", "", "is empty"},
		{"\u00a0", "", "is empty"},
		{"\u2028", "", "is empty"},
		{"Ali\u2029Baba", "", hidden},
		{"Ali\u200b", "", hidden},
		{"\ufeffAli", "", hidden},
		{"\u202eilA", "", hidden},
		{"Ali\u2066", "", hidden},
		{"Al\u00adi", "", hidden},
		{"A\u2060li", "", hidden},
		{"\u061cAli", "", hidden},
		{"\u200eAli", "", hidden},
		{"Ali\nBaba", "", hidden},
		{"Ali\xff", "", "is not valid UTF-8"},
		{"\u0301", "", "has no letter, digit or symbol"}, // a mark alone
		{strings.Repeat("李", 65), "", long},
		{strings.Repeat("🎓", 65), "", long},
	}
	for _, tt := range tests {
		got, err := kuis.CleanParticipant(tt.in)
		switch {
		case tt.want == "" && (!errors.Is(err, kuis.ErrInvalidParticipant) || !strings.HasSuffix(err.Error(), " "+tt.problem)):
			t.Errorf("CleanParticipant(%q) = %q, %v; want ErrInvalidParticipant saying it %s", tt.in, got, err, tt.problem)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("CleanParticipant(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestNamesAreNeverCleanedSilently: every method that takes a participant
// refuses a name CleanParticipant would change, with nothing written, and
// names are compared byte for byte; members written outside the library,
// whatever they hold, still read back through Standings and Page.
func TestNamesAreNeverCleanedSilently(t *testing.T) {
	e := newEnv(t)
	id, _, b := e.running(3)
	k := e.keys(id)
	for _, name := range []string{"Ali ", "Jose\u0301", "\u202eilA", "Ali\u200b"} {
		before := e.dump(fiveKeys(k)...)
		if _, err := b.RecordAnswer(e.ctx, name, 1); !errors.Is(err, kuis.ErrInvalidParticipant) {
			t.Errorf("RecordAnswer(%q) = %v; want ErrInvalidParticipant", name, err)
		}
		if _, err := b.Standing(e.ctx, name); !errors.Is(err, kuis.ErrInvalidParticipant) {
			t.Errorf("Standing(%q) = %v; want ErrInvalidParticipant", name, err)
		}
		if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
			t.Errorf("a refused %q wrote (-before +after):\n%s", name, diff)
		}
	}
	for _, name := range []string{"ali", "Ali"} {
		if a, err := b.RecordAnswer(e.ctx, name, 1); err != nil || a.Duplicate {
			t.Errorf("RecordAnswer(%q) = %+v, %v; want a counted answer: two students", name, a, err)
		}
	}
	e.mustRaw("ZADD", k.Board(), "20", "Ali ", "30", "\u202eilA")
	want := []string{"\u202eilA", "Ali ", "ali", "Ali"}
	for _, read := range []func() ([]kuis.Standing, error){
		func() ([]kuis.Standing, error) { return b.Standings(e.ctx) },
		func() ([]kuis.Standing, error) { return b.Page(e.ctx, 0, 10) },
	} {
		s, err := read()
		var got []string
		for _, x := range s {
			got = append(got, x.Participant)
		}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("read: %v (-want +got):\n%s", err, diff)
		}
	}
}
