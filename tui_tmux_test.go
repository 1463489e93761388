package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ratelab/sim"
)

// inCI says skips for missing tools are failures (.ci/run sets RATELAB_CI=1).
func inCI() bool { return os.Getenv("RATELAB_CI") == "1" }

// tmuxSession is the built binary running in a detached tmux session of its own
// server, 160×48, inside a shell that reports how it exited.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s tmuxSession) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

// screen is what the pane shows now.
func (s tmuxSession) screen() string {
	out, err := s.tmux("capture-pane", "-p", "-t", "ui")
	if err != nil {
		s.t.Fatalf("capture-pane: %v: %s", err, out)
	}
	return out
}

// keys sends keys, one at a time with a pause, as a person types (an escape sent
// straight before another key would read as an escape sequence).
func (s tmuxSession) keys(keys ...string) {
	for _, k := range keys {
		if out, err := s.tmux("send-keys", "-t", "ui", k); err != nil {
			s.t.Fatalf("send-keys %s: %v: %s", k, err, out)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// waitFor polls the screen until it matches, or fails after 10 s showing it.
func (s tmuxSession) waitFor(what string, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sc := s.screen()
		if ok(sc) {
			return sc
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waiting for %s; the screen shows:\n%s", what, sc)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var accepted = regexp.MustCompile(`no limit +acc (\d+)`)

// TestUIInARealTerminal drives the built binary in tmux and reads the screen as a
// person would: the title, every lane, counters moving, pause, the picker, an
// export and the exported file, and a clean terminal after quitting.
func TestUIInARealTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if inCI() {
			t.Fatal("tmux is not installed; .ci/run installs it")
		}
		t.Skip("tmux is not installed: apt-get install tmux to run the real-terminal test")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ratelab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	s := tmuxSession{t: t, socket: fmt.Sprintf("ratelab-test-%d", os.Getpid())}
	shell := fmt.Sprintf("cd %s && TERM=xterm-256color ./ratelab --scenario retry-storm --export-dir %s; echo ratelab exited $?; sleep 30", dir, dir)
	if out, err := s.tmux("new-session", "-d", "-s", "ui", "-x", "160", "-y", "48", shell); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	defer s.tmux("kill-server")

	sc := s.waitFor("the first screen", func(sc string) bool {
		return strings.Contains(sc, "retry-storm — Retry storm: a 5-second deploy glitch")
	})
	for _, lane := range []string{"no limit", "fixed-window", "sliding-counter", "token-bucket", "gcra", "leaky-bucket"} {
		if !strings.Contains(sc, "│ "+lane) {
			t.Errorf("lane %q is not on screen:\n%s", lane, sc)
		}
	}
	s.keys("+", "+", "+") // 10×
	first := s.waitFor("counters", func(sc string) bool { return accepted.MatchString(sc) })
	moved := s.waitFor("the counters to move", func(sc string) bool {
		return accepted.MatchString(sc) && accepted.FindStringSubmatch(sc)[1] != accepted.FindStringSubmatch(first)[1]
	})
	if !strings.Contains(moved, "speed 10×") || !strings.Contains(moved, "● running") {
		t.Errorf("the header does not say running at 10×:\n%s", moved)
	}

	s.keys("Space")
	paused := s.waitFor("pause", func(sc string) bool { return strings.Contains(sc, "❚❚ paused") })
	time.Sleep(500 * time.Millisecond)
	if still := s.screen(); accepted.FindStringSubmatch(still)[1] != accepted.FindStringSubmatch(paused)[1] {
		t.Error("the counters moved while paused")
	}

	s.keys("s")
	s.waitFor("the picker", func(sc string) bool {
		return strings.Contains(sc, "Scenarios — enter to open") && strings.Contains(sc, "thundering-herd")
	})
	s.keys("Escape")
	s.waitFor("the picker to close", func(sc string) bool { return strings.Contains(sc, "│ no limit") })

	s.keys("e")
	sc = s.waitFor("the export", func(sc string) bool { return strings.Contains(sc, "exported ") })
	path := filepath.Join(dir, "retry-storm-seed1-requests.csv")
	if !strings.Contains(sc, "to "+path) {
		t.Errorf("the status line does not name %s:\n%s", path, sc)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(data), "\n"); header != sim.RequestColumns {
		t.Errorf("the exported file starts %q, want the contract's header", header)
	}

	s.keys("q")
	sc = s.waitFor("ratelab to exit", func(sc string) bool { return strings.Contains(sc, "ratelab exited") })
	if !strings.Contains(sc, "ratelab exited 0") || strings.Contains(sc, "│ no limit") {
		t.Errorf("after q the terminal should be back to the shell, exit status 0:\n%s", sc)
	}
}
