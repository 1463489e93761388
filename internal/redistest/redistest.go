// Package redistest starts real redis-server processes for tests, on free loopback
// ports, and stops them when the test ends. A test that needs Redis skips with a
// clear message when redis-server is not installed, except in CI (RATELAB_CI=1),
// where that skip is a failure. Servers keep nothing on disk beyond the test's
// temporary folder.
package redistest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is one redis-server on 127.0.0.1.
type Server struct {
	Port int
	dir  string
	args []string
	cmd  *exec.Cmd
	// exited is closed when cmd has exited (a goroutine waits for it).
	exited <-chan struct{}
	t      testing.TB
}

// Addr is host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// URL is the redis:// URL of the server.
func (s *Server) URL() string { return "redis://" + s.Addr() }

// Need skips t when redis-server, redis-cli or one of the extra tools
// (redis-benchmark) is not installed (fails in CI).
func Need(t testing.TB, extra ...string) {
	t.Helper()
	for _, tool := range append([]string{"redis-server", "redis-cli"}, extra...) {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("RATELAB_CI") == "1" {
				t.Fatalf("%s is not installed; .ci/run installs it", tool)
			}
			t.Skipf("%s is not installed: apt-get install redis-server redis-tools to run the Redis tests", tool)
		}
	}
}

// freePort asks the kernel for a free loopback port.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start starts a redis-server for t, stopped when t ends; extra are more
// redis-server arguments. A free port may be taken by another process between
// the kernel's answer and redis-server's bind (tests run in parallel, and a
// cluster node also binds its port + 10000): the server that answers must be
// ours, else Start tries another port.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	Need(t)
	s := &Server{dir: t.TempDir(), t: t}
	t.Cleanup(s.Stop)
	for attempt := 1; ; attempt++ {
		s.Port = freePort(t)
		s.args = append([]string{"--port", fmt.Sprint(s.Port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", s.dir}, extra...)
		err := s.tryStart()
		if err == nil {
			return s
		}
		if attempt == 5 {
			t.Fatal(err)
		}
		t.Logf("%v; trying another port", err)
	}
}

func (s *Server) start() {
	s.t.Helper()
	if err := s.tryStart(); err != nil {
		s.t.Fatal(err)
	}
}

// tryStart starts redis-server with s.args and waits until it answers; it fails
// when the server exits first (its port taken) or another process answers there.
func (s *Server) tryStart() error {
	s.cmd = exec.Command("redis-server", s.args...)
	var out bytes.Buffer
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("redis-server: %v", err)
	}
	exited := make(chan struct{})
	cmd := s.cmd
	go func() { cmd.Wait(); close(exited) }()
	s.exited = exited
	deadline := time.Now().Add(10 * time.Second)
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	for {
		select {
		case <-exited:
			s.cmd = nil
			return fmt.Errorf("redis-server on %s exited at start:\n%s", s.Addr(), out.String())
		default:
		}
		if info, err := c.Info(context.Background(), "server").Result(); err == nil {
			if !strings.Contains(info, fmt.Sprintf("process_id:%d\r", cmd.Process.Pid)) {
				s.Stop()
				return fmt.Errorf("another process answers on %s", s.Addr())
			}
			return nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("redis-server on %s did not answer in 10 s:\n%s", s.Addr(), out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (as a crash would) and waits for it to go.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		<-s.exited
		s.cmd = nil
	}
}

// Pause stops the server's process (SIGSTOP): it accepts connections, as the
// kernel does for it, and answers nothing, as a server that hangs. Resume lets it
// go on; a paused server is resumed when the test ends, so it can be stopped.
func (s *Server) Pause() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("pausing redis-server: %v", err)
	}
	s.t.Cleanup(s.Resume)
}

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGCONT)
	}
}

// Keys are the keys on the server that match pattern (KEYS: for tests only).
func (s *Server) Keys(pattern string) []string {
	s.t.Helper()
	keys, err := s.Client().Keys(context.Background(), pattern).Result()
	if err != nil {
		s.t.Fatalf("KEYS on %s: %v", s.Addr(), err)
	}
	return keys
}

// Restart starts the server again on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// Client is a plain client of the server, for checks.
func (s *Server) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DisableIdentity: true})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// Cluster is a Redis Cluster of three masters on loopback ports, created with
// redis-cli --cluster create.
type Cluster struct {
	Nodes []*Server
}

// Keys are the keys matching pattern on every node of the cluster.
func (c *Cluster) Keys(pattern string) []string {
	var keys []string
	for _, n := range c.Nodes {
		keys = append(keys, n.Keys(pattern)...)
	}
	return keys
}

// URL is the cluster's URL for ratelab: the first node, the others as addr
// parameters, and cluster=true.
func (c *Cluster) URL() string {
	u := c.Nodes[0].URL() + "?cluster=true"
	for _, n := range c.Nodes[1:] {
		u += "&addr=" + n.Addr()
	}
	return u
}

// StartCluster starts a three-master cluster for t and waits until it is ready.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	Need(t)
	c := &Cluster{}
	var addrs []string
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		n := Start(t, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"), "--cluster-node-timeout", "5000")
		c.Nodes = append(c.Nodes, n)
		addrs = append(addrs, n.Addr())
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, n := range c.Nodes {
		cl := n.Client()
		for {
			info, _ := cl.ClusterInfo(context.Background()).Result()
			if strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the cluster did not become ready: %s", info)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return c
}

// StartReplica starts a redis-server replicating primary (--replicaof), stopped
// when t ends, and waits until its link to the primary is up and the first
// synchronisation is done.
func StartReplica(t testing.TB, primary *Server) *Server {
	t.Helper()
	r := Start(t, "--replicaof", "127.0.0.1", fmt.Sprint(primary.Port))
	c := r.Client()
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := c.Info(context.Background(), "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") && strings.Contains(info, "master_sync_in_progress:0") {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica on %s of %s: link not up in 10 s (%v):\n%s", r.Addr(), primary.Addr(), err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
