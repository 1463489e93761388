package slurmtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// daemon is one of the cluster's daemons, run in the foreground as the test's
// child. Its stdout and stderr go to a file (so that nothing is copied by a
// goroutine): beside its log (logFile + ".stderr"), or its log itself when it logs
// to stderr in the foreground (munged).
type daemon struct {
	name    string
	pidFile string
	logFile string
	toLog   bool // stdout and stderr are the log
	cmd     *exec.Cmd
	// exited is closed when cmd has exited (a goroutine waits for it); waitErr
	// is what Wait said, set before.
	exited  chan struct{}
	waitErr error
}

// start starts the daemon. Should the test's process die without its cleanups
// (a go test timeout), the kernel kills the daemon too (Pdeathsig), rather than
// leave it on its ports.
func (d *daemon) start(path string, args, env []string) error {
	stderr, err := os.Create(d.stderrFile())
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %v", d.name, err)
	}
	d.cmd = cmd
	d.exited = make(chan struct{})
	go func() { d.waitErr = cmd.Wait(); close(d.exited) }()
	return nil
}

// exitedErr is an error when the daemon has exited, nil while it runs.
func (d *daemon) exitedErr() error {
	select {
	case <-d.exited:
		return fmt.Errorf("%s exited at start (%v)", d.name, d.waitErr)
	default:
		return nil
	}
}

// pidFromFile is the PID the daemon's pid file names, 0 when there is none.
func (d *daemon) pidFromFile() int {
	b, err := os.ReadFile(d.pidFile)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// checkPidFile waits until the pid file names the daemon's own process: the PID
// that stop signals.
func (d *daemon) checkPidFile(timeout time.Duration) error {
	err := waitFor(timeout, func() (bool, error) {
		if err := d.exitedErr(); err != nil {
			return false, err
		}
		pid := d.pidFromFile()
		if pid != 0 && pid != d.cmd.Process.Pid {
			return false, fmt.Errorf("%s's pid file %s names %d, not its process %d", d.name, d.pidFile, pid, d.cmd.Process.Pid)
		}
		return pid != 0, nil
	})
	if err != nil {
		return fmt.Errorf("%s's pid file: %v", d.name, err)
	}
	return nil
}

// stop asks the daemon to stop (SIGTERM to the PID in its pid file, which
// checkPidFile made sure is its own process; its own PID when the file is gone),
// kills it (SIGKILL) if it has not gone in 5 s, and waits for it to exit. It
// signals nothing but its own child.
func (d *daemon) stop() {
	if d == nil || d.cmd == nil {
		return
	}
	select {
	case <-d.exited:
		return
	default:
	}
	pid := d.pidFromFile()
	if pid != d.cmd.Process.Pid {
		pid = d.cmd.Process.Pid
	}
	syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(5 * time.Second):
		syscall.Kill(pid, syscall.SIGKILL)
		<-d.exited
	}
}

// stderrFile is where the daemon's stdout and stderr go.
func (d *daemon) stderrFile() string {
	if d.toLog {
		return d.logFile
	}
	return d.logFile + ".stderr"
}

// tail is the end of the daemon's log and of its stderr, for a failure message.
func (d *daemon) tail() string {
	s := fmt.Sprintf("--- %s (%s):\n%s", d.name, d.logFile, tailFile(d.logFile, 25))
	if d.toLog {
		return s
	}
	if out := tailFile(d.stderrFile(), 10); strings.TrimSpace(out) != "" {
		s += fmt.Sprintf("--- %s's stderr:\n%s", d.name, out)
	}
	return s
}

// tailFile is the last n lines of a file, or a note saying why there are none.
func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%v)\n", err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if last := len(lines) - 1; lines[last] == "" {
		lines = lines[:last]
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	s := strings.Join(lines, "")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// freePorts are two distinct ports that are free on every address (slurmctld and
// slurmd listen on all of them): candidates from the kernel, both held at once,
// tried again until both are free (at most 100 times).
func freePorts() (ctld, slurmd int, err error) {
	for attempt := 0; attempt < 100; attempt++ {
		if ctld, slurmd, err = tryPorts(); err == nil {
			return ctld, slurmd, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, 0, fmt.Errorf("no two free ports: %v", err)
}

// tryPorts holds two kernel-chosen ports on every address at once, then frees them.
func tryPorts() (int, int, error) {
	var ports []int
	for i := 0; i < 2; i++ {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return 0, 0, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	if ports[0] == ports[1] {
		return 0, 0, errors.New("the same port twice")
	}
	return ports[0], ports[1], nil
}

// waitFor polls cond every 100 ms until it says done, returns an error, or the
// timeout passes.
func waitFor(timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		done, err := cond()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %v", timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
