package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/kuisboard/kuis"
)

// all runs every workload and returns the measurements and a one-line
// description of each. Workloads whose ratio is a target run interleaved
// (compare), on the same server in the same minute.
func (r *runner) all(cfg config) (Result, map[string]string, error) {
	var res Result
	labels := map[string]string{
		"limit_ops":                "redis-benchmark -c 50 -P 16 -r 100000 ZINCRBY: Redis's own ceiling here",
		"raw_zincrby_64":           "bare rueidis ZINCRBY, 64 goroutines",
		"record_answer_64":         "Board.RecordAnswer (coalesced atomic runs), a new pair per call, 64 goroutines, one quiz",
		"record_answer_64_quizzes": fmt.Sprintf("the same, 64 goroutines over %d quizzes", spreadQuizzes),
		"record_answer_classes":    fmt.Sprintf("the same, each call a random one of %d quizzes of %d participants", schoolClasses, classSeats),
		"record_answer_64_p99_us":  "record_answer_64's p99 call latency",
		"raw_zincrby_64_p99_us":    "raw_zincrby_64's p99 call latency",
		"goredis_script_64":        "go-redis v9 running RecordAnswer's script (EVALSHA), 64 goroutines",
		"goredis_naive_64":         "go-redis v9: HGET status, SADD pair, ZINCRBY if new (3 round trips), 64 goroutines",
		"record_answer_1":          "Board.RecordAnswer, 1 goroutine, same client after the 64",
		"goredis_script_1":         "go-redis v9, RecordAnswer's script, 1 goroutine",
		"record_batch":             fmt.Sprintf("Board.RecordAnswers, batches of %d new answers, %d goroutines", batchSize, batchWorkers),
		"record_run_max_us":        "the longest run of the record script in the record workloads above (SLOWLOG wall time; 0: none took 250 µs)",
		"record_runs_over_1ms":     "how many of those runs took over 1 ms",
		"standings_uncached_64":    "Board.Standings of 30 members, 64 goroutines",
		"standings_cached_64":      "the same with WithClientCache(time.Minute)",
		"standing_1k_p50_us":       "Board.Standing of a random member, board of 1,000, p50",
		"standing_1m_p50_us":       fmt.Sprintf("Board.Standing of a random member, board of %d, p50", cfg.bigMembers),
		"standing_time_1k_p50_us":  "the same, WithTies(TiesByTime) (order set), board of 1,000, p50",
		"standing_time_1m_p50_us":  fmt.Sprintf("the same, WithTies(TiesByTime), board of %d, p50", cfg.bigMembers),
		"page_1m_p50_us":           fmt.Sprintf("Board.Page(random offset, %d), same board, p50", pageLimit),
		"around_1m_p50_us":         fmt.Sprintf("Board.Around(random member, %d), same board, p50", aroundRadius),
		"purge_max_ping_ms":        "worst PING round trip of another client during that Purge (one every ~1 ms)",
	}

	rec, err := r.quiz("record", answerQuestions)
	if err != nil {
		return res, labels, err
	}
	if _, err := r.quiz("goredis", answerQuestions); err != nil {
		return res, labels, err
	}
	gr, err := r.store.Keys("goredis")
	if err != nil {
		return res, labels, err
	}
	rdb := newGoredis(r.addr)
	defer rdb.Close()
	spread := make([]*kuis.Board, spreadQuizzes)
	for i := range spread {
		if spread[i], err = r.quiz(fmt.Sprintf("spread-%02d", i), answerQuestions); err != nil {
			return res, labels, err
		}
	}
	school := make([]*kuis.Board, schoolClasses)
	for i := range school {
		if school[i], err = r.quiz(fmt.Sprintf("class-%03d", i), answerQuestions); err != nil {
			return res, labels, err
		}
	}
	slowest, err := r.slowRuns(250)
	if err != nil {
		return res, labels, err
	}
	raw, record := r.rawZincrby(r.client, 64).timedCalls(), r.recordAnswer(rec, 64).timedCalls()
	ops, err := r.compare(raw, record, r.recordAnswerQuizzes(spread, 64), r.recordAnswerClasses(school, 64),
		r.goredisScript(rdb, gr, 64), r.goredisNaive(rdb, gr, 64))
	if err != nil {
		return res, labels, err
	}
	res.RawZincrby64, res.RecordAnswer64, res.RecordAnswer64Quizzes, res.RecordAnswerClasses = ops[0], ops[1], ops[2], ops[3]
	res.GoredisScript64, res.GoredisNaive64 = ops[4], ops[5]
	res.RawZincrby64P99us, res.RecordAnswer64P99us = raw.lat.percentileUs(99), record.lat.percentileUs(99)

	if ops, err = r.compare(r.recordAnswer(rec, 1), r.goredisScript(rdb, gr, 1)); err != nil {
		return res, labels, err
	}
	res.RecordAnswer1, res.GoredisScript1 = ops[0], ops[1]

	batch, err := r.quiz("batch", answerQuestions)
	if err != nil {
		return res, labels, err
	}
	limitKey := r.rawKey("limit")
	limit := func(d time.Duration) (float64, error) {
		n := cfg.limitRequests / rounds
		if d == r.warm {
			n /= 4
		}
		ops, err := runLimit(r.ctx, r.addr, limitKey, n)
		if errors.Is(err, errNoBenchmark) {
			return 0, nil
		}
		return ops, err
	}
	if _, err := runLimit(r.ctx, r.addr, limitKey, 1); errors.Is(err, errNoBenchmark) {
		r.logf("limit_ops: %v; reporting 0", err)
	}
	ops, err = r.compareFns([]string{"limit_ops", "record_batch"}, []func(time.Duration) (float64, error){
		limit, r.recordBatch(batch, batchWorkers).slice})
	if err != nil {
		return res, labels, err
	}
	res.LimitOps, res.RecordBatch = ops[0], ops[1]
	if res.RecordRunMaxUs, res.RecordRunsOver1ms, err = slowest(); err != nil {
		return res, labels, err
	}

	const small = 30
	plain, err := r.quiz("standings", 1)
	if err != nil {
		return res, labels, err
	}
	if err := fillBoard(r.ctx, plain, small); err != nil {
		return res, labels, err
	}
	cached, err := r.cached.Board("standings")
	if err != nil {
		return res, labels, err
	}
	if ops, err = r.compare(r.standings("standings_uncached", plain, 64, small), r.standings("standings_cached", cached, 64, small)); err != nil {
		return res, labels, err
	}
	res.StandingsUncached64, res.StandingsCached64 = ops[0], ops[1]

	b1k, t1k, err := r.buildBoard("big-1k", 1000)
	if err != nil {
		return res, labels, err
	}
	b1m, t1m, err := r.buildBoard("big-1m", cfg.bigMembers)
	if err != nil {
		return res, labels, err
	}
	p50s, err := r.p50s([]string{"standing_1k", "standing_1m", "standing_time_1k", "standing_time_1m"},
		r.standingRead(b1k, 1000), r.standingRead(b1m, cfg.bigMembers), r.standingRead(t1k, 1000), r.standingRead(t1m, cfg.bigMembers))
	if err != nil {
		return res, labels, err
	}
	res.Standing1kP50us, res.Standing1mP50us, res.StandingTime1kP50us, res.StandingTime1mP50us = p50s[0], p50s[1], p50s[2], p50s[3]
	if res.Page1mP50us, err = r.page("page_1m", b1m, cfg.bigMembers); err != nil {
		return res, labels, err
	}
	if res.Around1mP50us, err = r.around("around_1m", b1m, cfg.bigMembers); err != nil {
		return res, labels, err
	}

	if err := r.fillKeys(cfg.purgeKeys); err != nil {
		return res, labels, err
	}
	secs, worst, deleted, err := r.purge()
	if err != nil {
		return res, labels, err
	}
	res.Purge1mS, res.PurgeMaxPingMs = secs, worst
	labels["purge_1m_s"] = fmt.Sprintf("Store.Purge of the namespace: %d keys (%d filler keys and the run's boards)", deleted, cfg.purgeKeys)
	return res, labels, nil
}

// spreadQuizzes is how many quizzes record_answer_64_quizzes spreads its
// 64 goroutines over: a classroom server's day.
const spreadQuizzes = 30

// batchWorkers is record_batch's concurrency: enough for the client to encode
// one batch while the server runs another.
const batchWorkers = 4
