package kuis_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestNewKeysSpellsContractKeyNames pins the wire names byte for byte: any
// change here breaks every deployment's data.
func TestNewKeysSpellsContractKeyNames(t *testing.T) {
	type names struct{ QuizID, Board, Meta, Answers string }
	tests := []struct {
		name string
		id   string
		opts []kuis.Option
		want names
	}{
		{"default namespace", "kuis-01", nil,
			names{"kuis-01", "kuis:papan:kuis-01", "kuis:meta:kuis-01", "kuis:jawaban:kuis-01"}},
		{"quiz two changes only the identity", "kuis-02", nil,
			names{"kuis-02", "kuis:papan:kuis-02", "kuis:meta:kuis-02", "kuis:jawaban:kuis-02"}},
		{"WithNamespace", "kuis-01", []kuis.Option{kuis.WithNamespace("sekolah_7.b-2")},
			names{"kuis-01", "sekolah_7.b-2:papan:kuis-01", "sekolah_7.b-2:meta:kuis-01", "sekolah_7.b-2:jawaban:kuis-01"}},
		{"WithHashTag braces the identity only", "kuis-01", []kuis.Option{kuis.WithHashTag()},
			names{"kuis-01", "kuis:papan:{kuis-01}", "kuis:meta:{kuis-01}", "kuis:jawaban:{kuis-01}"}},
		{"WithNamespace and WithHashTag", "Q.9_x", []kuis.Option{kuis.WithHashTag(), kuis.WithNamespace("ns")},
			names{"Q.9_x", "ns:papan:{Q.9_x}", "ns:meta:{Q.9_x}", "ns:jawaban:{Q.9_x}"}},
		{"the last WithNamespace wins", "kuis-01", []kuis.Option{kuis.WithNamespace("a"), kuis.WithNamespace("b")},
			names{"kuis-01", "b:papan:kuis-01", "b:meta:kuis-01", "b:jawaban:kuis-01"}},
		{"a nil option is ignored", "kuis-01", []kuis.Option{nil},
			names{"kuis-01", "kuis:papan:kuis-01", "kuis:meta:kuis-01", "kuis:jawaban:kuis-01"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := kuis.NewKeys(tt.id, tt.opts...)
			if err != nil {
				t.Fatalf("NewKeys(%q): %v", tt.id, err)
			}
			got := names{k.QuizID(), k.Board(), k.Meta(), k.Answers()}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NewKeys(%q) (-want +got):\n%s", tt.id, diff)
			}
		})
	}
}

// TestHandlesUseNewKeysNames proves Meta and Board address the same keys as
// NewKeys, so a test that writes raw through NewKeys names tests the handles.
func TestHandlesUseNewKeysNames(t *testing.T) {
	_, c := redistest.Miniredis(t)
	for _, opts := range [][]kuis.Option{nil, {kuis.WithNamespace("x")}, {kuis.WithHashTag()}} {
		want, err := kuis.NewKeys("kuis-01", opts...)
		if err != nil {
			t.Fatal(err)
		}
		m, err := kuis.NewMeta(c, "kuis-01", opts...)
		if err != nil {
			t.Fatal(err)
		}
		b, err := kuis.NewBoard(c, "kuis-01", opts...)
		if err != nil {
			t.Fatal(err)
		}
		if m.Keys() != want || b.Keys() != want {
			t.Errorf("Meta.Keys() = %+v, Board.Keys() = %+v; want %+v", m.Keys(), b.Keys(), want)
		}
	}
}

// invalidIDs break the quiz ID and namespace rule: 1 to 64 bytes of ASCII
// letters, digits, '-', '_' and '.'. Each would put a separator, a glob, a
// hash tag, whitespace, a control byte or non-ASCII into a key name.
var invalidIDs = []struct{ name, id string }{
	{"empty", ""},
	{"65 bytes", strings.Repeat("a", 65)},
	{"colon", "kuis:01"},
	{"star", "kuis*"},
	{"question mark", "kuis?"},
	{"open bracket", "kuis[1"},
	{"close bracket", "kuis1]"},
	{"open brace", "{kuis"},
	{"close brace", "kuis}"},
	{"hash tag", "{kuis-01}"},
	{"backslash", `kuis\01`},
	{"space", "kuis 01"},
	{"tab", "kuis\t01"},
	{"newline", "kuis-01\n"},
	{"carriage return", "kuis\r01"},
	{"NUL", "kuis\x0001"},
	{"DEL 0x7f", "kuis\x7f"},
	{"non-ASCII", "kuis-é"},
	{"invalid UTF-8", "kuis\xff"},
	{"slash", "kuis/01"},
	{"plus", "kuis+01"},
	{"comma", "kuis,01"},
}

// entryPoint is a constructor or top-level function that builds keys, reduced
// to its error.
type entryPoint struct {
	name string
	call func(ctx context.Context, c rueidis.Client, quizID string, opts []kuis.Option) error
	// io is true when a valid call talks to the server.
	io bool
}

func archiveNothing(context.Context, kuis.Recap) error { return nil }

// quizEntryPoints take a quiz ID.
var quizEntryPoints = []entryPoint{
	{"NewKeys", func(_ context.Context, _ rueidis.Client, id string, o []kuis.Option) error {
		_, err := kuis.NewKeys(id, o...)
		return err
	}, false},
	{"NewMeta", func(_ context.Context, c rueidis.Client, id string, o []kuis.Option) error {
		_, err := kuis.NewMeta(c, id, o...)
		return err
	}, false},
	{"NewBoard", func(_ context.Context, c rueidis.Client, id string, o []kuis.Option) error {
		_, err := kuis.NewBoard(c, id, o...)
		return err
	}, false},
	{"Audit", func(ctx context.Context, c rueidis.Client, id string, o []kuis.Option) error {
		_, err := kuis.Audit(ctx, c, id, o...)
		return err
	}, true},
	{"TakeRecap", func(ctx context.Context, c rueidis.Client, id string, o []kuis.Option) error {
		_, err := kuis.TakeRecap(ctx, c, id, o...)
		return err
	}, true},
	{"PurgeQuiz", func(ctx context.Context, c rueidis.Client, id string, o []kuis.Option) error {
		_, err := kuis.PurgeQuiz(ctx, c, id, archiveNothing, o...)
		return err
	}, true},
}

// nsEntryPoints take only options (the quiz ID is ignored).
var nsEntryPoints = []entryPoint{
	{"ContractTable", func(_ context.Context, _ rueidis.Client, _ string, o []kuis.Option) error {
		_, err := kuis.ContractTable(o...)
		return err
	}, false},
	{"Purge", func(ctx context.Context, c rueidis.Client, _ string, o []kuis.Option) error {
		_, err := kuis.Purge(ctx, c, o...)
		return err
	}, true},
	{"Quizzes", func(ctx context.Context, c rueidis.Client, _ string, o []kuis.Option) error {
		_, err := kuis.Quizzes(ctx, c, o...)
		return err
	}, true},
}

// deadClient returns a client whose server has gone away: any call that
// reaches the network fails with a connection or deadline error, not with the
// library's validation sentinels. The context's short deadline bounds
// rueidis' retries of read commands.
func deadClient(t *testing.T) (func() context.Context, rueidis.Client) {
	t.Helper()
	m, c := redistest.Miniredis(t)
	m.Close()
	ctx := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	return ctx, c
}

// TestDeadClientFailsValidCalls is the control for the "before any I/O"
// tests: valid calls on the dead client do fail, so a validation that ran after
// the first command would surface a connection error instead of the sentinel.
func TestDeadClientFailsValidCalls(t *testing.T) {
	ctx, c := deadClient(t)
	for _, ep := range append(append([]entryPoint{}, quizEntryPoints...), nsEntryPoints...) {
		if !ep.io {
			continue
		}
		t.Run(ep.name, func(t *testing.T) {
			err := ep.call(ctx(), c, "kuis-01", []kuis.Option{kuis.WithNamespace("ok")})
			if err == nil {
				t.Fatal("no error from a closed server")
			}
			for _, sentinel := range []error{kuis.ErrInvalidQuizID, kuis.ErrInvalidNamespace, kuis.ErrNoClient} {
				if errors.Is(err, sentinel) {
					t.Fatalf("err = %v; a valid call must fail on the network, not with %v", err, sentinel)
				}
			}
		})
	}
}

// TestInvalidQuizIDRefusedBeforeIO proves every function taking a quiz ID
// refuses a bad one with ErrInvalidQuizID before it talks to the server.
func TestInvalidQuizIDRefusedBeforeIO(t *testing.T) {
	ctx, c := deadClient(t)
	for _, ep := range quizEntryPoints {
		for _, tt := range invalidIDs {
			t.Run(ep.name+"/"+tt.name, func(t *testing.T) {
				err := ep.call(ctx(), c, tt.id, nil)
				if !errors.Is(err, kuis.ErrInvalidQuizID) {
					t.Errorf("%s(%q) = %v; want ErrInvalidQuizID", ep.name, tt.id, err)
				}
			})
		}
	}
}

// TestInvalidNamespaceRefusedBeforeIO proves every function taking options
// refuses a bad WithNamespace with ErrInvalidNamespace before any I/O, even
// with a valid quiz ID, and ACLRules returns no rules at all.
func TestInvalidNamespaceRefusedBeforeIO(t *testing.T) {
	ctx, c := deadClient(t)
	all := append(append([]entryPoint{}, quizEntryPoints...), nsEntryPoints...)
	for _, ep := range all {
		for _, tt := range invalidIDs {
			t.Run(ep.name+"/"+tt.name, func(t *testing.T) {
				err := ep.call(ctx(), c, "kuis-01", []kuis.Option{kuis.WithNamespace(tt.id)})
				if !errors.Is(err, kuis.ErrInvalidNamespace) {
					t.Errorf("%s(WithNamespace(%q)) = %v; want ErrInvalidNamespace", ep.name, tt.id, err)
				}
			})
		}
	}
	for _, role := range []kuis.Role{kuis.RoleApp, kuis.RoleTeacher} {
		if got := kuis.ACLRules(role, kuis.WithNamespace("ok")); len(got) == 0 {
			t.Fatalf("ACLRules(%v) with a valid namespace is empty; the nil checks below would prove nothing", role)
		}
		for _, tt := range invalidIDs {
			if got := kuis.ACLRules(role, kuis.WithNamespace(tt.id)); got != nil {
				t.Errorf("ACLRules(%v, WithNamespace(%q)) = %q; want nil", role, tt.id, got)
			}
		}
	}
}

// TestNilClientRefused: a nil client is ErrNoClient, not a panic.
func TestNilClientRefused(t *testing.T) {
	ctx := context.Background()
	for _, ep := range append(append([]entryPoint{}, quizEntryPoints...), nsEntryPoints...) {
		if ep.name == "NewKeys" || ep.name == "ContractTable" {
			continue // no client
		}
		t.Run(ep.name, func(t *testing.T) {
			if err := ep.call(ctx, nil, "kuis-01", nil); !errors.Is(err, kuis.ErrNoClient) {
				t.Errorf("%s(nil client) = %v; want ErrNoClient", ep.name, err)
			}
		})
	}
}

// TestLongestIDAndNamespaceAccepted: 64 bytes of every allowed character
// class is the upper bound, and a quiz with such names runs its life cycle.
func TestLongestIDAndNamespaceAccepted(t *testing.T) {
	id := strings.Repeat("aZ9-_.", 11)[:64]
	e := newEnv(t)
	ns := (e.ns + strings.Repeat("n", 64))[:64]
	opts := append(append([]kuis.Option{}, e.opts...), kuis.WithNamespace(ns))
	t.Cleanup(func() {
		if _, err := kuis.Purge(context.Background(), e.client, kuis.WithNamespace(ns)); err != nil {
			t.Logf("cleanup purge of %s: %v", ns, err)
		}
	})
	for _, ep := range append(append([]entryPoint{}, quizEntryPoints...), nsEntryPoints...) {
		if ep.name == "Audit" || ep.name == "TakeRecap" || ep.name == "PurgeQuiz" {
			continue // they need an existing quiz: run below
		}
		if err := ep.call(e.ctx, e.client, id, opts); err != nil {
			t.Errorf("%s(64-byte ID and namespace) = %v", ep.name, err)
		}
	}
	if kuis.ACLRules(kuis.RoleApp, kuis.WithNamespace(ns)) == nil {
		t.Error("ACLRules refused a 64-byte namespace")
	}

	m, err := kuis.NewMeta(e.client, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := kuis.NewBoard(e.client, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Create(e.ctx, "Panjang", 1); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if s, err := b.RecordCorrect(e.ctx, "Ali"); err != nil || s != 10 {
		t.Fatalf("RecordCorrect = %d, %v; want 10", s, err)
	}
	if !strings.HasPrefix(b.Keys().Board(), ns+":papan:") || !e.exists(b.Keys().Board()) {
		t.Errorf("board %q is not under %q or does not exist", b.Keys().Board(), ns)
	}
	if v, err := kuis.Audit(e.ctx, e.client, id, opts...); err != nil || len(v) != 0 {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
	if err := m.Finish(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := kuis.TakeRecap(e.ctx, e.client, id, opts...); err != nil {
		t.Errorf("TakeRecap: %v", err)
	}
	if n, err := kuis.PurgeQuiz(e.ctx, e.client, id, archiveNothing, opts...); err != nil || n != 2 {
		t.Errorf("PurgeQuiz = %d, %v; want 2 keys", n, err)
	}
}
