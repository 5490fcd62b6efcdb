// Command otelstats exports a kuis Store's Stats as OpenTelemetry metrics:
// observable counters for the running totals and gauges for the queue and
// the readers, read from Store.Stats in one callback at each collection. It
// lives in a module of its own, so that importers of kuis never pull
// OpenTelemetry.
//
// Run it with go run . (an in-process miniredis) or go run . -addr
// 127.0.0.1:6379: it answers a few questions and prints what a reader
// collects.
package main

import (
	"context"
	"errors"

	"github.com/kuisboard/kuis"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Register makes meter report s.Stats(): kuis.answers (by outcome: counted,
// duplicate, refused_<reason>, failed), kuis.runs, kuis.run.answers,
// kuis.feed.reads, kuis.events, kuis.refreshes and kuis.corrections as
// counters, kuis.queued and kuis.readers as gauges. Unregister the returned
// registration when the Store is no longer used.
func Register(meter metric.Meter, s *kuis.Store) (metric.Registration, error) {
	var (
		observed []metric.Observable
		errs     []error
	)
	counter := func(name, unit, desc string) metric.Int64ObservableCounter {
		c, err := meter.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		observed, errs = append(observed, c), append(errs, err)
		return c
	}
	gauge := func(name, unit, desc string) metric.Int64ObservableGauge {
		g, err := meter.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		observed, errs = append(observed, g), append(errs, err)
		return g
	}
	answers := counter("kuis.answers", "{answer}", "Answers given to RecordAnswer and RecordAnswers, by outcome")
	runs := counter("kuis.runs", "{run}", "Record-script runs sent")
	runAnswers := counter("kuis.run.answers", "{answer}", "Answers the record-script runs carried")
	feedReads := counter("kuis.feed.reads", "{read}", "XREADs the feeds sent")
	events := counter("kuis.events", "{event}", "Events the feeds yielded")
	refreshes := counter("kuis.refreshes", "{board}", "Boards Live yielded")
	corrections := counter("kuis.corrections", "{entry}", "Board entries Repair changed")
	queued := gauge("kuis.queued", "{answer}", "Answers waiting for a run")
	readers := gauge("kuis.readers", "{reader}", "Events and Live iterators running")
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	outcome := func(name string) metric.ObserveOption {
		return metric.WithAttributes(attribute.String("outcome", name))
	}
	return meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := s.Stats()
		r := st.Refused
		for name, n := range map[string]int64{
			"counted": st.Counted, "duplicate": st.Duplicates, "not_replicated": st.NotReplicated, "failed": st.Failed,
			"refused_finished": r.Finished, "refused_not_found": r.NotFound,
			"refused_invalid_question": r.InvalidQuestion, "refused_invalid_participant": r.InvalidParticipant,
			"refused_corrupt": r.Corrupt, "refused_forbidden": r.Forbidden,
		} {
			o.ObserveInt64(answers, n, outcome(name))
		}
		o.ObserveInt64(runs, st.Runs)
		o.ObserveInt64(runAnswers, st.RunAnswers)
		o.ObserveInt64(feedReads, st.FeedReads)
		o.ObserveInt64(events, st.Events)
		o.ObserveInt64(refreshes, st.Refreshes)
		o.ObserveInt64(corrections, st.Corrections)
		o.ObserveInt64(queued, st.Queued)
		o.ObserveInt64(readers, st.Readers)
		return nil
	}, observed...)
}
