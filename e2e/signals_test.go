package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratelab/internal/check"
	"ratelab/internal/redistest"
)

// The tests here run the built binary as a child process and send it real
// signals mid-run, as a person or a supervisor would. How fast a run stops is
// measured by BenchmarkStop (sim) and BenchmarkInterrupt (here); the bound these
// tests assert is only far below what the old binary took (7 to 176 s, or never).

// interruptedBy is how the binary names a signal that stopped it: "interrupted
// by " and this.
var interruptedBy = map[syscall.Signal]string{
	syscall.SIGINT:  "SIGINT (Ctrl-C)",
	syscall.SIGTERM: "SIGTERM",
	syscall.SIGHUP:  "SIGHUP (the terminal closed)",
}

// scenarioFile writes a scenario file of one scenario, "s", into dir.
func scenarioFile(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(path, []byte("[[scenario]]\nname = \"s\"\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A burst of ten million requests at one instant: minutes of work with the CSV.
const bigBurst = `duration = "2s"
[scenario.policy]
limit = 100
[[scenario.client]]
name = "burst"
pattern = "bursts"
bursts = [{ at = "1s", count = 10000000 }]
`

// A retry storm: 10,000 requests a second, each retried at once up to 1,000
// times, against 10 a second, for a minute.
const retryStorm = `duration = "60s"
[scenario.policy]
limit = 10
[[scenario.client]]
name = "storm"
pattern = "constant"
rate = 10000
retry = { policy = "immediate", max_attempts = 1000 }
`

// child is the binary running with args in dir.
type child struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	dir    string
	exited chan error
}

func startChild(t *testing.T, dir string, args ...string) *child {
	t.Helper()
	return startChildEnv(t, dir, nil, args...)
}

// startChildEnv starts the binary as startChild does, with env added to its
// environment (TMPDIR=…).
func startChildEnv(t *testing.T, dir string, env []string, args ...string) *child {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the signal tests bound how long the binary takes to stop on the wall clock, over seconds of load; the full run has them")
	}
	c := &child{cmd: exec.Command(builtRatelab(t), args...), dir: dir, exited: make(chan error, 1)}
	c.cmd.Dir = dir
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.exited <- c.cmd.Wait() }()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.exited
	})
	return c
}

// waitUntil polls ok for up to 20 s, failing the test (with what the child said)
// if it never holds or the child exits first.
func (c *child) waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		select {
		case err := <-c.exited:
			c.exited <- err
			t.Fatalf("the child exited (%v) before %s: %s", err, what, c.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %s", what, c.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signal sends sig and waits for the child to exit; it returns the exit code and
// how long the child took.
func (c *child) signal(t *testing.T, sig syscall.Signal, within time.Duration) (int, time.Duration) {
	t.Helper()
	sent := time.Now()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-c.exited:
		c.exited <- err
		took := time.Since(sent)
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return c.cmd.ProcessState.ExitCode(), took
	case <-time.After(within):
		t.Fatalf("the child did not exit within %v of %v: %s", within, sig, c.stderr.String())
	}
	return 0, 0
}

// temporaries are the temporary files the child's outputs left in its folder.
func (c *child) temporaries() []string {
	found, _ := filepath.Glob(filepath.Join(c.dir, ".*.tmp"))
	return found
}

// writing says the child has started writing its CSV.
func (c *child) writing() bool { return len(c.temporaries()) > 0 }

// SIGINT, SIGTERM and SIGHUP stop a run promptly, whatever the load — a burst of
// ten million at one instant, a storm of immediate retries — and it exits 1
// saying where it stopped, with no temporary file left and no CSV written. The
// old run looked once per virtual second: 176 s for the burst, 7–17 s for the
// storm, and SIGHUP killed it with its temporary files left.
func TestSignalsStopARun(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scenario string
		sig      syscall.Signal
		says     string
	}{
		{"burst/SIGINT", bigBurst, syscall.SIGINT, "interrupted by SIGINT (Ctrl-C) at "},
		{"burst/SIGTERM", bigBurst, syscall.SIGTERM, "interrupted by SIGTERM at "},
		{"burst/SIGHUP", bigBurst, syscall.SIGHUP, "interrupted by SIGHUP (the terminal closed) at "},
		{"retry storm/SIGINT", retryStorm, syscall.SIGINT, "interrupted by SIGINT (Ctrl-C) at "},
		{"retry storm/SIGHUP", retryStorm, syscall.SIGHUP, "interrupted by SIGHUP (the terminal closed) at "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := scenarioFile(t, dir, tc.scenario)
			c := startChild(t, dir, "run", "--file", file, "--scenario", "s", "--csv", "rows.csv", "--series", "series.csv")
			c.waitUntil(t, "the run to start writing", c.writing)
			time.Sleep(200 * time.Millisecond) // well into the run
			code, took := c.signal(t, tc.sig, 10*time.Second)
			t.Logf("%s: exited %d in %v: %s", tc.name, code, took, strings.TrimSpace(c.stderr.String()))
			if code != 1 || !strings.Contains(c.stderr.String(), tc.says) || !strings.Contains(c.stderr.String(), "of virtual time; nothing was written") {
				t.Errorf("exit %d: %s; want exit 1 and %q", code, c.stderr.String(), tc.says)
			}
			if took > 2*time.Second {
				t.Errorf("exited %v after %v", took, tc.sig)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("the folder holds %v; want only the scenario file (no CSV, no temporary)", entries)
			}
		})
	}
}

// A run on Redis stopped by a signal removes its keys before it exits; one on a
// Redis that answers nothing (SIGSTOP) still exits promptly, and says its keys
// could not be removed and expire by themselves. The old run ignored SIGINT for
// over 3 minutes with Redis frozen, and SIGHUP left the keys.
func TestSignalsOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			file := scenarioFile(t, dir, retryStorm)
			c := startChild(t, dir, "run", "--file", file, "--scenario", "s", "--redis", srv.URL(), "--csv", "rows.csv")
			c.waitUntil(t, "keys on Redis", func() bool { return len(srv.Keys("{ratelab:*")) > 0 })
			code, took := c.signal(t, sig, 10*time.Second)
			t.Logf("exited %d in %v: %s", code, took, strings.TrimSpace(c.stderr.String()))
			if code != 1 || !strings.Contains(c.stderr.String(), "interrupted by "+interruptedBy[sig]) {
				t.Errorf("exit %d: %s", code, c.stderr.String())
			}
			if took > 3*time.Second {
				t.Errorf("exited %v after %v", took, sig)
			}
			if left := srv.Keys("{ratelab:*"); len(left) != 0 {
				t.Errorf("%d keys left on Redis, such as %s", len(left), left[0])
			}
			if left := c.temporaries(); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
	t.Run("frozen", func(t *testing.T) {
		frozen := redistest.Start(t)
		dir := t.TempDir()
		file := scenarioFile(t, dir, retryStorm)
		c := startChild(t, dir, "run", "--file", file, "--scenario", "s", "--redis", frozen.URL(), "--csv", "rows.csv")
		c.waitUntil(t, "keys on Redis", func() bool { return len(frozen.Keys("{ratelab:*")) > 0 })
		frozen.Pause()
		time.Sleep(300 * time.Millisecond) // the run now waits on Redis
		code, took := c.signal(t, syscall.SIGINT, 10*time.Second)
		t.Logf("exited %d in %v: %s", code, took, strings.TrimSpace(c.stderr.String()))
		if code != 1 || !strings.Contains(c.stderr.String(), "interrupted by SIGINT (Ctrl-C) at ") || !strings.Contains(c.stderr.String(), "expire within 24 hours") {
			t.Errorf("exit %d: %s; want exit 1, the interrupt and the keys' expiry", code, c.stderr.String())
		}
		if took > 4*time.Second {
			t.Errorf("exited %v after SIGINT; the clean-up gives up after 2 s", took)
		}
		if left := c.temporaries(); len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
		frozen.Resume()
	})
}

// BenchmarkInterrupt measures, on the built binary, the time from SIGINT to the
// process's exit, in the middle of a burst of ten million requests with the CSV
// (all seven lanes in memory): the signal's whole path, clean-up included.
func BenchmarkInterrupt(b *testing.B) {
	bin := builtRatelab(b)
	dir := b.TempDir()
	file := filepath.Join(dir, "s.toml")
	check.Setup(b, os.WriteFile(file, []byte("[[scenario]]\nname = \"s\"\n"+bigBurst), 0o644))
	var total, most time.Duration
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "run", "--file", file, "--scenario", "s", "--csv", filepath.Join(dir, "rows.csv"))
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		time.Sleep(time.Second)
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		took := time.Since(sent)
		total += took
		most = max(most, took)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-exit")
	b.ReportMetric(float64(most.Microseconds())/1000, "max-ms-to-exit")
}

// Closing the terminal (SIGHUP) while the UI exports, on Redis: the export is
// stopped and its temporary files removed, and the keys of the export's run and
// of the run shown are removed before the process exits. The old UI died on
// SIGHUP at once, leaving both.
func TestClosingTheTerminalMidExportLeavesNothing(t *testing.T) {
	_, dir := buildForTmux(t)
	srv := redistest.Start(t)
	exports := filepath.Join(dir, "exports")
	check.Setup(t, os.Mkdir(exports, 0o755))
	s := startTmux(t, dir, 160, 48, "", "--scenario retry-storm --redis "+srv.URL()+" --export-dir "+exports)
	s.waitFor("the first screen", func(sc string) bool { return strings.Contains(sc, "retry-storm — Retry storm") })
	// 25×: a frame on Redis then takes seconds, and the terminal closes while
	// one is under way (the UI's own run must stop too, or nothing is cleaned)
	s.keys("+", "+", "+", "+")
	time.Sleep(4 * time.Second)
	// the UI's process (not the shell around it, whose command line holds the
	// same words)
	pid, err := exec.Command("pgrep", "-f", `^\./ratelab .*--export-dir `+exports).Output()
	if err != nil || strings.Count(string(pid), "\n") != 1 {
		t.Fatalf("the UI's process: %q, %v", pid, err)
	}
	s.keys("e")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if tmp, _ := filepath.Glob(filepath.Join(exports, ".*.tmp")); len(tmp) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the export did not start:\n%s", s.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.tmux("kill-server") // the terminal closes: SIGHUP
	closed := time.Now()
	defer func() { t.Logf("the UI exited %v after its terminal closed", time.Since(closed)) }()
	for exec.Command("kill", "-0", strings.TrimSpace(string(pid))).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the UI did not exit after its terminal closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if left := srv.Keys("{ratelab:*"); len(left) != 0 {
		t.Errorf("%d keys left, such as %s", len(left), left[0])
	}
	if entries, _ := os.ReadDir(exports); len(entries) != 0 {
		t.Errorf("the export folder holds %v", entries)
	}
}

// blockedOnFIFO says whether a thread of process pid waits in the kernel to open
// or read a FIFO (a loaded machine may take seconds to get the child there, and
// a signal before it has set up its handlers would find the default action).
func blockedOnFIFO(pid int) bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	for _, task := range tasks {
		switch w, _ := os.ReadFile(task); string(w) {
		case "wait_for_partner", "pipe_read", "pipe_wait":
			return true
		}
	}
	return false
}

// A signal while the input is still being read — here a trace that is a FIFO no
// one writes, where the read waits for ever — ends the process at once, saying
// so: exit 1, nothing written. It used to find the default action (exit 130,
// nothing said), or wait for ever when SIGINT was ignored by the shell.
func TestSignalWhileReadingTheInput(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo.csv"), 0o644); err != nil {
				t.Fatal(err)
			}
			file := scenarioFile(t, dir, "duration = \"10s\"\n[scenario.policy]\nlimit = 10\n[[scenario.client]]\nname = \"log\"\npattern = \"trace\"\nfile = \"fifo.csv\"\nformat = \"csv\"\n")
			c := startChild(t, dir, "run", "--file", file, "--scenario", "s", "--csv", "rows.csv")
			c.waitUntil(t, "it waits on the FIFO", func() bool { return blockedOnFIFO(c.cmd.Process.Pid) })
			code, took := c.signal(t, sig, 10*time.Second)
			if code != 1 || !strings.Contains(c.stderr.String(), "while reading the input; nothing was written") {
				t.Errorf("exit %d after %v: %s; want exit 1, saying it stopped while reading the input", code, sig, c.stderr.String())
			}
			if took > 2*time.Second {
				t.Errorf("exited %v after %v", took, sig)
			}
			if len(c.temporaries()) > 0 {
				t.Errorf("temporary files left: %v", c.temporaries())
			}
		})
	}
}

// requestsCSV is n requests as ratelab's CSV (time_ms,key), 20 ms apart,
// from 1,000 keys: past tune --memory 1 (65,536 requests) for n larger, and
// read as they come (the reader holds back the last 5 minutes only).
func requestsCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("time_ms,key\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,k%d\n", 20*i, i*7919%1000)
	}
	return b.Bytes()
}

// spillOf is the folder tune spilled its trace to in tmp, and the bytes in its
// files; "" when there is none.
func spillOf(tmp string) (string, int64) {
	found, _ := filepath.Glob(filepath.Join(tmp, "ratelab-tune-*"))
	if len(found) != 1 {
		return "", 0
	}
	entries, _ := os.ReadDir(found[0])
	var size int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			size += info.Size()
		}
	}
	if len(entries) < 256 { // still being made
		return "", 0
	}
	return found[0], size
}

// A signal while tune reads a trace it is spilling to disk (--memory 1), or
// while it sweeps the spilled trace, stops it with exit 1 and leaves nothing
// in TMPDIR: the spill (a folder of 256 files) is removed as the outputs'
// temporary files are. Stopped while reading, tune left the folder, and said
// nothing was written.
func TestSignalsRemoveTunesSpill(t *testing.T) {
	t.Run("while reading", func(t *testing.T) {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			dir, tmp := t.TempDir(), t.TempDir()
			fifo := filepath.Join(dir, "fifo.csv")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			c := startChildEnv(t, dir, []string{"TMPDIR=" + tmp}, "tune", "--trace", "fifo.csv", "--memory", "1", "--csv", "grid.csv")
			// the log's first 100,000 requests, and the FIFO kept open: tune
			// spills, and cannot be done reading until it closes
			wrote := make(chan error, 1)
			var w *os.File
			go func() {
				var err error
				if w, err = os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					_, err = w.Write(requestsCSV(100_000))
				}
				wrote <- err
			}()
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			c.waitUntil(t, "the spill", func() bool {
				d, _ := spillOf(tmp)
				return d != ""
			})
			code, took := c.signal(t, sig, 10*time.Second)
			w.Close()
			want := "ratelab: interrupted by " + interruptedBy[sig] + " while reading the input; nothing was written\n"
			if code != 1 || c.stderr.String() != want || took > 2*time.Second {
				t.Errorf("%v: exit %d after %v, %q; want exit 1 and %q", sig, code, took, c.stderr.String(), want)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("%v: TMPDIR holds %v", sig, left)
			}
			if left, _ := os.ReadDir(dir); len(left) != 1 {
				t.Errorf("%v: the folder holds %v; want only the FIFO", sig, left)
			}
		}
	})
	t.Run("while sweeping", func(t *testing.T) {
		dir, tmp := t.TempDir(), t.TempDir()
		const n = 200_000
		if err := os.WriteFile(filepath.Join(dir, "big.csv"), requestsCSV(n), 0o644); err != nil {
			t.Fatal(err)
		}
		c := startChildEnv(t, dir, []string{"TMPDIR=" + tmp}, "tune", "--trace", "big.csv", "--memory", "1", "--points", "30", "--csv", "grid.csv")
		// every request on disk (16 bytes each) once the trace is read: the
		// sweep, of thousands of policies, follows at once
		c.waitUntil(t, "the trace spilled whole", func() bool {
			_, size := spillOf(tmp)
			return size == 16*n
		})
		time.Sleep(300 * time.Millisecond)
		code, took := c.signal(t, syscall.SIGINT, 10*time.Second)
		want := "ratelab: interrupted by SIGINT (Ctrl-C); nothing was written\n"
		if code != 1 || c.stderr.String() != want || took > 2*time.Second {
			t.Errorf("exit %d after %v, %q; want exit 1 and %q", code, took, c.stderr.String(), want)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("TMPDIR holds %v", left)
		}
		if left, _ := os.ReadDir(dir); len(left) != 1 {
			t.Errorf("the folder holds %v; want only the log", left)
		}
	})
}
