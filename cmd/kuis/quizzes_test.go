package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestQuizzes lists every quiz with its status and counts, as text and as
// one JSON array in the library's field names, filtered by -status.
func TestQuizzes(t *testing.T) {
	tg := newTarget(t)
	if got := tg.must("quizzes"); got != "" {
		t.Errorf("quizzes of an empty namespace: %q, want nothing", got)
	}
	if got := tg.must("quizzes", "-json"); got != "[]\n" {
		t.Errorf("quizzes -json of an empty namespace: %q, want []", got)
	}
	tg.reference("kuis-01", true)
	tg.quiz("kuis-02", "Kuis IPA", 5, [][]string{{"Eka"}}, false)
	tg.quiz("kuis-03", "Kosong", 2, nil, true)

	want := []string{
		"kuis-01 selesai 3 4 9 Kuis Matematika Kelas 8",
		"kuis-02 berjalan 5 1 1 Kuis IPA",
		"kuis-03 selesai 2 0 0 Kosong",
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{nil, want},
		{[]string{"-status", "running"}, want[1:2]},
		{[]string{"-status", "finished"}, []string{want[0], want[2]}},
	} {
		if diff := cmp.Diff(tt.want, words(tg.must(append([]string{"quizzes"}, tt.args...)...))); diff != "" {
			t.Errorf("quizzes %v (-want +got):\n%s", tt.args, diff)
		}
	}

	var got []map[string]any
	out := tg.must("quizzes", "-json")
	if err := json.Unmarshal([]byte(out), &got); err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("quizzes -json: %v: %q, want one JSON document on one line", err, out)
	}
	wantJSON := []map[string]any{
		{"quiz_id": "kuis-01", "title": "Kuis Matematika Kelas 8", "questions": 3.0, "status": "selesai", "participants": 4.0, "answers": 9.0},
		{"quiz_id": "kuis-02", "title": "Kuis IPA", "questions": 5.0, "status": "berjalan", "participants": 1.0, "answers": 1.0},
		{"quiz_id": "kuis-03", "title": "Kosong", "questions": 2.0, "status": "selesai", "participants": 0.0, "answers": 0.0},
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("quizzes -json (-want +got):\n%s", diff)
	}
}

// TestShow prints a quiz's summary and the top of its board, as text and
// as JSON; a missing quiz has its own words and exit status 1.
func TestShow(t *testing.T) {
	tg := newTarget(t)
	tg.reference("kuis-01", false)
	want := []string{
		"kuis-01: Kuis Matematika Kelas 8",
		"berjalan (running), 3 questions, 4 participants, 9 answers",
		"1  Citra  30",
		"1  Ali    30",
		"3  Budi   20",
	}
	if diff := cmp.Diff(want, lines(tg.must("show", "kuis-01", "-top", "3"))); diff != "" {
		t.Errorf("show -top 3 (-want +got):\n%s", diff)
	}

	var got showResult
	if err := json.Unmarshal([]byte(tg.must("show", "-json", "kuis-01")), &got); err != nil {
		t.Fatal(err)
	}
	wantJSON := showResult{
		QuizID:  "kuis-01",
		Summary: kuis.Summary{Title: "Kuis Matematika Kelas 8", Questions: 3, Status: kuis.StatusRunning, Participants: 4, Answers: 9},
		Standings: []kuis.Standing{
			{Rank: 1, CompetitionRank: 1, Participant: "Citra", Score: 30},
			{Rank: 2, CompetitionRank: 1, Participant: "Ali", Score: 30},
			{Rank: 3, CompetitionRank: 3, Participant: "Budi", Score: 20},
			{Rank: 4, CompetitionRank: 4, Participant: "Dewi", Score: 10},
		},
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("show -json (-want +got):\n%s", diff)
	}

	r := tg.kuis("show", "kuis-99")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("show of a missing quiz: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "show of a missing quiz", r.stderr, "kuis: show kuis-99: no such quiz in namespace")
}

// countingClient counts, per command name, the calls (Do, DoMulti) that
// carry it and the commands sent, on the client it wraps.
type countingClient struct {
	rueidis.Client
	mu          sync.Mutex
	calls, sent map[string]int
}

func newCountingClient(c rueidis.Client) *countingClient {
	return &countingClient{Client: c, calls: map[string]int{}, sent: map[string]int{}}
}

func (c *countingClient) note(cmds ...rueidis.Completed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	for _, cmd := range cmds {
		name := strings.ToUpper(cmd.Commands()[0])
		c.sent[name]++
		if !seen[name] {
			seen[name] = true
			c.calls[name]++
		}
	}
}

func (c *countingClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.note(cmd)
	return c.Client.Do(ctx, cmd)
}

func (c *countingClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	c.note(cmds...)
	return c.Client.DoMulti(ctx, cmds...)
}

// counts returns what was counted since the last call, and starts again.
func (c *countingClient) counts() (calls, sent map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls, sent = c.calls, c.sent
	c.calls, c.sent = map[string]int{}, map[string]int{}
	return calls, sent
}

// TestQuizzesOneRoundTrip: quizzes reads the summaries of all the quizzes
// it found in one DoMulti (one pipeline per node), the same HGETALL, ZCARD
// and SCARD per quiz that Board.Summary reads, and prints what Board.Summary
// of each gives; a quiz whose meta is not sound is read again with
// Board.Summary, and reported in the library's words while the others print.
func TestQuizzesOneRoundTrip(t *testing.T) {
	tg := newTarget(t)
	const n = 40
	for i := range n {
		var rounds [][]string
		if i%3 > 0 {
			rounds = [][]string{{"Ali", "Budi"}, {"Ali"}}
		}
		tg.quiz(fmt.Sprintf("kuis-%02d", i), fmt.Sprintf("Kuis %d", i), 2+i%4, rounds, i%2 == 0)
	}
	opts := []kuis.Option{kuis.WithNamespace(tg.ns)}
	if redistest.Target() == "cluster" {
		opts = append(opts, kuis.WithHashTag())
	}
	counting := newCountingClient(tg.client)
	store, err := kuis.New(counting, opts...)
	if err != nil {
		t.Fatal(err)
	}
	list := func() (stdout, stderr string, err error) {
		var out, errOut bytes.Buffer
		c := &cli{stdout: &out, stderr: &errOut, client: counting, store: store}
		c.g.namespace, c.g.timeout = tg.ns, time.Minute
		err = c.quizzes(tg.ctx, func(kuis.Status) bool { return true }, true)
		return out.String(), errOut.String(), err
	}
	// What Board.Summary of each quiz gives, as quizzes -json prints it.
	summaries := func() string {
		ids, err := tg.store.Quizzes(tg.ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []quizLine{}
		for _, id := range ids {
			b, err := tg.store.Board(id)
			if err != nil {
				t.Fatal(err)
			}
			if sum, err := b.Summary(tg.ctx); err == nil {
				want = append(want, quizLine{QuizID: id, Summary: sum})
			}
		}
		js, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		return string(js) + "\n"
	}

	want := summaries()
	counting.counts()
	out, errOut, err := list()
	calls, sent := counting.counts()
	if diff := cmp.Diff(want, out); err != nil || errOut != "" || diff != "" {
		t.Errorf("quizzes: %v, stderr %q (-Board.Summary +quizzes):\n%s", err, errOut, diff)
	}
	wantCalls := map[string]int{"HGETALL": 1, "ZCARD": 1, "SCARD": 1}
	wantSent := map[string]int{"HGETALL": n, "ZCARD": n, "SCARD": n}
	for name := range sent {
		if name != "HGETALL" && name != "ZCARD" && name != "SCARD" {
			delete(calls, name) // the scan's
			delete(sent, name)
		}
	}
	if diff := cmp.Diff(wantCalls, calls); diff != "" {
		t.Errorf("calls that carry each read (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantSent, sent); diff != "" {
		t.Errorf("reads sent (-want +got):\n%s", diff)
	}

	tg.raw("HSET", tg.keys("kuis-07").Meta(), "status", "rusak")
	want = summaries()
	counting.counts()
	out, errOut, err = list()
	calls, _ = counting.counts()
	if diff := cmp.Diff(want, out); !errors.Is(err, errReported) || diff != "" {
		t.Errorf("quizzes with a corrupt meta: %v (-Board.Summary +quizzes):\n%s", err, diff)
	}
	oneLine(t, "quizzes with a corrupt meta", errOut, "kuis: quizzes kuis-07: ", `field status is "rusak"`)
	if calls["HGETALL"] != 2 {
		t.Errorf("quizzes with a corrupt meta: %d calls of HGETALL, want 2: the pipeline and Board.Summary of the corrupt quiz", calls["HGETALL"])
	}
}

// BenchmarkQuizzes: kuis quizzes of 1,000 quizzes, SCAN then their
// summaries.
func BenchmarkQuizzes(b *testing.B) {
	client := redistest.Client(b)
	opts := []kuis.Option{kuis.WithNamespace(redistest.Namespace(b))}
	if redistest.Target() == "cluster" {
		opts = append(opts, kuis.WithHashTag())
	}
	store, err := kuis.New(client, opts...)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Cleanup(func() {
		if _, err := store.Purge(ctx); err != nil {
			b.Error(err)
		}
	})
	for i := range 1000 {
		meta, err := store.Meta(fmt.Sprintf("kuis-%04d", i))
		if err != nil {
			b.Fatal(err)
		}
		if err := meta.Create(ctx, "Kuis", 3); err != nil {
			b.Fatal(err)
		}
	}
	c := &cli{stdout: io.Discard, stderr: io.Discard, client: client, store: store}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.quizzes(ctx, func(kuis.Status) bool { return true }, false); err != nil {
			b.Fatal(err)
		}
	}
}
