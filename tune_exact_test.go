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
	if code, out, errOut := ratelab("tune", "--trace", log, "--csv", grid, "--goal", "ordinary<0.1%", "--verbose"); code != 0 || errOut != "" {
		t.Errorf("tune: exit %d: %s", code, errOut)
	} else {
		leftOut := "policies of the grid (token-bucket "
		if !strings.Contains(out, "is the tightest") || strings.Count(out, leftOut) != 1 || !strings.Contains(out, "below 2^53 (Redis's Lua numbers are doubles)") {
			t.Errorf("tune recommends nothing, or does not say once what it left out:\n%s", out)
		}
		checkGrid(t, grid)
	}
	if code, out, errOut := ratelab("run", "--trace", log); code != 0 || !strings.Contains(out, "recommended: ") {
		t.Errorf("run --trace: exit %d: %s\n%s", code, errOut, out)
	}
	for _, target := range []string{"envoy-local", "spring", "traefik"} {
		code, out, errOut := ratelab("tune", "--trace", log, "--target", target, "--points", "3", "--verbose")
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

// tune merge refuses a damaged partial with exit 2 and one line naming the
// file and the field, where it panicked: one digit changed (index out of
// range) and a partition count no sweep makes (makeslice: len out of range),
// the two; and a partial of nginx's sweep that says it is Kong's,
// whose snippet would be written from a policy Kong cannot hold. The same
// partials undamaged merge.
func TestTuneMergeDamagedPartials(t *testing.T) {
	dir := t.TempDir()
	log := "traces/access-log.csv"
	part := func(name, k string, more ...string) string {
		path := filepath.Join(dir, name)
		args := append([]string{"tune", "--trace", log, "--points", "3", "--partition", k, "--partial", path}, more...)
		if code, _, errOut := ratelab(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return path
	}
	p0, p1, whole := part("p0.json", "0/2"), part("p1.json", "1/2"), part("whole.json", "0/1", "--target", "nginx")
	if code, _, errOut := ratelab("tune", "merge", p0, p1); code != 0 {
		t.Fatalf("undamaged: exit %d: %s", code, errOut)
	}
	if code, out, errOut := ratelab("tune", "merge", whole); code != 0 || !strings.Contains(out, "as nginx writes it") {
		t.Fatalf("undamaged, for nginx: exit %d: %s", code, errOut)
	}
	// each damage is made twice: as sealed (tune/seal.go), which the seal
	// refuses, and without the seal, as an older ratelab wrote a partial,
	// which the fields' checks refuse
	sealedDamage := map[string]string{}
	damage := func(from, name string, change func(string) string) string {
		text := mustReadFile(t, from)
		sealed := filepath.Join(dir, "sealed-"+name)
		if err := os.WriteFile(sealed, []byte(change(text)), 0o644); err != nil {
			t.Fatal(err)
		}
		seal := strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n") + 1
		if !strings.HasPrefix(text[seal:], `{"sha256":`) {
			t.Fatalf("%s does not end with its seal", from)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(change(text[:seal])), 0o644); err != nil {
			t.Fatal(err)
		}
		sealedDamage[path] = sealed
		return path
	}
	digit := func(s string) string { // the heaviest key's index, one digit changed
		i := strings.Index(s, `"Heaviest":`) + len(`"Heaviest":`)
		return s[:i] + "9" + s[i+1:]
	}
	for _, tc := range []struct {
		files []string
		field string
	}{
		{[]string{damage(whole, "digit.json", digit)}, "Classes.Heaviest"},
		{[]string{damage(p0, "n0.json", func(s string) string { return strings.Replace(s, `"N":2}`, `"N":1000000000000000}`, 1) }),
			damage(p1, "n1.json", func(s string) string { return strings.Replace(s, `"N":2}`, `"N":1000000000000000}`, 1) })}, "partition.N"},
		{[]string{damage(whole, "kong.json", func(s string) string { return strings.Replace(s, `"Target":"nginx"`, `"Target":"kong"`, 1) })}, "Grids[0].Algorithms"},
	} {
		code, out, errOut := ratelab(append([]string{"tune", "merge"}, tc.files...)...)
		want := "ratelab: "
		if tc.field == "Grids[0].Algorithms" {
			want += "tune merge: "
		}
		want += tc.files[0] + ": a damaged partial sweep: " + tc.field + " "
		if code != 2 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("tune merge %s: exit %d, %q; want exit 2 and one line %q…", filepath.Base(tc.files[0]), code, errOut, want)
		}
		sealed := sealedDamage[tc.files[0]]
		code, _, errOut = ratelab(append([]string{"tune", "merge", sealed}, tc.files[1:]...)...)
		if want := "ratelab: " + sealed + ": the file is not as it was written"; code != 2 || !strings.HasPrefix(errOut, want) {
			t.Errorf("tune merge %s: exit %d, %q; want exit 2 and %q…", filepath.Base(sealed), code, errOut, want)
		}
	}
	if code, _, errOut := ratelab("tune", "merge", dir); code != 2 || !strings.Contains(errOut, dir+" is a directory; give the partial files in it") {
		t.Errorf("tune merge DIR: exit %d, %q", code, errOut)
	}
}

// bigCSV writes a log of n requests from a few keys, a millisecond apart, as
// ratelab's CSV: past --memory 1 (65,536 requests) when n is larger.
func bigCSV(t *testing.T, n int) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("time_ms,key\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,k%d\n", i, i%7)
	}
	path := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A trace that cannot be spilled to disk — here TMPDIR is a folder that does
// not exist; a full disk is the other case (e2e's TestTuneSpillFillsTheDisk)
// — is a failure at run time, exit 1, saying where and what to do; it was a
// usage error, exit 2. The flag, the trace and the command are not at fault.
func TestTuneSpillFailureIsARunTimeFailure(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	t.Setenv("TMPDIR", missing)
	log := bigCSV(t, 70_000)
	code, out, errOut := ratelab("tune", "--trace", log, "--memory", "1")
	want := "ratelab: the trace does not fit in memory, and making a folder to spill it to disk in " + missing + " failed: no such file or directory; set TMPDIR to a folder that exists\n"
	if code != 1 || errOut != want || out != "" {
		t.Errorf("exit %d, %q; want exit 1 and %q", code, errOut, want)
	}
}
