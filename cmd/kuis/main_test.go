package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServerFromEnvironment: without -addr and -cluster, kuis takes
// $REDIS_CLUSTER_ADDRS, else $REDIS_ADDR, else 127.0.0.1:6379; an explicit
// -addr wins over both.
func TestServerFromEnvironment(t *testing.T) {
	tests := []struct {
		env   map[string]string
		args  []string
		addrs []string
		hash  bool
	}{
		{nil, nil, []string{"127.0.0.1:6379"}, false},
		{map[string]string{"REDIS_ADDR": "10.0.0.1:7"}, nil, []string{"10.0.0.1:7"}, false},
		{map[string]string{"REDIS_ADDR": "10.0.0.1:7", "REDIS_CLUSTER_ADDRS": "10.0.0.2:1, 10.0.0.3:1"}, nil, []string{"10.0.0.2:1", "10.0.0.3:1"}, true},
		{map[string]string{"REDIS_CLUSTER_ADDRS": "10.0.0.2:1"}, []string{"-addr", "10.0.0.4:1"}, []string{"10.0.0.4:1"}, false},
		{map[string]string{"REDIS_ADDR": "10.0.0.1:7"}, []string{"-cluster", "10.0.0.5:1"}, []string{"10.0.0.5:1"}, true},
	}
	for _, tt := range tests {
		c := &cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(k string) string { return tt.env[k] }}
		// acl rules needs no server: run resolves the flags and stops there.
		if err := c.run(context.Background(), append(tt.args, "acl", "rules", "app")); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.addrs, c.addrs); diff != "" || c.g.hashTag != tt.hash {
			t.Errorf("env %v, flags %v: hash tag %v; addresses (-want +got):\n%s", tt.env, tt.args, c.g.hashTag, diff)
		}
	}
}

// TestPasswordSources: the password is -password-file's first line, else
// $REDIS_PASSWORD; a missing file is an error of its own.
func TestPasswordSources(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("from file\r\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, ""},
		{map[string]string{"REDIS_PASSWORD": "from env"}, nil, "from env"},
		{map[string]string{"REDIS_PASSWORD": "from env"}, []string{"-password-file", file}, "from file"},
	} {
		c := &cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(k string) string { return tt.env[k] }}
		if err := c.run(context.Background(), append(tt.args, "acl", "rules", "app")); err != nil {
			t.Fatal(err)
		}
		if c.password != tt.want {
			t.Errorf("env %v, flags %v: password %q, want %q", tt.env, tt.args, c.password, tt.want)
		}
	}
	r := runKuis(nil, "-password-file", filepath.Join(t.TempDir(), "missing"), "acl", "rules", "app")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("missing password file: exit %d, stdout %q", r.code, r.stdout)
	}
	oneLine(t, "missing password file", r.stderr, "kuis: password file: ", "no such file")
}
