package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// ratelab runs the command line in-process and returns its exit code and output.
func ratelab(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestRunGolden pins `ratelab run` output for two scenarios: the comparison table
// and verdicts, byte for byte. Rewrite with go test -run TestRunGolden -update.
func TestRunGolden(t *testing.T) {
	for _, tc := range []struct{ name, golden string }{
		{"boundary-burst", "testdata/run-boundary-burst.golden"},
		{"non-atomic-race", "testdata/run-non-atomic-race.golden"},
	} {
		code, out, errOut := ratelab("run", "--scenario", tc.name)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		if *update {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(tc.golden, []byte(out), 0o644)
		}
		want, err := os.ReadFile(tc.golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if out != string(want) {
			t.Errorf("%s: output differs from %s:\n%s", tc.name, tc.golden, out)
		}
	}
}

// Every shipped scenario runs, and twice gives byte-identical request and series
// CSV and comparison.
func TestEveryScenarioIsDeterministic(t *testing.T) {
	c, err := loadCatalogue("")
	if err != nil {
		t.Fatal(err)
	}
	fingerprint := func(name string) string {
		cfg, err := c.Compile(name, scenarios.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.NewRun(cfg, sim.Memory)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		w, _ := present.NewRequestWriter(h, cfg)
		r.OnRows(w.Write)
		if err := r.AdvanceTo(cfg.Duration); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		present.WriteSeries(h, r)
		present.WriteTable(h, cfg, r.Metrics(), r.Claims(), true)
		return string(h.Sum(nil))
	}
	for _, name := range c.Names() {
		if testing.Short() && name == "tiers" {
			continue
		}
		if a, b := fingerprint(name), fingerprint(name); a != b {
			t.Errorf("%s: two runs differ", name)
		}
	}
}

func TestRunWritesCSV(t *testing.T) {
	dir := t.TempDir()
	rows, series := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "series.csv")
	code, out, errOut := ratelab("run", "--scenario", "bursty-user", "--lanes", "token-bucket,fixed-window", "--csv", rows, "--series", series, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"scenario": "bursty-user"`) || strings.Count(out, `"lane":`) != 2 {
		t.Errorf("json output:\n%s", out)
	}
	got, _ := os.ReadFile(rows)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if lines[0] != present.RequestColumns || len(lines) != 1+16 {
		t.Errorf("rows.csv: header %q and %d rows; want the contract's header and 16 decisions", lines[0], len(lines)-1)
	}
	if lines[1] != "30000.000,fixed-window,fixed-window,memory,reader,app,user-42,reader-1,1,1,true,0,0.000,30000.000000,30000.000000,0.000000,served,0.000000,false" {
		t.Errorf("first row %q", lines[1])
	}
	s, _ := os.ReadFile(series)
	if !strings.HasPrefix(string(s), present.SeriesColumns+"\n50.000,fixed-window,0,0,0,0,0,0,0,0\n50.000,token-bucket,5,0,0,0,0,0,0,0\n") {
		t.Errorf("series.csv starts %q", string(s)[:100])
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the output folder holds %d files; want only the two CSVs (no temporary left)", len(entries))
	}

	// CSV to standard output sends the comparison to standard error
	code, out, errOut = ratelab("run", "--scenario", "bursty-user", "--lanes", "gcra", "--csv", "-")
	if code != 0 || !strings.HasPrefix(out, present.RequestColumns) || !strings.Contains(errOut, "bursty-user — ") {
		t.Errorf("--csv -: exit %d, stdout starts %.40q, stderr %.80q", code, out, errOut)
	}
}

func TestBadInputExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[[scenario]]\nname = \"x\"\nduration = \"1s\"\n[scenario.policy]\nlimt = 5\n"), 0o644)
	noDir := filepath.Join(dir, "missing", "rows.csv")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run"}, 2, "run: --scenario is required; see ratelab list for the names"},
		{[]string{"run", "--scenario", "nope"}, 2, `unknown scenario "nope" in scenarios.toml; known: boundary-burst, sandbox, bursty-user`},
		{[]string{"run", "--scenario", "x", "--file", bad}, 2, bad + `:5:1: unknown key "limt" in [scenario.policy]; did you mean "limit"?`},
		{[]string{"run", "--scenario", "x", "--file", filepath.Join(dir, "none.toml")}, 2, "scenario file: open " + filepath.Join(dir, "none.toml") + ": no such file or directory"},
		{[]string{"run", "--scenario", "boundary-burst", "--lanes", "token-buckit"}, 2, `--lanes: scenario "boundary-burst" has no lane or algorithm "token-buckit"`},
		{[]string{"run", "--scenario", "boundary-burst", "--csv", noDir}, 2, "--csv " + noDir + " cannot be written: no such file or directory"},
		{[]string{"run", "--scenario", "boundary-burst", "--series", dir}, 2, "--series " + dir + " is a directory; give a file name"},
		{[]string{"run", "--scenario", "boundary-burst", "--format", "xml"}, 2, `run: --format must be table or json (got "xml")`},
		{[]string{"run", "--scenario", "boundary-burst", "--seed", "-1"}, 2, `invalid value "-1" for flag -seed: want a whole number >= 0`},
		{[]string{"run", "--scenario", "boundary-burst", "--csv", "-", "--series", "-"}, 2, "would both write to standard output"},
		{[]string{"run", "--scenario", "boundary-burst", "stray"}, 2, `run: unexpected argument "stray"`},
		{[]string{"run", "--scenario", "boundary-burst", "--watch-keys", "api-key-1"}, 2, "run: --watch-keys adds level columns to the series CSV; give --series PATH (or -) too"},
		{[]string{"run", "--scenario", "boundary-burst", "--series", "-", "--watch-keys", "nope"}, 2, `run: --watch-keys: "nope" is not a key any client of scenario "boundary-burst" uses; its keys include api-key-1`},
		{[]string{"run", "--scenario", "boundary-burst", "--series", "-", "--watch-keys", "api-key-1,api-key-1"}, 2, `run: --watch-keys names "api-key-1" twice; list each key once`},
		{[]string{"run", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"run", "--help"}, 0, "Usage: ratelab run --scenario NAME"},
		{[]string{"list", "--file", bad}, 2, `did you mean "limit"?`},
	} {
		code, _, errOut := ratelab(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("ratelab %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed runs left files behind: %v", entries)
	}
}

func TestListAndVersion(t *testing.T) {
	code, out, _ := ratelab("list")
	if code != 0 || !strings.HasPrefix(out, "boundary-burst ") || strings.Count(out, "\n") < 10 {
		t.Errorf("list: exit %d:\n%s", code, out)
	}
	code, out, _ = ratelab("version")
	if code != 0 || !strings.HasPrefix(out, "ratelab "+version) {
		t.Errorf("version: exit %d: %s", code, out)
	}
}
