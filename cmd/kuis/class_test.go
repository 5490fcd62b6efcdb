package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// students is class id's roster, as the library reads it.
func (tg *target) students(id string) []kuis.Student {
	tg.t.Helper()
	class, err := tg.store.Class(id)
	if err != nil {
		tg.t.Fatal(err)
	}
	st, err := class.Students(tg.ctx)
	if err != nil {
		tg.t.Fatal(err)
	}
	return st
}

// TestClassEnroll enrolls a spreadsheet's roster file and one from the
// standard input, shows the roster as a table and as JSON as the library
// reads it, and changes nothing when the same students come again.
func TestClassEnroll(t *testing.T) {
	tg := newTarget(t)
	// A spreadsheet's export: a byte order mark, CRLF, a quoted name.
	file := rosterFile(t, "\uFEFFid,name\r\ns-02,Budi\r\ns-01,Ali\r\ns-03,\"Citra Dewi\"\r\n")
	if got := tg.must("class", "enroll", "8a", "-roster", file); got != "8a: 3 student(s) enrolled\n" {
		t.Errorf("enroll printed %q", got)
	}
	want := []kuis.Student{{ID: "s-01", Name: "Ali"}, {ID: "s-02", Name: "Budi"}, {ID: "s-03", Name: "Citra Dewi"}}
	if diff := cmp.Diff(want, tg.students("8a")); diff != "" {
		t.Errorf("roster (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s-01 Ali", "s-02 Budi", "s-03 Citra Dewi"}, words(tg.must("class", "show", "8a"))); diff != "" {
		t.Errorf("show (-want +got):\n%s", diff)
	}
	var got []classStudent
	if err := json.Unmarshal([]byte(tg.must("class", "show", "8a", "-json")), &got); err != nil {
		t.Fatal(err)
	}
	var wantJSON []classStudent
	for _, st := range want {
		wantJSON = append(wantJSON, classStudent{ClassID: "8a", Student: st})
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("show -json (-want +got):\n%s", diff)
	}

	// Again, and one more from stdin: the enrolled ones change nothing.
	r := tg.kuisIn(tg.ctx, "id,name\ns-01,Ali\ns-04,Eka\n", "class", "enroll", "8a", "-roster", "-")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("enroll from stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	want = append(want, kuis.Student{ID: "s-04", Name: "Eka"})
	if diff := cmp.Diff(want, tg.students("8a")); diff != "" {
		t.Errorf("roster after stdin (-want +got):\n%s", diff)
	}
	if got := tg.must("class", "show", "empty-class"); got != "" {
		t.Errorf("show of an empty class printed %q", got)
	}
	if got := tg.must("class", "show", "empty-class", "-json"); got != "[]\n" {
		t.Errorf("show -json of an empty class printed %q", got)
	}
}

// TestClassEnrollBadRow refuses a roster file with a bad row before
// anything is written, exit 2, naming its line.
func TestClassEnrollBadRow(t *testing.T) {
	tg := newTarget(t)
	tests := []struct {
		name, roster string
		words        []string
	}{
		{"no header", "s-01,Ali\n", []string{":1:", "header"}},
		{"empty", "", []string{"empty"}},
		{"header only", "id,name\n", []string{"no rows"}},
		{"three fields", "id,name\ns-01,Ali\ns-02,Budi,x\n", []string{":3:", "3 field(s)"}},
		{"space in ID", "id,name\ns-01,Ali\ns 02,Budi\n", []string{":3:", "invalid student", `"s 02"`}},
		{"control in name", "id,name\ns-01,Ali\ns-02,Bu\x1bdi\n", []string{":3:", "invalid student", "s-02"}},
		{"quote", "id,name\ns-01,\"Ali\n", []string{":2:"}},
	}
	for _, tt := range tests {
		file := rosterFile(t, tt.roster)
		r := tg.kuis("class", "enroll", "8a", "-roster", file)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, want 2 and nothing", tt.name, r.code, r.stdout)
		}
		oneLine(t, tt.name, r.stderr, "kuis class enroll: ", tt.words...)
		if got := tg.students("8a"); len(got) != 0 {
			t.Errorf("%s: enrolled %v", tt.name, got)
		}
	}
	r := tg.kuis("class", "enroll", "8a")
	if r.code != 2 {
		t.Errorf("no -roster: exit %d, want 2", r.code)
	}
	oneLine(t, "no -roster", r.stderr, "kuis class enroll: no -roster")
}

// TestClassEnrollRefused fails with exit 1, naming the refused student, its
// line and the student it collides with, when the library refuses a name or
// an ID, and enrolls nobody of the file.
func TestClassEnrollRefused(t *testing.T) {
	tg := newTarget(t)
	tg.must("class", "enroll", "8a", "-roster", rosterFile(t, "id,name\ns-01,TOM\n"))
	tests := []struct {
		name, roster string
		words        []string
	}{
		{"look-alike", "id,name\ns-05,Eka\ns-02,ΤΟΜ\n", []string{"class enroll 8a: ", ".csv:3:", "name taken", `"s-02"`, `"s-01"`}},
		{"same name", "id,name\ns-05,Eka\ns-06,Fajar\ns-02,TOM\n", []string{".csv:4:", "name taken", `"s-02"`, `"s-01"`}},
		{"ID renamed", "id,name\ns-01,Tomas\n", []string{".csv:2:", "conflict", `"s-01"`, `"Tomas"`, `"TOM"`}},
		{"within the file", "id,name\ns-05,Eka\ns-06,Eka\n", []string{".csv:3:", "name taken", `"s-06"`, `"s-05"`}},
	}
	for _, tt := range tests {
		r := tg.kuis("class", "enroll", "8a", "-roster", rosterFile(t, tt.roster))
		if r.code != 1 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, want 1 and nothing", tt.name, r.code, r.stdout)
		}
		oneLine(t, tt.name, r.stderr, "kuis: class enroll 8a: ", tt.words...)
		if diff := cmp.Diff([]kuis.Student{{ID: "s-01", Name: "TOM"}}, tg.students("8a")); diff != "" {
			t.Errorf("%s: roster (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestClassWithdraw takes students out by ID, an ID not enrolled changing
// nothing, and refuses an ID that breaks the rule with exit 2 and nothing
// withdrawn.
func TestClassWithdraw(t *testing.T) {
	tg := newTarget(t)
	tg.must("class", "enroll", "8a", "-roster", rosterFile(t, "id,name\ns-01,Ali\ns-02,Budi\ns-03,Citra\n"))
	r := tg.kuis("class", "withdraw", "8a", "s-01", "bad id")
	if r.code != 2 {
		t.Errorf("withdraw of a bad ID: exit %d, want 2", r.code)
	}
	oneLine(t, "withdraw bad ID", r.stderr, "kuis class withdraw: ", `"bad id"`)
	if got := tg.students("8a"); len(got) != 3 {
		t.Errorf("a refused withdraw left %v", got)
	}
	if got := tg.must("class", "withdraw", "8a", "s-01", "s-03", "s-09", "s-01"); got != "8a: 3 ID(s) withdrawn\n" {
		t.Errorf("withdraw printed %q", got)
	}
	if diff := cmp.Diff([]kuis.Student{{ID: "s-02", Name: "Budi"}}, tg.students("8a")); diff != "" {
		t.Errorf("roster (-want +got):\n%s", diff)
	}
	// Ali's name is free again, under another ID.
	tg.must("class", "enroll", "8a", "-roster", rosterFile(t, "id,name\ns-07,Ali\n"))
	if diff := cmp.Diff([]kuis.Student{{ID: "s-02", Name: "Budi"}, {ID: "s-07", Name: "Ali"}}, tg.students("8a")); diff != "" {
		t.Errorf("roster after enrolling Ali again (-want +got):\n%s", diff)
	}
}

// TestClassUsage refuses a class command's bad arguments with exit 2, before
// connecting to anything.
func TestClassUsage(t *testing.T) {
	file := rosterFile(t, "id,name\ns-01,Ali\n")
	tests := []struct {
		args  []string
		words []string
	}{
		{[]string{"class", "show"}, []string{"no CLASS"}},
		{[]string{"class", "show", "8a", "8b"}, []string{`"8b"`}},
		{[]string{"class", "withdraw", "8a"}, []string{"no ID"}},
		{[]string{"class", "enroll", "8a", "8b", "-roster", file}, []string{`"8b"`}},
		{[]string{"class", "enroll", "8a", "-roster", file, "-json"}, []string{"-json"}},
	}
	for _, tt := range tests {
		r := runKuis(nil, append([]string{"-addr", unreachable}, tt.args...)...)
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, want 2", tt.args, r.code, r.stdout)
		}
		oneLine(t, strings.Join(tt.args, " "), r.stderr, "kuis class ", tt.words...)
	}
	tg := newTarget(t)
	r := tg.kuis("class", "show", "no/such")
	if r.code != 2 {
		t.Errorf("invalid class ID: exit %d, want 2", r.code)
	}
	oneLine(t, "invalid class ID", r.stderr, "kuis class show: ", "invalid class ID")
}
