package kuis_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// TestCourses: Courses lists each course of the namespace once, by its
// board or its quiz index, in the form the options spell (braced with
// WithHashTag), and nothing else: no ledger, no quiz, no ID the ID rule
// refuses, no other namespace; an empty namespace is an empty slice.
func TestCourses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ns := e.ns
	e.mustRaw("ZADD", ns+":kursus:ipa-8a", "10", "Ali")
	e.mustRaw("HSET", ns+":kursus-kuis:ipa-8a", "q@0-0", "x")
	e.mustRaw("HSET", ns+":kursus-kuis:bahasa", "q@0-0", "x")              // an index without a board: every participant had 0 points
	e.mustRaw("ZADD", ns+":kursus:Seni", "0", "Budi")                      // a board alone
	e.mustRaw("HSET", ns+":kursus-rincian:ledger-only:q@0-0", "Ali", "10") // a ledger is no course of its own
	e.mustRaw("HSET", ns+":meta:kuis-01", "judul", "Kuis", "jumlah_soal", "1", "status", "berjalan")
	e.mustRaw("ZADD", ns+":kursus:{ipa-9}", "10", "Citra")
	e.mustRaw("HSET", ns+":kursus-kuis:{mtk}", "q@0-0", "x")
	e.mustRaw("ZADD", ns+":kursus:{ipa-8a}", "10", "Ali")
	e.mustRaw("ZADD", ns+":kursus:bad:id", "10", "Ali")
	other := envWith(t, e.client)
	other.mustRaw("ZADD", other.ns+":kursus:lain", "10", "Ali")

	for _, tt := range []struct {
		hashTag bool
		want    []string
	}{
		{false, []string{"Seni", "bahasa", "ipa-8a"}},
		{true, []string{"ipa-8a", "ipa-9", "mtk"}},
	} {
		if redistest.Cluster() && !tt.hashTag {
			continue // a cluster Store needs WithHashTag
		}
		for _, count := range []int64{1000, 1} {
			opts := []kuis.Option{kuis.WithNamespace(ns)}
			if tt.hashTag {
				opts = append(opts, kuis.WithHashTag())
			}
			store, err := kuis.NewTuned(e.client, kuis.Tuning{ScanCount: count}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := store.Courses(e.ctx); err != nil || !cmp.Equal(tt.want, got) {
				t.Errorf("Courses(hash tag %v, SCAN COUNT %d) = %q, %v; want %q", tt.hashTag, count, got, err, tt.want)
			}
		}
	}

	fresh := newEnv(t)
	if got, err := fresh.store.Courses(fresh.ctx); err != nil || got == nil || len(got) != 0 {
		t.Errorf("Courses of an empty namespace = %#v, %v; want an empty slice", got, err)
	}
}
