package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// multiDayCSV writes an ordinary log of four days as ratelab's CSV
// (time_ms,key): 150 keys sending a few dozen requests a day each, and one
// that sends 60,000 in its third day (0.7 a second).
func multiDayCSV(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 31))
	const day = int64(24 * time.Hour / time.Millisecond)
	type row struct {
		ms  int64
		key string
	}
	var rows []row
	for k := 1; k <= 150; k++ {
		for d := range int64(4) {
			for range 5 + rng.IntN(30) {
				rows = append(rows, row{d*day + rng.Int64N(day), fmt.Sprintf("user%d", k)})
			}
		}
	}
	for range 60_000 {
		rows = append(rows, row{2*day + rng.Int64N(day), "crawler"})
	}
	slices.SortStableFunc(rows, func(a, b row) int { return int(a.ms - b.ms) })
	var b bytes.Buffer
	b.WriteString("time_ms,key\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%d,%s\n", r.ms, r.key)
	}
	path := filepath.Join(t.TempDir(), "four-days.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The default tune on an ordinary four-day log recommends a policy; so do run
// --trace and tune --target for the products whose buckets sweep a day. Over
// a day the grid's bursts reach twice the crawler's 60,000, past what exact
// arithmetic holds per day: tune picked that policy itself and failed on it
// (exit 2, "too large for exact arithmetic … use a shorter period"). Now such
// policies are left out, said once, and every policy swept can be replayed.
func TestTuneAMultiDayLog(t *testing.T) {
	log := multiDayCSV(t)
	grid := filepath.Join(t.TempDir(), "grid.csv")
	if code, out, errOut := ratelab("tune", "--trace", log, "--csv", grid); code != 0 || errOut != "" {
		t.Errorf("tune: exit %d: %s", code, errOut)
	} else {
		leftOut := "policies of the grid (token-bucket "
		if !strings.Contains(out, "is the tightest") || strings.Count(out, leftOut) != 1 || !strings.Contains(out, "below 2^53 (Redis's Lua numbers are doubles)") {
			t.Errorf("tune recommends nothing, or does not say once what it left out:\n%s", out)
		}
		checkGrid(t, grid)
	}
	if code, out, errOut := ratelab("run", "--trace", log); code != 0 || !strings.Contains(out, " * ") {
		t.Errorf("run --trace: exit %d: %s\n%s", code, errOut, out)
	}
	for _, target := range []string{"envoy-local", "spring", "traefik"} {
		code, out, errOut := ratelab("tune", "--trace", log, "--target", target, "--points", "3")
		if code != 0 || !strings.Contains(out, "as "+target+" writes it") || strings.Count(out, "policies of the grid ("+target+" ") != 1 {
			t.Errorf("tune --target %s: exit %d: %s\n%s", target, code, errOut, out)
		}
	}
}

// checkGrid checks a grid CSV tune wrote: every policy swept can be replayed
// exactly, and one is recommended.
func checkGrid(t *testing.T, grid string) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader([]byte(mustReadFile(t, grid)))).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("grid CSV: %v, %d rows", err, len(rows))
	}
	recommended := 0
	for _, r := range rows[1:] {
		limit, _ := strconv.ParseInt(r[1], 10, 64)
		ms, _ := strconv.ParseFloat(r[2], 64)
		burst, _ := strconv.ParseInt(r[3], 10, 64)
		p := algorithms.Policy{Limit: limit, Period: time.Duration(ms * float64(time.Millisecond)), Burst: burst}
		if err := p.Validate(1); err != nil {
			t.Errorf("swept %s %s, which cannot be replayed: %v", r[0], p, err)
		}
		if r[18] == "true" {
			recommended++
		}
	}
	if recommended != 1 {
		t.Errorf("%d policies recommended in the grid CSV", recommended)
	}
}

// mustReadFile is the content of the file at path.
func mustReadFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
