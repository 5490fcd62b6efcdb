package kuis_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// TestStatusNeverInventsCorruptionAroundCreate: Status read while Create lands
// answers ErrQuizNotFound or berjalan, never ErrCorrupt. A Status of two
// commands (HGET, then EXISTS) saw the key appear between them, and with the
// client cache a cached nil beside a fresh EXISTS did so every time.
func TestStatusNeverInventsCorruptionAroundCreate(t *testing.T) {
	for _, cached := range []bool{false, true} {
		name := "uncached"
		var extra []kuis.Option
		if cached {
			name, extra = "cached", []kuis.Option{kuis.WithClientCache(time.Minute)}
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			rounds := 300
			if !redistest.Real() {
				rounds = 100 // miniredis serialises everything; the race shows within a few rounds
			}
			for range rounds {
				m := e.meta(quizID(), extra...)
				// A read before Create fills the cache with "no such quiz".
				if _, err := m.Status(e.ctx); !errors.Is(err, kuis.ErrQuizNotFound) {
					t.Fatalf("Status before Create: %v, want ErrQuizNotFound", err)
				}
				var stop atomic.Bool
				failed := make(chan error, 1)
				go func() {
					defer close(failed)
					for !stop.Load() {
						if _, err := m.Status(e.ctx); err != nil && !errors.Is(err, kuis.ErrQuizNotFound) {
							failed <- err
							return
						}
					}
				}()
				if err := m.Create(e.ctx, "Kuis", 3); err != nil {
					t.Fatal(err)
				}
				if _, err := m.Status(e.ctx); err != nil && !errors.Is(err, kuis.ErrQuizNotFound) {
					t.Fatalf("Status right after Create: %v", err)
				}
				stop.Store(true)
				if err := <-failed; err != nil {
					t.Fatalf("Status while Create landed: %v", err)
				}
			}
		})
	}
}
