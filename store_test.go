package kuis_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// badIDs break the rule for quiz IDs and namespaces: 1 to 64 bytes of ASCII
// letters, digits, '-', '_' and '.'.
var badIDs = []struct{ name, id string }{
	{"empty", ""},
	{"65 bytes", strings.Repeat("a", 65)},
	{"colon", "kuis:01"},
	{"star", "kuis*"},
	{"question mark", "kuis?"},
	{"bracket", "kuis[1]"},
	{"open brace", "{kuis"},
	{"close brace", "kuis}"},
	{"space", "kuis 01"},
	{"newline", "kuis-01\n"},
	{"NUL", "kuis\x0001"},
	{"non-ASCII", "kuis-é"},
	{"invalid UTF-8", "kuis\xff"},
}

func TestNew(t *testing.T) {
	if s, err := kuis.New(nil); !errors.Is(err, kuis.ErrNoClient) || s != nil {
		t.Errorf("New(nil) = %v, %v; want nil, ErrNoClient", s, err)
	}
	client := redistest.Client(t)
	var tag []kuis.Option
	if redistest.Cluster() {
		tag = []kuis.Option{kuis.WithHashTag()}
	}
	for _, tt := range badIDs {
		if _, err := kuis.New(client, append(tag, kuis.WithNamespace(tt.id))...); !errors.Is(err, kuis.ErrInvalidNamespace) {
			t.Errorf("New(WithNamespace(%q)) = %v; want ErrInvalidNamespace", tt.id, err)
		}
		if _, err := kuis.ContractTable(kuis.WithNamespace(tt.id)); !errors.Is(err, kuis.ErrInvalidNamespace) {
			t.Errorf("ContractTable(WithNamespace(%q)) = %v; want ErrInvalidNamespace", tt.id, err)
		}
	}
	ns := strings.Repeat("aZ9-_.", 11)[:64]
	if s, err := kuis.New(client, append(tag, kuis.WithNamespace(ns))...); err != nil || s == nil {
		t.Errorf("New(64-byte namespace) = %v, %v; want a store", s, err)
	}
	for _, ties := range []kuis.TieOrder{7, -1} {
		if s, err := kuis.New(client, append(tag, kuis.WithTies(ties))...); !errors.Is(err, kuis.ErrInvalidOption) || s != nil {
			t.Errorf("New(WithTies(%d)) = %v, %v; want nil, ErrInvalidOption", ties, s, err)
		}
		if _, err := kuis.ContractTable(kuis.WithTies(ties)); !errors.Is(err, kuis.ErrInvalidOption) {
			t.Errorf("ContractTable(WithTies(%d)) = %v; want ErrInvalidOption", ties, err)
		}
		if got := kuis.ACLRules(kuis.RoleApp, kuis.WithTies(ties)); got != nil {
			t.Errorf("ACLRules(RoleApp, WithTies(%d)) = %q; want nil", ties, got)
		}
	}
	for _, ties := range []kuis.TieOrder{kuis.TiesByName, kuis.TiesByTime} {
		if s, err := kuis.New(client, append(tag, kuis.WithTies(ties))...); err != nil || s == nil {
			t.Errorf("New(WithTies(%d)) = %v, %v; want a store", ties, s, err)
		}
	}
	_, err := kuis.New(client)
	if redistest.Cluster() {
		if !errors.Is(err, kuis.ErrNeedsHashTag) {
			t.Errorf("New(cluster client) without WithHashTag = %v; want ErrNeedsHashTag", err)
		}
	} else if err != nil {
		t.Errorf("New(%s client) = %v; want a store", redistest.Target(), err)
	}
}

// TestInvalidQuizIDBeforeIO runs on a client whose server is gone: a valid
// call fails on the network, so an ErrInvalidQuizID proves the check came
// before any I/O; the handles and Keys of a valid ID need no server at all.
func TestInvalidQuizIDBeforeIO(t *testing.T) {
	t.Parallel()
	m, client := redistest.Miniredis(t)
	m.Close()
	store, err := kuis.New(client)
	if err != nil {
		t.Fatal(err)
	}
	archive := func(context.Context, kuis.Recap) error { return nil }
	calls := map[string]func(ctx context.Context, id string) error{
		"Keys":   func(_ context.Context, id string) error { _, err := store.Keys(id); return err },
		"Board":  func(_ context.Context, id string) error { _, err := store.Board(id); return err },
		"Meta":   func(_ context.Context, id string) error { _, err := store.Meta(id); return err },
		"Recap":  func(ctx context.Context, id string) error { _, err := store.Recap(ctx, id); return err },
		"Audit":  func(ctx context.Context, id string) error { _, err := store.Audit(ctx, id); return err },
		"Repair": func(ctx context.Context, id string) error { _, err := store.Repair(ctx, id); return err },
		"PurgeQuiz": func(ctx context.Context, id string) error {
			_, err := store.PurgeQuiz(ctx, id, archive)
			return err
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for name, call := range calls {
		err := call(ctx, "kuis-01")
		if io := name != "Keys" && name != "Board" && name != "Meta"; io == (err == nil) || errors.Is(err, kuis.ErrInvalidQuizID) {
			t.Errorf("%s(valid ID) on a dead server = %v; want an error only if it does I/O, never ErrInvalidQuizID", name, err)
		}
		for _, tt := range badIDs {
			if err := call(ctx, tt.id); !errors.Is(err, kuis.ErrInvalidQuizID) {
				t.Errorf("%s(%q) = %v; want ErrInvalidQuizID", name, tt.id, err)
			}
		}
	}
}

func TestKeysNames(t *testing.T) {
	t.Parallel()
	_, client := redistest.Miniredis(t)
	tests := []struct {
		name string
		opts []kuis.Option
		id   string
		want [6]string // QuizID, Board, Meta, Answers, Log, Order
	}{
		{"default", nil, "kuis-01", [6]string{"kuis-01", "kuis:papan:kuis-01", "kuis:meta:kuis-01",
			"kuis:jawaban:kuis-01", "kuis:catatan:kuis-01", "kuis:urutan:kuis-01"}},
		{"nil option ignored", []kuis.Option{nil}, "kuis-02", [6]string{"kuis-02", "kuis:papan:kuis-02", "kuis:meta:kuis-02",
			"kuis:jawaban:kuis-02", "kuis:catatan:kuis-02", "kuis:urutan:kuis-02"}},
		{"WithHashTag braces the ID only", []kuis.Option{kuis.WithHashTag()}, "kuis-01", [6]string{"kuis-01", "kuis:papan:{kuis-01}",
			"kuis:meta:{kuis-01}", "kuis:jawaban:{kuis-01}", "kuis:catatan:{kuis-01}", "kuis:urutan:{kuis-01}"}},
		{"WithNamespace, the last one wins", []kuis.Option{kuis.WithNamespace("a"), kuis.WithNamespace("sekolah_7.b-2")}, "kuis-01",
			[6]string{"kuis-01", "sekolah_7.b-2:papan:kuis-01", "sekolah_7.b-2:meta:kuis-01", "sekolah_7.b-2:jawaban:kuis-01",
				"sekolah_7.b-2:catatan:kuis-01", "sekolah_7.b-2:urutan:kuis-01"}},
		{"both, and TiesByTime changes no name", []kuis.Option{kuis.WithHashTag(), kuis.WithNamespace("ns"), kuis.WithTies(kuis.TiesByTime)},
			"Q.9_x", [6]string{"Q.9_x", "ns:papan:{Q.9_x}", "ns:meta:{Q.9_x}", "ns:jawaban:{Q.9_x}", "ns:catatan:{Q.9_x}", "ns:urutan:{Q.9_x}"}},
	}
	for _, tt := range tests {
		store, err := kuis.New(client, tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		k, err := store.Keys(tt.id)
		if err != nil {
			t.Fatalf("%s: Keys(%q): %v", tt.name, tt.id, err)
		}
		if diff := cmp.Diff(tt.want, [6]string{k.QuizID(), k.Board(), k.Meta(), k.Answers(), k.Log(), k.Order()}); diff != "" {
			t.Errorf("%s: Keys(%q) (-want +got):\n%s", tt.name, tt.id, diff)
		}
	}
}

// TestLongestIDAndNamespaceRunALifeCycle: 64 bytes is allowed for both.
func TestLongestIDAndNamespaceRunALifeCycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.store = e.storeOn(e.client, kuis.WithNamespace((e.ns + strings.Repeat("n", 64))[:64])) // purged at cleanup
	id := strings.Repeat("aZ9-_.", 11)[:64]
	m := e.meta(id)
	if err := m.Create(e.ctx, "Panjang", 1); err != nil {
		t.Fatal(err)
	}
	if a, err := e.board(id).RecordAnswer(e.ctx, "Ali", 1); err != nil || a.Score != 10 {
		t.Fatalf("RecordAnswer = %+v, %v; want score 10", a, err)
	}
	if v, err := e.store.Audit(e.ctx, id); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
	e.finish(id)
	archive := func(context.Context, kuis.Recap) error { return nil }
	if n, err := e.store.PurgeQuiz(e.ctx, id, archive); err != nil || n != 5 {
		t.Errorf("PurgeQuiz = %d, %v; want 5", n, err)
	}
}

// TestErrorMessages provokes errors of every kind and checks their text: one
// short line, the quiz and participant quoted (a long one cut to 64 bytes and
// "…"), no Redis key but for ErrCorrupt, no part said twice, and exactly one
// sentinel.
func TestErrorMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, m, b := e.running(3)
	q := strconv.Quote(id)
	if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
		t.Fatal(err)
	}
	finished, _, fb := e.running(3)
	e.finish(finished)
	badStatus, _, _ := e.running(3)
	e.mustRaw("HSET", e.keys(badStatus).Meta(), "status", "bad")
	long := strings.Repeat("x", 10<<10)
	cut := strconv.Quote(long[:64]) + "…"
	missing := quizID()
	noArchive := func(context.Context, kuis.Recap) error { return nil }

	only := func(_ any, err error) error { return err } // the error of a two-value call
	tests := []struct {
		name     string
		err      error
		sentinel error
		want     string // the whole message; "" checks only the parts below
		contains []string
	}{
		{"Create of an existing quiz", m.Create(e.ctx, "Lagi", 3), kuis.ErrQuizExists,
			"kuis: quiz already exists: quiz " + q, nil},
		{"Get of a missing quiz", only(e.meta(missing).Get(e.ctx)), kuis.ErrQuizNotFound,
			"kuis: quiz not found: quiz " + strconv.Quote(missing), nil},
		{"Finish of a missing quiz", e.meta(missing).Finish(e.ctx), kuis.ErrQuizNotFound,
			"kuis: quiz not found: quiz " + strconv.Quote(missing), nil},
		{"Standings of a missing quiz", only(e.board(missing).Standings(e.ctx)), kuis.ErrQuizNotFound,
			"kuis: quiz not found: quiz " + strconv.Quote(missing), nil},
		{"Recap of a missing quiz", only(e.store.Recap(e.ctx, missing)), kuis.ErrQuizNotFound,
			"kuis: quiz not found: quiz " + strconv.Quote(missing), nil},
		{"Audit of a missing quiz", only(e.store.Audit(e.ctx, missing)), kuis.ErrQuizNotFound,
			"kuis: quiz not found: quiz " + strconv.Quote(missing), nil},
		{"RecordAnswer on a finished quiz", only(fb.RecordAnswer(e.ctx, "Fay", 1)), kuis.ErrQuizFinished,
			"kuis: quiz is finished: quiz " + strconv.Quote(finished) + `, participant "Fay"`, nil},
		{"question above jumlah_soal", only(b.RecordAnswer(e.ctx, "Eko", 9)), kuis.ErrInvalidQuestion,
			"kuis: invalid question: quiz " + q + `, participant "Eko": question 9 of 3`, nil},
		{"PurgeQuiz of a running quiz", only(e.store.PurgeQuiz(e.ctx, id, noArchive)), kuis.ErrQuizRunning,
			"kuis: quiz is still running: quiz " + q + ": finish it before purging", nil},
		{"Standing of a participant not on the board", only(b.Standing(e.ctx, "Zed")), kuis.ErrNotOnBoard,
			"kuis: participant not on the board: quiz " + q + `, participant "Zed"`, nil},
		{"Get of an unknown status", only(e.meta(badStatus).Get(e.ctx)), kuis.ErrCorrupt,
			"kuis: data breaks the contract: " + e.keys(badStatus).Meta() + `: field status is "bad", want "berjalan" or "selesai"`, nil},
		{"Finish of an unknown status", e.meta(badStatus).Finish(e.ctx), kuis.ErrCorrupt,
			"kuis: data breaks the contract: " + e.keys(badStatus).Meta() + `: field status is "bad", want "berjalan" or "selesai"`, nil},
		{"10 KB quiz ID", only(e.store.Board(long)), kuis.ErrInvalidQuizID, "", []string{cut}},
		{"10 KB namespace", only(kuis.New(e.client, kuis.WithNamespace(long))), kuis.ErrInvalidNamespace, "", []string{cut}},
		{"unknown tie order", only(kuis.New(e.client, kuis.WithTies(7))), kuis.ErrInvalidOption, "kuis: invalid option: tie order 7", nil},
		{"10 KB participant", only(b.RecordAnswer(e.ctx, long, 1)), kuis.ErrInvalidParticipant, "", []string{cut}},
		{"10 KB title", m.Create(e.ctx, long, 3), kuis.ErrInvalidMeta, "", []string{cut}},
		{"negative offset", only(b.Page(e.ctx, -1, 10)), kuis.ErrInvalidRange, "", []string{"-1"}},
		{"nil archive", only(e.store.PurgeQuiz(e.ctx, finished, nil)), kuis.ErrNoArchive, "", nil},
		{"nil client", only(kuis.New(nil)), kuis.ErrNoClient, "", nil},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: no error; want %v", tt.name, tt.sentinel)
			continue
		}
		msg := tt.err.Error()
		for _, s := range kuis.Sentinels {
			if want := errors.Is(s, tt.sentinel); errors.Is(tt.err, s) != want {
				t.Errorf("%s: errors.Is(%q, %q) = %v", tt.name, msg, s, !want)
			}
		}
		if tt.want != "" && msg != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, msg, tt.want)
		}
		for _, part := range tt.contains {
			if !strings.Contains(msg, part) {
				t.Errorf("%s: %q does not hold %q", tt.name, msg, part)
			}
		}
		if len(msg) > 250 || strings.ContainsAny(msg, "\r\n") {
			t.Errorf("%s: %d bytes, want one line of at most 250: %q", tt.name, len(msg), msg)
		}
		if corrupt := errors.Is(tt.sentinel, kuis.ErrCorrupt); strings.Contains(msg, e.ns+":") != corrupt {
			t.Errorf("%s: %q names a key: %v; want only for ErrCorrupt", tt.name, msg, !corrupt)
		}
		seen := map[string]bool{}
		for _, part := range strings.Split(msg, ": ") {
			if seen[part] {
				t.Errorf("%s: %q says %q twice", tt.name, msg, part)
			}
			seen[part] = true
		}
	}
}
