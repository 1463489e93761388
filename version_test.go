package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// buildOf says the commit and the tree's state from the settings the go command
// stamps, and "unknown" when there are none.
func TestBuildOf(t *testing.T) {
	settings := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	const rev = "20a002dd1fa3c68222a71c367031ea42f5d8b35d"
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"clean", settings("vcs", "git", "vcs.revision", rev, "vcs.modified", "false"), "commit 20a002dd1fa3, tree clean"},
		{"modified", settings("vcs.revision", rev, "vcs.modified", "true"), "commit 20a002dd1fa3, with changes not committed"},
		{"no modified setting", settings("vcs.revision", rev), "commit 20a002dd1fa3, tree state unknown"},
		{"go run", settings("-buildmode", "exe"), "commit unknown: built without version control information, as by go run"},
		{"no build info", nil, "commit unknown: built without version control information, as by go run"},
	} {
		if got := buildOf(tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// ratelab --version, -v and version all print the version and exit 0, and the
// flag forms are the command.
func TestVersionFlags(t *testing.T) {
	_, want, _ := ratelab("version")
	for _, args := range [][]string{{"--version"}, {"-v"}, {"-version"}, {"version"}} {
		code, out, errOut := ratelab(args...)
		if code != 0 || errOut != "" || out != want || !strings.HasPrefix(out, "ratelab "+version+" (commit ") {
			t.Errorf("ratelab %s: exit %d, stdout %q, stderr %q", args[0], code, out, errOut)
		}
	}
	if code, _, errOut := ratelab("--version", "extra"); code != 2 || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("ratelab --version extra: exit %d, %q", code, errOut)
	}
}

// A binary built in a git checkout says its commit and whether the tree had
// changes not committed, as the go command stamped them; built without them, it
// says the commit is unknown (TestBuildOf; and the binaries built here, when
// GOFLAGS holds -buildvcs=false). The source is copied into a fresh repository
// of its own (the go command does not stamp a build in a git worktree),
// committed, and built twice: clean, then with a change not committed (about a
// minute on two cores: the copy's own packages are compiled afresh).
func TestVersionOfABuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds ratelab twice, from a copy of the source")
	}
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("RATELAB_CI") == "1" {
			t.Fatal("git is not installed; CI must build a stamped binary")
		}
		t.Skip("git is not installed: no checkout to stamp")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	files, err := exec.Command("git", "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(src, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=ratelab test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = src
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "the source under test")
	rev := git("rev-parse", "HEAD")
	versionOf := func(buildvcs string) string {
		bin := filepath.Join(dir, "ratelab")
		cmd := exec.Command("go", "build", "-buildvcs="+buildvcs, "-o", bin, ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build -buildvcs=%s: %v\n%s", buildvcs, err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	for _, tc := range []struct {
		buildvcs, edit, want string
	}{
		{"true", "", "ratelab " + version + " (commit " + rev[:12] + ", tree clean) "},
		{"true", "README.md", "ratelab " + version + " (commit " + rev[:12] + ", with changes not committed) "},
	} {
		if tc.edit != "" {
			f, err := os.OpenFile(filepath.Join(src, tc.edit), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("\nA change not committed.\n")
			f.Close()
		}
		if got := versionOf(tc.buildvcs); !strings.HasPrefix(got, tc.want) {
			t.Errorf("built with -buildvcs=%s (edited: %q): %q, want it to start %q", tc.buildvcs, tc.edit, got, tc.want)
		}
	}
}
