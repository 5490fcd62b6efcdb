package kuis_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// writeKeys writes each key as a string, hash, sorted set, set or list (by
// pick), one command per key so that a cluster routes each by its own slot.
// Keys outside every test namespace are deleted at cleanup.
func writeKeys(e *env, keys []string, pick func(i int) int) {
	e.t.Helper()
	c := e.client
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		switch pick(i) % 5 {
		case 0:
			cmds[i] = c.B().Set().Key(k).Value("v").Build()
		case 1:
			cmds[i] = c.B().Hset().Key(k).FieldValue().FieldValue("judul", k).Build()
		case 2:
			cmds[i] = c.B().Zadd().Key(k).ScoreMember().ScoreMember(10, k).Build()
		case 3:
			cmds[i] = c.B().Sadd().Key(k).Member("1:Ali").Build()
		default:
			cmds[i] = c.B().Rpush().Key(k).Element("e").Build()
		}
	}
	for i, res := range c.DoMulti(e.ctx, cmds...) {
		if err := res.Error(); err != nil {
			e.t.Fatalf("writing %q: %v", keys[i], err)
		}
	}
	e.t.Cleanup(func() {
		for _, k := range keys {
			c.Do(context.Background(), c.B().Unlink().Key(k).Build())
		}
	})
}

// gone is the dump of keys that do not exist.
func gone(keys ...string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		out[k] = "none"
	}
	return out
}

// TestPurge fills a namespace with quizzes and other keys, next to another
// namespace's quiz and keys that only look like the namespace, and expects
// Purge to delete exactly the namespace's keys, on SCAN pages of 3 keys too.
func TestPurge(t *testing.T) {
	t.Parallel()
	for _, tune := range []kuis.Tuning{{}, {ScanCount: 3}} {
		e := newTunedEnv(t, tune)
		var inside []string
		for range 2 {
			id, _, _ := e.reference()
			inside = append(inside, fiveKeys(e.keys(id))...)
		}
		empty, _, _ := e.running(1)
		// A new quiz: its meta, and its log with the start entry.
		inside = append(inside, e.keys(empty).Meta(), e.keys(empty).Log())
		var other []string // keys the library never writes, in many slots
		for i := range 300 {
			other = append(other, e.ns+":lain:"+strconv.Itoa(i))
		}
		other = append(other, e.ns+":", e.ns+"::", e.ns+":*", e.ns+":papan:{x}")
		writeKeys(e, other, func(i int) int { return i })
		inside = append(inside, other...)

		neighbour := envWith(t, e.client)
		nid, _, _ := neighbour.reference()
		ns := e.ns
		lookAlikes := []string{ns, ns + "x:1", ns + "2:papan:a", "other:" + ns + ":papan:x", strings.ToUpper(ns) + ":papan:a",
			"x" + ns + ":meta:a", ns + "-:papan:a", ns + ";papan:a", ns[:len(ns)-1] + ":papan:a"}
		writeKeys(e, lookAlikes, func(i int) int { return i })
		outside := append(fiveKeys(neighbour.keys(nid)), lookAlikes...)
		before := e.dump(outside...)

		n, err := e.store.Purge(e.ctx)
		if err != nil || n != int64(len(inside)) {
			t.Errorf("Purge = %d, %v; want %d", n, err, len(inside))
		}
		if diff := cmp.Diff(gone(inside...), e.dump(inside...)); diff != "" {
			t.Errorf("namespace keys after Purge (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, e.dump(outside...)); diff != "" {
			t.Errorf("Purge touched keys outside %s:* (-before +after):\n%s", ns, diff)
		}
		if n, err := e.store.Purge(e.ctx); err != nil || n != 0 {
			t.Errorf("second Purge = %d, %v; want 0", n, err)
		}
	}
}

// TestPurgeProperty: for random keys in and out of the namespace (look-alike
// prefixes, glob, brace and separator bytes), of every type, and random SCAN
// page sizes, Purge deletes exactly the keys that start with "<ns>:". On
// miniredis SCAN returns one page; a real server pages for real.
func TestPurgeProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(20261130))
	e := newEnv(t)
	const alphabet = " *?[]\\:{}-_.aZ09\x00\xff"
	for range 20 {
		ns := redistest.Namespace(t)
		store := e.tunedOn(e.client, kuis.Tuning{ScanCount: 1 + rng.Int63n(64)}, kuis.WithNamespace(ns))
		suffix := func() string {
			b := make([]byte, rng.Intn(12))
			for i := range b {
				b[i] = alphabet[rng.Intn(len(alphabet))]
			}
			return string(b)
		}
		lookAlikes := []string{ns, ns + "x:", ns + "_", ns + ";", strings.ToUpper(ns) + ":", ns[:len(ns)-1] + ":" + ns,
			"other:" + ns + ":", "x" + ns + ":", "*" + ns + ":", ns + "*:", ns + "?", ns + "[:]", ns + "\\:", "{" + ns + "}:"}
		seen := map[string]bool{}
		var inside, outside []string
		for range rng.Intn(150) {
			if k := ns + ":" + suffix(); !seen[k] {
				seen[k] = true
				inside = append(inside, k)
			}
		}
		for range rng.Intn(60) {
			if k := lookAlikes[rng.Intn(len(lookAlikes))] + suffix(); !seen[k] {
				seen[k] = true
				outside = append(outside, k)
			}
		}
		writeKeys(e, append(append([]string{}, inside...), outside...), func(int) int { return rng.Intn(5) })
		before := e.dump(outside...)
		n, err := store.Purge(e.ctx)
		if err != nil || n != int64(len(inside)) {
			t.Errorf("ns %s: Purge = %d, %v; want %d", ns, n, err, len(inside))
		}
		if diff := cmp.Diff(gone(inside...), e.dump(inside...)); diff != "" {
			t.Errorf("ns %s: namespace keys after Purge (-want +got):\n%s", ns, diff)
		}
		if diff := cmp.Diff(before, e.dump(outside...)); diff != "" {
			t.Errorf("ns %s: keys outside the namespace changed (-before +after):\n%s", ns, diff)
		}
	}
}

// TestQuizzes lists the quiz IDs of one namespace in either key form: sorted,
// only those with a meta key in the store's form and a valid ID.
func TestQuizzes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	meta := func(e *env, id string) {
		e.mustRaw("HSET", e.ns+":meta:"+id, "judul", "Kuis", "jumlah_soal", "3", "status", "berjalan")
	}
	for _, id := range []string{"kuis-b", "kuis-10", "kuis-a", "Kuis-Z", "{kuis-tagged}", "{kuis-b}", "kuis:01", "{kuis-x", "{kuis:02}"} {
		meta(e, id)
	}
	e.mustRaw("ZADD", e.ns+":papan:kuis-03", "10", "Ali")
	e.mustRaw("SADD", e.ns+":jawaban:{kuis-04}", "1:Ali")
	other := envWith(t, e.client)
	meta(other, "kuis-lain")
	meta(other, "{kuis-lain}")

	for _, tt := range []struct {
		hashTag bool
		want    []string
	}{
		{false, []string{"Kuis-Z", "kuis-10", "kuis-a", "kuis-b"}},
		{true, []string{"kuis-b", "kuis-tagged"}},
	} {
		if redistest.Cluster() && !tt.hashTag {
			continue // a cluster Store needs WithHashTag
		}
		for _, count := range []int64{1000, 1} {
			opts := []kuis.Option{kuis.WithNamespace(e.ns)}
			if tt.hashTag {
				opts = append(opts, kuis.WithHashTag())
			}
			store, err := kuis.NewTuned(e.client, kuis.Tuning{ScanCount: count}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := store.Quizzes(e.ctx); err != nil || !cmp.Equal(tt.want, got) {
				t.Errorf("Quizzes(hash tag %v, SCAN COUNT %d) = %q, %v; want %q", tt.hashTag, count, got, err, tt.want)
			}
		}
	}

	fresh := newEnv(t)
	if got, err := fresh.store.Quizzes(fresh.ctx); err != nil || got == nil || len(got) != 0 {
		t.Errorf("Quizzes of an empty namespace = %#v, %v; want an empty slice", got, err)
	}
	id1, _, _ := fresh.running(3)
	id2, _, _ := fresh.reference()
	fresh.finish(id2)
	want := []string{id1, id2}
	sort.Strings(want)
	if got, err := fresh.store.Quizzes(fresh.ctx); err != nil || !cmp.Equal(want, got) {
		t.Errorf("Quizzes after Create = %q, %v; want %q", got, err, want)
	}
}

// TestPurgeQuiz runs PurgeQuiz on quizzes in every state: only a finished
// quiz whose recap was archived loses its keys (all five, or as many as it
// has), and a neighbouring quiz of the namespace is never touched.
func TestPurgeQuiz(t *testing.T) {
	t.Parallel()
	errArchive := errors.New("archive: bucket unreachable")
	finished := func(e *env) string { id, _, _ := e.reference(); e.finish(id); return id }
	reference := func(id string) kuis.Recap { return referenceRecap(id, kuis.StatusFinished) }
	tests := []struct {
		name  string
		setup func(e *env) string
		// during runs inside archive and returns its error.
		during     func(e *env, k kuis.Keys) error
		nilArchive bool
		wantErr    error
		wantN      int64                      // keys deleted when PurgeQuiz succeeds
		recap      func(id string) kuis.Recap // what archive is called with, once; nil: never called
		timeless   bool                       // the recap's answers have no time: they predate the log
	}{
		{name: "finished", setup: finished, wantN: 5, recap: reference},
		{name: "finished without answers", setup: func(e *env) string { id, _, _ := e.running(2); e.finish(id); return id },
			wantN: 2 /* meta, and the log holding the finish entry */, recap: func(id string) kuis.Recap {
				return kuis.Recap{QuizID: id, Info: kuis.Info{Title: "Kuis " + id, Questions: 2, Status: kuis.StatusFinished},
					Standings: []kuis.Standing{}, Questions: []kuis.QuestionResult{{1, 0}, {2, 0}}}
			}},
		{name: "finished before the answer log existed", setup: func(e *env) string {
			id := finished(e)
			e.mustRaw("DEL", e.keys(id).Log(), e.keys(id).Order())
			return id
		}, wantN: 3, timeless: true, recap: func(id string) kuis.Recap {
			r := reference(id)
			slices.SortFunc(r.Answers, func(a, b kuis.AnswerRecord) int {
				if a.Question != b.Question {
					return a.Question - b.Question
				}
				return strings.Compare(a.Participant, b.Participant)
			})
			return r
		}},
		{name: "running", setup: func(e *env) string { id, _, _ := e.reference(); return id }, wantErr: kuis.ErrQuizRunning},
		{name: "archive fails", setup: finished, during: func(*env, kuis.Keys) error { return errArchive },
			wantErr: errArchive, recap: reference},
		{name: "reopened while archiving", setup: finished, during: func(e *env, k kuis.Keys) error {
			e.mustRaw("HSET", k.Meta(), "status", "berjalan")
			return nil
		}, wantErr: kuis.ErrQuizRunning, recap: reference},
		{name: "nil archive", setup: finished, nilArchive: true, wantErr: kuis.ErrNoArchive},
		{name: "no meta", setup: func(e *env) string {
			id := finished(e)
			e.mustRaw("DEL", e.keys(id).Meta())
			return id
		}, wantErr: kuis.ErrQuizNotFound},
		{name: "unknown status", setup: func(e *env) string {
			id := finished(e)
			e.mustRaw("HSET", e.keys(id).Meta(), "status", "arsip")
			return id
		}, wantErr: kuis.ErrCorrupt},
		{name: "score 15", setup: func(e *env) string {
			id := finished(e)
			e.mustRaw("ZINCRBY", e.keys(id).Board(), "5", "Dewi")
			return id
		}, wantErr: kuis.ErrCorrupt},
		{name: "log string", setup: func(e *env) string {
			id := finished(e)
			e.mustRaw("DEL", e.keys(id).Log())
			e.mustRaw("SET", e.keys(id).Log(), "x")
			return id
		}, wantErr: kuis.ErrCorrupt},
	}
	for _, tt := range tests {
		e := newEnv(t)
		nid := finished(e)
		neighbour := e.dump(fiveKeys(e.keys(nid))...)
		from := time.Now()
		id := tt.setup(e)
		k := e.keys(id)
		want := e.dump(fiveKeys(k)...)
		if tt.wantErr == nil {
			want = gone(fiveKeys(k)...)
		}
		var archived []kuis.Recap
		archive := func(_ context.Context, r kuis.Recap) error {
			archived = append(archived, r)
			if tt.during != nil {
				return tt.during(e, k)
			}
			return nil
		}
		if tt.nilArchive {
			archive = nil
		}
		var wantRecaps []kuis.Recap
		if tt.recap != nil {
			r := tt.recap(id)
			r.Instance = e.instance(id)
			wantRecaps = []kuis.Recap{r}
		}

		n, err := e.store.PurgeQuiz(e.ctx, id, archive)
		if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
			t.Errorf("%s: PurgeQuiz = %d, %v; want error %v", tt.name, n, err, tt.wantErr)
		}
		if n != tt.wantN {
			t.Errorf("%s: PurgeQuiz = %d; want %d", tt.name, n, tt.wantN)
		}
		for i := range archived {
			archived[i].TakenAt = time.Time{}
			checkFinishedAt(t, &archived[i], !tt.timeless, from, time.Now())
			if !tt.timeless {
				checkTimes(t, archived[i].Answers, from, time.Now())
				archived[i].Answers = untimed(archived[i].Answers)
			}
		}
		// EquateEmpty: whether a recap without answers holds nil or [] is not the point here.
		if diff := cmp.Diff(wantRecaps, archived, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: recaps archived (-want +got):\n%s", tt.name, diff)
		}
		if tt.name == "reopened while archiving" {
			want[k.Meta()] = strings.Replace(want[k.Meta()], `"selesai"`, `"berjalan"`, 1)
		}
		if diff := cmp.Diff(want, e.dump(fiveKeys(k)...)); diff != "" {
			t.Errorf("%s: keys after PurgeQuiz (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(neighbour, e.dump(fiveKeys(e.keys(nid))...)); diff != "" {
			t.Errorf("%s: the neighbouring quiz changed (-before +after):\n%s", tt.name, diff)
		}
	}
}

// TestPurgeQuizDeletesOnlyTheQuizItArchived: while PurgeQuiz's archive runs,
// another process purges the quiz, creates a new one under its ID, records an
// answer and finishes it. PurgeQuiz then deletes nothing and answers
// ErrQuizChanged: the new quiz's grades were never archived. It does so
// also when the new quiz is created in the same millisecond as the old one
// (miniredis's clock stands still here).
func TestPurgeQuizDeletesOnlyTheQuizItArchived(t *testing.T) {
	t.Parallel()
	for _, sameMillisecond := range []bool{false, true} {
		e := clockEnv(t)
		id, m, b := e.reference()
		e.finish(id)
		k := e.keys(id)
		var after map[string]string
		n, err := e.store.PurgeQuiz(e.ctx, id, func(ctx context.Context, r kuis.Recap) error {
			if len(r.Standings) != 4 {
				t.Errorf("archive got %d standings, want the old quiz's 4", len(r.Standings))
			}
			if _, err := e.store.PurgeQuiz(ctx, id, func(context.Context, kuis.Recap) error { return nil }); err != nil {
				return err
			}
			if !sameMillisecond {
				tick(e)
			}
			if err := m.Create(ctx, "Kuis baru", 3); err != nil {
				return err
			}
			if _, err := b.RecordAnswer(ctx, "Eka", 1); err != nil {
				return err
			}
			if err := m.Finish(ctx); err != nil {
				return err
			}
			after = e.dump(fiveKeys(k)...)
			return nil
		})
		if n != 0 || !errors.Is(err, kuis.ErrQuizChanged) {
			t.Errorf("same millisecond %v: PurgeQuiz = %d, %v; want 0, ErrQuizChanged", sameMillisecond, n, err)
		}
		if diff := cmp.Diff(after, e.dump(fiveKeys(k)...)); diff != "" {
			t.Errorf("same millisecond %v: PurgeQuiz changed the new quiz (-before +after):\n%s", sameMillisecond, diff)
		}
		if r, err := e.store.Recap(e.ctx, id); err != nil || len(r.Standings) != 1 || r.Standings[0].Participant != "Eka" {
			t.Errorf("same millisecond %v: the new quiz's recap = %+v, %v; want Eka alone", sameMillisecond, r.Standings, err)
		}
	}
}

// TestPurgeQuizArchivesEveryAnswer: the recap PurgeQuiz archives holds every
// counted answer, in the order counted, with per-question counts, and
// survives a JSON round trip whole, times included; all five keys are gone.
func TestPurgeQuizArchivesEveryAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, _ := e.reference()
	e.finish(id)
	k := e.keys(id)
	logged := answerLog(e, k)
	var archived []kuis.Recap
	n, err := e.store.PurgeQuiz(e.ctx, id, func(_ context.Context, r kuis.Recap) error {
		archived = append(archived, r)
		return nil
	})
	if err != nil || n != 5 || len(archived) != 1 {
		t.Fatalf("PurgeQuiz = %d, %v, %d archives; want 5 keys deleted, one archive", n, err, len(archived))
	}
	recap := archived[0]
	var want []kuis.AnswerRecord
	for q, round := range referenceRounds {
		for _, name := range round {
			want = append(want, kuis.AnswerRecord{Participant: name, Question: q + 1, At: time.UnixMilli(logged[len(want)].ms()).UTC()})
		}
	}
	if diff := cmp.Diff(want, recap.Answers); diff != "" {
		t.Errorf("archived Answers (-want +got):\n%s", diff)
	}
	wantQuestions := []kuis.QuestionResult{{Question: 1, Correct: 2}, {Question: 2, Correct: 3}, {Question: 3, Correct: 4}}
	if diff := cmp.Diff(wantQuestions, recap.Questions); diff != "" {
		t.Errorf("archived Questions (-want +got):\n%s", diff)
	}
	data, err := json.Marshal(recap)
	if err != nil {
		t.Fatal(err)
	}
	var back kuis.Recap
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recap, back); diff != "" {
		t.Errorf("JSON round trip of %s (-archived +read back):\n%s", data, diff)
	}
	keys := []string{k.Meta(), k.Board(), k.Answers(), k.Log(), k.Order()}
	wantGone := map[string]string{}
	for _, key := range keys {
		wantGone[key] = "none"
	}
	if diff := cmp.Diff(wantGone, e.dump(keys...)); diff != "" {
		t.Errorf("keys after PurgeQuiz (-want +got):\n%s", diff)
	}
}
