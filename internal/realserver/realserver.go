// Package realserver starts the real nginx and HAProxy binaries for tests, on free
// loopback ports, with generated configurations in the test's temporary folder,
// drives seeded traffic at them, and reads back, from each server's own logs, what
// it decided for every request and at which instant of its own clock. The
// conformance tests (algorithms/conformance/realserver_test.go) replay those
// instants through ratelab's product lanes and compare the decisions.
//
// A test that needs a server skips with a clear message when the binary is not
// installed, except in CI (RATELAB_CI=1), where that skip is a failure. Servers
// run in the foreground as the test's own child processes, one worker (one
// event loop, one copy of the limiter's state), listen on 127.0.0.1 only, keep
// every file in the test's temporary folder, and are stopped by their PID when
// the test ends.
package realserver

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binaries are where Debian installs the servers; Need looks there first, then on
// the PATH.
var binaries = map[string]string{
	"nginx":   "/usr/sbin/nginx",
	"haproxy": "/usr/sbin/haproxy",
}

// install says how to install each server, for the skip message.
var install = map[string]string{
	"nginx":   "apt-get install nginx",
	"haproxy": "apt-get install haproxy",
}

// Need returns the path of the server's binary ("nginx" or "haproxy"), and skips
// t when it is not installed (fails in CI, where .ci/run installs it).
func Need(t testing.TB, server string) string {
	t.Helper()
	if p, ok := binaries[server]; ok {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(server); err == nil {
		return p
	}
	if os.Getenv("RATELAB_CI") == "1" {
		t.Fatalf("%s is not installed; .ci/run installs it", server)
	}
	t.Skipf("%s is not installed: %s to run the tests against the real server", server, install[server])
	return ""
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

// newToken is a random word a server is configured to answer at /token, so the
// test knows the process answering on its port is the one it started.
func newToken() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// process is one server running as the test's child.
type process struct {
	name string
	cmd  *exec.Cmd
	out  *bytes.Buffer // its stdout and stderr, unless redirected
	// exited is closed when cmd has exited (a goroutine waits for it).
	exited chan struct{}
}

// startProcess starts the server and waits until the process answering
// http://127.0.0.1:port/token says token, which only the configuration it was
// started with does. It fails when the server exits first (its port taken, a bad
// configuration), when another process answers there, or after 10 s.
func startProcess(name string, cmd *exec.Cmd, port int, token string, errlog func() string) (*process, error) {
	p := &process{name: name, cmd: cmd, exited: make(chan struct{})}
	if cmd.Stdout == nil {
		p.out = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = p.out, p.out
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	go func() { cmd.Wait(); close(p.exited) }()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	url := fmt.Sprintf("http://127.0.0.1:%d/token", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%s on 127.0.0.1:%d exited at start:\n%s", name, port, p.output(errlog))
		default:
		}
		if resp, err := client.Get(url); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.TrimSpace(string(body)) != token {
				p.stop()
				return nil, fmt.Errorf("another process answers on 127.0.0.1:%d", port)
			}
			return p, nil
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s on 127.0.0.1:%d did not answer in 10 s:\n%s", name, port, p.output(errlog))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// output is what the server wrote to its stdout, stderr and error log.
func (p *process) output(errlog func() string) string {
	s := ""
	if p.out != nil {
		s = p.out.String()
	}
	if errlog != nil {
		s += errlog()
	}
	return s
}

// stop asks the server to stop (SIGTERM), kills it (SIGKILL) if it has not gone
// in 5 s, and waits for it. It signals only its own child, by PID.
func (p *process) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// startWithRetry runs try on free ports until one starts (at most 5 attempts):
// a free port may be taken by another process between the kernel's answer and
// the server's bind.
func startWithRetry(t testing.TB, try func(port int) error) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		err := try(freePort(t))
		if err == nil {
			return
		}
		if attempt == 5 {
			t.Fatal(err)
		}
		t.Logf("%v; trying another port", err)
	}
}

// readFile is the file's content, or "" when it cannot be read.
func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
