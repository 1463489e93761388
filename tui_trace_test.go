package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/scenarios"
	"ratelab/sim"
	"ratelab/traces"
)

// ratelab tui --trace opens on the policy ratelab tune recommends for the same
// log, as the README, the help and the man page say: the same grid, the same goal.
// Both shipped logs recommend a different burst on a grid of 6 points than on
// tune's 8, so a UI that swept a grid of its own would open on another policy.
func TestTUITraceOpensOnTuneRecommendation(t *testing.T) {
	for _, file := range []string{"traces/shop.log", "traces/access-log.csv"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := ratelab("tune", "--trace", file, "--verbose")
			if code != 0 {
				t.Fatalf("tune --trace %s: exit %d: %s", file, code, errOut)
			}
			want := recommendedRow(t, out)

			o := traceOptions{file: file, timeFormat: "auto", spread: "none", reorder: traces.DefaultReorderWindow, seed: 1}
			c, name, _, err := traceCatalogue(context.Background(), "tui", o, io.Discard)
			if err != nil {
				t.Fatalf("traceCatalogue(%s): %v", file, err)
			}
			cfg, err := c.Compile(name, scenarios.Overrides{})
			if err != nil {
				t.Fatalf("compiling the trace scenario: %v", err)
			}
			if got := cfg.Lanes[0].Name; got != want {
				t.Errorf("tui --trace %s opens on lane %q; tune recommends %q", file, got, want)
			}
		})
	}
}

// recommendedRow is the lane name tui --trace gives the row tune marks with *:
// "recommended: token-bucket 2/1s burst 16".
func recommendedRow(t *testing.T, out string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "*" {
			continue
		}
		algorithm, rate, burst := f[1], f[2], f[3]
		if burst == "-" {
			return fmt.Sprintf("recommended: %s %s", algorithm, rate)
		}
		return fmt.Sprintf("recommended: %s %s burst %s", algorithm, rate, burst)
	}
	t.Fatalf("tune printed no recommended (*) row:\n%s", out)
	return ""
}

// A refusal of the scenario ratelab writes for run --trace names the trace,
// not a line and column of that generated text, and a fix that exists.
func TestTraceRefusalNamesTheTrace(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "nginx.conf")
	if err := os.WriteFile(conf, []byte("http {\nlimit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\nserver { listen 80; location / { limit_req zone=one burst=5; } }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := ratelab("run", "--trace", "traces/access-log.csv", "--config", conf)
	want := "ratelab: --trace traces/access-log.csv: client \"log\": its trace has requests of cost up to 5"
	if code != 2 || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "--cost-field none") {
		t.Errorf("run --trace (costs) --config nginx.conf: exit %d, %q; want exit 2 and %q…, naming --cost-field none", code, errOut, want)
	}
	if code, _, errOut := ratelab("run", "--trace", "traces/access-log.csv", "--config", conf, "--cost-field", "none"); code != 0 {
		t.Errorf("the same with --cost-field none: exit %d, %.300q; want it run", code, errOut)
	}
}

// A trace that is an empty directory is said to be one, with what to give
// instead, by every command that reads --trace, whether or not --format is
// given (a directory of files is a log partitioned by key, read as one log).
// It used to read as a file whose lines tell no format, with advice to give
// --format, which then failed with "read DIR: is a directory".
func TestTraceThatIsADirectory(t *testing.T) {
	dir := t.TempDir()
	want := dir + " is a directory with no file in it, not a request log; give the log file itself, or the folder of a log partitioned by key"
	for _, args := range [][]string{
		{"tune", "--trace", dir},
		{"tune", "--trace", dir, "--format", "csv"},
		{"run", "--trace", dir},
		{"tui", "--trace", dir},
		{"tui", "--trace", dir, "--format", "clf"},
	} {
		code, out, errOut := ratelab(args...)
		if code != 2 || !strings.HasPrefix(errOut, "ratelab: "+want) || strings.Contains(errOut, "--format") || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line %q…", strings.Join(args, " "), code, out, errOut, want)
		}
	}
}

// A log whose name holds brackets (access[1].log, x [a].log) or a control
// character is replayed: the lesson written from it, which names it in the
// tune command, cites no claim, and its title and lesson show the name escaped.
func TestTraceNamedWithBrackets(t *testing.T) {
	log, err := os.ReadFile("traces/shop.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"access[1].log", "x [a].log", "([b]).log", "e\x1b[31mred.log"} {
		file := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(file, log, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := ratelab("run", "--trace", file, "--format", "json")
		if code != 0 || strings.Contains(out, "\x1b") {
			t.Errorf("run --trace %q: exit %d, stderr %q", file, code, errOut)
		}
	}
}

// run and tui --trace take tune's --goal and --exclude: the replay leaves the
// excluded requests out as the sweep did, the lesson names the tune command
// that shows it all, and a goal about the backend is refused with what answers it.
func TestTraceGoalAndExclude(t *testing.T) {
	o := traceOptions{file: "traces/shop.log", timeFormat: "auto", spread: "none", reorder: traces.DefaultReorderWindow, seed: 1, goal: "abuse", exclude: "assets"}
	c, name, _, err := traceCatalogue(context.Background(), "run", o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile(name, scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	all := traceOptions{file: "traces/shop.log", timeFormat: "auto", spread: "none", reorder: traces.DefaultReorderWindow, seed: 1}
	whole, wholeName, _, err := traceCatalogue(context.Background(), "run", all, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	wcfg, _ := whole.Compile(wholeName, scenarios.Overrides{})
	rows := cfg.Clients[0].Pattern.(sim.Trace).Rows
	if wrows := wcfg.Clients[0].Pattern.(sim.Trace).Rows; rows >= wrows || rows == 0 {
		t.Errorf("--exclude assets replays %d of the log's %d requests", rows, wrows)
	}
	if !strings.Contains(cfg.Lesson, "--exclude assets --goal abuse") {
		t.Errorf("the lesson does not name the tune command with its goal and exclusion:\n%s", cfg.Lesson)
	}
	o.goal = "capacity"
	if _, _, _, err := traceCatalogue(context.Background(), "run", o, io.Discard); err == nil || !strings.Contains(err.Error(), "ratelab tune --goal capacity --capacity") {
		t.Errorf("--goal capacity: %v", err)
	}
	o.goal, o.exclude = "", "referer=x"
	if _, _, _, err := traceCatalogue(context.Background(), "run", o, io.Discard); err == nil || !strings.Contains(err.Error(), "--exclude: ") {
		t.Errorf("--exclude referer=x: %v", err)
	}
}
