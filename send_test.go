package kuis

import (
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis/internal/batch"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/redis/rueidis"
)

// TestSendRedirected: the send layer's one reading of a failed run. TRYAGAIN
// goes again from any connection; MOVED (with its node), ASK, CLUSTERDOWN
// and a run that never reached its node only from a dedicated connection,
// and the last only while the caller's ctx lives; other failures never.
func TestSendRedirected(t *testing.T) {
	_, client := redistest.Miniredis(t)
	live := context.Background()
	over, cancel := context.WithCancel(live)
	cancel()
	reply := func(msg string) error { // a server's error reply, as rueidis reads it
		return client.Do(live, client.B().Eval().Script("return redis.error_reply(ARGV[1])").Numkeys(0).Arg(msg).Build()).Error()
	}
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("connection refused")}
	type got struct {
		Addr  string
		Again bool
	}
	tests := []struct {
		name      string
		ctx       context.Context
		err       error
		dedicated bool
		want      got
	}{
		{"no error", live, nil, true, got{}},
		{"TRYAGAIN on the client", live, reply("TRYAGAIN slot migrating"), false, got{"", true}},
		{"TRYAGAIN on a dedicated connection", live, reply("TRYAGAIN slot migrating"), true, got{"", true}},
		{"MOVED on the client", live, reply("MOVED 3999 127.0.0.1:6381"), false, got{}},
		{"MOVED on a dedicated connection", live, reply("MOVED 3999 127.0.0.1:6381"), true, got{"127.0.0.1:6381", true}},
		{"ASK on a dedicated connection", live, reply("ASK 3999 127.0.0.1:6381"), true, got{"", true}},
		{"CLUSTERDOWN on a dedicated connection", live, reply("CLUSTERDOWN the cluster is down"), true, got{"", true}},
		{"CLUSTERDOWN on the client", live, reply("CLUSTERDOWN the cluster is down"), false, got{}},
		{"another error reply", live, reply("ERR boom"), true, got{}},
		{"a failed dial on a dedicated connection", live, dial, true, got{"", true}},
		{"a failed dial once ctx ended", over, dial, true, got{}},
		{"a failed dial on the client", live, dial, false, got{}},
		{"another caller's ctx on a dedicated connection", live, context.Canceled, true, got{"", true}},
		{"the caller's own ctx", over, context.Canceled, true, got{}},
		{"a broken connection", live, &net.OpError{Op: "read", Net: "tcp", Err: fmt.Errorf("reset")}, true, got{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g got
			g.Addr, g.Again = redirected(tt.ctx, tt.err, tt.dedicated)
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("redirected(%v, dedicated %v) (-want +got):\n%s", tt.err, tt.dedicated, diff)
			}
		})
	}
}

// TestSendUnsent: the one rule for a command that never reached the server.
func TestSendUnsent(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"never sent by the batcher", fmt.Errorf("%w: %w", batch.ErrNotSent, context.Canceled), true},
		{"a failed dial", &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("refused")}, true},
		{"a cached read aborted", rueidis.ErrDoCacheAborted, true},
		{"a broken connection", &net.OpError{Op: "read", Net: "tcp", Err: fmt.Errorf("reset")}, false},
		{"a context error alone", context.DeadlineExceeded, false},
		{"no error", nil, false},
	}
	for _, tt := range tests {
		if got := unsent(tt.err); got != tt.want {
			t.Errorf("%s: unsent(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
