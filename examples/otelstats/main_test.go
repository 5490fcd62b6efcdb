package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// TestRegisterReportsStats plays a small quiz, follows its feed and reads the
// metrics back through an OpenTelemetry reader: each is the Store's Stats
// field, and the readers gauge counts the feed while it runs. It runs on a
// miniredis, or on REDIS_ADDR when set.
func TestRegisterReportsStats(t *testing.T) {
	client, stop, err := connect(os.Getenv("REDIS_ADDR"))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store, err := kuis.New(client, kuis.WithNamespace(fmt.Sprintf("otelstats-test-%d", time.Now().UnixNano())))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Purge(context.Background()) //nolint:errcheck // best effort: the test's keys
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.Background()) //nolint:errcheck // nothing to flush: a manual reader
	reg, err := Register(provider.Meter("test"), store)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Unregister() //nolint:errcheck // the provider shuts down next

	if err := answerAFewQuestions(ctx, store); err != nil {
		t.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range board.Events(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		lines, err := collect(ctx, reader)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(lines, "kuis.readers 1") {
			t.Errorf("while one feed runs: %q, want kuis.readers 1", lines)
		}
	}
	got, err := collect(ctx, reader)
	if err != nil {
		t.Fatal(err)
	}
	st := store.Stats()
	want := []string{
		"kuis.answers{outcome=counted} 2", "kuis.answers{outcome=duplicate} 1", "kuis.answers{outcome=failed} 0",
		"kuis.answers{outcome=not_replicated} 0", "kuis.answers{outcome=refused_corrupt} 0", "kuis.answers{outcome=refused_finished} 1",
		"kuis.answers{outcome=refused_forbidden} 0", "kuis.answers{outcome=refused_invalid_participant} 0",
		"kuis.answers{outcome=refused_invalid_question} 0", "kuis.answers{outcome=refused_not_found} 0",
		"kuis.corrections 0", "kuis.events 3", fmt.Sprintf("kuis.feed.reads %d", st.FeedReads),
		"kuis.queued 0", "kuis.readers 0", "kuis.refreshes 0", "kuis.run.answers 4", "kuis.runs 4",
	}
	if diff := cmp.Diff(want, got); diff != "" || st.FeedReads < 1 {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}
