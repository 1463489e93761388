package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"ratelab/internal/redistest"
)

// Redis not there at start: ratelab run exits 1 saying so.
func TestRedisNotThere(t *testing.T) {
	redistest.Need(t)
	srv := redistest.Start(t)
	url := srv.URL()
	srv.Stop() // a port where nothing answers
	code, _, errOut := ratelab(t, "run", "--scenario", "bursty-user", "--redis", url)
	if code != 1 || !strings.Contains(errOut, "cannot reach Redis at "+srv.Addr()) {
		t.Errorf("run with Redis down: exit %d, %q", code, errOut)
	}
}

// run --redis writes CSV whose backend column says redis.
func TestRunOnRedisWritesCSV(t *testing.T) {
	srv := redistest.Start(t)
	path := filepath.Join(t.TempDir(), "rows.csv")
	code, out, errOut := ratelab(t, "run", "--scenario", "boundary-burst", "--redis", srv.URL(), "--csv", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), ",gcra,gcra,redis,burst,app,api-key-1,") || !strings.Contains(string(data), ",x-time-rate,x-time-rate,memory,") {
		t.Errorf("rows do not name their backends:\n%.400s", data)
	}
	if !strings.Contains(out, "fixed-window: policy exceeded: 2.00× the limit in one 1s window, within 2.0ms") {
		t.Errorf("output:\n%s", out)
	}
}

// run --plot --redis runs the scenario on Redis once: the charts' zoom is counted
// from the decisions the run kept (plots.Recorder), so it makes as many script
// calls as run --redis without charts. The old --plot ran the scenario again up to
// the zoom's end for its close-up: twice the calls, on boundary-burst.
func TestPlotOnRedisRunsTheScenarioOnce(t *testing.T) {
	srv := redistest.Start(t)
	scripts := func() int64 {
		info, err := srv.Client().Info(t.Context(), "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, line := range strings.Split(info, "\n") {
			name, stats, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
			if ok && (name == "cmdstat_evalsha" || name == "cmdstat_eval") {
				calls, _ := strconv.ParseInt(stats[:strings.IndexByte(stats, ',')], 10, 64)
				n += calls
			}
		}
		return n
	}
	run := func(extra ...string) int64 {
		before := scripts()
		args := append([]string{"run", "--scenario", "boundary-burst", "--redis", srv.URL()}, extra...)
		if code, _, errOut := ratelab(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return scripts() - before
	}
	run() // loads the scripts: later runs call them by their SHA only
	alone := run()
	dir := filepath.Join(t.TempDir(), "charts")
	withCharts := run("--plot", dir)
	if _, err := os.Stat(filepath.Join(dir, "comparison-zoom.svg")); err != nil {
		t.Fatalf("no zoom drawn: %v", err)
	}
	if alone == 0 || withCharts != alone {
		t.Errorf("run --redis made %d script calls, run --redis --plot %d: want the same, the scenario run once", alone, withCharts)
	}
}
