package kuis_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// fiveKeys lists the five keys of a quiz: meta, board, answers, log, order.
func fiveKeys(k kuis.Keys) []string {
	return []string{k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()}
}

func TestMetaCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := quizID()
	k := e.keys(id)
	if err := e.meta(id).Create(e.ctx, "Kuis Matematika 日本", 3); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		k.Meta():    `hash, no TTL: ["judul"="Kuis Matematika 日本" "jumlah_soal"="3" "status"="berjalan"]`,
		k.Board():   "none",
		k.Answers(): "none",
		k.Order():   "none",
	}
	if diff := cmp.Diff(want, e.dump(k.Meta(), k.Board(), k.Answers(), k.Order())); diff != "" {
		t.Errorf("keys after Create (-want +got):\n%s", diff)
	}
	entries, err := e.mustRaw("XRANGE", k.Log(), "-", "+").AsXRange()
	if err != nil || len(entries) != 1 || !cmp.Equal(entries[0].FieldValues, map[string]string{"status": "berjalan"}) {
		t.Errorf("log after Create = %v, %v; want the start entry alone", entries, err)
	}
}

// TestMetaCreateInCourse: InCourse writes kursus with the rest of the meta,
// Get reads it back as Info.Course and Audit finds nothing; an invalid
// course ID is refused before any I/O, with nothing written.
func TestMetaCreateInCourse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    []kuis.CreateOption
		course  string // Info.Course, and the meta's kursus when not ""
		invalid bool   // ErrInvalidCourseID, nothing written
	}{
		{name: "no option"},
		{name: "nil option", opts: []kuis.CreateOption{nil}},
		{name: "course", opts: []kuis.CreateOption{kuis.InCourse("mat-8a")}, course: "mat-8a"},
		{name: "the last course given", opts: []kuis.CreateOption{kuis.InCourse("ipa"), kuis.InCourse("mat.8_A")}, course: "mat.8_A"},
		{name: "an invalid course, then a valid one", opts: []kuis.CreateOption{kuis.InCourse("a b"), kuis.InCourse("mat")}, course: "mat"},
		{name: "empty course", opts: []kuis.CreateOption{kuis.InCourse("")}, invalid: true},
		{name: "course with a colon", opts: []kuis.CreateOption{kuis.InCourse("mat:8a")}, invalid: true},
		{name: "course in braces", opts: []kuis.CreateOption{kuis.InCourse("{mat}")}, invalid: true},
		{name: "course too long", opts: []kuis.CreateOption{kuis.InCourse(strings.Repeat("m", 65))}, invalid: true},
	}
	e := newEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := quizID()
			k := e.keys(id)
			err := e.meta(id).Create(e.ctx, "Kuis", 3, tt.opts...)
			if tt.invalid {
				if !errors.Is(err, kuis.ErrInvalidCourseID) {
					t.Errorf("Create = %v; want ErrInvalidCourseID", err)
				}
				if diff := cmp.Diff(map[string]string{k.Meta(): "none", k.Log(): "none"}, e.dump(k.Meta(), k.Log())); diff != "" {
					t.Errorf("a refused Create wrote (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			want := `hash, no TTL: ["judul"="Kuis" "jumlah_soal"="3" "status"="berjalan"]`
			if tt.course != "" {
				want = `hash, no TTL: ["judul"="Kuis" "jumlah_soal"="3" "kursus"="` + tt.course + `" "status"="berjalan"]`
			}
			if diff := cmp.Diff(want, e.dump(k.Meta())[k.Meta()]); diff != "" {
				t.Errorf("meta after Create (-want +got):\n%s", diff)
			}
			info, err := e.meta(id).Get(e.ctx)
			if want := (kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusRunning, Course: tt.course, Visibility: kuis.VisibilityShown}); err != nil || info != want {
				t.Errorf("Get = %+v, %v; want %+v", info, err, want)
			}
			if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
				t.Errorf("Audit = %v, %v; want no violations", v, err)
			}
		})
	}
}

// TestMetaCreateRefusesAnyExistingKey: a key of the quiz, any of the five,
// of any type, makes Create refuse, and nothing is overwritten.
func TestMetaCreateRefusesAnyExistingKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(e *env, id string, k kuis.Keys)
	}{
		{"finished quiz", func(e *env, id string, _ kuis.Keys) {
			if err := e.meta(id).Create(e.ctx, "Lama", 5); err != nil {
				e.t.Fatal(err)
			}
			e.finish(id)
		}},
		{"meta hash of other fields", func(e *env, _ string, k kuis.Keys) { e.mustRaw("HSET", k.Meta(), "x", "y") }},
		{"meta string with a TTL", func(e *env, _ string, k kuis.Keys) { e.mustRaw("SET", k.Meta(), "teks", "PX", "600000") }},
		{"meta list", func(e *env, _ string, k kuis.Keys) { e.mustRaw("RPUSH", k.Meta(), "a") }},
		{"board only", func(e *env, _ string, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "30", "Ali") }},
		{"board string", func(e *env, _ string, k kuis.Keys) { e.mustRaw("SET", k.Board(), "teks") }},
		{"answers only", func(e *env, _ string, k kuis.Keys) { e.mustRaw("SADD", k.Answers(), "1:Ali") }},
		{"answers hash", func(e *env, _ string, k kuis.Keys) { e.mustRaw("HSET", k.Answers(), "1", "Ali") }},
		{"log only", func(e *env, _ string, k kuis.Keys) {
			e.mustRaw("XADD", k.Log(), "*", "peserta", "Ali", "soal", "1", "skor", "10")
		}},
		{"log string", func(e *env, _ string, k kuis.Keys) { e.mustRaw("SET", k.Log(), "teks") }},
		{"order only", func(e *env, _ string, k kuis.Keys) { e.mustRaw("ZADD", k.Order(), "4398046511104", "Ali") }},
		{"order set", func(e *env, _ string, k kuis.Keys) { e.mustRaw("SADD", k.Order(), "Ali") }},
	}
	e := newEnv(t)
	for _, tt := range tests {
		id := quizID()
		k := e.keys(id)
		tt.setup(e, id, k)
		before := e.dump(fiveKeys(k)...)
		if err := e.meta(id).Create(e.ctx, "Baru", 3); !errors.Is(err, kuis.ErrQuizExists) {
			t.Errorf("%s: Create = %v; want ErrQuizExists", tt.name, err)
		}
		if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
			t.Errorf("%s: a refused Create changed keys (-before +after):\n%s", tt.name, diff)
		}
	}
}

func TestMetaCreateValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		title     string
		questions int
		ok        bool
	}{
		{"", 3, false},
		{strings.Repeat("a", 201), 3, false},
		{strings.Repeat("é", 100) + "a", 3, false},
		{"Kuis \xff", 3, false},
		{"Kuis\nMatematika", 3, false},
		{"Kuis\x00", 3, false},
		{"Kuis\u0085", 3, false},
		{"Kuis", 0, false},
		{"Kuis", -1, false},
		{"Kuis", 1001, false},
		{strings.Repeat("é", 100), 1, true},
		{"Kuis Bahasa 日本語 🎌", 1000, true},
	}
	e := newEnv(t)
	for _, tt := range tests {
		id := quizID()
		m := e.meta(id)
		err := m.Create(e.ctx, tt.title, tt.questions)
		if tt.ok {
			info, err2 := m.Get(e.ctx)
			want := kuis.Info{Title: tt.title, Questions: int64(tt.questions), Status: kuis.StatusRunning, Visibility: kuis.VisibilityShown}
			if err != nil || err2 != nil || info != want {
				t.Errorf("Create(%q, %d) = %v, then Get = %+v, %v; want %+v", tt.title, tt.questions, err, info, err2, want)
			}
			continue
		}
		if !errors.Is(err, kuis.ErrInvalidMeta) {
			t.Errorf("Create(%q, %d) = %v; want ErrInvalidMeta", tt.title, tt.questions, err)
		}
		if e.exists(e.keys(id).Meta()) {
			t.Errorf("Create(%q, %d) was refused but wrote meta", tt.title, tt.questions)
		}
	}
}

// TestMetaReads: Get and Status decode only the contract's shapes; anything
// else is ErrQuizNotFound, or ErrCorrupt naming the key and the field. Status
// looks at the status field only. Reads change nothing.
func TestMetaReads(t *testing.T) {
	t.Parallel()
	good := []string{"judul", "Kuis", "jumlah_soal", "3", "status", "berjalan"}
	hset := func(fields ...string) func(e *env, k kuis.Keys) {
		return func(e *env, k kuis.Keys) {
			e.mustRaw("HSET", k.Meta(), append(append([]string{}, good...), fields...)...)
		}
	}
	hdel := func(field string) func(e *env, k kuis.Keys) {
		return func(e *env, k kuis.Keys) { hset()(e, k); e.mustRaw("HDEL", k.Meta(), field) }
	}
	running := kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusRunning, Visibility: kuis.VisibilityShown}
	type row struct {
		name      string
		setup     func(e *env, k kuis.Keys)
		info      kuis.Info // Get's; Status must read info.Status
		getErr    error
		statusErr error
		mention   string // what an ErrCorrupt names besides the key
	}
	tests := []row{
		{name: "valid", setup: hset(), info: running},
		{name: "finished", setup: hset("status", "selesai"), info: kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusFinished, Visibility: kuis.VisibilityShown}},
		{name: "extra field ignored", setup: hset("warna", "merah"), info: running},
		{name: "course", setup: hset("kursus", "mat-8a"), info: kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusRunning, Course: "mat-8a", Visibility: kuis.VisibilityShown}},
		{name: "missing key", setup: func(*env, kuis.Keys) {}, getErr: kuis.ErrQuizNotFound, statusErr: kuis.ErrQuizNotFound},
		{name: "board but no meta", setup: func(e *env, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Ali") },
			getErr: kuis.ErrQuizNotFound, statusErr: kuis.ErrQuizNotFound},
		{name: "meta string", setup: func(e *env, k kuis.Keys) { e.mustRaw("SET", k.Meta(), "berjalan") },
			getErr: kuis.ErrCorrupt, statusErr: kuis.ErrCorrupt, mention: "wrong type"},
		{name: "unknown status", setup: hset("status", "jeda"), getErr: kuis.ErrCorrupt, statusErr: kuis.ErrCorrupt, mention: `status is "jeda"`},
		{name: "empty status", setup: hset("status", ""), getErr: kuis.ErrCorrupt, statusErr: kuis.ErrCorrupt, mention: `status is ""`},
		{name: "missing status", setup: hdel("status"), getErr: kuis.ErrCorrupt, statusErr: kuis.ErrCorrupt, mention: "status is missing"},
		// Status reads only the status field.
		{name: "missing judul", setup: hdel("judul"), info: running, getErr: kuis.ErrCorrupt, mention: "judul is missing"},
		{name: "missing jumlah_soal", setup: hdel("jumlah_soal"), info: running, getErr: kuis.ErrCorrupt, mention: "jumlah_soal is missing"},
	}
	for _, bad := range []string{"abc", "0", "-3", "03", "1.5", "+3", " 3", "1e3", "9999999999999999"} {
		tests = append(tests, row{name: "jumlah_soal " + bad, setup: hset("jumlah_soal", bad), info: running,
			getErr: kuis.ErrCorrupt, mention: `jumlah_soal is "` + bad + `"`})
	}
	e := newEnv(t)
	for _, tt := range tests {
		id := quizID()
		k := e.keys(id)
		tt.setup(e, k)
		before := e.dump(fiveKeys(k)...)
		m := e.meta(id)
		info, err := m.Get(e.ctx)
		check := func(call string, err, want error) {
			if !errors.Is(err, want) || (err == nil) != (want == nil) {
				t.Errorf("%s: %s = %v; want %v", tt.name, call, err, want)
			} else if errors.Is(want, kuis.ErrCorrupt) && (!strings.Contains(err.Error(), k.Meta()+": ") || !strings.Contains(err.Error(), tt.mention)) {
				t.Errorf("%s: %s = %q; want it to name %s and %q", tt.name, call, err, k.Meta(), tt.mention)
			}
		}
		check("Get", err, tt.getErr)
		if tt.getErr == nil && info != tt.info {
			t.Errorf("%s: Get = %+v; want %+v", tt.name, info, tt.info)
		}
		status, err := m.Status(e.ctx)
		check("Status", err, tt.statusErr)
		if tt.statusErr == nil && status != tt.info.Status {
			t.Errorf("%s: Status = %q; want %q", tt.name, status, tt.info.Status)
		}
		if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
			t.Errorf("%s: a read changed keys (-before +after):\n%s", tt.name, diff)
		}
	}
}

// TestMetaFinish: berjalan becomes selesai, a second Finish succeeds and
// changes nothing, and every refusal leaves the keys as they were; a missing
// quiz is not created.
func TestMetaFinish(t *testing.T) {
	t.Parallel()
	create := func(e *env, id string, _ kuis.Keys) {
		if err := e.meta(id).Create(e.ctx, "Kuis", 3); err != nil {
			e.t.Fatal(err)
		}
	}
	raw := func(cmd string, args ...string) func(e *env, id string, k kuis.Keys) {
		return func(e *env, _ string, k kuis.Keys) { e.mustRaw(cmd, k.Meta(), args...) }
	}
	tests := []struct {
		name    string
		setup   func(e *env, id string, k kuis.Keys)
		wantErr error
		changed bool // meta's status becomes selesai; else nothing changes
	}{
		{"running", create, nil, true},
		{"already finished", func(e *env, id string, k kuis.Keys) { create(e, id, k); e.finish(id) }, nil, false},
		{"missing quiz", func(*env, string, kuis.Keys) {}, kuis.ErrQuizNotFound, false},
		{"board without meta", func(e *env, _ string, k kuis.Keys) { e.mustRaw("ZADD", k.Board(), "10", "Ali") }, kuis.ErrQuizNotFound, false},
		{"unknown status", raw("HSET", "judul", "Kuis", "jumlah_soal", "3", "status", "BERJALAN"), kuis.ErrCorrupt, false},
		{"missing status", raw("HSET", "judul", "Kuis", "jumlah_soal", "3"), kuis.ErrCorrupt, false},
		{"meta string", raw("SET", "berjalan"), kuis.ErrCorrupt, false},
	}
	e := newEnv(t)
	for _, tt := range tests {
		id := quizID()
		k := e.keys(id)
		tt.setup(e, id, k)
		want := e.dump(fiveKeys(k)...)
		if tt.changed {
			want[k.Meta()] = strings.Replace(want[k.Meta()], `"berjalan"`, `"selesai"`, 1)
		}
		if err := e.meta(id).Finish(e.ctx); !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
			t.Errorf("%s: Finish = %v; want %v", tt.name, err, tt.wantErr)
		}
		if tt.changed {
			// The finish is logged with the status change: one entry after
			// the start entry, the single field status = selesai.
			entries, err := e.mustRaw("XRANGE", k.Log(), "-", "+").AsXRange()
			if err != nil || len(entries) != 2 || !cmp.Equal(entries[1].FieldValues, map[string]string{"status": "selesai"}) {
				t.Errorf("%s: log after Finish = %v, %v; want the start entry, then one entry status=selesai", tt.name, entries, err)
			}
			e.mustRaw("XDEL", k.Log(), entries[len(entries)-1].ID)
		}
		if diff := cmp.Diff(want, e.dump(fiveKeys(k)...)); diff != "" {
			t.Errorf("%s: keys after Finish (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestMetaStatusWhileCreateLands: Status read while Create lands is ErrQuizNotFound or berjalan, never ErrCorrupt, also through
// the client-side cache filled with "no such quiz" just before.
func TestMetaStatusWhileCreateLands(t *testing.T) {
	t.Parallel()
	for _, cache := range []time.Duration{0, time.Minute} {
		e := newEnv(t)
		reader := e.storeOn(e.client, kuis.WithClientCache(cache))
		rounds := 200
		if !redistest.Real() {
			rounds = 50
		}
		for range rounds {
			id := quizID()
			m, err := reader.Meta(id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Status(e.ctx); !errors.Is(err, kuis.ErrQuizNotFound) {
				t.Fatalf("Status before Create = %v; want ErrQuizNotFound", err)
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
			if err := e.meta(id).Create(e.ctx, "Kuis", 3); err != nil {
				t.Fatal(err)
			}
			stop.Store(true)
			if err := <-failed; err != nil {
				t.Fatalf("cache %v: Status while Create landed = %v", cache, err)
			}
			if s, err := m.Status(e.ctx); err != nil && !errors.Is(err, kuis.ErrQuizNotFound) || err == nil && s != kuis.StatusRunning {
				t.Fatalf("cache %v: Status right after Create = %q, %v", cache, s, err)
			}
		}
	}
}
