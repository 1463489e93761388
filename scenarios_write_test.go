package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ratelab/internal/check"
	"ratelab/scenarios"
)

// ratelab scenarios --write writes every shipped scenario, and the request logs
// they replay beside it; run --file replays each byte for byte as the embedded
// one: the request CSV, the series CSV and the JSON comparison.
// rulePlace is the file:line before a product rule's name in the CSV and the
// JSON, where the scenario file's name and lines show.
var rulePlace = regexp.MustCompile(`[^\s,"]*\.toml:\d+ `)

func TestScenariosWriteReplaysIdentically(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.toml")
	code, out, errOut := ratelab("scenarios", "--write", file)
	if code != 0 || errOut != "" {
		t.Fatalf("scenarios --write: exit %d, %s", code, errOut)
	}
	if !strings.Contains(out, "wrote "+file+": ") || !strings.Contains(out, filepath.Join(dir, "traces", "shop.log")) {
		t.Errorf("scenarios --write said:\n%s", out)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile("scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	// the comments of the catalogue are kept (its leading one aside)
	comments := 0
	for _, line := range strings.Split(string(shipped), "\n")[2:] {
		if i := strings.Index(line, "#"); i >= 0 && strings.Count(line[:i], `"`)%2 == 0 {
			comments++
			if !strings.Contains(string(text), line+"\n") {
				t.Errorf("the line %q, with its comment, is not in the file written", line)
			}
		}
	}
	if comments == 0 {
		t.Error("found no comment in the catalogue to look for")
	}
	c, err := loadCatalogue("")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range c.Names() {
		// -short (and -race): the first scenario and those that replay a log,
		// written beside the file; the full run has every one
		if testing.Short() && i > 0 && !slices.ContainsFunc(c.Scenarios[i].Clients, func(cl scenarios.ClientSpec) bool { return cl.File != "" }) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			outputs := func(args ...string) [3][]byte {
				d := t.TempDir()
				csv, series := filepath.Join(d, "requests.csv"), filepath.Join(d, "series.csv")
				code, js, errOut := ratelab(append([]string{"run", "--scenario", name, "--csv", csv, "--series", series, "--format", "json"}, args...)...)
				if code != 0 {
					t.Fatalf("run %s: exit %d: %s", strings.Join(args, " "), code, errOut)
				}
				a, _ := os.ReadFile(csv)
				b, _ := os.ReadFile(series)
				return [3][]byte{a, b, []byte(js)}
			}
			embedded, written := outputs(), outputs("--file", file)
			for i := range embedded { // a product's rule is named at its line of the file its lane is in
				embedded[i], written[i] = rulePlace.ReplaceAll(embedded[i], nil), rulePlace.ReplaceAll(written[i], nil)
			}
			for i, what := range []string{"request CSV", "series CSV", "JSON"} {
				if len(embedded[i]) == 0 || !bytes.Equal(embedded[i], written[i]) {
					t.Errorf("%s: the %s from --file %s differs from the embedded scenario's (%d and %d bytes)", name, what, file, len(written[i]), len(embedded[i]))
				}
			}
		})
	}
}

// What scenarios --write refuses, exit 2 and nothing written: no --write, an
// unknown name (with the nearest suggested), an existing file without --force,
// a different log where a scenario's would go. It writes to standard output,
// names in the order given, and replaces with --force.
func TestScenariosWriteRefusals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.toml")
	entries := func() []string {
		var names []string
		filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error {
			if p != dir {
				rel, _ := filepath.Rel(dir, p)
				names = append(names, rel)
			}
			return nil
		})
		return names
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scenarios"}, "scenarios: --write FILE is required"},
		{[]string{"scenarios", "--write", file, "retry-strom"}, `unknown scenario "retry-strom" in scenarios.toml; did you mean "retry-storm"?`},
		{[]string{"scenarios", "--write", file, "boundary-burst", "nope-nope-nope"}, `unknown scenario "nope-nope-nope"`},
		{[]string{"scenarios", "--write", "", "boundary-burst"}, "--write is empty"},
		{[]string{"scenarios", "--write", dir, "boundary-burst"}, "is a directory"},
	} {
		code, out, errOut := ratelab(tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("ratelab %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
		if e := entries(); len(e) != 0 {
			t.Fatalf("ratelab %s left %v", strings.Join(tc.args, " "), e)
		}
	}

	// names in the order given, once each; flags after names too
	if code, _, errOut := ratelab("scenarios", "bursty-user", "boundary-burst", "bursty-user", "--write", file); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	c, err := loadCatalogue(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Names(); !slices.Equal(got, []string{"bursty-user", "boundary-burst"}) {
		t.Errorf("wrote %v", got)
	}
	before, _ := os.ReadFile(file)
	code, _, errOut := ratelab("scenarios", "--write", file, "sandbox")
	if after, _ := os.ReadFile(file); code != 2 || !strings.Contains(errOut, "exists; give another name, or --force to replace it") || !bytes.Equal(before, after) {
		t.Errorf("over an existing file: exit %d, %q", code, errOut)
	}
	if code, _, errOut := ratelab("scenarios", "--write", file, "--force", "sandbox"); code != 0 {
		t.Errorf("--force: exit %d, %q", code, errOut)
	} else if c, err := loadCatalogue(file); err != nil || !slices.Equal(c.Names(), []string{"sandbox"}) {
		t.Errorf("--force did not replace the file: %v", err)
	}

	// a log of the user's where the scenario's would go is left alone
	other := filepath.Join(t.TempDir(), "other")
	check.Setup(t, os.MkdirAll(filepath.Join(other, "traces"), 0o755))
	theirs := filepath.Join(other, "traces", "shop.log")
	check.Setup(t, os.WriteFile(theirs, []byte("mine, not ratelab's\n"), 0o644))
	code, _, errOut = ratelab("scenarios", "--write", filepath.Join(other, "s.toml"), "log-stamped")
	if got, _ := os.ReadFile(theirs); code != 2 || !strings.Contains(errOut, "is there already and is not the log the scenarios read") || string(got) != "mine, not ratelab's\n" {
		t.Errorf("a different log beside: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(other, "s.toml")); err == nil {
		t.Error("the scenario file was written though its log could not be")
	}

	// standard output: the scenarios, and a word on standard error about the
	// log it does not write
	code, out, errOut := ratelab("scenarios", "--write", "-", "trace-replay")
	if code != 0 || !strings.Contains(out, "\nname = \"trace-replay\"\n") || !strings.Contains(errOut, "reads traces/access-log.csv") || strings.HasPrefix(errOut, "ratelab:") {
		t.Errorf("--write -: exit %d, stderr %q", code, errOut)
	}
}
