package main

import (
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
