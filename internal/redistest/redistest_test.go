package redistest

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/rueidis"
)

func TestClientPing(t *testing.T) {
	ctx := context.Background()
	c := Client(t)
	got, err := c.Do(ctx, c.B().Ping().Build()).ToString()
	if err != nil || got != "PONG" {
		t.Fatalf("PING on %s = %q, %v; want PONG", Target(), got, err)
	}
	want := rueidis.ClientModeStandalone
	if Cluster() {
		want = rueidis.ClientModeCluster
	}
	if c.Mode() != want {
		t.Errorf("Mode() = %q on %s, want %q", c.Mode(), Target(), want)
	}
	if Real() != (len(Nodes()) > 0) {
		t.Errorf("Real() = %v but Nodes() = %v", Real(), Nodes())
	}
}

func TestNamespace(t *testing.T) {
	valid := regexp.MustCompile(`^kt[0-9a-f]{12}$`)
	seen := make(map[string]bool)
	for range 1000 {
		ns := Namespace(t)
		if !valid.MatchString(ns) {
			t.Fatalf("Namespace() = %q, want kt + 12 lowercase hex", ns)
		}
		if seen[ns] {
			t.Fatalf("Namespace() repeated %q", ns)
		}
		seen[ns] = true
	}
}

func TestMiniredis(t *testing.T) {
	m, c := Miniredis(t)
	key := Namespace(t) + ":k"
	if err := m.Set(key, "v"); err != nil {
		t.Fatal(err)
	}
	got, err := c.Do(context.Background(), c.B().Get().Key(key).Build()).ToString()
	if err != nil || got != "v" {
		t.Fatalf("GET %s = %q, %v; want v", key, got, err)
	}
}

// TestClientAs proves the credentials are sent: the user may write only its own keys.
func TestClientAs(t *testing.T) {
	if !Real() {
		t.Skip("ACL needs a real Redis")
	}
	ctx := context.Background()
	user, password := Namespace(t), Namespace(t)
	// ACL users are per node, so create (and later drop) the user on each one.
	for _, addr := range Nodes() {
		admin, err := rueidis.NewClient(rueidis.ClientOption{
			InitAddress: []string{addr}, ForceSingleClient: true, DisableCache: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(admin.Close)
		setuser := admin.B().Arbitrary("ACL", "SETUSER", user, "on", ">"+password, "resetkeys", "~"+user+":*", "+@all").Build()
		if err := admin.Do(ctx, setuser).Error(); err != nil {
			t.Fatalf("ACL SETUSER on %s: %v", addr, err)
		}
		t.Cleanup(func() { admin.Do(context.Background(), admin.B().Arbitrary("ACL", "DELUSER", user).Build()) })
	}

	c := ClientAs(t, user, password)
	own := user + ":k"
	if err := c.Do(ctx, c.B().Set().Key(own).Value("v").Build()).Error(); err != nil {
		t.Fatalf("SET %s as %s: %v", own, user, err)
	}
	t.Cleanup(func() { c.Do(context.Background(), c.B().Del().Key(own).Build()) })
	err := c.Do(ctx, c.B().Set().Key("other:"+user).Value("v").Build()).Error()
	if ret, ok := rueidis.IsRedisErr(err); !ok || !strings.HasPrefix(ret.Error(), "NOPERM") {
		t.Fatalf("SET outside the user's keys: err = %v, want NOPERM", err)
	}
}
