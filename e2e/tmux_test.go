package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ratelab/present"
)

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

// buildForTmux gives a temporary folder (returned too) holding the built binary
// as ./ratelab, or skips (fails in CI) without tmux.
func buildForTmux(t *testing.T) (bin, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the real-terminal tests drive tmux for seconds each; the full run has them")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if inCI() {
			t.Fatal("tmux is not installed; .ci/run installs it")
		}
		t.Skip("tmux is not installed: apt-get install tmux to run the real-terminal test")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "ratelab")
	if err := os.Symlink(builtRatelab(t), bin); err != nil {
		t.Fatal(err)
	}
	return bin, dir
}

// startTmux runs ./ratelab with args in dir, in a w×h tmux session of its own
// server, inside a shell that reports how it exited; env is prepended to the
// command (VAR=value …). The server is killed when the test ends.
func startTmux(t *testing.T, dir string, w, h int, env, args string) tmuxSession {
	t.Helper()
	s := tmuxSession{t: t, socket: fmt.Sprintf("ratelab-test-%d-%s-%dx%d", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"), w, h)}
	shell := fmt.Sprintf("cd %s && %s TERM=xterm-256color ./ratelab %s; echo ratelab exited $?; sleep 30", dir, env, args)
	if out, err := s.tmux("new-session", "-d", "-s", "ui", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), shell); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { s.tmux("kill-server") })
	return s
}

var accepted = regexp.MustCompile(`no limit +acc (\d+)`)

// TestUIInARealTerminal drives the built binary in tmux and reads the screen as a
// person would: the title, every lane, counters moving, pause, the picker, an
// export and the exported file, and a clean terminal after quitting.
func TestUIInARealTerminal(t *testing.T) {
	_, dir := buildForTmux(t)
	s := startTmux(t, dir, 160, 48, "", "--scenario retry-storm --export-dir "+dir)

	// the first screen whole: a capture can catch the terminal mid-paint, with the
	// title drawn and the lower panels not yet, so wait for every lane (waitFor
	// fails, showing the last screen, if one never comes)
	lanes := []string{"no limit", "fixed-window", "sliding-counter", "token-bucket", "gcra", "leaky-bucket"}
	s.waitFor("the first screen with every lane", func(sc string) bool {
		if !strings.Contains(sc, "retry-storm — Retry storm: a …-second deploy glitch") { // its numbers hidden until its question
			return false
		}
		for _, lane := range lanes {
			if !strings.Contains(sc, "│ "+lane) {
				return false
			}
		}
		return true
	})
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
		return strings.Contains(sc, "Scenarios — enter to open") && strings.Contains(sc, "bursty-user")
	})
	s.keys("Escape")
	s.waitFor("the picker to close", func(sc string) bool { return strings.Contains(sc, "│ no limit") })

	s.keys("e")
	sc := s.waitFor("the export", func(sc string) bool { return strings.Contains(sc, "exported ") })
	path := filepath.Join(dir, "retry-storm-seed1-requests.csv")
	if !strings.Contains(sc, "to "+path) {
		t.Errorf("the status line does not name %s:\n%s", path, sc)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(data), "\n"); header != present.RequestColumns+","+present.RequestRuleColumns {
		t.Errorf("the exported file starts %q, want the contract's header", header)
	}

	s.keys("q")
	sc = s.waitFor("ratelab to exit", func(sc string) bool { return strings.Contains(sc, "ratelab exited") })
	if !strings.Contains(sc, "ratelab exited 0") || strings.Contains(sc, "│ no limit") {
		t.Errorf("after q the terminal should be back to the shell, exit status 0:\n%s", sc)
	}
}

// TestUIAtCommonSizes opens the UI on the scenarios that once crashed at common
// terminal sizes, runs them at full speed with a resize in between, and fails if
// the pane ever shows a panic or the program exits before q.
func TestUIAtCommonSizes(t *testing.T) {
	_, dir := buildForTmux(t)
	for _, scenario := range []string{"retry-storm", "thundering-herd"} {
		for _, size := range [][2]int{{160, 48}, {120, 40}, {100, 30}, {80, 24}} {
			t.Run(fmt.Sprintf("%s/%dx%d", scenario, size[0], size[1]), func(t *testing.T) {
				t.Parallel()
				s := startTmux(t, dir, size[0], size[1], "", "--scenario "+scenario)
				healthy := func(sc string) {
					t.Helper()
					if strings.Contains(sc, "panic") || strings.Contains(sc, "goroutine") || strings.Contains(sc, "ratelab exited") {
						t.Fatalf("at %dx%d the program stopped before q:\n%s", size[0], size[1], sc)
					}
				}
				s.waitFor("the first screen", func(sc string) bool { return strings.Contains(sc, scenario+" — ") })
				s.keys("m")
				for _, resize := range [][2]int{{size[0] - 21, size[1] - 6}, {size[0] + 19, size[1] + 3}, size} {
					for i := 0; i < 8; i++ {
						time.Sleep(100 * time.Millisecond)
						healthy(s.screen())
					}
					if out, err := s.tmux("resize-window", "-t", "ui", "-x", fmt.Sprint(resize[0]), "-y", fmt.Sprint(resize[1])); err != nil {
						t.Fatalf("resize-window: %v: %s", err, out)
					}
				}
				s.keys("?", "tab", "Escape", "Enter", "Escape", "Tab", "r")
				healthy(s.screen())
				s.keys("q")
				sc := s.waitFor("ratelab to exit", func(sc string) bool { return strings.Contains(sc, "ratelab exited") })
				if !strings.Contains(sc, "ratelab exited 0") {
					t.Errorf("after q the exit status is not 0:\n%s", sc)
				}
			})
		}
	}
}

// TestUICrashRestoresTheTerminal makes the UI panic for real (a key that panics,
// asked for through the environment) and checks what the user is left with: the
// shell's screen, exit status 1, and a message naming a report file that holds
// what replays it.
func TestUICrashRestoresTheTerminal(t *testing.T) {
	_, dir := buildForTmux(t)
	s := startTmux(t, dir, 120, 40, "TMPDIR="+dir+" RATELAB_DEBUG_PANIC_KEY=X", "--scenario thundering-herd --seed 7")
	s.waitFor("the first screen", func(sc string) bool { return strings.Contains(sc, "thundering-herd — ") })
	s.keys("tab", "X")
	sc := s.waitFor("ratelab to exit", func(sc string) bool { return strings.Contains(sc, "ratelab exited") })
	if !strings.Contains(sc, "ratelab exited 1") || strings.Contains(sc, "╭") || strings.Contains(sc, "goroutine ") {
		t.Errorf("after a panic the terminal should be the shell's again, with exit status 1 and no stack trace:\n%s", sc)
	}
	report := regexp.MustCompile(`attach (\S+ratelab-crash-\S+\.txt)`).FindStringSubmatch(strings.ReplaceAll(sc, "\n", ""))
	if report == nil {
		t.Fatalf("the message does not name a report file:\n%s", sc)
	}
	data, err := os.ReadFile(report[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ratelab tui --scenario thundering-herd --seed 7", "in a terminal of 120×40", "last keys:  tab X"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the report lacks %q:\n%s", want, data)
		}
	}
}

// TestSandboxInARealTerminal: a student at 80×24 follows the lesson's keys —
// space, g 0.999s, X ten times (100 requests at 0.999 s), g 1s, x (one at
// 1.000 s) — and reads each lane's answer on screen, and the table: the fixed
// window accepts 101, every other lane 100; then saves the session, exports it,
// and the saved file replays headless to the same bytes.
func TestSandboxInARealTerminal(t *testing.T) {
	_, dir := buildForTmux(t)
	s := startTmux(t, dir, 80, 24, "", "--scenario sandbox --export-dir "+dir)
	s.waitFor("the sandbox", func(sc string) bool { return strings.Contains(sc, "sandbox — ") })
	s.keys("Space", "g")
	s.tmux("send-keys", "-t", "ui", "-l", "0.999s")
	s.keys("Enter")
	s.waitFor("0.999 s", func(sc string) bool { return strings.Contains(sc, "t 999.0ms") })
	s.tmux("send-keys", "-t", "ui", "-l", strings.Repeat("X", 10))
	s.waitFor("the 100th answer", func(sc string) bool { return strings.Contains(sc, "fixed-window for user-0: 200 allowed, remaining 0") })
	s.keys("g")
	s.tmux("send-keys", "-t", "ui", "-l", "1s")
	s.keys("Enter")
	s.waitFor("1.000 s", func(sc string) bool { return strings.Contains(sc, "t 1.000s") })
	s.keys("x")
	s.waitFor("the fixed window's new window", func(sc string) bool {
		return strings.Contains(sc, "fixed-window for user-0: 200 allowed, remaining 99")
	})
	s.keys("Tab")
	sc := s.waitFor("the sliding log's refusal", func(sc string) bool { return strings.Contains(sc, "sliding-log for user-0: 429 denied") })
	// the table's accepted column: the fixed window 101, every other lane 100
	for _, lane := range []string{"fixed-window", "sliding-log", "sliding-counter", "leaky-bucket", "token-bucket", "gcra", "x-time-rate"} {
		want := "100"
		if lane == "fixed-window" {
			want = "101"
		}
		var row []string // lane, offered, attempts, accepted, …
		for _, l := range strings.Split(sc, "\n") {
			if f := strings.Fields(l); row == nil && len(f) >= 4 && f[0] == lane && f[1] != "acc" { // the table, before the answer line
				row = f
			}
		}
		if len(row) < 4 || row[1] != "101" || row[3] != want {
			t.Errorf("%s's row of the table: %q, want 101 offered, %s accepted:\n%s", lane, row, want, sc)
		}
	}
	s.keys("S")
	sc = s.waitFor("the save", func(sc string) bool { return strings.Contains(sc, "saved the session") })
	s.keys("e")
	s.waitFor("the export", func(sc string) bool { return strings.Contains(sc, "exported ") })
	s.keys("q")
	s.waitFor("ratelab to exit", func(sc string) bool { return strings.Contains(sc, "ratelab exited 0") })

	exported, err := os.ReadFile(filepath.Join(dir, "sandbox-seed1-requests.csv"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "replayed.csv")
	cmd := exec.Command(filepath.Join(dir, "ratelab"), "run", "--file", filepath.Join(dir, "sandbox-session.toml"), "--scenario", "sandbox-session", "--csv", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("replaying the saved session: %v\n%s\n(the screen said:\n%s)", err, b, sc)
	}
	replayed, _ := os.ReadFile(out)
	// the export covers the run up to the time it was made: the replay's rows up
	// to there must be the same bytes
	if !strings.HasPrefix(string(replayed), string(exported)) || strings.Count(string(exported), "\n") != 1+7*101 {
		t.Errorf("the replay (%d lines) does not start with the export (%d lines)", strings.Count(string(replayed), "\n"), strings.Count(string(exported), "\n"))
	}
}

// TestQuestionInARealTerminal: at 80×24 the boundary-burst run stops at its
// question at 1.002 s and asks it with the lanes hidden; 200 typed and enter
// show the run's answer, right, and the claim that proves it; a key goes on,
// the status line saying where to see it.
func TestQuestionInARealTerminal(t *testing.T) {
	_, dir := buildForTmux(t)
	s := startTmux(t, dir, 80, 24, "", "--scenario boundary-burst")
	sc := s.waitFor("the question", func(sc string) bool { return strings.Contains(sc, "Predict, then see — question 1 of 1, at 1.002s") })
	if !strings.Contains(sc, "t 1.002s / 3.000s") || strings.Contains(sc, "acc 200") {
		t.Errorf("the question is not asked at 1.002 s with the lanes hidden:\n%s", sc)
	}
	s.tmux("send-keys", "-t", "ui", "-l", "200")
	s.keys("Enter")
	sc = s.waitFor("the answer", func(sc string) bool { return strings.Contains(sc, "✓ Right: 200. You said 200.") })
	if !strings.Contains(sc, "The proof: [fw-200] ✓") || !strings.Contains(sc, "any other key goes on") {
		t.Errorf("the answer does not give its proof:\n%s", sc)
	}
	s.keys("Space")
	s.waitFor("the lanes again", func(sc string) bool {
		return strings.Contains(sc, "fixed-window      acc 200") && strings.Contains(sc, "see it: the fixed window's panel")
	})
	s.keys("q")
	s.waitFor("ratelab to exit", func(sc string) bool { return strings.Contains(sc, "ratelab exited 0") })
}
