package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/tracegen"
	"ratelab/traces"
	"ratelab/tune"
)

// run --trace judges each lane as ratelab tune judges a policy: its JSON counts
// the ordinary keys' decisions and denials and the heavy hitters' decisions and
// admissions, and its table shows the shares ("ordinary denied", "heavy
// admitted"); each is the count, made here from its request CSV, of the rows
// of the keys tune's own sweep classed, and the recommended lane's shares are
// those tune reports for the policy.
func TestTraceLanesCountEachKindOfKey(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Duration: 4 * time.Minute, Seed: 3,
		Users: 200, UserPages: 1.0 / 30, Abusers: 2, AbuserRate: 12, Crawlers: 1, CrawlerRate: 3, Slowest: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	log, rows := filepath.Join(dir, "access.log"), filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(log, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// tune's sweep, as run --trace makes it
	o := traceOptions{file: log, timeFormat: "auto", spread: "none", reorder: traces.DefaultReorderWindow, seed: 1}
	to, err := o.options("run")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := o.load(to, tune.LoadOptions{Budget: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	rep, err := tune.Run(context.Background(), tr, tune.Options{Points: tune.DefaultPoints, Goal: tune.DefaultGoal})
	if err != nil {
		t.Fatal(err)
	}
	heavy := map[string]bool{}
	for k, h := range rep.Classes.Heavy {
		if h {
			heavy[rep.Trace.Keys[k]] = true
		}
	}
	if rep.Best < 0 || len(heavy) == 0 || len(heavy) == len(rep.Trace.Keys) {
		t.Fatalf("the log: recommendation %d, %d heavy keys of %d; want a recommendation and keys of both kinds", rep.Best, len(heavy), len(rep.Trace.Keys))
	}

	code, out, errOut := ratelab("run", "--trace", log, "--csv", rows, "--format", "json")
	if code != 0 {
		t.Fatalf("run --trace: exit %d: %s", code, errOut)
	}
	var report struct {
		Lanes []struct {
			Lane                                                           string
			OrdinaryAttempts, OrdinaryDenied, HeavyAttempts, HeavyAccepted int64
		}
	}
	if err := json.Unmarshal([]byte(strings.NewReplacer(`"ordinary_attempts"`, `"OrdinaryAttempts"`, `"ordinary_denied"`, `"OrdinaryDenied"`,
		`"heavy_attempts"`, `"HeavyAttempts"`, `"heavy_accepted"`, `"HeavyAccepted"`).Replace(out)), &report); err != nil {
		t.Fatal(err)
	}
	counts := countByKind(t, rows, heavy) // per lane: ordinary, ordinary denied, heavy, heavy accepted
	_, table, _ := ratelab("run", "--trace", log)
	for i, l := range report.Lanes {
		want := counts[l.Lane]
		if got := [4]int64{l.OrdinaryAttempts, l.OrdinaryDenied, l.HeavyAttempts, l.HeavyAccepted}; got != want || want[0] == 0 || want[2] == 0 {
			t.Errorf("lane %q: the JSON counts (ordinary, denied; heavy, admitted) %v, the CSV's rows %v", l.Lane, got, want)
		}
		ordinary, admitted := float64(want[1])/float64(want[0]), float64(want[3])/float64(want[2])
		row := tableRow(table, l.Lane)
		if !strings.HasPrefix(row, format.Percent(ordinary)+" "+format.Percent(admitted)+" ") {
			t.Errorf("lane %q: the table's row reads %q; want ordinary denied %s, heavy admitted %s first", l.Lane, row, format.Percent(ordinary), format.Percent(admitted))
		}
		if i > 0 {
			continue
		}
		best := rep.Results[rep.Best]
		if !strings.HasPrefix(l.Lane, "recommended: ") || math.Abs(ordinary-best.OrdinaryDenied) > 1e-12 || math.Abs(admitted-best.HeavyAdmitted) > 1e-12 {
			t.Errorf("lane %q: ordinary denied %v, heavy admitted %v; tune's recommendation %s: %v, %v", l.Lane, ordinary, admitted, best.Limits, best.OrdinaryDenied, best.HeavyAdmitted)
		}
	}
}

// countByKind counts each lane's rows of the request CSV at path: of the
// ordinary keys (not in heavy), those denied, of the heavy keys, those allowed.
func countByKind(t *testing.T, path string, heavy map[string]bool) map[string][4]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range header {
		col[name] = i
	}
	out := map[string][4]int64{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		c := out[rec[col["lane"]]]
		allowed := rec[col["allowed"]] == "true"
		if heavy[rec[col["key"]]] {
			c[2]++
			if allowed {
				c[3]++
			}
		} else {
			c[0]++
			if !allowed {
				c[1]++
			}
		}
		out[rec[col["lane"]]] = c
	}
}

// tableRow is the cells after the lane's name in its row of the table, spaces
// collapsed ("" when no row is the lane's).
func tableRow(table, lane string) string {
	for _, line := range strings.Split(table, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), lane+" "); ok {
			return strings.Join(strings.Fields(rest), " ") + " "
		}
	}
	return ""
}
