package main

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJSONLineFields pins the JSON line's shape, which scripts comparing runs
// read: every field, spelled exactly, and nothing else at top level but the
// ratios.
func TestJSONLineFields(t *testing.T) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, Result{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("writeJSON wrote %q, want exactly one line", out)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	want := []string{"around_1m_p50_us", "goredis_naive_64", "goredis_script_1", "goredis_script_64",
		"limit_ops", "page_1m_p50_us", "purge_1m_s", "purge_max_ping_ms", "ratios", "raw_zincrby_64",
		"raw_zincrby_64_p99_us", "record_answer_1", "record_answer_64", "record_answer_64_p99_us",
		"record_answer_64_quizzes", "record_answer_classes", "record_batch", "record_run_max_us", "record_runs_over_1ms", "standing_1k_p50_us",
		"standing_1m_p50_us", "standing_time_1k_p50_us", "standing_time_1m_p50_us", "standings_cached_64",
		"standings_uncached_64"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON fields (-want +got):\n%s", diff)
	}
}

func TestRatiosAndTargets(t *testing.T) {
	r := Result{
		LimitOps: 500000, RawZincrby64: 100000, RecordAnswer64: 90000, RecordAnswer1: 15000,
		GoredisNaive64: 20000, GoredisScript64: 40000, GoredisScript1: 20000, RecordBatch: 250000,
		StandingsUncached64: 50000, StandingsCached64: 400000, Standing1kP50us: 40, Standing1mP50us: 60,
		PurgeMaxPingMs: 25, StandingTime1kP50us: 40, StandingTime1mP50us: 160,
		RecordAnswer64Quizzes: 85000, RecordAnswerClasses: 70000, RecordAnswer64P99us: 2000, RawZincrby64P99us: 1000, RecordRunMaxUs: 1200,
	}
	r.computeRatios()
	want := Ratios{GateCost: 0.9, QuizzesCost: 0.85, ClassesCost: 0.7, P99Cost: 2, VsScript64: 2.25, VsNaive64: 4.5, VsScript1: 0.75,
		BatchVsLimit: 0.5, CacheGain: 8, Growth: 1.5, TimeGrowth: 4}
	if diff := cmp.Diff(want, r.Ratios); diff != "" {
		t.Errorf("ratios (-want +got):\n%s", diff)
	}
	missed := map[string]bool{}
	for _, tg := range r.targets() {
		if !tg.holds() {
			missed[tg.name] = true
		}
	}
	wantMissed := map[string]bool{
		"record_answer_classes / raw_zincrby_64":            true,
		"record_answer_64_p99_us / raw_zincrby_64_p99_us":   true,
		"record_answer_1 / goredis_script_1":                true,
		"standings_cached_64 / standings_uncached_64":       true,
		"purge_max_ping_ms":                                 true,
		"record_run_max_us":                                 true,
		"standing_time_1m_p50_us / standing_time_1k_p50_us": true,
	}
	if diff := cmp.Diff(wantMissed, missed); diff != "" {
		t.Errorf("missed targets (-want +got):\n%s", diff)
	}
}

func TestRatioOfUnmeasuredIsZero(t *testing.T) {
	if got := ratio(5, 0); got != 0 {
		t.Errorf("ratio(5, 0) = %v, want 0", got)
	}
}
