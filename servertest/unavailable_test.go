package servertest_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// everyMethod calls every method of the library once on quiz id, each with
// a context of its own that ends after within, and returns each one's error.
func everyMethod(t testing.TB, within time.Duration, s *kuis.Store, id string) map[string]error {
	b, m := handles(t, s, id)
	class, err := s.Class("kelas-" + id)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(ctx context.Context) error{
		"RecordAnswer": func(ctx context.Context) error { return errOf(b.RecordAnswer(ctx, "Ali", 2)) },
		"Join":         func(ctx context.Context) error { return errOf(b.Join(ctx, "Citra")) },
		"Class.Enroll": func(ctx context.Context) error {
			return class.Enroll(ctx, kuis.Student{ID: "s-1", Name: "Dewi"})
		},
		"Class.Students": func(ctx context.Context) error { return errOf(class.Students(ctx)) },
		"Standings":      func(ctx context.Context) error { return errOf(b.Standings(ctx)) },
		"Standing":       func(ctx context.Context) error { return errOf(b.Standing(ctx, "Ali")) },
		"Summary":        func(ctx context.Context) error { return errOf(b.Summary(ctx)) },
		"Get":            func(ctx context.Context) error { return errOf(m.Get(ctx)) },
		"Finish":         m.Finish,
		"Recap":          func(ctx context.Context) error { return errOf(s.Recap(ctx, id)) },
		"Audit":          func(ctx context.Context) error { return errOf(s.Audit(ctx, id)) },
		"Repair":         func(ctx context.Context) error { return errOf(s.Repair(ctx, id)) },
		"Purge":          func(ctx context.Context) error { return errOf(s.Purge(ctx)) },
		"Quizzes":        func(ctx context.Context) error { return errOf(s.Quizzes(ctx)) },
		"RecordAnswers": func(ctx context.Context) error {
			res, err := b.RecordAnswers(ctx, []kuis.AnswerInput{{Participant: "Budi", Question: 1}})
			if err == nil && len(res) == 1 {
				err = res[0].Err
			}
			return err
		},
		"Events": func(ctx context.Context) error {
			for _, err := range b.Events(ctx, "") {
				return err
			}
			return nil
		},
	}
	out := map[string]error{}
	for name, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), within)
		out[name] = call(ctx)
		cancel()
	}
	return out
}

// TestUnavailableServerIsOneError: while the server cannot be reached, or is
// not ready (a script holds it: BUSY; a replica that lost its primary:
// MASTERDOWN), every method answers ErrUnavailable, with the error of
// rueidis or of the server still wrapped, so that a service maps it to 503.
func TestUnavailableServerIsOneError(t *testing.T) {
	t.Parallel()
	srv := startFaultServer(t)
	e := faultEnv(t, srv)
	id, _, b := e.running(3)
	if _, err := b.RecordAnswer(e.ctx, "Ali", 1); err != nil {
		t.Fatal(err)
	}
	check := func(what string, errs map[string]error, wrapped func(error) bool) {
		t.Helper()
		for name, err := range errs {
			if !errors.Is(err, kuis.ErrUnavailable) || !wrapped(err) {
				t.Errorf("%s: %s = %v; want ErrUnavailable wrapping the cause", what, name, err)
			}
		}
	}

	t.Run("BUSY", func(t *testing.T) {
		if err := reply(srv, "CONFIG SET busy-reply-threshold 20", "OK"); err != nil {
			t.Fatal(err)
		}
		looping := make(chan error, 1)
		go func() { _, err := srv.Do("EVAL", "while true do end", "0"); looping <- err }()
		deadline := time.Now().Add(time.Minute)
		for { // until the server answers BUSY
			_, err := srv.Do("PING")
			if err != nil && strings.Contains(err.Error(), "BUSY") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the server never answered BUSY: %v", err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
		defer cancel()
		_, err := b.RecordAnswer(ctx, "Budi", 1)
		_, getErr := e.meta(id).Get(ctx)
		// The server's reply, or, when the call needed a connection of its
		// own (rueidis dials its pipes lazily), rueidis's handshake error,
		// which words the reply as ErrNoCache.
		busy := func(err error) bool {
			var re *rueidis.RedisError
			return errors.As(err, &re) && strings.HasPrefix(re.Error(), "BUSY") ||
				errors.Is(err, rueidis.ErrNoCache) && strings.Contains(err.Error(), "BUSY Redis is busy")
		}
		check("busy", map[string]error{"RecordAnswer": err, "Get": getErr}, busy)
		if _, err := srv.Do("SCRIPT", "KILL"); err != nil {
			t.Fatal(err)
		}
		if err := <-looping; err == nil {
			t.Error("the script that held the server ended without an error; want it killed")
		}
	})

	t.Run("MASTERDOWN", func(t *testing.T) {
		servers := redistest.NewServers(t, faultPortLo, faultPortHi)
		primary := servers.Standalone()
		replica := servers.Replica(primary, "--replica-serve-stale-data", "no")
		primary.Kill()
		c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{replica.Addr()}, ForceSingleClient: true, DisableCache: true})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := kuis.New(c, kuis.WithNamespace(e.ns))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
		defer cancel()
		deadline := time.Now().Add(time.Minute)
		for { // until the replica sees its primary gone
			if _, err := s.Quizzes(ctx); err != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		b, m := handles(t, s, id)
		_, err = b.Standings(ctx)
		_, getErr := m.Get(ctx)
		masterDown := func(err error) bool {
			var re *rueidis.RedisError
			return errors.As(err, &re) && strings.HasPrefix(re.Error(), "MASTERDOWN")
		}
		check("primary down", map[string]error{"Standings": err, "Get": getErr}, masterDown)
	})

	t.Run("unreachable", func(t *testing.T) {
		noRetry, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr()}, ForceSingleClient: true, DisableRetry: true})
		if err != nil {
			t.Fatal(err)
		}
		defer noRetry.Close()
		plain := e.storeOn(noRetry)
		srv.Kill()
		defer func() {
			if err := srv.Start(); err != nil { // for the env's cleanup
				t.Error(err)
			}
		}()
		connection := func(err error) bool {
			var op *net.OpError
			return errors.As(err, &op) || errors.Is(err, io.EOF)
		}
		check("server down", everyMethod(t, 2*time.Second, plain, id), connection)
		before := e.store.Stats()
		// rueidis sends a read again on a broken connection (unless
		// DisableRetry), until the caller's deadline: a read may end
		// with the deadline's error; a write is never sent again.
		for name, err := range everyMethod(t, 500*time.Millisecond, e.store, id) {
			switch {
			case errors.Is(err, kuis.ErrUnavailable) && connection(err):
			case errors.Is(err, context.DeadlineExceeded) && name != "RecordAnswer" && name != "RecordAnswers" && name != "Finish":
			default:
				t.Errorf("server down, rueidis retrying reads: %s = %v; want ErrUnavailable, or the deadline for a read", name, err)
			}
		}
		// Each answer is one not sent (no connection could be made) or one
		// failed (the first command on the connection the server's death
		// broke: the client cannot know it was not read), never counted.
		if got := e.store.Stats(); got.NotSent-before.NotSent+got.Failed-before.Failed != 2 || got.Counted != before.Counted {
			t.Errorf("Stats: %d not sent, %d failed, %d counted; want the 2 answers of the calls above not sent or failed",
				got.NotSent-before.NotSent, got.Failed-before.Failed, got.Counted-before.Counted)
		}
	})
}

// TestNewRefusesAClusterNodeWithoutAClusterClient: a client made with
// ForceSingleClient against a Redis Cluster node is refused by New with
// ErrNeedsClusterClient, saying what to set; the same client against a
// standalone server (or miniredis, which fakes a one-node cluster's CLUSTER
// SLOTS but has no CLUSTER INFO) is taken.
func TestNewRefusesAClusterNodeWithoutAClusterClient(t *testing.T) {
	t.Parallel()
	var addr string
	switch redistest.Target() {
	case "cluster":
		addr = redistest.Nodes()[0]
	case "standalone":
		addr = redistest.NewServers(t, faultPortLo, faultPortHi).ClusterNode().Addr()
	default:
		e := newEnv(t) // miniredis: the suite's own client is a single client
		if _, err := kuis.New(e.client, kuis.WithNamespace(e.ns)); err != nil {
			t.Errorf("New with a single client on miniredis = %v", err)
		}
		return
	}
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, opts := range [][]kuis.Option{nil, {kuis.WithHashTag()}} {
		s, err := kuis.New(c, opts...)
		if s != nil || !errors.Is(err, kuis.ErrNeedsClusterClient) || !strings.Contains(err.Error(), "ForceSingleClient") {
			t.Errorf("New(%d options) = %v, %v; want ErrNeedsClusterClient saying what to set", len(opts), s, err)
		}
	}
}
