// Package slurmtest starts a real one-node Slurm cluster for tests: its own munged,
// slurmctld and slurmd, on loopback, on free ports, with every file (the MUNGE key,
// slurm.conf, state, spool, logs, pid files, sockets) in a private temporary folder.
// Nothing under /etc, /run or systemd is read or changed: every Slurm command the
// package runs, and every command a test runs through Env or Command, has
// SLURM_CONF set to the cluster's own slurm.conf.
//
// The model: one node named after the machine (hostname -s) at 127.0.0.1, with as
// many CPUs as runtime.NumCPU, in one partition (Partition), the default; jobs run
// as root (the test's user) in Dir, and each task of a job array has
// SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT set. Submit is sbatch; Wait polls
// scontrol until every task of a job is in a final state, and fails unless each
// COMPLETED. The three daemons run in the foreground as the test's own child
// processes (so an early exit is seen, and nothing is left to init to reap) and are
// stopped when the test ends, by the PID each wrote to its pid file (checked to be
// that child's), SIGTERM first, SIGKILL after 5 s.
//
// A test that needs Slurm skips with a clear message when a binary is missing,
// except in CI (RATELAB_CI=1), where that skip is a failure: .ci/run installs the
// Debian packages slurm-wlm and munge. Slurm 22.05 (Debian 12) is what it is
// written and checked against.
package slurmtest

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Partition is the cluster's one partition, the default.
const Partition = "main"

// daemons are the binaries Start runs; tools the client commands a test may use.
var (
	daemons = []string{"munged", "slurmctld", "slurmd"}
	tools   = []string{"sbatch", "scontrol", "sinfo", "squeue", "scancel", "srun"}
)

// packageOf says which Debian package brings a binary, for the skip message.
func packageOf(name string) string {
	if name == "munged" {
		return "munge"
	}
	return "slurm-wlm"
}

// find is the binary's path: on the PATH, else in /usr/sbin or /usr/bin (where
// Debian puts them; CI's PATH may lack /usr/sbin).
func find(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// Need returns the paths of the daemons and tools by name, and skips t when one is
// not installed (fails it in CI, where .ci/run installs them).
func Need(t testing.TB) map[string]string {
	t.Helper()
	bins := map[string]string{}
	for _, name := range append(append([]string{}, daemons...), tools...) {
		p, ok := find(name)
		if !ok {
			pkg := packageOf(name)
			if os.Getenv("RATELAB_CI") == "1" {
				t.Fatalf("%s is not installed; .ci/run installs it (apt-get install %s)", name, pkg)
			}
			t.Skipf("%s is not installed: apt-get install slurm-wlm munge to run the Slurm tests", name)
		}
		bins[name] = p
	}
	return bins
}

// Cluster is one running munged + slurmctld + slurmd, stopped when its test ends.
type Cluster struct {
	dir     string // the private folder; jobs run in dir/work
	conf    string // dir/slurm.conf
	node    string
	bins    map[string]string
	env     []string
	daemons []*daemon
	// CtldPort and SlurmdPort are slurmctld's and slurmd's ports. Slurm 22.05
	// listens on every address; the cluster talks only over 127.0.0.1.
	CtldPort, SlurmdPort int
}

// Dir is the folder jobs run in (sbatch's --chdir), and where their output goes
// unless a job says otherwise.
func (c *Cluster) Dir() string { return filepath.Join(c.dir, "work") }

// Conf is the path of the cluster's slurm.conf.
func (c *Cluster) Conf() string { return c.conf }

// Node is the name of the cluster's one node.
func (c *Cluster) Node() string { return c.node }

// Bin is the path of a Slurm tool ("sbatch", "srun", "squeue", "scontrol",
// "scancel", "sinfo") or daemon; "" for another name.
func (c *Cluster) Bin(name string) string { return c.bins[name] }

// Env is the environment for a Slurm command on this cluster: the test's own, with
// SLURM_CONF set to Conf and any inherited SLURM_*, SBATCH_*, SALLOC_*, SQUEUE_*
// or SINFO_* variable left out (a test run inside a Slurm job must not talk to that
// job's cluster or inherit its options).
func (c *Cluster) Env() []string { return append([]string(nil), c.env...) }

// Command is an exec.Cmd running a Slurm tool (by name, as for Bin, or a path) on
// this cluster: with Env, in Dir.
func (c *Cluster) Command(tool string, args ...string) *exec.Cmd {
	path := tool
	if p, ok := c.bins[tool]; ok {
		path = p
	}
	cmd := exec.Command(path, args...)
	cmd.Env = c.Env()
	cmd.Dir = c.Dir()
	return cmd
}

// run runs a Slurm tool and returns its combined output, or an error with it.
func (c *Cluster) run(tool string, args ...string) (string, error) {
	out, err := c.Command(tool, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// clusterEnv is os.Environ without Slurm's own variables, plus SLURM_CONF.
func clusterEnv(conf string) []string {
	var env []string
	for _, kv := range os.Environ() {
		skip := false
		for _, prefix := range []string{"SLURM_", "SBATCH_", "SALLOC_", "SQUEUE_", "SINFO_"} {
			if strings.HasPrefix(kv, prefix) {
				skip = true
			}
		}
		if !skip {
			env = append(env, kv)
		}
	}
	return append(env, "SLURM_CONF="+conf)
}

// Start starts a cluster for t and waits (at most 30 s) until its node is idle;
// the cluster is stopped and its folder removed when t ends. It skips t when Slurm
// or MUNGE is not installed (fails it in CI).
func Start(t testing.TB) *Cluster {
	t.Helper()
	bins := Need(t)
	dir := privateDir(t)
	c := &Cluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), bins: bins, node: shortHostname(t)}
	c.env = clusterEnv(c.conf)
	// Cleanups run last first: the daemons stop before the folder goes.
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Cleanup(c.stop)
	for _, sub := range []string{"state", "spool", "log", "run", "mrun", "munge", "work"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	c.startMunge(t)
	for attempt := 1; ; attempt++ {
		err := c.startSlurm()
		if err == nil {
			return c
		}
		// A free port can be taken between the kernel's answer and the bind.
		if attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			t.Fatal(err)
		}
		t.Logf("%v\ntrying other ports", err)
	}
}

// privateDir is a new 0700 folder under the temporary directory, short enough for
// MUNGE's socket path (a Unix socket's path has at most 107 bytes; t.TempDir's
// carry the test's name and can be longer).
func privateDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "slurmtest-")
	if err == nil && len(dir) > 60 {
		os.RemoveAll(dir)
		dir, err = os.MkdirTemp("/tmp", "slurmtest-")
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// shortHostname is `hostname -s`: slurmctld checks that it runs on the
// SlurmctldHost, and slurmd takes the short host name as its node's name.
func shortHostname(t testing.TB) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil || h == "" {
		t.Fatalf("the host name: %v", err)
	}
	return strings.SplitN(h, ".", 2)[0]
}

// startMunge writes a fresh MUNGE key (1024 random bytes, mode 0400, in a 0700
// folder) and starts munged on its own socket; it is ready when the socket exists.
func (c *Cluster) startMunge(t testing.TB) {
	t.Helper()
	key := make([]byte, 1024)
	rand.Read(key)
	keyFile := filepath.Join(c.dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(c.dir, "mrun", "munge.socket")
	d := &daemon{
		name:    "munged",
		pidFile: filepath.Join(c.dir, "mrun", "munged.pid"),
		logFile: filepath.Join(c.dir, "log", "munged.log"),
		toLog:   true, // in the foreground munged logs to stderr, not to --log-file
	}
	c.daemons = append(c.daemons, d)
	args := []string{"--foreground", "--force", "--key-file=" + keyFile, "--socket=" + socket,
		"--pid-file=" + d.pidFile, "--seed-file=" + filepath.Join(c.dir, "mrun", "seed")}
	if err := d.start(c.bins["munged"], args, c.env); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(10*time.Second, func() (bool, error) {
		if err := d.exitedErr(); err != nil {
			return false, err
		}
		_, err := os.Stat(socket)
		return err == nil, nil
	}); err != nil {
		t.Fatalf("munged did not start: %v\n%s", err, d.tail())
	}
	if err := d.checkPidFile(5 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// startSlurm writes slurm.conf on two free ports, starts slurmctld and slurmd, and
// waits until the node is idle. On failure it stops the two again and returns an
// error carrying the tail of the three logs.
func (c *Cluster) startSlurm() error {
	for _, name := range []string{"slurmctld", "slurmd"} { // a fresh log for each attempt
		for _, suffix := range []string{".log", ".log.stderr"} {
			os.Remove(filepath.Join(c.dir, "log", name+suffix))
		}
	}
	var err error
	if c.CtldPort, c.SlurmdPort, err = freePorts(); err != nil {
		return err
	}
	if err := os.WriteFile(c.conf, []byte(c.slurmConf()), 0o644); err != nil {
		return err
	}
	ctld := &daemon{name: "slurmctld", pidFile: filepath.Join(c.dir, "run", "slurmctld.pid"), logFile: filepath.Join(c.dir, "log", "slurmctld.log")}
	slurmd := &daemon{name: "slurmd", pidFile: filepath.Join(c.dir, "run", "slurmd.pid"), logFile: filepath.Join(c.dir, "log", "slurmd.log")}
	fail := func(err error) error {
		err = fmt.Errorf("%v\n%s", err, c.logTails(ctld, slurmd))
		slurmd.stop()
		ctld.stop()
		c.daemons = c.daemons[:1] // munged alone
		return err
	}
	// -D: in the foreground; -i: ignore any state (there is none: a fresh folder).
	if err := ctld.start(c.bins["slurmctld"], []string{"-D", "-i", "-f", c.conf}, c.env); err != nil {
		return fail(err)
	}
	c.daemons = append(c.daemons, ctld)
	if err := slurmd.start(c.bins["slurmd"], []string{"-D", "-f", c.conf}, c.env); err != nil {
		return fail(err)
	}
	c.daemons = append(c.daemons, slurmd)
	var state string
	err = waitFor(30*time.Second, func() (bool, error) {
		for _, d := range []*daemon{c.daemons[0], ctld, slurmd} {
			if err := d.exitedErr(); err != nil {
				return false, err
			}
		}
		out, err := c.run("sinfo", "-h", "-o", "%T")
		state = strings.TrimSpace(out)
		return err == nil && state == "idle", nil
	})
	if err == nil {
		for _, d := range []*daemon{ctld, slurmd} {
			if err = d.checkPidFile(5 * time.Second); err != nil {
				break
			}
		}
	}
	if err != nil {
		return fail(fmt.Errorf("the Slurm node did not become idle (sinfo: %q): %v", state, err))
	}
	return nil
}

// slurmConf is SLURM.md's configuration, on the cluster's ports and folder.
func (c *Cluster) slurmConf() string {
	d := c.dir
	return fmt.Sprintf(`# written by ratelab's internal/slurmtest for one test
ClusterName=ratelabtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s/mrun/munge.socket
CredType=cred/munge
StateSaveLocation=%[4]s/state
SlurmdSpoolDir=%[4]s/spool
SlurmctldPidFile=%[4]s/run/slurmctld.pid
SlurmdPidFile=%[4]s/run/slurmd.pid
SlurmctldLogFile=%[4]s/log/slurmctld.log
SlurmdLogFile=%[4]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[5]d State=UNKNOWN
PartitionName=%[6]s Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, c.node, c.CtldPort, c.SlurmdPort, d, cpus(), Partition)
}

// cpus is the node's CPU count: runtime.NumCPU, at least 1.
func cpus() int {
	if n := runtime.NumCPU(); n > 0 {
		return n
	}
	return 2
}

// stop cancels any job left and stops slurmd, slurmctld and munged, in that order.
func (c *Cluster) stop() {
	if len(c.daemons) == 3 {
		// Jobs still running would outlive slurmd (slurmstepd is not its child).
		c.run("scancel", "--partition="+Partition)
		waitFor(5*time.Second, func() (bool, error) {
			out, err := c.run("squeue", "-h", "-o", "%i")
			return err != nil || strings.TrimSpace(out) == "", nil
		})
	}
	for i := len(c.daemons) - 1; i >= 0; i-- {
		c.daemons[i].stop()
	}
}

// logTails is the tail of munged's log and of each given daemon's.
func (c *Cluster) logTails(ds ...*daemon) string {
	var b strings.Builder
	if len(c.daemons) > 0 {
		b.WriteString(c.daemons[0].tail())
	}
	for _, d := range ds {
		b.WriteString(d.tail())
	}
	return b.String()
}
