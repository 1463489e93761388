package main

import (
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// docsCLI is docs/cli.md.
func docsCLI(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Every ratelab command line in docs/cli.md's examples names a command there is
// (or --version, -v), and each of its flags is one of that command's.
func TestDocsCLICommandLines(t *testing.T) {
	doc := docsCLI(t)
	var lines [][]string // the command lines of the sh blocks, and of code spans
	for _, block := range regexp.MustCompile("(?s)```sh\\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		lines = append(lines, regexp.MustCompile(`(?m)^(ratelab .*)$`).FindAllStringSubmatch(block[1], -1)...)
	}
	lines = append(lines, regexp.MustCompile("`(ratelab [^`]*)`").FindAllStringSubmatch(doc, -1)...)
	if len(lines) < 15 {
		t.Fatalf("found only %d command lines in docs/cli.md", len(lines))
	}
	for _, m := range lines {
		line, _, _ := strings.Cut(m[1], "#")
		line, _, _ = strings.Cut(line, ">")
		line, _, _ = strings.Cut(line, "&&")
		words := strings.Fields(line)
		if len(words) < 2 {
			continue
		}
		name := words[1]
		switch {
		case name == "--version" || name == "-v" || name == "--help" || name == "COMMAND" || name == "help" || name == completeCommand:
			continue
		case strings.HasPrefix(name, "-"):
			t.Errorf("docs/cli.md: %q: a flag where the command goes", m[1])
			continue
		}
		h, err := helpOf(name)
		if err != nil {
			t.Errorf("docs/cli.md: %q: %v", m[1], err)
			continue
		}
		for _, w := range words[2:] {
			if f, ok := strings.CutPrefix(w, "--"); ok && f != "help" && h.flags.Lookup(strings.SplitN(f, "=", 2)[0]) == nil {
				t.Errorf("docs/cli.md: %q: ratelab %s has no flag --%s", m[1], name, f)
			}
		}
	}
}

// The version lines docs/cli.md shows are the ones ratelab prints for a clean
// tree, a modified one and no version control information.
func TestDocsCLIVersionLines(t *testing.T) {
	doc := docsCLI(t)
	build := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	const rev = "20a002dd1fa3c68222a71c367031ea42f5d8b35d"
	for _, info := range []*debug.BuildInfo{build("vcs.revision", rev, "vcs.modified", "false"), build("vcs.revision", rev, "vcs.modified", "true"), build()} {
		if want := "ratelab " + version + " (" + buildOf(info) + ") go"; !strings.Contains(doc, want) {
			t.Errorf("docs/cli.md does not show %q", want)
		}
	}
}
