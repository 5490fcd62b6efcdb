package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestAudit: a quiz that keeps the contract prints nothing and exits 0; a
// score changed behind the library's back is a violation on stdout (text or
// JSON in the library's field names), a summary line on stderr and exit 1;
// -all audits every quiz; a missing quiz is a failure of its own.
func TestAudit(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true)
	tg.reference("kuis-02", false)
	for _, args := range [][]string{{"audit", "kuis-01"}, {"audit", "-all"}, {"audit", "kuis-01", "kuis-02", "-json"}} {
		r := tg.kuis(args...)
		if want := map[bool]string{true: "[]\n", false: ""}[strings.HasSuffix(args[len(args)-1], "json")]; r.code != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("%v of sound quizzes: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}

	board := tg.keys("kuis-02").Board()
	tg.raw("ZADD", board, "50", "Ali")
	want, err := tg.store.Audit(tg.ctx, "kuis-02")
	if err != nil || len(want) == 0 {
		t.Fatalf("the library's Audit: %v, %v", want, err)
	}
	var wantLines []string
	wantJSON := []finding{}
	for _, v := range want {
		wantLines = append(wantLines, v.String())
		wantJSON = append(wantJSON, finding{QuizID: "kuis-02", Violation: v})
	}
	r := tg.kuis("audit", "-all")
	if diff := cmp.Diff(wantLines, lines(r.stdout)); diff != "" || r.code != 1 {
		t.Errorf("audit -all: exit %d; violations (-want +got):\n%s", r.code, diff)
	}
	oneLine(t, "audit -all", r.stderr, "kuis: audit: ", "in 1 quiz")
	if !strings.Contains(r.stdout, board+": score: ") {
		t.Errorf("audit -all does not report Ali's score on %s: %q", board, r.stdout)
	}

	r = tg.kuis("audit", "-json", "kuis-01", "kuis-02")
	var got []finding
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 1 {
		t.Fatalf("audit -json: exit %d, %v: %q", r.code, err, r.stdout)
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("audit -json (-want +got):\n%s", diff)
	}
	var raw []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for k := range raw[0] {
		if k != "quiz_id" && k != "key" && k != "rule" && k != "detail" {
			t.Errorf("audit -json field %q is none of the library's", k)
		}
	}

	r = tg.kuis("audit", "kuis-01", "kuis-99")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("audit with a missing quiz: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "audit with a missing quiz", r.stderr, "kuis: audit kuis-99: no such quiz in namespace")
}

// TestRepair: -dry-run prints what Repair would mend and writes nothing
// (exit 1, as audit); repair mends it and prints each score it changed; the
// quiz then audits clean and a second dry run finds nothing.
func TestRepair(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", true)
	k := tg.keys("kuis-01")
	tg.raw("ZADD", k.Board(), "50", "Ali")
	tg.raw("ZADD", k.Board(), "10", "Mallory")

	r := tg.kuis("repair", "kuis-01", "-dry-run")
	if r.code != 1 {
		t.Errorf("repair -dry-run of a broken quiz: exit %d, want 1", r.code)
	}
	oneLine(t, "repair -dry-run", r.stderr, "kuis: repair -dry-run: ", "to mend")
	for _, who := range []string{`"Ali" has 50 points`, `"Mallory" has 10 points`} {
		if !strings.Contains(r.stdout, k.Board()+": score: member "+who) {
			t.Errorf("repair -dry-run does not say %s: %q", who, r.stdout)
		}
	}
	vs, err := tg.store.Audit(tg.ctx, "kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	var mendable []string
	for _, v := range vs {
		if repairMends(k, v) {
			mendable = append(mendable, v.String())
		}
	}
	if diff := cmp.Diff(mendable, lines(r.stdout)); diff != "" {
		t.Errorf("repair -dry-run is not the audit's findings Repair mends, after it (-want +got):\n%s", diff)
	}

	r = tg.kuis("repair", "kuis-01", "-json")
	var got []correction
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || r.stderr != "" {
		t.Fatalf("repair -json: exit %d, %v, stderr %q: %q", r.code, err, r.stderr, r.stdout)
	}
	want := []correction{
		{QuizID: "kuis-01", Correction: kuis.Correction{Participant: "Ali", Was: 50, Now: 30}},
		{QuizID: "kuis-01", Correction: kuis.Correction{Participant: "Mallory", Was: 10, Now: 0}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("repair -json (-want +got):\n%s", diff)
	}
	if out := tg.must("audit", "kuis-01"); out != "" {
		t.Errorf("audit after repair: %q", out)
	}
	if out := tg.must("repair", "kuis-01", "-dry-run"); out != "" {
		t.Errorf("repair -dry-run after repair: %q", out)
	}
	if out := tg.must("repair", "kuis-01"); out != "" {
		t.Errorf("repair of a sound quiz: %q", out)
	}

	tg.raw("ZADD", k.Board(), "40", "Budi")
	if diff := cmp.Diff([]string{"kuis-01: Budi: 40 -> 20"}, lines(tg.must("repair", "kuis-01"))); diff != "" {
		t.Errorf("repair (-want +got):\n%s", diff)
	}
	// A participant who joined and left the board is put back: 0 -> 0.
	tg.reference("kuis-02", false)
	b, err := tg.store.Board("kuis-02")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Join(tg.ctx, "Gita"); err != nil {
		t.Fatal(err)
	}
	tg.raw("ZREM", tg.keys("kuis-02").Board(), "Gita")
	if diff := cmp.Diff([]string{"kuis-02: Gita: 0 -> 0 (joined: put back on the board)"}, lines(tg.must("repair", "kuis-02"))); diff != "" {
		t.Errorf("repair of a joiner taken off the board (-want +got):\n%s", diff)
	}
	r = tg.kuis("repair", "kuis-99")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("repair of a missing quiz: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "repair of a missing quiz", r.stderr, "kuis: repair kuis-99: no such quiz in namespace")
}
