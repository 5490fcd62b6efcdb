package kuis_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
)

// TestTakeRecapSnapshotsMetaAndBoard takes the recap of the reference session
// and compares it with what the handles read separately.
func TestTakeRecapSnapshotsMetaAndBoard(t *testing.T) {
	tests := []struct {
		name       string
		finish     bool
		wantStatus kuis.Status
	}{
		{name: "while the quiz runs", wantStatus: kuis.StatusRunning},
		{name: "after Finish", finish: true, wantStatus: kuis.StatusFinished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id, m, b := e.reference()
			if tt.finish {
				if err := m.Finish(e.ctx); err != nil {
					t.Fatal(err)
				}
			}
			standings, err := b.Standings(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			before := time.Now()
			got, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
			after := time.Now()
			if err != nil {
				t.Fatalf("TakeRecap(%q): %v", id, err)
			}
			want := kuis.Recap{
				QuizID:    id,
				Info:      kuis.Info{Title: "Kuis " + id, Questions: 3, Status: tt.wantStatus},
				Standings: standings,
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(kuis.Recap{}, "TakenAt")); diff != "" {
				t.Errorf("TakeRecap(%q) (-want +got):\n%s", id, diff)
			}
			if got.TakenAt.Before(before) || got.TakenAt.After(after) {
				t.Errorf("TakenAt = %v; want between %v and %v", got.TakenAt, before, after)
			}
		})
	}
}

// TestTakeRecapRefusals checks what TakeRecap refuses, and that a quiz with
// meta but no board yet is an empty recap, not an error.
func TestTakeRecapRefusals(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, e *env) string
		want    []kuis.Standing
		wantErr error
	}{
		{
			name: "a running quiz without answers has no standings",
			setup: func(t *testing.T, e *env) string {
				id, _, _ := e.running(3)
				return id
			},
			want: []kuis.Standing{},
		},
		{
			name:    "a quiz that does not exist",
			setup:   func(t *testing.T, e *env) string { return quizID() },
			wantErr: kuis.ErrQuizNotFound,
		},
		{
			name: "a leftover board without meta",
			setup: func(t *testing.T, e *env) string {
				id := quizID()
				e.mustRaw("ZADD", e.board(id).Keys().Board(), "10", "Ali")
				return id
			},
			wantErr: kuis.ErrQuizNotFound,
		},
		{
			name:    "an invalid quiz ID",
			setup:   func(t *testing.T, e *env) string { return "kuis:01" },
			wantErr: kuis.ErrInvalidQuizID,
		},
		{
			name: "a score of 15",
			setup: func(t *testing.T, e *env) string {
				id, _, b := e.reference()
				e.mustRaw("ZINCRBY", b.Keys().Board(), "5", "Dewi")
				return id
			},
			wantErr: kuis.ErrCorrupt,
		},
		{
			name: "a board of the wrong type",
			setup: func(t *testing.T, e *env) string {
				id, _, b := e.running(3)
				e.mustRaw("SET", b.Keys().Board(), "Ali 10")
				return id
			},
			wantErr: kuis.ErrCorrupt,
		},
		{
			name: "meta of the wrong type",
			setup: func(t *testing.T, e *env) string {
				id := quizID()
				e.mustRaw("SET", e.meta(id).Keys().Meta(), "Kuis")
				return id
			},
			wantErr: kuis.ErrCorrupt,
		},
		{
			name: "an unknown status",
			setup: func(t *testing.T, e *env) string {
				id, m, _ := e.reference()
				e.mustRaw("HSET", m.Keys().Meta(), "status", "ditunda")
				return id
			},
			wantErr: kuis.ErrCorrupt,
		},
		{
			name: "meta without jumlah_soal",
			setup: func(t *testing.T, e *env) string {
				id, m, _ := e.reference()
				e.mustRaw("HDEL", m.Keys().Meta(), "jumlah_soal")
				return id
			},
			wantErr: kuis.ErrCorrupt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			id := tt.setup(t, e)
			got, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("TakeRecap(%q) = %+v, %v; want error %v", id, got, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got.Standings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Standings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecapWriteCSVReferenceBytes writes the reference board's recap and
// compares it byte for byte with the format the issue specifies.
func TestRecapWriteCSVReferenceBytes(t *testing.T) {
	e := newEnv(t)
	id, m, _ := e.reference()
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	recap, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := recap.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	want := "rank,competition_rank,participant,score,correct_answers\n" +
		"1,1,Citra,30,3\n" +
		"2,1,Ali,30,3\n" +
		"3,3,Budi,20,2\n" +
		"4,4,Dewi,10,1\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteCSV (-want +got):\n%s", diff)
	}
}

// TestRecapWriteCSVRows writes recaps built in memory and reads them back
// with encoding/csv: names that need quoting survive, competition ranks
// follow equal scores.
func TestRecapWriteCSVRows(t *testing.T) {
	st := func(rank int, name string, score int64) kuis.Standing {
		return kuis.Standing{Rank: rank, Participant: name, Score: score}
	}
	tests := []struct {
		name      string
		standings []kuis.Standing
		want      [][]string
	}{
		{
			name: "no standings: the header alone",
			want: [][]string{kuis.CSVHeader},
		},
		{
			name: "names with commas, quotes, semicolons and non-ASCII",
			standings: []kuis.Standing{
				st(1, `Siti, A.`, 20),
				st(2, `Budi "Bud" Santoso`, 10),
				st(3, `"Ketut"`, 0),
				st(4, `Ñoman; Śukarta`, 0),
			},
			want: [][]string{
				kuis.CSVHeader,
				{"1", "1", `Siti, A.`, "20", "2"},
				{"2", "2", `Budi "Bud" Santoso`, "10", "1"},
				{"3", "3", `"Ketut"`, "0", "0"},
				{"4", "3", `Ñoman; Śukarta`, "0", "0"},
			},
		},
		{
			name: "ties of three then two",
			standings: []kuis.Standing{
				st(1, "Gita", 30), st(2, "Fajar", 30), st(3, "Eko", 30),
				st(4, "Dewi", 20), st(5, "Citra", 20), st(6, "Budi", 10),
			},
			want: [][]string{
				kuis.CSVHeader,
				{"1", "1", "Gita", "30", "3"}, {"2", "1", "Fajar", "30", "3"}, {"3", "1", "Eko", "30", "3"},
				{"4", "4", "Dewi", "20", "2"}, {"5", "4", "Citra", "20", "2"}, {"6", "6", "Budi", "10", "1"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := kuis.Recap{QuizID: "kuis-01", Standings: tt.standings}
			if err := r.WriteCSV(&buf); err != nil {
				t.Fatal(err)
			}
			got, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatalf("reading back %q: %v", buf.String(), err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("WriteCSV read back (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecapWriteCSVNamesFromTheServer records answers under names that need
// quoting and checks they come back intact through recap and CSV.
func TestRecapWriteCSVNamesFromTheServer(t *testing.T) {
	e := newEnv(t)
	id, _, b := e.running(3)
	names := map[string]int{`Siti, A.`: 3, `Budi "Bud"`: 2, `Putu: 8B`: 1}
	for name, n := range names {
		for q := 1; q <= n; q++ {
			if _, err := b.RecordAnswer(e.ctx, name, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	rows := e.csvRows(id)
	got := map[string]int{}
	for _, row := range rows[1:] {
		n, err := strconv.Atoi(row[4])
		if err != nil {
			t.Fatalf("row %q: %v", row, err)
		}
		got[row[2]] = n
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("participants and correct answers read back (-want +got):\n%s", diff)
	}
}

// failingWriter refuses every write, as a full disk would.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// TestRecapWriteCSVReportsWriteErrors proves a failed write is not lost.
func TestRecapWriteCSVReportsWriteErrors(t *testing.T) {
	errDisk := errors.New("disk full")
	r := kuis.Recap{Standings: []kuis.Standing{{Rank: 1, Participant: "Ali", Score: 10}}}
	if err := r.WriteCSV(failingWriter{errDisk}); !errors.Is(err, errDisk) {
		t.Errorf("WriteCSV to a failing writer = %v; want %v", err, errDisk)
	}
}

// sortedKeys returns the keys of a decoded JSON object, sorted.
func sortedKeys(t *testing.T, v any) []string {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v (%T) is not a JSON object", v, v)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestRecapJSONShape checks the wire names of a marshalled recap and that it
// unmarshals back to the same value.
func TestRecapJSONShape(t *testing.T) {
	e := newEnv(t)
	id, _, _ := e.reference()
	recap, err := kuis.TakeRecap(e.ctx, e.client, id, e.opts...)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(recap)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"info", "quiz_id", "standings", "taken_at"}, sortedKeys(t, doc)); diff != "" {
		t.Errorf("recap keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"questions", "status", "title"}, sortedKeys(t, doc["info"])); diff != "" {
		t.Errorf("info keys (-want +got):\n%s", diff)
	}
	standings, ok := doc["standings"].([]any)
	if !ok || len(standings) != 4 {
		t.Fatalf("standings = %v; want an array of 4", doc["standings"])
	}
	for i, s := range standings {
		if diff := cmp.Diff([]string{"participant", "rank", "score"}, sortedKeys(t, s)); diff != "" {
			t.Errorf("standings[%d] keys (-want +got):\n%s", i, diff)
		}
	}
	wantValues := map[string]any{"quiz_id": id, "status": "berjalan", "questions": 3.0, "first": "Citra"}
	gotValues := map[string]any{
		"quiz_id":   doc["quiz_id"],
		"status":    doc["info"].(map[string]any)["status"],
		"questions": doc["info"].(map[string]any)["questions"],
		"first":     standings[0].(map[string]any)["participant"],
	}
	if diff := cmp.Diff(wantValues, gotValues); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if s, _ := doc["taken_at"].(string); s == "" {
		t.Errorf("taken_at = %v; want an RFC 3339 string", doc["taken_at"])
	} else if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		t.Errorf("taken_at %q: %v", s, err)
	}
	var back kuis.Recap
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	// cmp compares time.Time with its Equal method, which ignores the
	// monotonic reading JSON cannot carry.
	if diff := cmp.Diff(recap, back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}
