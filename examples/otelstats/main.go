package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

func main() {
	addr := flag.String("addr", "", "Redis host:port (default: an in-process miniredis)")
	flag.Parse()
	if err := run(*addr); err != nil {
		log.Fatal(err)
	}
}

// run plays a small quiz on the Redis at addr and prints the metrics a
// reader collects from its Store.
func run(addr string) error {
	client, stop, err := connect(addr)
	if err != nil {
		return err
	}
	defer stop()
	ctx := context.Background()
	store, err := kuis.New(client, kuis.WithNamespace("otelstats"))
	if err != nil {
		return err
	}
	defer store.Purge(ctx) //nolint:errcheck // best effort: the example's keys

	reader := sdkmetric.NewManualReader() // a real service sets an exporter's reader here
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(ctx) //nolint:errcheck // nothing to flush: a manual reader
	reg, err := Register(provider.Meter("github.com/kuisboard/kuis"), store)
	if err != nil {
		return err
	}
	defer reg.Unregister() //nolint:errcheck // the provider shuts down next

	if err := answerAFewQuestions(ctx, store); err != nil {
		return err
	}
	lines, err := collect(ctx, reader)
	if err != nil {
		return err
	}
	fmt.Print(strings.Join(lines, "\n") + "\n")
	return nil
}

// connect returns a client of the Redis at addr, or of an in-process
// miniredis when addr is empty, and a func that closes what it opened.
func connect(addr string) (rueidis.Client, func(), error) {
	if addr != "" {
		c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}})
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
	mr, err := miniredis.Run()
	if err != nil {
		return nil, nil, err
	}
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{mr.Addr()}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		mr.Close()
		return nil, nil, err
	}
	return c, func() { c.Close(); mr.Close() }, nil
}

// answerAFewQuestions plays a small quiz: two answers counted, a double tap,
// and an answer after Finish.
func answerAFewQuestions(ctx context.Context, store *kuis.Store) error {
	meta, err := store.Meta("kuis-01")
	if err != nil {
		return err
	}
	if err := meta.Create(ctx, "Kuis", 3); err != nil {
		return err
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		return err
	}
	for _, a := range []struct {
		name     string
		question int
	}{{"Ali", 1}, {"Ali", 1}, {"Budi", 2}} {
		if _, err := board.RecordAnswer(ctx, a.name, a.question); err != nil {
			return err
		}
	}
	if err := meta.Finish(ctx); err != nil {
		return err
	}
	board.RecordAnswer(ctx, "Citra", 3) //nolint:errcheck // refused: the quiz is finished
	return nil
}

// collect reads every data point of reader as "name{attributes} value",
// sorted.
func collect(ctx context.Context, reader sdkmetric.Reader) ([]string, error) {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return nil, err
	}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			var points []metricdata.DataPoint[int64]
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				points = d.DataPoints
			case metricdata.Gauge[int64]:
				points = d.DataPoints
			}
			for _, p := range points {
				attrs := ""
				if v, ok := p.Attributes.Value("outcome"); ok {
					attrs = "{outcome=" + v.AsString() + "}"
				}
				lines = append(lines, fmt.Sprintf("%s%s %d", m.Name, attrs, p.Value))
			}
		}
	}
	slices.Sort(lines)
	return lines, nil
}
