package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratelab/present"
)

// What is at an output's path is never harmed (issue 8): a symlink stays a
// symlink and its target gets the CSV, a FIFO's reader gets the CSV, /dev/null
// stays /dev/null, /dev/full is a write error (exit 1) and stays a device. The
// old run renamed a regular file over each of them.
func TestOutputTargets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target, link := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "latest.csv")
	os.WriteFile(target, []byte("yesterday's\n"), 0o644)
	os.Symlink("rows.csv", link)
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
	os.WriteFile(trace, []byte("time_ms,key\n0,a\n5,b\n"), 0o644)
	file := filepath.Join(dir, "s.toml")
	os.WriteFile(file, []byte("[[scenario]]\nname = \"s\"\nduration = \"1s\"\n[scenario.policy]\nlimit = 5\n[[scenario.client]]\nname = \"logs\"\npattern = \"trace\"\nfile = \"log.csv\"\n"), 0o644)
	os.Symlink("s.toml", filepath.Join(dir, "alias.toml"))
	os.Symlink("new.csv", filepath.Join(dir, "dangling.csv"))
	before, _ := os.ReadFile(file)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--csv", dir + "/x.csv", "--series", dir + "/./x.csv"}, "--csv and --series are the same file"},
		{[]string{"--csv", dir + "/dangling.csv", "--series", dir + "/new.csv"}, "--csv and --series are the same file"},
		{[]string{"--csv", file}, "--csv " + file + " is the scenario file (--file), which this run reads"},
		{[]string{"--series", dir + "/alias.toml"}, "is the scenario file (--file), which this run reads"},
		{[]string{"--csv", trace}, `--csv ` + trace + ` is the trace ` + trace + ` of scenario "s", which this run reads`},
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
		os.WriteFile(filepath.Join(dir, "a-file"), nil, 0o644)
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
