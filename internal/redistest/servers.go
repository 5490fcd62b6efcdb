package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// How long a server or a cluster may take to come up: generous, for a
// loaded 2-core machine; a healthy one takes well under a second per server
// and a few seconds per cluster.
const (
	startWait   = 20 * time.Second
	clusterWait = 60 * time.Second
	pollEvery   = 20 * time.Millisecond
)

// Servers starts the redis-server processes of one test (a standalone
// server, a replica of one, a cluster with replicas) on loopback ports of a
// range the test chooses, each checked free before use (and its cluster bus
// port, port + 10000, for a cluster node), so that tests of different
// packages that run at the same time, each with a range of its own, never
// collide, and no server ever lands on a shared one. Every server runs in a
// directory of its own under the test's temporary directory, in the
// foreground (never daemonized, so none lingers as a zombie), and is killed
// by PID at the test's cleanup.
type Servers struct {
	t      testing.TB
	lo, hi int
}

// claimed are the ports that the live Servers of this test binary hold:
// their servers' (down or up: a server restarts on its own port) and the
// ones they found in use. Tests that run in parallel may share a range:
// none picks a port another one holds.
var claimed = struct {
	sync.Mutex
	ports map[int]*Servers // port -> its holder
}{ports: map[int]*Servers{}}

// release gives up the ports s holds, once its servers are gone.
func (s *Servers) release() {
	claimed.Lock()
	defer claimed.Unlock()
	for p, holder := range claimed.ports {
		if holder == s {
			delete(claimed.ports, p)
		}
	}
}

// NewServers returns the starter of the test's servers on ports lo to hi
// (cluster nodes also use port + 10000). Starting servers is slow, so it
// skips the test in -short mode. It skips the test when no redis-server
// binary is on PATH, and fails it instead when CI=true, where CI installs
// one: a skip there would hide that the test never ran.
func NewServers(t testing.TB, lo, hi int) *Servers {
	t.Helper()
	if testing.Short() {
		t.Skip("redistest: this test starts redis-server processes; skipped in -short mode")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		msg := "redistest: this test starts redis-server processes and needs the binary on PATH (apt-get install redis-server): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg) // a skip in CI would hide that the test never ran
		}
		t.Skip(msg)
	}
	if lo < 1024 || hi < lo || hi+10000 > 65535 {
		t.Fatalf("redistest: port range %d-%d: want 1024 <= lo <= hi <= 55535", lo, hi)
	}
	s := &Servers{t: t, lo: lo, hi: hi}
	// Registered before any server's Kill, so it runs after them all.
	t.Cleanup(s.release)
	return s
}

// StandaloneServers is NewServers for tests whose servers are standalone
// or of their own cluster: they run once, in the standalone target's run
// (REDIS_ADDR), and it skips the test on any other target.
func StandaloneServers(t testing.TB, lo, hi int) *Servers {
	t.Helper()
	if target := Target(); target != "standalone" {
		t.Skipf("redistest: this test starts redis-server processes of its own; it runs only when the target is standalone (REDIS_ADDR), not %s", target)
	}
	return NewServers(t, lo, hi)
}

// Server is one redis-server process, restartable on the same port and
// directory (so that an append-only file, an ACL file or a cluster's
// nodes.conf is read again). Its methods other than the Servers' starters
// report errors instead of failing the test, so any goroutine may call them.
type Server struct {
	Port int    // its loopback port
	Dir  string // its working directory: log, AOF, nodes.conf

	args []string // redis-server's arguments after the port, dir and log

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and been reaped
}

// Standalone starts a server with redis-server's extra arguments args (for
// example "--appendonly", "yes") after the defaults: loopback, the port, no
// RDB snapshots, in the foreground, its directory and log file, and a full
// sync of a replica at once (repl-diskless-sync-delay 0). It returns
// once the server answers PING, and fails the test if it does not in 20 s.
func (s *Servers) Standalone(args ...string) *Server {
	s.t.Helper()
	return s.start(false, args)
}

// ClusterNode starts a server in cluster mode (its nodes.conf in its
// directory), on a port whose cluster bus port (port + 10000) is free too,
// with the extra arguments args, alone: it knows no other node and serves no
// slot until it is joined (CLUSTER MEET) or given some.
func (s *Servers) ClusterNode(args ...string) *Server {
	s.t.Helper()
	return s.start(true, append([]string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"}, args...))
}

// Replica starts a server that replicates primary (--replicaof) with the
// extra arguments args, and returns once its link to the primary is up
// (INFO replication: master_link_status:up).
func (s *Servers) Replica(primary *Server, args ...string) *Server {
	s.t.Helper()
	r := s.start(false, append([]string{"--replicaof", "127.0.0.1", strconv.Itoa(primary.Port)}, args...))
	err := waitFor(startWait, func() error {
		info, err := r.Do("INFO", "replication")
		if err == nil && !strings.Contains(info, "master_link_status:up") {
			err = errors.New("master_link_status is not up")
		}
		return err
	})
	if err != nil {
		s.t.Fatalf("redistest: replica %s of %s: %v", r.Addr(), primary.Addr(), err)
	}
	return r
}

// PrimaryWithReplica starts a standalone primary and one replica of it,
// and returns once the primary lists the replica as online.
func (s *Servers) PrimaryWithReplica() (primary, replica *Server) {
	s.t.Helper()
	primary = s.Standalone()
	replica = s.Replica(primary)
	if err := primary.WaitReplicas(1); err != nil {
		s.t.Fatal(err)
	}
	return primary, replica
}

// WaitReplicas waits, for up to 30 s, until the server's ROLE lists n online
// replicas: a replica's own link is up a moment before its primary counts
// it (its first REPLCONF ACK), or drops it.
func (srv *Server) WaitReplicas(n int) error {
	var role string
	var err error
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(pollEvery) {
		// A primary's ROLE, flattened: "master", its offset, then host, port and offset per replica.
		if role, err = srv.Do("ROLE"); err == nil && strings.HasPrefix(role, "master\n") && (strings.Count(role, "\n")-1)/3 == n {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("redistest: ROLE of %s, waiting for %d replicas: %w", srv.Addr(), n, err)
	}
	return fmt.Errorf("redistest: ROLE of %s = %q; want a primary with %d replicas", srv.Addr(), role, n)
}

// start starts one server, on another free port when the one chosen was
// taken meanwhile by a process of someone else.
func (s *Servers) start(bus bool, args []string) *Server {
	s.t.Helper()
	for attempt := 1; ; attempt++ {
		srv := &Server{Port: s.port(bus), Dir: s.t.TempDir(), args: args}
		s.t.Cleanup(srv.Kill)
		err := srv.Start()
		if err == nil {
			return srv
		}
		if !errors.Is(err, errPortInUse) || attempt == 5 {
			s.t.Fatal(err)
		}
	}
}

// port returns a port of the range that nothing listens on and no other
// Servers holds, from a random start (with its bus port too when bus is
// set), and claims it for s.
func (s *Servers) port(bus bool) int {
	s.t.Helper()
	claimed.Lock()
	defer claimed.Unlock()
	n := s.hi - s.lo + 1
	first := rand.IntN(n)
	for i := range n {
		p := s.lo + (first+i)%n
		if claimed.ports[p] != nil || !free(p) || bus && !free(p+10000) {
			continue
		}
		claimed.ports[p] = s
		return p
	}
	s.t.Fatalf("redistest: no free port in %d-%d", s.lo, s.hi)
	return 0
}

// free reports whether nothing listens on the loopback port.
func free(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// Addr is the server's host:port.
func (srv *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(srv.Port)) }

// PID is the server's process ID, or 0 while it is down.
func (srv *Server) PID() int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.cmd == nil {
		return 0
	}
	return srv.cmd.Process.Pid
}

// Log returns the server's log file, for a failure message.
func (srv *Server) Log() string {
	b, err := os.ReadFile(filepath.Join(srv.Dir, "redis.log"))
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// errPortInUse: the server could not listen on its port.
var errPortInUse = errors.New("port in use")

// Start runs the server (again, after Kill: same port, directory and
// arguments) and waits until it answers PING, which it does only once an
// append-only file is loaded. It fails if the server is running.
func (srv *Server) Start() error {
	srv.mu.Lock()
	if srv.cmd != nil {
		srv.mu.Unlock()
		return fmt.Errorf("redistest: server %s is running (PID %d)", srv.Addr(), srv.cmd.Process.Pid)
	}
	args := append([]string{
		"--port", strconv.Itoa(srv.Port), "--bind", "127.0.0.1", "--save", "",
		"--daemonize", "no", "--dir", srv.Dir, "--logfile", filepath.Join(srv.Dir, "redis.log"),
		"--repl-diskless-sync-delay", "0", // a replica syncs at once, not 5 s later
	}, srv.args...)
	// An ACL file named in the arguments is the server's own, in its
	// directory, and exists (redis-server refuses to start without it), so
	// that the users ACL SAVE wrote are read again at a restart.
	if i := slices.Index(args, "--aclfile"); i >= 0 && i+1 < len(args) && !filepath.IsAbs(args[i+1]) {
		file := filepath.Join(srv.Dir, args[i+1])
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			err = f.Close()
		}
		if err != nil {
			srv.mu.Unlock()
			return fmt.Errorf("redistest: ACL file: %w", err)
		}
		args = append(slices.Clone(args[:i+1]), append([]string{file}, args[i+2:]...)...)
	}
	cmd := exec.Command("redis-server", args...)
	if err := cmd.Start(); err != nil {
		srv.mu.Unlock()
		return fmt.Errorf("redistest: start redis-server: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	srv.cmd, srv.done = cmd, done
	srv.mu.Unlock()

	for end := time.Now().Add(startWait); time.Now().Before(end); time.Sleep(pollEvery) {
		select {
		case <-done:
			srv.mu.Lock()
			srv.cmd, srv.done = nil, nil
			srv.mu.Unlock()
			log := srv.Log()
			if strings.Contains(log, "Address already in use") {
				return fmt.Errorf("redistest: redis-server on %s: %w", srv.Addr(), errPortInUse)
			}
			return fmt.Errorf("redistest: redis-server on %s exited at start; log:\n%s", srv.Addr(), log)
		default:
		}
		if pong, err := srv.Do("PING"); err == nil && pong == "PONG" {
			return nil
		}
	}
	srv.Kill()
	return fmt.Errorf("redistest: redis-server on %s did not answer PING in %v; log:\n%s", srv.Addr(), startWait, srv.Log())
}

// Kill sends SIGKILL to the server's process and reaps it: kill -9, nothing
// written at exit. It does nothing while the server is down.
func (srv *Server) Kill() {
	srv.mu.Lock()
	cmd, done := srv.cmd, srv.done
	srv.cmd, srv.done = nil, nil
	srv.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Kill()
		<-done
	}
}

// Restart is Kill, then Start on the same port and directory.
func (srv *Server) Restart() error {
	srv.Kill()
	return srv.Start()
}

// Do sends one command on a fresh connection (no client library, so it
// works whatever state the server is in) and returns the reply as text: a
// status, integer or bulk string as it is, an array's elements one a line
// (nested arrays flattened), "" for a nil. An error reply is an error naming
// the command.
func (srv *Server) Do(args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", srv.Addr(), 2*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return "", err
	}
	reply, err := readReply(bufio.NewReader(conn))
	if err != nil {
		return "", fmt.Errorf("%s on %s: %w", strings.Join(args, " "), srv.Addr(), err)
	}
	return reply, nil
}

// readReply reads one RESP2 reply.
func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply line")
	}
	switch body := line[1:]; line[0] {
	case '+', ':':
		return body, nil
	case '-':
		return "", errors.New(body)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return "", err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return "", err
		}
		items := make([]string, n)
		var first error
		for i := range items {
			items[i], err = readReply(r)
			if err != nil && first == nil {
				first = err
			}
		}
		return strings.Join(items, "\n"), first
	default:
		return "", fmt.Errorf("unexpected reply %q", line)
	}
}

// OwnCluster is a Redis Cluster of the test's own: its primaries share the
// 16384 slots in equal ranges, and each has its replicas.
type OwnCluster struct {
	Primaries []*Server
	Replicas  [][]*Server // Replicas[i]: the replicas of Primaries[i]
}

// Cluster starts a cluster of primaries (1 or more) with replicas each (0 or
// more), every node with the extra arguments args (for example
// "--cluster-node-timeout", "2000"): it assigns the slots, joins the nodes
// (CLUSTER MEET), attaches each replica to its primary (CLUSTER REPLICATE),
// and returns once every node says cluster_state:ok and sees every other
// node healthy in its role, and every replica's link to its primary is up:
// a client seeded with Addrs then sees the whole cluster, replicas included.
func (s *Servers) Cluster(primaries, replicas int, args ...string) *OwnCluster {
	s.t.Helper()
	c := s.clusterNodes(primaries, replicas, args)
	if err := c.form(nil, true); err != nil {
		s.t.Fatalf("redistest: cluster %v: %v", c.Addrs(), err)
	}
	return c
}

// ClusterUnsettled is Cluster, but it returns as soon as every replica has
// been told to follow its primary (CLUSTER REPLICATE was accepted): a
// replica may still be connecting, syncing or loading, and a node may not
// yet know every other. fill, when not nil, runs on each primary (its
// index, then the primary) once every primary says cluster_state:ok and
// before any replica follows: what it writes, the replicas then load.
// Primary i holds the slots i*16384/primaries to (i+1)*16384/primaries-1.
// WaitOK waits for the rest.
func (s *Servers) ClusterUnsettled(primaries, replicas int, fill func(int, *Server) error, args ...string) *OwnCluster {
	s.t.Helper()
	c := s.clusterNodes(primaries, replicas, args)
	if err := c.form(fill, false); err != nil {
		s.t.Fatalf("redistest: cluster %v: %v", c.Addrs(), err)
	}
	return c
}

// clusterNodes starts the nodes of a cluster, each alone.
func (s *Servers) clusterNodes(primaries, replicas int, args []string) *OwnCluster {
	s.t.Helper()
	if primaries < 1 || replicas < 0 {
		s.t.Fatalf("redistest: a cluster of %d primaries with %d replicas each", primaries, replicas)
	}
	c := &OwnCluster{Replicas: make([][]*Server, primaries)}
	for range primaries {
		c.Primaries = append(c.Primaries, s.ClusterNode(args...))
	}
	for i := range primaries {
		for range replicas {
			c.Replicas[i] = append(c.Replicas[i], s.ClusterNode(args...))
		}
	}
	return c
}

// form joins the started nodes into the cluster, with fill run on each
// primary before the replicas follow, and, when settle is set, waits until
// the cluster is whole.
func (c *OwnCluster) form(fill func(int, *Server) error, settle bool) error {
	nodes := c.Nodes()
	const slots = 16384
	for i, p := range c.Primaries {
		lo, hi := i*slots/len(c.Primaries), (i+1)*slots/len(c.Primaries)-1
		if _, err := p.Do("CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(lo), strconv.Itoa(hi)); err != nil {
			return err
		}
	}
	// Distinct config epochs, as redis-cli --cluster create sets them, so
	// that no epoch collision has to be resolved first.
	for i, n := range nodes {
		if _, err := n.Do("CLUSTER", "SET-CONFIG-EPOCH", strconv.Itoa(i+1)); err != nil {
			return err
		}
	}
	for _, n := range nodes[1:] {
		if _, err := nodes[0].Do("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(n.Port)); err != nil {
			return err
		}
	}
	ids := map[*Server]string{}
	for _, n := range nodes {
		id, err := n.Do("CLUSTER", "MYID")
		if err != nil {
			return err
		}
		ids[n] = id
	}
	if fill != nil {
		for _, p := range c.Primaries {
			err := waitFor(clusterWait, func() error {
				info, err := p.Do("CLUSTER", "INFO")
				if err == nil && !strings.Contains(info, "cluster_state:ok") {
					err = fmt.Errorf("primary %s: cluster_state is not ok", p.Addr())
				}
				return err
			})
			if err != nil {
				return err
			}
		}
		for i, p := range c.Primaries {
			if err := fill(i, p); err != nil {
				return fmt.Errorf("fill primary %s: %w", p.Addr(), err)
			}
		}
	}
	// A replica can follow its primary once it knows it.
	for i, p := range c.Primaries {
		for _, r := range c.Replicas[i] {
			err := waitFor(clusterWait, func() error {
				_, err := r.Do("CLUSTER", "REPLICATE", ids[p])
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	if !settle {
		return nil
	}
	// CLUSTER SLOTS, which clients read, leaves out a replica whose
	// replication offset is 0; a write on each (empty) primary moves it,
	// once the replica is linked (else it would wait for the primary's
	// next ping, 10 s later).
	for _, rs := range c.Replicas {
		for _, r := range rs {
			err := waitFor(clusterWait, func() error {
				role, err := r.Do("ROLE")
				if err == nil && !strings.Contains(role, "\nconnected\n") {
					err = fmt.Errorf("replica %s: link to its primary is not up: %q", r.Addr(), role)
				}
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	for _, p := range c.Primaries {
		if _, err := p.Do("FLUSHALL"); err != nil {
			return err
		}
	}
	return c.wait(func(n *Server) error {
		view, err := n.Do("CLUSTER", "NODES")
		if err != nil {
			return err
		}
		if err := checkView(view, c, ids); err != nil {
			return err
		}
		slots, err := n.Do("CLUSTER", "SLOTS")
		if err != nil {
			return err
		}
		if listed, all := strings.Count(slots, "\n127.0.0.1\n"), len(ids); listed != all {
			return fmt.Errorf("CLUSTER SLOTS lists %d of the %d nodes", listed, all)
		}
		return nil
	})
}

// checkView checks one node's CLUSTER NODES: every node of c is there,
// connected, without a failure flag, a primary as a master and a replica as
// a slave of its primary.
func checkView(view string, c *OwnCluster, ids map[*Server]string) error {
	lines := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(view), "\n") {
		if f := strings.Fields(l); len(f) >= 8 {
			lines[f[0]] = f
		}
	}
	for i, p := range c.Primaries {
		f := lines[ids[p]]
		if len(f) < 8 || !strings.Contains(f[2], "master") || !healthy(f) {
			return fmt.Errorf("primary %s is not a healthy master: %v", p.Addr(), f)
		}
		for _, r := range c.Replicas[i] {
			f := lines[ids[r]]
			if len(f) < 8 || !strings.Contains(f[2], "slave") || f[3] != ids[p] || !healthy(f) {
				return fmt.Errorf("replica %s is not a healthy replica of %s: %v", r.Addr(), p.Addr(), f)
			}
		}
	}
	return nil
}

// healthy reports whether a CLUSTER NODES line shows a connected node
// without a failure or handshake flag.
func healthy(f []string) bool {
	for _, flag := range []string{"fail", "handshake", "noaddr"} {
		if strings.Contains(f[2], flag) {
			return false
		}
	}
	return f[7] == "connected"
}

// WaitOK waits up to 60 s until every running node of the cluster says
// cluster_state:ok with all 16384 slots assigned, and every running replica's
// link to its primary is up: after a Kill of a primary, once a replica took
// its place. Nodes that are down are not asked.
func (c *OwnCluster) WaitOK() error {
	return c.wait(func(*Server) error { return nil })
}

// wait waits until every running node is ok and passes check.
func (c *OwnCluster) wait(check func(*Server) error) error {
	return waitFor(clusterWait, func() error {
		for _, n := range c.Nodes() {
			if n.PID() == 0 {
				continue
			}
			info, err := n.Do("CLUSTER", "INFO")
			if err != nil {
				return err
			}
			if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_assigned:16384") {
				return fmt.Errorf("node %s: cluster_state is not ok:\n%s", n.Addr(), info)
			}
			if role, err := n.Do("ROLE"); err != nil {
				return err
			} else if strings.HasPrefix(role, "slave\n") && !strings.Contains(role, "\nconnected\n") {
				return fmt.Errorf("replica %s: link to its primary is not up: %q", n.Addr(), role)
			}
			if err := check(n); err != nil {
				return fmt.Errorf("node %s: %w", n.Addr(), err)
			}
		}
		return nil
	})
}

// Nodes are the cluster's servers: the primaries, then the replicas of each
// in turn.
func (c *OwnCluster) Nodes() []*Server {
	nodes := append([]*Server{}, c.Primaries...)
	for _, rs := range c.Replicas {
		nodes = append(nodes, rs...)
	}
	return nodes
}

// Addrs are the addresses of every node, as a client's seed list.
func (c *OwnCluster) Addrs() []string {
	var addrs []string
	for _, n := range c.Nodes() {
		addrs = append(addrs, n.Addr())
	}
	return addrs
}

// waitFor calls try every 20 ms until it returns nil, for up to bound, and
// returns its last error when the bound passes.
func waitFor(bound time.Duration, try func() error) error {
	end := time.Now().Add(bound)
	for {
		err := try()
		if err == nil {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("after %v: %w", bound, err)
		}
		time.Sleep(pollEvery)
	}
}
