package e2e

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The built binary says the commit and the tree's state that go version -m
// reads from it (so, on a clean clone, CI's, what go build stamped), or, built
// without them (GOFLAGS=-buildvcs=false, a git worktree, which the go command
// does not stamp), that the commit is unknown.
func TestVersionOfTheBuiltBinary(t *testing.T) {
	bin := builtRatelab(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	m, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	setting := func(key string) string {
		if s := regexp.MustCompile(`(?m)^\s+build\s+` + regexp.QuoteMeta(key) + `=(\S+)$`).FindSubmatch(m); s != nil {
			return string(s[1])
		}
		return ""
	}
	rev, modified := setting("vcs.revision"), setting("vcs.modified")
	want := "(commit unknown: built without version control information, as by go run) "
	switch {
	case rev != "" && modified == "true":
		want = "(commit " + rev[:12] + ", with changes not committed) "
	case rev != "":
		want = "(commit " + rev[:12] + ", tree clean) "
	}
	if !strings.HasPrefix(string(out), "ratelab ") || !strings.Contains(string(out), " "+want) {
		t.Errorf("ratelab --version: %q; want %q (go version -m: vcs.revision=%q vcs.modified=%q)", out, want, rev, modified)
	}
}
