package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"ratelab/internal/check"
	"ratelab/present"
)

// TestRunGolden pins `ratelab run` output for two scenarios: the comparison table
// and verdicts, byte for byte. Rewrite with go test -run TestRunGolden -update.
func TestRunGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, golden string }{
		{"boundary-burst", "testdata/run-boundary-burst.golden"},
		{"non-atomic-race", "testdata/run-non-atomic-race.golden"},
	} {
		code, out, errOut := ratelab(t, "run", "--scenario", tc.name)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		if *update {
			check.Setup(t, os.MkdirAll("testdata", 0o755))
			check.Setup(t, os.WriteFile(tc.golden, []byte(out), 0o644))
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

// ratelab run prints each of the lesson's questions with the run's answer after
// the claims, and --format json carries them; --lanes that leave a question's
// lanes out drop it.
func TestRunAnswersTheQuestions(t *testing.T) {
	t.Parallel()
	code, out, errOut := ratelab(t, "run", "--scenario", "thundering-herd")
	want := "  ? at 6.020s: At 5 s each of 200 clients sent 20 requests against 10 per second: half were denied, each told to retry when the window ends, at 6.000 s. How many requests does the fixed window let through in the 20 ms after 6.000 s? a) under 200  b) 200 to 999  c) 1,000 to 1,999  d) 2,000 or more → c) 1,000 to 1,999 — the run: 1670 (the claim [herd-6s] ✓)\n"
	if code != 0 || !strings.HasSuffix(out, want) {
		t.Errorf("exit %d (%s); the output does not end with the question and its answer:\n%s", code, errOut, out)
	}
	code, out, errOut = ratelab(t, "run", "--scenario", "thundering-herd", "--format", "json")
	var r struct {
		Questions []struct {
			AtMS   float64  `json:"at_ms"`
			Claim  string   `json:"claim"`
			Lane   string   `json:"lane"`
			Answer string   `json:"answer"`
			Value  *float64 `json:"value"`
			Right  []string `json:"right"`
			Holds  bool     `json:"claim_holds"`
		} `json:"questions"`
	}
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("exit %d (%s), %v", code, errOut, err)
	}
	if len(r.Questions) != 1 {
		t.Fatalf("JSON questions: %+v", r.Questions)
	}
	if q := r.Questions[0]; q.AtMS != 6020 || q.Claim != "herd-6s" || q.Lane != "fixed-window" || q.Value == nil || *q.Value != 1670 || len(q.Right) != 1 || q.Right[0] != "1,000 to 1,999" || !q.Holds || q.Answer != "c) 1,000 to 1,999 — the run: 1670" {
		t.Errorf("JSON question: %+v", q)
	}
	code, out, _ = ratelab(t, "run", "--scenario", "thundering-herd", "--lanes", "token-bucket")
	if code != 0 || strings.Contains(out, "? at") {
		t.Errorf("--lanes token-bucket: exit %d, and the question about the fixed window is asked:\n%s", code, out)
	}
}

func TestRunWritesCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows, series := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "series.csv")
	code, out, errOut := ratelab(t, "run", "--scenario", "bursty-user", "--lanes", "token-bucket,fixed-window", "--csv", rows, "--series", series, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// each name picks its algorithm's lanes: the plain ones and bursty-user's
	// "fixed-window (5 per 5 s)" and "token-bucket (burst 1)"
	if !strings.Contains(out, `"scenario": "bursty-user"`) || strings.Count(out, `"lane":`) != 4 {
		t.Errorf("json output:\n%s", out)
	}
	got, _ := os.ReadFile(rows)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if lines[0] != present.RequestColumns+","+present.RequestRuleColumns || len(lines) != 1+32 {
		t.Errorf("rows.csv: header %q and %d rows; want the contract's header and 32 decisions", lines[0], len(lines)-1)
	}
	if lines[1] != "30000.000,fixed-window,fixed-window,memory,reader,app,user-42,reader-1,1,1,true,0,0.000,30000.000000,30000.000000,0.000000,served,0.000000,false,," {
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
	code, out, errOut = ratelab(t, "run", "--scenario", "bursty-user", "--lanes", "gcra", "--csv", "-")
	if code != 0 || !strings.HasPrefix(out, present.RequestColumns) || !strings.Contains(errOut, "bursty-user — ") {
		t.Errorf("--csv -: exit %d, stdout starts %.40q, stderr %.80q", code, out, errOut)
	}
}

func TestBadInputExitCodes(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	check.Setup(t, os.WriteFile(bad, []byte("[[scenario]]\nname = \"x\"\nduration = \"1s\"\n[scenario.policy]\nlimt = 5\n"), 0o644))
	noDir := filepath.Join(dir, "missing", "rows.csv")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run"}, 2, "run: --scenario is required (or --trace FILE); see ratelab list for the names"},
		{[]string{"run", "--scenario", "nope"}, 2, `unknown scenario "nope" in scenarios.toml; known: boundary-burst, bucket-bound, bursty-user, noisy-tenant, sandbox`},
		{[]string{"run", "--scenario", "x", "--file", bad}, 2, bad + `:5:1: unknown key "limt" in [scenario.policy]; did you mean "limit"?`},
		{[]string{"run", "--scenario", "x", "--file", filepath.Join(dir, "none.toml")}, 2, "scenario file: open " + filepath.Join(dir, "none.toml") + ": no such file or directory"},
		{[]string{"run", "--scenario", "boundary-burst", "--lanes", "token-buckit"}, 2, `--lanes: scenario "boundary-burst" has no lane or algorithm "token-buckit"`},
		{[]string{"run", "--scenario", "boundary-burst", "--csv", noDir}, 2, "--csv " + noDir + " cannot be written: no such file or directory"},
		{[]string{"run", "--scenario", "boundary-burst", "--series", dir}, 2, "--series " + dir + " is a directory; give a file name"},
		{[]string{"run", "--scenario", "boundary-burst", "--format", "xml"}, 2, `run: --format must be table or json (got "xml")`},
		{[]string{"run", "--scenario", "boundary-burst", "--seed", "-1"}, 2, `invalid value "-1" for flag --seed: want a whole number >= 0`},
		{[]string{"run", "--scenario", "boundary-burst", "--csv", "-", "--series", "-"}, 2, "would both write to standard output"},
		{[]string{"run", "--scenario", "boundary-burst", "stray"}, 2, `run: unexpected argument "stray"`},
		{[]string{"run", "--scenario", "boundary-burst", "--watch-keys", "api-key-1"}, 2, "run: --watch-keys adds level columns to the series CSV; give --series PATH (or -) too"},
		{[]string{"run", "--scenario", "boundary-burst", "--series", "-", "--watch-keys", "nope"}, 2, `run: --watch-keys: "nope" is not a key any client of scenario "boundary-burst" uses; its keys include api-key-1`},
		{[]string{"run", "--scenario", "boundary-burst", "--series", "-", "--watch-keys", "api-key-1,api-key-1"}, 2, `run: --watch-keys names "api-key-1" twice; list each key once`},
		{[]string{"run", "--bogus"}, 2, "run: flag provided but not defined: --bogus"},
		{[]string{"run", "--scenaro", "x"}, 2, "did you mean --scenario?"},
		{[]string{"run", "--scenario", "retry-strom"}, 2, `unknown scenario "retry-strom" in scenarios.toml; did you mean "retry-storm"?`},
		{[]string{"rn"}, 2, `unknown command "rn"; did you mean "run"?`},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"list", "--file", bad}, 2, `did you mean "limit"?`},
	} {
		code, _, errOut := ratelab(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("ratelab %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed runs left files behind: %v", entries)
	}
}

func TestListAndVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := ratelab(t, "list")
	if code != 0 || !strings.HasPrefix(out, "boundary-burst ") || strings.Count(out, "\n") < 10 {
		t.Errorf("list: exit %d:\n%s", code, out)
	}
	// the release, then the Go it was built with (the root package's
	// TestVersion pins the release itself)
	code, out, _ = ratelab(t, "version")
	if code != 0 || !regexp.MustCompile(`^ratelab \d+\.\d+\.\d+ \((commit [0-9a-f]{12}, (tree clean|with changes not committed)|commit unknown: [^)]*)\) `+regexp.QuoteMeta(runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)+"\n$").MatchString(out) {
		t.Errorf("version: exit %d: %s", code, out)
	}
}
