package kuis_test

import (
	"context"
	"errors"
	"maps"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// archiveRecorder is an archive function that remembers every recap it was
// given and answers err.
type archiveRecorder struct {
	recaps []kuis.Recap
	err    error
	// during runs inside the archive call, between recap and delete.
	during func()
}

func (a *archiveRecorder) archive(_ context.Context, r kuis.Recap) error {
	a.recaps = append(a.recaps, r)
	if a.during != nil {
		a.during()
	}
	return a.err
}

// TestPurgeQuizDeletesOnlyAnArchivedFinishedQuiz runs PurgeQuiz on quizzes in
// every state and checks what archive saw, what was deleted, and that a
// neighbouring quiz of the same namespace is never touched.
func TestPurgeQuizDeletesOnlyAnArchivedFinishedQuiz(t *testing.T) {
	errArchive := errors.New("archive: bucket unreachable")
	tests := []struct {
		name string
		// setup returns the quiz to purge.
		setup func(t *testing.T, e *env) string
		// archive gets the recorder; nil passes a nil archive function.
		archive     func(a *archiveRecorder, e *env, keys kuis.Keys)
		nilArchive  bool
		want        int64
		wantErr     error
		wantArchive bool // archive is called once, with the recap TakeRecap gives
		wantGone    bool // every key of the quiz is deleted; else each keeps its content
		metaEdited  bool // the test itself changes meta during archive
	}{
		{
			name: "a finished quiz with answers: three keys",
			setup: func(t *testing.T, e *env) string {
				id, m, b := e.running(3)
				for _, a := range []kuis.AnswerInput{{Participant: "Ali", Question: 1}, {Participant: "Budi", Question: 1}, {Participant: "Ali", Question: 2}} {
					if _, err := b.RecordAnswer(e.ctx, a.Participant, a.Question); err != nil {
						t.Fatal(err)
					}
				}
				finishQuiz(t, e, m)
				return id
			},
			want: 3, wantArchive: true, wantGone: true,
		},
		{
			name: "a finished quiz without an answers key: two keys",
			setup: func(t *testing.T, e *env) string {
				id, m, _ := e.reference()
				finishQuiz(t, e, m)
				return id
			},
			want: 2, wantArchive: true, wantGone: true,
		},
		{
			name: "a finished quiz that nobody answered: only meta",
			setup: func(t *testing.T, e *env) string {
				id, m, _ := e.running(3)
				finishQuiz(t, e, m)
				return id
			},
			want: 1, wantArchive: true, wantGone: true,
		},
		{
			name: "a running quiz is refused before archive",
			setup: func(t *testing.T, e *env) string {
				id, _, b := e.running(3)
				if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
					t.Fatal(err)
				}
				return id
			},
			wantErr: kuis.ErrQuizRunning,
		},
		{
			name: "a failing archive keeps every key",
			setup: func(t *testing.T, e *env) string {
				id, m, b := e.reference()
				if _, err := b.RecordAnswer(e.ctx, "Dewi", 3); err != nil {
					t.Fatal(err)
				}
				finishQuiz(t, e, m)
				return id
			},
			archive:     func(a *archiveRecorder, _ *env, _ kuis.Keys) { a.err = errArchive },
			wantErr:     errArchive,
			wantArchive: true,
		},
		{
			// The recap was archived, then the quiz was reopened before the
			// delete: its new answers must not be lost.
			name: "a quiz reopened while archiving is not deleted",
			setup: func(t *testing.T, e *env) string {
				id, m, b := e.running(3)
				if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
					t.Fatal(err)
				}
				finishQuiz(t, e, m)
				return id
			},
			archive: func(a *archiveRecorder, e *env, k kuis.Keys) {
				a.during = func() { e.mustRaw("HSET", k.Meta(), "status", "berjalan") }
			},
			wantErr:     kuis.ErrQuizRunning,
			wantArchive: true,
			metaEdited:  true,
		},
		{
			name: "a nil archive",
			setup: func(t *testing.T, e *env) string {
				id, m, _ := e.reference()
				finishQuiz(t, e, m)
				return id
			},
			nilArchive: true,
			wantErr:    kuis.ErrNoArchive,
		},
		{
			name: "no meta: leftover keys stay for Purge",
			setup: func(t *testing.T, e *env) string {
				id := quizID()
				k := e.board(id).Keys()
				e.mustRaw("ZADD", k.Board(), "10", "Ali")
				e.mustRaw("SADD", k.Answers(), "1:Ali")
				return id
			},
			wantErr: kuis.ErrQuizNotFound,
		},
		{
			name: "meta with an unknown status",
			setup: func(t *testing.T, e *env) string {
				id, m, _ := e.reference()
				e.mustRaw("HSET", m.Keys().Meta(), "status", "arsip")
				return id
			},
			wantErr: kuis.ErrCorrupt,
		},
		{
			name: "meta of the wrong type",
			setup: func(t *testing.T, e *env) string {
				id := quizID()
				k := e.board(id).Keys()
				e.mustRaw("SET", k.Meta(), "selesai")
				e.mustRaw("ZADD", k.Board(), "10", "Ali")
				return id
			},
			wantErr: kuis.ErrCorrupt,
		},
		{
			name: "a finished quiz whose board breaks the contract",
			setup: func(t *testing.T, e *env) string {
				id, m, b := e.reference()
				finishQuiz(t, e, m)
				e.mustRaw("ZADD", b.Keys().Board(), "15", "Eko")
				return id
			},
			wantErr: kuis.ErrCorrupt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			// The neighbour: a finished quiz of the same namespace, with all three keys.
			_, nm, nb := e.running(2)
			if _, err := nb.RecordAnswer(e.ctx, "Tetangga", 2); err != nil {
				t.Fatal(err)
			}
			finishQuiz(t, e, nm)
			nk := nb.Keys()
			neighbour := keyContents(t, e, nk.Meta(), nk.Board(), nk.Answers())

			id := tt.setup(t, e)
			k := e.board(id).Keys()
			before := keyContents(t, e, k.Meta(), k.Board(), k.Answers())
			var wantRecap kuis.Recap
			if tt.wantArchive {
				var err error
				if wantRecap, err = kuis.TakeRecap(e.ctx, e.client, id, e.opts...); err != nil {
					t.Fatal(err)
				}
			}
			rec := &archiveRecorder{}
			if tt.archive != nil {
				tt.archive(rec, e, k)
			}
			archive := rec.archive
			if tt.nilArchive {
				archive = nil
			}

			got, err := kuis.PurgeQuiz(e.ctx, e.client, id, archive, e.opts...)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("PurgeQuiz(%q) = %d, %v; want error %v", id, got, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("PurgeQuiz(%q) = %d; want %d", id, got, tt.want)
			}

			switch {
			case !tt.wantArchive && len(rec.recaps) != 0:
				t.Errorf("archive called %d times; want none", len(rec.recaps))
			case tt.wantArchive && len(rec.recaps) != 1:
				t.Errorf("archive called %d times; want once", len(rec.recaps))
			case tt.wantArchive:
				if diff := cmp.Diff(wantRecap, rec.recaps[0], cmpopts.IgnoreFields(kuis.Recap{}, "TakenAt")); diff != "" {
					t.Errorf("archived recap (-TakeRecap +archived):\n%s", diff)
				}
			}

			after := keyContents(t, e, k.Meta(), k.Board(), k.Answers())
			want := before
			switch {
			case tt.wantGone:
				want = map[string]string{}
				for key := range before {
					want[key] = "none <nil>"
				}
			case tt.metaEdited:
				// Only the meta the test itself rewrote may differ.
				want = maps.Clone(before)
				want[k.Meta()] = after[k.Meta()]
			}
			if diff := cmp.Diff(want, after); diff != "" {
				t.Errorf("quiz keys after PurgeQuiz (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(neighbour, keyContents(t, e, nk.Meta(), nk.Board(), nk.Answers())); diff != "" {
				t.Errorf("the neighbouring quiz changed (-before +after):\n%s", diff)
			}
		})
	}
}

func finishQuiz(t *testing.T, e *env, m *kuis.Meta) {
	t.Helper()
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// TestQuizzesListsQuizzesWithMeta lists the quizzes of namespaces in several
// states. Keys are written raw so that both key forms exist on every target
// (a cluster client refuses handles without WithHashTag).
func TestQuizzesListsQuizzesWithMeta(t *testing.T) {
	meta := func(e *env, key string) {
		e.mustRaw("HSET", key, "judul", "Kuis", "jumlah_soal", "3", "status", "berjalan")
	}
	tests := []struct {
		name    string
		setup   func(e *env)
		hashTag bool
		want    []string
	}{
		{name: "an empty namespace", setup: func(*env) {}, want: []string{}},
		{
			name: "sorted IDs of plain meta keys",
			setup: func(e *env) {
				for _, id := range []string{"kuis-b", "kuis-10", "kuis-a", "Kuis-Z"} {
					meta(e, e.ns+":meta:"+id)
				}
			},
			want: []string{"Kuis-Z", "kuis-10", "kuis-a", "kuis-b"},
		},
		{
			name: "quizzes without meta are not listed",
			setup: func(e *env) {
				meta(e, e.ns+":meta:kuis-01")
				e.mustRaw("ZADD", e.ns+":papan:kuis-02", "10", "Ali")
				e.mustRaw("SADD", e.ns+":jawaban:kuis-03", "1:Ali")
				e.mustRaw("ZADD", e.ns+":papan:kuis-01", "10", "Ali")
			},
			want: []string{"kuis-01"},
		},
		{
			name: "without WithHashTag braced keys are ignored",
			setup: func(e *env) {
				meta(e, e.ns+":meta:kuis-plain")
				meta(e, e.ns+":meta:{kuis-tagged}")
			},
			want: []string{"kuis-plain"},
		},
		{
			name: "with WithHashTag only braced keys, IDs without braces",
			setup: func(e *env) {
				meta(e, e.ns+":meta:kuis-plain")
				meta(e, e.ns+":meta:{kuis-tagged}")
				meta(e, e.ns+":meta:{kuis-b}")
			},
			hashTag: true,
			want:    []string{"kuis-b", "kuis-tagged"},
		},
		{
			name: "keys that are no valid quiz ID are skipped",
			setup: func(e *env) {
				meta(e, e.ns+":meta:kuis-ok")
				meta(e, e.ns+":meta:kuis:01")
				meta(e, e.ns+":meta:{kuis-x")
			},
			want: []string{"kuis-ok"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			// Another namespace's quiz must never show up.
			other := newEnv(t)
			meta(other, other.ns+":meta:kuis-other")
			meta(other, other.ns+":meta:{kuis-other}")
			tt.setup(e)
			opts := []kuis.Option{kuis.WithNamespace(e.ns)}
			if tt.hashTag {
				opts = append(opts, kuis.WithHashTag())
			}
			// One key per SCAN page, and the default, must give the same list.
			for _, extra := range []kuis.Option{nil, kuis.WithScanCount(1)} {
				got, err := kuis.Quizzes(e.ctx, e.client, append(opts, extra)...)
				if err != nil {
					t.Fatalf("Quizzes: %v", err)
				}
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("Quizzes (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestQuizzesSeesQuizzesMadeByTheHandles ties Quizzes to Create: what the
// teacher's handle makes, Quizzes lists in the same options.
func TestQuizzesSeesQuizzesMadeByTheHandles(t *testing.T) {
	e := newEnv(t)
	id1, _, _ := e.running(3)
	id2, m2, _ := e.reference()
	finishQuiz(t, e, m2)
	got, err := kuis.Quizzes(e.ctx, e.client, e.opts...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{id1, id2}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Quizzes (-want +got):\n%s", diff)
	}
}

// TestQuizzesRefusesBadArguments checks the refusals that need no server.
func TestQuizzesRefusesBadArguments(t *testing.T) {
	tests := []struct {
		name    string
		client  rueidis.Client
		opts    []kuis.Option
		wantErr error
	}{
		{name: "nil client", wantErr: kuis.ErrNoClient},
		{name: "invalid namespace", client: redistest.Client(t), opts: []kuis.Option{kuis.WithNamespace("kuis:*")}, wantErr: kuis.ErrInvalidNamespace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := kuis.Quizzes(context.Background(), tt.client, tt.opts...)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Quizzes = %v, %v; want %v", got, err, tt.wantErr)
			}
		})
	}
}
