package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/internal/slurmtest"
	"ratelab/internal/tracegen"
)

// The test of a real engine: a one-node Slurm cluster on loopback runs
// a sweep of a log partitioned by key as an engine runs it — the scan, the
// sweep and the pairs' sweep as job arrays of three, the plan and the two
// merges as jobs each depending on the array before (afterok), every worker
// taking its part from SLURM_ARRAY_TASK_ID — and the report it merges is the one
// a single run over the same parts prints, byte for byte: the table, the CSV
// and the JSON (all but the answer, which a single run replays the log for).
func TestTuneOnSlurm(t *testing.T) {
	sequentialOnly(t)
	bin := builtRatelab(t)
	c := slurmtest.Start(t)
	dir := c.Dir()
	var log bytes.Buffer
	if _, err := tracegen.Write(&log, tracegen.Spec{Start: time.Date(2026, 3, 2, 6, 13, 27, 0, time.UTC), Duration: 2 * time.Hour, Seed: 11,
		Users: 120, Visits: 0.5, VisitPages: 5, PageGap: 20 * time.Second, Crawlers: 1, CrawlerRate: 0.5, FeedReaders: 2, FeedEvery: 5 * time.Second,
		Scrapers: 2, ScraperRate: 30, ScraperBurst: 3 * time.Second, ScraperEvery: time.Hour, Slowest: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "access.log"), log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		return string(ratelabIn(t, dir, nil, nil, args...))
	}
	t.Log(run("tune", "split", "--parts", "3", "--out", "parts", "--trace", "access.log"))
	q := "'" + bin + "'"
	sweepFlags := "--points 4 --holdout -1s"
	begin := time.Now()
	// submitted at once, each stage waiting on the one before, as a user would
	scan := c.Submit(t, "--array=0-2", "--output=scan-%a.err", "--wrap", q+" tune scan --trace parts --out scan-$SLURM_ARRAY_TASK_ID.json")
	plan := c.Submit(t, "--dependency=afterok:"+scan, "--output=plan.err", "--wrap", q+" tune plan "+sweepFlags+" --out plan.json scan-*.json")
	sweep := c.Submit(t, "--dependency=afterok:"+plan, "--array=0-2", "--output=sweep-%a.err", "--wrap", q+" tune sweep --plan plan.json --trace parts --out partial-$SLURM_ARRAY_TASK_ID.json")
	pairs := c.Submit(t, "--dependency=afterok:"+sweep, "--output=pairs.err", "--wrap", q+" tune merge --pairs pairs.json partial-*.json")
	sweepPairs := c.Submit(t, "--dependency=afterok:"+pairs, "--array=0-2", "--output=pairs-%a.err", "--wrap", q+" tune sweep --plan pairs.json --trace parts --out pairs-$SLURM_ARRAY_TASK_ID.json")
	merge := c.Submit(t, "--dependency=afterok:"+sweepPairs, "--output=merged.txt", "--error=merge.err", "--wrap", q+" tune merge --csv merged.csv --json merged.json pairs-*.json")
	for _, job := range []string{scan, plan, sweep, pairs, sweepPairs, merge} {
		c.Wait(t, job, 2*time.Minute)
	}
	t.Logf("six jobs on Slurm (%s, %s, %s, %s, %s, %s) done in %v", scan, plan, sweep, pairs, sweepPairs, merge, time.Since(begin).Round(time.Millisecond))

	if err := os.WriteFile(filepath.Join(dir, "one.txt"), []byte(run("tune", "--trace", "parts", "--points", "4", "--holdout", "-1s", "--verbose", "--csv", "one.csv", "--json", "one.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(read("merged.csv"), read("one.csv")) {
		t.Error("the CSV merged on Slurm differs from one run's")
	}
	one, merged := jsonWithout(t, read("one.json"), "answer"), jsonWithout(t, read("merged.json"), "answer")
	if !bytes.Equal(one, merged) {
		t.Error("the JSON merged on Slurm differs from one run's")
	}
	oneText := string(read("one.txt"))
	if i := strings.Index(oneText, "The sweep in full:"); i < 0 || oneText[i:] != string(read("merged.txt")) {
		t.Errorf("the table merged on Slurm differs from one run's:\n%s", read("merged.txt"))
	}
	if !strings.Contains(string(read("merged.txt")), " + ") {
		t.Error("the merged report has no layered pair: the pairs' round was not tested")
	}
}

// jsonWithout is a JSON object without the field name, written again.
func jsonWithout(t *testing.T, b []byte, name string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, name)
	out, _ := json.Marshal(m)
	return out
}
