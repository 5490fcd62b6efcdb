package kuis_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// TestSetVisibility: each visibility, on a running and on a finished quiz,
// is what Get returns afterwards; only meta's tampilan changed (every other
// field and every other key of the quiz as they were), and Audit finds
// nothing. A meta without the field reads as tampil.
func TestSetVisibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, finished := range []bool{false, true} {
		id, m, _ := e.reference()
		if finished {
			e.finish(id)
		}
		k := e.keys(id)
		info, err := m.Get(e.ctx)
		if err != nil || info.Visibility != kuis.VisibilityShown {
			t.Fatalf("Get before SetVisibility = %+v, %v; want Visibility tampil", info, err)
		}
		others := e.dump(k.Board(), k.Answers(), k.Log(), k.Order())
		fields, err := e.mustRaw("HGETALL", k.Meta()).AsStrMap()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []kuis.Visibility{kuis.VisibilityHidden, kuis.VisibilityAtEnd, kuis.VisibilityHidden, kuis.VisibilityShown} {
			if err := m.SetVisibility(e.ctx, v); err != nil {
				t.Fatalf("SetVisibility(%s) (finished %v): %v", v, finished, err)
			}
			got, err := m.Get(e.ctx)
			want := info
			want.Visibility = v
			if diff := cmp.Diff(want, got); err != nil || diff != "" {
				t.Errorf("Get after SetVisibility(%s) (finished %v): %v (-want +got):\n%s", v, finished, err, diff)
			}
			after, err := e.mustRaw("HGETALL", k.Meta()).AsStrMap()
			wantFields := map[string]string{"tampilan": string(v)}
			for f, val := range fields {
				wantFields[f] = val
			}
			if diff := cmp.Diff(wantFields, after); err != nil || diff != "" {
				t.Errorf("meta after SetVisibility(%s): %v (-want +got):\n%s", v, err, diff)
			}
			if diff := cmp.Diff(others, e.dump(k.Board(), k.Answers(), k.Log(), k.Order())); diff != "" {
				t.Errorf("SetVisibility(%s) changed other keys (-before +after):\n%s", v, diff)
			}
			if vs, err := e.store.Audit(e.ctx, id); err != nil || len(vs) != 0 {
				t.Errorf("Audit after SetVisibility(%s) = %v, %v; want no violation", v, vs, err)
			}
		}
	}
}

// TestSetVisibilityRefusals: a value outside the three is ErrInvalidOption
// with nothing sent; a quiz without meta is ErrQuizNotFound and no meta is
// made; a meta that breaks the contract is ErrCorrupt and stays as it was.
func TestSetVisibilityRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rec := newRecorder(e.client)
	s := e.storeOn(rec)
	id, _, _ := e.running(3)
	_, m := handles(t, s, id)
	for _, v := range []kuis.Visibility{"", "Tampil", "hidden", "tampil ", "sembunyi\x00", "akhir,tampil"} {
		rec.start()
		err := m.SetVisibility(e.ctx, v)
		sent := rec.stop()
		if !errors.Is(err, kuis.ErrInvalidOption) || len(sent) != 0 {
			t.Errorf("SetVisibility(%q) = %v, sending %q; want ErrInvalidOption before any I/O", v, err, sent)
		}
	}
	missing := quizID()
	_, mm := handles(t, s, missing)
	if err := mm.SetVisibility(e.ctx, kuis.VisibilityHidden); !errors.Is(err, kuis.ErrQuizNotFound) {
		t.Errorf("SetVisibility of a quiz without meta = %v; want ErrQuizNotFound", err)
	}
	if e.exists(e.keys(missing).Meta()) {
		t.Errorf("SetVisibility of a quiz without meta made its meta")
	}
	for _, tt := range []struct {
		name  string
		setup func(key string)
	}{
		{"no status", func(key string) { e.mustRaw("HDEL", key, "status") }},
		{"unknown status", func(key string) { e.mustRaw("HSET", key, "status", "jeda") }},
		{"not a hash", func(key string) { e.mustRaw("DEL", key); e.mustRaw("SET", key, "x") }},
	} {
		id, m, _ := e.running(3)
		key := e.keys(id).Meta()
		tt.setup(key)
		before := e.dump(key)
		if err := m.SetVisibility(e.ctx, kuis.VisibilityHidden); !errors.Is(err, kuis.ErrCorrupt) {
			t.Errorf("%s: SetVisibility = %v; want ErrCorrupt", tt.name, err)
		}
		if diff := cmp.Diff(before, e.dump(key)); diff != "" {
			t.Errorf("%s: refused SetVisibility changed meta (-before +after):\n%s", tt.name, diff)
		}
	}
}

// TestVisibilityReads: Get refuses a tampilan outside the three, naming the
// field, where Status and the board's reads still answer (they do not
// depend on it); a recap never carries the visibility, in its value or its
// JSON, so that changing it after the finish changes no archive.
func TestVisibilityReads(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, m, b := e.reference()
	e.mustRaw("HSET", e.keys(id).Meta(), "tampilan", "rahasia")
	if _, err := m.Get(e.ctx); !errors.Is(err, kuis.ErrCorrupt) || !strings.Contains(err.Error(), "field tampilan") {
		t.Errorf("Get with tampilan rahasia = %v; want ErrCorrupt naming field tampilan", err)
	}
	if st, err := m.Status(e.ctx); err != nil || st != kuis.StatusRunning {
		t.Errorf("Status with tampilan rahasia = %v, %v; want berjalan", st, err)
	}
	if sum, err := b.Summary(e.ctx); err != nil || sum.Participants != 4 {
		t.Errorf("Summary with tampilan rahasia = %+v, %v; want 4 participants", sum, err)
	}
	if err := m.SetVisibility(e.ctx, kuis.VisibilityAtEnd); err != nil {
		t.Fatal(err)
	}
	e.finish(id)
	r, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Info.Visibility != "" {
		t.Errorf("Recap's Info.Visibility = %q; want none", r.Info.Visibility)
	}
	j, err := json.Marshal(r)
	if err != nil || strings.Contains(string(j), "visibility") || strings.Contains(string(j), "akhir") {
		t.Errorf("Recap's JSON = %s, %v; want no visibility", j, err)
	}
	info, err := m.Get(e.ctx)
	if j, _ := json.Marshal(info); err != nil || !strings.Contains(string(j), `"visibility":"akhir"`) {
		t.Errorf("Get's JSON = %s, %v; want \"visibility\":\"akhir\"", j, err)
	}
}

// TestVisibilityShowsBoard: who but the teacher sees the standings, for
// each visibility and status.
func TestVisibilityShowsBoard(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v                 kuis.Visibility
		running, finished bool
	}{
		{kuis.VisibilityShown, true, true},
		{kuis.VisibilityHidden, false, false},
		{kuis.VisibilityAtEnd, false, true},
		{"", false, false},
		{"rahasia", false, false},
	} {
		if got := tt.v.ShowsBoard(kuis.StatusRunning); got != tt.running {
			t.Errorf("%q.ShowsBoard(berjalan) = %v; want %v", tt.v, got, tt.running)
		}
		if got := tt.v.ShowsBoard(kuis.StatusFinished); got != tt.finished {
			t.Errorf("%q.ShowsBoard(selesai) = %v; want %v", tt.v, got, tt.finished)
		}
	}
}

// TestSetVisibilityACL: the teacher sets the visibility; the app and the
// operator are refused (ErrForbidden, meta as it was), and so is the app's
// raw HSET of tampilan. Real servers only.
func TestSetVisibilityACL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.running(3)
	teacher, _ := roleStore(t, e, kuis.RoleTeacher, false, kuis.Tuning{})
	_, tm := handles(t, teacher, id)
	if err := tm.SetVisibility(e.ctx, kuis.VisibilityHidden); err != nil {
		t.Fatalf("SetVisibility as teacher: %v", err)
	}
	if info, err := tm.Get(e.ctx); err != nil || info.Visibility != kuis.VisibilityHidden {
		t.Errorf("Get as teacher = %+v, %v; want sembunyi", info, err)
	}
	app, appClient := roleStore(t, e, kuis.RoleApp, false, kuis.Tuning{})
	operator, _ := roleStore(t, e, kuis.RoleOperator, false, kuis.Tuning{})
	_, am := handles(t, app, id)
	_, om := handles(t, operator, id)
	if info, err := am.Get(e.ctx); err != nil || info.Visibility != kuis.VisibilityHidden {
		t.Errorf("Get as app = %+v, %v; want sembunyi", info, err)
	}
	checkRefused(t, e, []string{e.keys(id).Meta()}, isForbidden,
		refusedCall{"SetVisibility as app", func() error { return am.SetVisibility(e.ctx, kuis.VisibilityShown) }},
		refusedCall{"SetVisibility as operator", func() error { return om.SetVisibility(e.ctx, kuis.VisibilityShown) }},
	)
	checkRefused(t, e, []string{e.keys(id).Meta()}, isRefusal,
		rawAs(e.ctx, appClient, "HSET", e.keys(id).Meta(), "tampilan", "tampil"))
}
