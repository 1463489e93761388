// Package producttest runs the real products' own configuration checks for
// tests: nginx -t and haproxy -c, on a file, with everything nginx writes
// (error log, pid, temporary folders) in a temporary prefix. A test that needs
// a product skips with a clear message when it is not installed, except in CI
// (RATELAB_CI=1), where that skip is a failure.
package producttest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// find is the path of a product's binary: on PATH, or in /usr/sbin (where
// Debian installs both, and which a user's PATH may lack).
func find(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	p := filepath.Join("/usr/sbin", name)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, true
	}
	return "", false
}

// need returns the binary's path, or skips t (fails it in CI).
func need(t testing.TB, name, pkg string) string {
	t.Helper()
	p, ok := find(name)
	if !ok {
		if os.Getenv("RATELAB_CI") == "1" {
			t.Fatalf("%s is not installed; .ci/run installs it (apt-get install %s)", name, pkg)
		}
		t.Skipf("%s is not installed: apt-get install %s to check the configurations on the real server", name, pkg)
	}
	return p
}

// NeedNginx returns nginx's path, or skips t (fails it in CI).
func NeedNginx(t testing.TB) string { t.Helper(); return need(t, "nginx", "nginx") }

// NeedHAProxy returns haproxy's path, or skips t (fails it in CI).
func NeedHAProxy(t testing.TB) string { t.Helper(); return need(t, "haproxy", "haproxy") }

// Result is what a product's check said of a file.
type Result struct {
	OK     bool
	Output string
	// File and Line are where the product placed its first error ("" and 0
	// when it named no place).
	File string
	Line int
}

var (
	nginxPlace   = regexp.MustCompile(` in (\S+):(\d+)`)
	haproxyPlace = regexp.MustCompile(`\[([^\]:]+):(\d+)\]`)
)

// NginxTest runs nginx -t on the configuration at path, with a temporary
// prefix holding its error log and pid (the configuration must not set them).
func NginxTest(t testing.TB, path string) Result {
	t.Helper()
	bin := NeedNginx(t)
	prefix := t.TempDir()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	out := run(t, bin, "-t", "-q", "-c", abs, "-p", prefix+"/", "-g", "error_log "+prefix+"/error.log; pid "+prefix+"/nginx.pid;")
	r := Result{OK: out.ok, Output: out.text}
	if m := nginxPlace.FindStringSubmatch(out.text); m != nil {
		r.File = m[1]
		r.Line, _ = strconv.Atoi(m[2])
	}
	return r
}

// HAProxyCheck runs haproxy -c on the configuration at path.
func HAProxyCheck(t testing.TB, path string) Result {
	t.Helper()
	bin := NeedHAProxy(t)
	out := run(t, bin, "-c", "-f", path)
	r := Result{OK: out.ok, Output: out.text}
	if m := haproxyPlace.FindStringSubmatch(out.text); m != nil {
		r.File = m[1]
		r.Line, _ = strconv.Atoi(m[2])
	}
	return r
}

type output struct {
	ok   bool
	text string
}

// run runs a check, bounded in time: a check that hangs fails the test.
func run(t testing.TB, bin string, args ...string) output {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			t.Fatal(err)
		}
		return output{ok: err == nil, text: buf.String()}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s %v did not finish in 30s", bin, args)
	}
	return output{}
}
