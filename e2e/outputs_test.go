package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratelab/internal/check"
	"ratelab/present"
)

// What is at an output's path is never harmed (issue 8): a symlink stays a
// symlink and its target gets the CSV, a FIFO's reader gets the CSV, /dev/null
// stays /dev/null, /dev/full is a write error (exit 1) and stays a device. The
// old run renamed a regular file over each of them.
func TestOutputTargets(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	dir := t.TempDir()
	target, link := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "latest.csv")
	check.Setup(t, os.WriteFile(target, []byte("yesterday's\n"), 0o644))
	check.Setup(t, os.Symlink("rows.csv", link))
	if code, _, errOut := ratelab(t, "run", "--scenario", "bursty-user", "--csv", link); code != 0 {
		t.Fatalf("--csv through a symlink: exit %d: %s", code, errOut)
	}
	if info, _ := os.Lstat(link); info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a %v", info.Mode())
	}
	if got, _ := os.ReadFile(target); !strings.HasPrefix(string(got), present.RequestColumns) {
		t.Errorf("the symlink's target holds %.60q", got)
	}

	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	read := make(chan string)
	go func() {
		data, _ := os.ReadFile(fifo)
		read <- string(data)
	}()
	if code, _, errOut := ratelab(t, "run", "--scenario", "bursty-user", "--series", fifo); code != 0 {
		t.Fatalf("--series to a FIFO: exit %d: %s", code, errOut)
	}
	select {
	case got := <-read:
		if !strings.HasPrefix(got, present.SeriesColumns) {
			t.Errorf("the FIFO's reader got %.60q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the FIFO's reader got nothing")
	}
	if info, _ := os.Lstat(fifo); info.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now a %v", info.Mode())
	}

	for _, dev := range []string{"/dev/null", "/dev/full"} {
		before, err := os.Stat(dev)
		if err != nil {
			t.Fatal(err)
		}
		code, _, errOut := ratelab(t, "run", "--scenario", "boundary-burst", "--csv", dev)
		switch dev {
		case "/dev/null":
			if code != 0 {
				t.Errorf("--csv /dev/null: exit %d: %s", code, errOut)
			}
		case "/dev/full":
			if code != 1 || !strings.Contains(errOut, "ratelab: writing /dev/full: no space left on device") {
				t.Errorf("--csv /dev/full: exit %d: %s; want exit 1 and the write error", code, errOut)
			}
		}
		if after, err := os.Stat(dev); err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
			t.Errorf("%s was %v, is now %v (%v)", dev, before.Mode(), after.Mode(), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("the folder holds %v; want the file, the link and the FIFO", entries)
	}
}

// The same file given twice is refused before anything runs, with exit 2: two
// outputs (one would be lost), an output over the scenario file or over a trace
// it reads (which would be destroyed), under any name (a symlink, ./, a link
// to a file not there yet). An empty path is refused too.
func TestOutputsMustBeDistinct(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "log.csv")
	check.Setup(t, os.WriteFile(trace, []byte("time_ms,key\n0,a\n5,b\n"), 0o644))
	file := filepath.Join(dir, "s.toml")
	check.Setup(t, os.WriteFile(file, []byte("[[scenario]]\nname = \"s\"\nduration = \"1s\"\n[scenario.policy]\nlimit = 5\n[[scenario.client]]\nname = \"logs\"\npattern = \"trace\"\nfile = \"log.csv\"\n"), 0o644))
	check.Setup(t, os.Symlink("s.toml", filepath.Join(dir, "alias.toml")))
	check.Setup(t, os.Symlink("new.csv", filepath.Join(dir, "dangling.csv")))
	before, _ := os.ReadFile(file)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--csv", dir + "/x.csv", "--series", dir + "/./x.csv"}, "--csv and --series are the same file"},
		{[]string{"--csv", dir + "/dangling.csv", "--series", dir + "/new.csv"}, "--csv and --series are the same file"},
		{[]string{"--csv", file}, "--csv " + file + " is the scenario file (--file), which this run reads"},
		{[]string{"--series", dir + "/alias.toml"}, "is the scenario file (--file), which this run reads"},
		{[]string{"--csv", trace}, `--csv ` + trace + ` is a file of scenario "s", which this run reads`},
		{[]string{"--csv", ""}, "run: --csv is empty; give a value or leave the flag out"},
		{[]string{"--series", ""}, "run: --series is empty"},
		{[]string{"--lanes", ","}, `--lanes "," names an empty lane`},
		{[]string{"--lanes", "gcra,,token-bucket"}, `names an empty lane`},
	} {
		args := append([]string{"run", "--file", file, "--scenario", "s"}, tc.args...)
		if code, _, errOut := ratelab(t, args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("ratelab %s: exit %d: %s\nwant exit 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("the scenario file changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("the folder holds %v; want only what the test put there", entries)
	}
	if code, _, errOut := ratelab(t, "tui", "--export-dir", ""); code != 2 || !strings.Contains(errOut, "--export-dir is empty") {
		t.Errorf("tui --export-dir '': exit %d: %s", code, errOut)
	}
	for _, bad := range []string{filepath.Join(dir, "no-such-folder"), filepath.Join(dir, "a-file")} {
		check.Setup(t, os.WriteFile(filepath.Join(dir, "a-file"), nil, 0o644))
		if code, _, errOut := ratelab(t, "tui", "--export-dir", bad); code != 2 || !strings.Contains(errOut, "is not a folder; create it") {
			t.Errorf("tui --export-dir %s: exit %d: %s; want exit 2 before the UI opens", bad, code, errOut)
		}
	}
	// tune reads a trace and writes a grid twice over
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--csv", trace}, "--csv " + trace + " is the trace (--trace), which this run reads"},
		{[]string{"--csv", dir + "/g.csv", "--json", dir + "/./g.csv"}, "--csv and --json are the same file"},
		{[]string{"--json", ""}, "tune: --json is empty"},
	} {
		args := append([]string{"tune", "--trace", trace}, tc.args...)
		if code, _, errOut := ratelab(t, args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("ratelab tune %s: exit %d: %s\nwant exit 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	if after, _ := os.ReadFile(trace); string(after) != "time_ms,key\n0,a\n5,b\n" {
		t.Errorf("the trace changed: %q", after)
	}
}

// A folder an output writes whole (--plot, report --out, the UI's charts) never
// holds what the run reads, nor another output: writing it replaces the folder,
// which would delete them. Refused before anything runs, exit 2, naming both;
// the input is still there after.
func TestOutputFoldersKeepOffInputs(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	dir := t.TempDir()
	report := filepath.Join(dir, "R")
	if code, _, errOut := ratelab(t, "report", "--scenario", "boundary-burst", "--out", report); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	mine := filepath.Join(report, "mine.toml")
	if code, _, errOut := ratelab(t, "scenarios", "--write", mine, "boundary-burst"); code != 0 {
		t.Fatalf("scenarios --write: exit %d: %s", code, errOut)
	}
	log := filepath.Join(report, "access.log")
	var lines strings.Builder
	for i := range 200 {
		fmt.Fprintf(&lines, "10.0.0.%d - - [10/Oct/2025:13:55:%02d +0000] \"GET / HTTP/1.1\" 200 5\n", i%7, i%60)
	}
	check.Setup(t, os.WriteFile(log, []byte(lines.String()), 0o644))
	conf := filepath.Join(report, "conf", "nginx.conf")
	check.Setup(t, os.MkdirAll(filepath.Dir(conf), 0o755))
	check.Setup(t, os.WriteFile(conf, []byte("events {}\nhttp {\n  include zones.conf;\n  server { listen 8080; location / { limit_req zone=a burst=2; } }\n}\n"), 0o644))
	check.Setup(t, os.WriteFile(filepath.Join(report, "conf", "zones.conf"), []byte("limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n"), 0o644))
	link := filepath.Join(dir, "elsewhere")
	check.Setup(t, os.Symlink("R", link))
	before := map[string]string{mine: mustRead(t, mine), log: mustRead(t, log)}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--file", mine, "--scenario", "boundary-burst", "--plot", report},
			"--plot " + report + " holds the scenario file (--file), " + mine + ", which this run reads"},
		{[]string{"run", "--file", mine, "--scenario", "boundary-burst", "--plot", link},
			"--plot " + link + " holds the scenario file (--file)"},
		{[]string{"report", "--file", mine, "--scenario", "boundary-burst", "--out", report},
			"--out " + report + " holds the scenario file (--file), " + mine},
		{[]string{"run", "--trace", log, "--plot", report},
			"--plot " + report + " holds the trace (--trace), " + log},
		{[]string{"run", "--trace", log, "--plot", filepath.Join(dir, "P"), "--config", conf, "--csv", filepath.Join(report, "conf", "zones.conf")},
			"--csv " + filepath.Join(report, "conf", "zones.conf") + ` is a file of scenario "trace", which this run reads`},
		{[]string{"run", "--trace", log, "--config", conf, "--plot", filepath.Join(report, "conf")},
			"--plot " + filepath.Join(report, "conf") + " holds the configuration (--config), " + conf},
		{[]string{"run", "--scenario", "boundary-burst", "--plot", report, "--csv", filepath.Join(report, "rows.csv")},
			"--csv " + filepath.Join(report, "rows.csv") + " is inside --plot " + report + ", which is written whole"},
	} {
		if code, _, errOut := ratelab(t, tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("ratelab %s: exit %d: %s\nwant exit 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	for path, was := range before {
		if got, err := os.ReadFile(path); err != nil || string(got) != was {
			t.Errorf("%s was harmed: %v", path, err)
		}
	}
	// an included file too: it is read, so the folder holding it is refused
	if code, _, errOut := ratelab(t, "run", "--trace", log, "--config", filepath.Join(report, "conf", "nginx.conf"), "--plot", filepath.Join(dir, "charts")); code != 0 {
		t.Errorf("a folder apart from the inputs: exit %d: %s", code, errOut)
	}
}

// onSmallDisk runs script with sh in a mount namespace of its own (unshare -m)
// where dir is a tmpfs of sizeKB KiB: a file system that fills up, for tests of
// what a full disk leaves. It returns the script's standard output and error
// and its exit code, and skips (fails in CI) where the namespace cannot be made.
func onSmallDisk(t *testing.T, dir string, sizeKB int, script string) (stdout, stderr string, code int) {
	t.Helper()
	mount := fmt.Sprintf("mount -t tmpfs -o size=%dk tmpfs '%s'", sizeKB, dir)
	if out, err := exec.Command("unshare", "-m", "sh", "-c", mount).CombinedOutput(); err != nil {
		if inCI() {
			t.Fatalf("unshare -m: %v: %s (CI runs as root with util-linux)", err, out)
		}
		t.Skipf("unshare -m: %v: %s; a small file system needs a mount namespace (root)", err, out)
	}
	cmd := exec.Command("unshare", "-m", "sh", "-c", mount+" || exit 99\n"+script)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// scenarios --write writes the logs a scenario replays beside its file only
// when that is a regular file written whole: to a device nothing lands beside
// it (as root, /dev/null had /dev/traces/ made), and a disk too full for the
// log leaves no folder behind (it left an empty traces/).
func TestScenariosWriteCompanionsOnlyBesideAFileWritten(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go os.ReadFile(fifo) // a reader, so the write does not block
	code, _, errOut := ratelab(t, "scenarios", "--write", fifo, "log-stamped")
	if code != 0 || !strings.Contains(errOut, "reads traces/shop.log, relative to its file, which is not written beside "+fifo+" (not a regular file)") {
		t.Errorf("--write to a FIFO: exit %d: %s", code, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("beside the FIFO: %v; want nothing", entries)
	}

	bin := builtRatelab(t)
	full := filepath.Join(dir, "full")
	check.Setup(t, os.Mkdir(full, 0o755))
	// 16 KiB: the scenario file fits, its log does not
	out, errOut, _ := onSmallDisk(t, full, 16, fmt.Sprintf("%s scenarios --write %s/s.toml log-stamped 2>&1; echo \"exit $?\"; ls -A %s", bin, full, full))
	out += errOut
	if !strings.Contains(out, "no space left on device") {
		t.Errorf("a full disk: %s", out)
	}
	// ls lists nothing after the exit line: no scenario file, no traces/
	if lines := strings.Split(strings.TrimSpace(out), "\n"); lines[len(lines)-1] != "exit 1" {
		t.Errorf("a full disk: want exit 1 and nothing left in the folder:\n%s", out)
	}
}
