package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// Result is one run's measurements, the shape of the JSON line: ops/s unless
// the name says otherwise (_us microseconds at p50, _p99_us at p99, _s
// seconds, _ms milliseconds). Every record workload writes a fresh (participant, question)
// pair per call.
type Result struct {
	LimitOps              float64 `json:"limit_ops"`
	RawZincrby64          float64 `json:"raw_zincrby_64"`
	RecordAnswer1         float64 `json:"record_answer_1"`
	RecordAnswer64        float64 `json:"record_answer_64"`
	RecordAnswer64Quizzes float64 `json:"record_answer_64_quizzes"`
	RecordAnswerClasses   float64 `json:"record_answer_classes"`
	RecordAnswer64P99us   float64 `json:"record_answer_64_p99_us"`
	RawZincrby64P99us     float64 `json:"raw_zincrby_64_p99_us"`
	GoredisNaive64        float64 `json:"goredis_naive_64"`
	GoredisScript64       float64 `json:"goredis_script_64"`
	GoredisScript1        float64 `json:"goredis_script_1"`
	RecordBatch           float64 `json:"record_batch"`
	RecordRunMaxUs        float64 `json:"record_run_max_us"`
	RecordRunsOver1ms     int     `json:"record_runs_over_1ms"`
	StandingsUncached64   float64 `json:"standings_uncached_64"`
	StandingsCached64     float64 `json:"standings_cached_64"`
	Standing1kP50us       float64 `json:"standing_1k_p50_us"`
	Standing1mP50us       float64 `json:"standing_1m_p50_us"`
	StandingTime1kP50us   float64 `json:"standing_time_1k_p50_us"`
	StandingTime1mP50us   float64 `json:"standing_time_1m_p50_us"`
	Page1mP50us           float64 `json:"page_1m_p50_us"`
	Around1mP50us         float64 `json:"around_1m_p50_us"`
	Purge1mS              float64 `json:"purge_1m_s"`
	PurgeMaxPingMs        float64 `json:"purge_max_ping_ms"`

	Ratios Ratios `json:"ratios"`
}

// Ratios compare workloads measured interleaved in one run, so that the
// machine's drift cancels out. A ratio whose denominator was not measured is 0.
type Ratios struct {
	GateCost     float64 `json:"record_answer_64/raw_zincrby_64"`
	QuizzesCost  float64 `json:"record_answer_64_quizzes/raw_zincrby_64"`
	ClassesCost  float64 `json:"record_answer_classes/raw_zincrby_64"`
	P99Cost      float64 `json:"record_answer_64_p99_us/raw_zincrby_64_p99_us"`
	VsScript64   float64 `json:"record_answer_64/goredis_script_64"`
	VsNaive64    float64 `json:"record_answer_64/goredis_naive_64"`
	VsScript1    float64 `json:"record_answer_1/goredis_script_1"`
	BatchVsLimit float64 `json:"record_batch/limit_ops"`
	CacheGain    float64 `json:"standings_cached_64/standings_uncached_64"`
	Growth       float64 `json:"standing_1m_p50_us/standing_1k_p50_us"`
	TimeGrowth   float64 `json:"standing_time_1m_p50_us/standing_time_1k_p50_us"`
}

// target is one of the library's performance goals, checked against a
// measured value.
type target struct {
	name string
	got  float64
	min  bool // true: got must be >= want; false: got must be <= want
	want float64
}

func (t target) holds() bool {
	if t.min {
		return t.got >= t.want
	}
	return t.got <= t.want
}

// computeRatios fills r.Ratios from the measurements.
func (r *Result) computeRatios() {
	r.Ratios = Ratios{
		GateCost:     ratio(r.RecordAnswer64, r.RawZincrby64),
		QuizzesCost:  ratio(r.RecordAnswer64Quizzes, r.RawZincrby64),
		ClassesCost:  ratio(r.RecordAnswerClasses, r.RawZincrby64),
		P99Cost:      ratio(r.RecordAnswer64P99us, r.RawZincrby64P99us),
		VsScript64:   ratio(r.RecordAnswer64, r.GoredisScript64),
		VsNaive64:    ratio(r.RecordAnswer64, r.GoredisNaive64),
		VsScript1:    ratio(r.RecordAnswer1, r.GoredisScript1),
		BatchVsLimit: ratio(r.RecordBatch, r.LimitOps),
		CacheGain:    ratio(r.StandingsCached64, r.StandingsUncached64),
		Growth:       ratio(r.Standing1mP50us, r.Standing1kP50us),
		TimeGrowth:   ratio(r.StandingTime1mP50us, r.StandingTime1kP50us),
	}
}

// targets lists the goals with this run's values. Why each: coalesced
// answers should cost little more than the bare write they guard, on one
// quiz or spread over a school's many, without making callers wait longer; rueidis'
// auto-pipelining should beat a pooled client running the same script, and
// one round trip beat the naive several; a lone caller should lose nothing
// to coalescing; a batch should come near Redis's own pipelined ceiling,
// and no run of the record script hold the server for a millisecond; the
// cache should spare the server nearly every read; a point read is
// O(log N), so a thousand times the members may cost little more, in either
// tie order; and Purge must never stall other clients.
func (r *Result) targets() []target {
	return []target{
		{"record_answer_64 / raw_zincrby_64", r.Ratios.GateCost, true, 0.9},
		{"record_answer_64_quizzes / raw_zincrby_64", r.Ratios.QuizzesCost, true, 0.8},
		{"record_answer_classes / raw_zincrby_64", r.Ratios.ClassesCost, true, 0.8},
		{"record_answer_64_p99_us / raw_zincrby_64_p99_us", r.Ratios.P99Cost, false, 1.5},
		{"record_answer_64 / goredis_script_64", r.Ratios.VsScript64, true, 2},
		{"record_answer_64 / goredis_naive_64", r.Ratios.VsNaive64, true, 3},
		{"record_answer_1 / goredis_script_1", r.Ratios.VsScript1, true, 0.95},
		{"record_batch / limit_ops", r.Ratios.BatchVsLimit, true, 0.5},
		{"record_run_max_us", r.RecordRunMaxUs, false, 1000},
		{"standings_cached_64 / standings_uncached_64", r.Ratios.CacheGain, true, 10},
		{"standing_1m_p50_us / standing_1k_p50_us", r.Ratios.Growth, false, 3},
		{"standing_time_1m_p50_us / standing_time_1k_p50_us", r.Ratios.TimeGrowth, false, 3},
		{"purge_max_ping_ms", r.PurgeMaxPingMs, false, 20},
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return round(a/b, 3)
}

// round keeps digits decimals, so the JSON line stays readable.
func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// writeJSON writes r (a Result, a CPU, a Memory, ...) as one line of JSON.
func writeJSON(w io.Writer, r any) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// writeTable writes the measurements and the targets for a human reader.
func writeTable(w io.Writer, r Result, labels map[string]string) {
	rows := []struct {
		name string
		val  float64
		unit string
	}{
		{"limit_ops", r.LimitOps, "ops/s"},
		{"raw_zincrby_64", r.RawZincrby64, "ops/s"},
		{"record_answer_1", r.RecordAnswer1, "ops/s"},
		{"record_answer_64", r.RecordAnswer64, "ops/s"},
		{"record_answer_64_quizzes", r.RecordAnswer64Quizzes, "ops/s"},
		{"record_answer_classes", r.RecordAnswerClasses, "ops/s"},
		{"record_answer_64_p99_us", r.RecordAnswer64P99us, "µs"},
		{"raw_zincrby_64_p99_us", r.RawZincrby64P99us, "µs"},
		{"goredis_naive_64", r.GoredisNaive64, "ops/s"},
		{"goredis_script_64", r.GoredisScript64, "ops/s"},
		{"goredis_script_1", r.GoredisScript1, "ops/s"},
		{"record_batch", r.RecordBatch, "answers/s"},
		{"record_run_max_us", r.RecordRunMaxUs, "µs"},
		{"record_runs_over_1ms", float64(r.RecordRunsOver1ms), "runs"},
		{"standings_uncached_64", r.StandingsUncached64, "ops/s"},
		{"standings_cached_64", r.StandingsCached64, "ops/s"},
		{"standing_1k_p50_us", r.Standing1kP50us, "µs"},
		{"standing_1m_p50_us", r.Standing1mP50us, "µs"},
		{"standing_time_1k_p50_us", r.StandingTime1kP50us, "µs"},
		{"standing_time_1m_p50_us", r.StandingTime1mP50us, "µs"},
		{"page_1m_p50_us", r.Page1mP50us, "µs"},
		{"around_1m_p50_us", r.Around1mP50us, "µs"},
		{"purge_1m_s", r.Purge1mS, "s"},
		{"purge_max_ping_ms", r.PurgeMaxPingMs, "ms"},
	}
	fmt.Fprintf(w, "%-24s %14s  %-9s %s\n", "workload", "value", "unit", "what")
	fmt.Fprintln(w, strings.Repeat("-", 100))
	for _, row := range rows {
		fmt.Fprintf(w, "%-24s %14s  %-9s %s\n", row.name, format(row.val), row.unit, labels[row.name])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-52s %10s  %-8s %s\n", "target", "got", "want", "")
	fmt.Fprintln(w, strings.Repeat("-", 80))
	for _, t := range r.targets() {
		op, verdict := ">=", "ok"
		if !t.min {
			op = "<="
		}
		if !t.holds() {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "%-52s %10s  %-8s %s\n", t.name, format(t.got), op+" "+format(t.want), verdict)
	}
	fmt.Fprintln(w)
}

// format prints large values without decimals and small ones with up to three.
func format(x float64) string {
	if math.Abs(x) >= 1000 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}
