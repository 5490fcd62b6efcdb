package kuis

import (
	"errors"
	"sync/atomic"
)

// Stats are a Store's counters since New, safe to read at any time, in the
// manner of database/sql's DBStats: plain numbers an operator exports (expvar,
// OpenTelemetry) and turns into rates.
//
// Every answer given to RecordAnswer or RecordAnswers is counted once, by its
// outcome as returned to the caller: Counted, Duplicates, one of Refused,
// NotReplicated, NotSent or Failed; so their sum is the answers submitted.
// NotSent and Failed differ in what is known: a NotSent answer never reached
// the server (its caller's ctx ended before it was sent, or while it waited
// for a run, or no connection could be made), so it was not counted and a
// retry is needed; a Failed one was sent and its outcome is unknown (the ctx
// ended or the connection broke while the server had it), so it may have been
// counted and a retry answers Duplicate if it was. The rates to alert on:
// refusals per answer, sum(Refused) / (all outcomes); the mean run size,
// RunAnswers / Runs (near 1: callers answer one at a time; near 32: runs are
// full and answers queue); duplicates per counted answer, Duplicates / Counted
// (double taps and retries after lost replies); NotSent and Failed, which
// should stay near 0 (deadlines too short, or the server unreachable);
// NotReplicated, 0 without WithReplicas and near 0 with it (a replica down or
// behind, or a timeout too short). Queued and Readers are gauges: how many
// answers wait for a run, how many screens follow a feed, at the moment of the
// call.
type Stats struct {
	Counted       int64    `json:"counted"`        // answers counted (new pairs)
	Duplicates    int64    `json:"duplicates"`     // answers that were repeats (Duplicate: true), a repeat within one RecordAnswers included
	Refused       Refusals `json:"refused"`        // answers refused, by reason, before any I/O or by the server
	NotReplicated int64    `json:"not_replicated"` // answers applied on the primary (counted or repeats) whose call returned ErrNotReplicated
	NotSent       int64    `json:"not_sent"`       // answers that never reached the server: not counted
	Failed        int64    `json:"failed"`         // answers sent whose call ended by its ctx or the connection: outcome unknown
	Runs          int64    `json:"runs"`           // record-script runs sent (RecordAnswer's shared runs and RecordAnswers' chunks)
	RunAnswers    int64    `json:"run_answers"`    // answers those runs carried
	Queued        int64    `json:"queued"`         // RecordAnswer calls waiting for a run, now
	Readers       int64    `json:"readers"`        // Events and Live iterators running, now
	FeedReads     int64    `json:"feed_reads"`     // XREADs Events sent: its own catch-up reads and the shared blocking reads
	Events        int64    `json:"events"`         // events Events yielded, to all its iterators together
	Refreshes     int64    `json:"refreshes"`      // boards Live yielded
	Corrections   int64    `json:"corrections"`    // board entries Repair changed
}

// Refusals counts the answers refused, by the error each was refused with.
type Refusals struct {
	Finished           int64 `json:"finished"`            // ErrQuizFinished
	NotFound           int64 `json:"not_found"`           // ErrQuizNotFound
	InvalidQuestion    int64 `json:"invalid_question"`    // ErrInvalidQuestion
	InvalidParticipant int64 `json:"invalid_participant"` // ErrInvalidParticipant
	Corrupt            int64 `json:"corrupt"`             // ErrCorrupt
	Forbidden          int64 `json:"forbidden"`           // ErrForbidden
}

// Stats returns the Store's counters. It does no I/O; the counters are
// read one by one, so a Stats taken while answers are counted may be a few
// answers apart between fields.
func (s *Store) Stats() Stats {
	c := &s.counts
	return Stats{
		Counted:    c.counted.Load(),
		Duplicates: c.duplicates.Load(),
		Refused: Refusals{
			Finished:           c.refused[refusedFinished].Load(),
			NotFound:           c.refused[refusedNotFound].Load(),
			InvalidQuestion:    c.refused[refusedInvalidQuestion].Load(),
			InvalidParticipant: c.refused[refusedInvalidParticipant].Load(),
			Corrupt:            c.refused[refusedCorrupt].Load(),
			Forbidden:          c.refused[refusedForbidden].Load(),
		},
		NotReplicated: c.notReplicated.Load(),
		NotSent:       c.notSent.Load(),
		Failed:        c.failed.Load(),
		Runs:          c.runs.Load(),
		RunAnswers:    c.runAnswers.Load(),
		Queued:        int64(s.rec.Queued()),
		Readers:       c.readers.Load(),
		FeedReads:     c.feedReads.Load(),
		Events:        c.events.Load(),
		Refreshes:     c.refreshes.Load(),
		Corrections:   c.corrections.Load(),
	}
}

// counters are what Stats reads, updated where the library sees each event.
type counters struct {
	counted, duplicates        atomic.Int64
	notSent, failed            atomic.Int64
	notReplicated              atomic.Int64
	refused                    [len(refusals)]atomic.Int64
	runs, runAnswers           atomic.Int64
	readers, feedReads, events atomic.Int64
	refreshes, corrections     atomic.Int64
}

// The refusals in Refusals' order, and the error each counts.
const (
	refusedFinished = iota
	refusedNotFound
	refusedInvalidQuestion
	refusedInvalidParticipant
	refusedCorrupt
	refusedForbidden
)

var refusals = [...]error{ErrQuizFinished, ErrQuizNotFound, ErrInvalidQuestion, ErrInvalidParticipant, ErrCorrupt, ErrForbidden}

// answered counts one answer's outcome, as returned to its caller.
func (c *counters) answered(a Answer, err error) {
	switch {
	case err == nil && a.Duplicate:
		c.duplicates.Add(1)
	case err == nil:
		c.counted.Add(1)
	case errors.Is(err, ErrNotReplicated):
		c.notReplicated.Add(1)
	default:
		for i, r := range refusals {
			if errors.Is(err, r) {
				c.refused[i].Add(1)
				return
			}
		}
		if unsent(err) {
			c.notSent.Add(1)
			return
		}
		c.failed.Add(1)
	}
}

// ran counts one record-script run of n answers.
func (c *counters) ran(n int) {
	c.runs.Add(1)
	c.runAnswers.Add(int64(n))
}
