package e2e

import (
	"os"
	"path/filepath"
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
