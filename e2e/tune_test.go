package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/internal/check"
	"ratelab/internal/tracegen"
	"ratelab/tune"
)

// writeLog writes a generated Combined Log of abusers, a crawler and users.
func writeLog(t *testing.T, dir string, d time.Duration) string {
	t.Helper()
	var buf bytes.Buffer
	tracegen.Write(&buf, tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Duration: d, Seed: 5, Users: 300, UserPages: 1.0 / 40,
		Abusers: 2, AbuserRate: 15, Crawlers: 1, CrawlerRate: 4, Slowest: 2 * time.Second})
	path := filepath.Join(dir, "access.log")
	check.Setup(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

func TestTuneCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := writeLog(t, dir, 10*time.Minute)
	csvPath, jsonPath := filepath.Join(dir, "grid.csv"), filepath.Join(dir, "grid.json")
	// the trade-off goal of earlier versions, and the sweep in full after the answer
	args := []string{"tune", "--trace", log, "--points", "4", "--csv", csvPath, "--json", jsonPath, "--goal", "ordinary<0.1%", "--verbose"}
	code, out, errOut := ratelab(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("standard error is not a terminal, yet tune wrote to it: %q", errOut)
	}
	for _, want := range []string{"access.log: ", "requests from 303 keys over 10m0s", "heavy hitters: 3 keys of 303", "over seconds 2 keys stand out (203.0.113.",
		"The frontier per period", "is the tightest", "that meets ordinary<0.10%", "log scale"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	grid, _ := os.ReadFile(csvPath)
	rows, err := csv.NewReader(bytes.NewReader(grid)).ReadAll()
	if err != nil || len(rows) < 2 || strings.Join(rows[0], ",") != tune.CSVColumns {
		t.Fatalf("grid CSV: %v, %d rows, header %q", err, len(rows), rows[0])
	}
	recommended, periods, pairs := 0, map[string]int{}, 0
	for _, r := range rows[1:] {
		if r[18] == "true" {
			recommended++
		}
		if r[19] != "" {
			pairs++
			continue
		}
		periods[r[2]]++
	}
	// every period of the default (1s, 1m, 1h) swept: 4 rates for each window,
	// 4 × 4 for the buckets, fewer when a period's range holds fewer
	if recommended != 1 || len(periods) != 3 || periods["1000"] != 28 || pairs == 0 {
		t.Errorf("grid CSV: %d recommended, policies per period (ms) %v, %d pairs", recommended, periods, pairs)
	}
	var j struct {
		Policies    []json.RawMessage `json:"policies"`
		Recommended int               `json:"recommended"`
	}
	data, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(data, &j); err != nil || len(j.Policies) != len(rows)-1 || j.Recommended < 0 {
		t.Errorf("grid JSON: %v, %d policies, recommended %d", err, len(j.Policies), j.Recommended)
	}
	// the same inputs give the same bytes, whatever the number of workers
	_, again, _ := ratelab(t, append(slices.Clone(args), "--workers", "1")...)
	if again != out {
		t.Error("tune with one worker printed something else than with every core")
	}
}

// formatsByContent are one log in each format tune reads, gzipped under a name
// that says nothing (x.gz), with what reading it by content must say and the
// flags its fields need.
func formatsByContent(t *testing.T, dir string) []struct {
	file, layout string
	flags        []string
} {
	t.Helper()
	var buf bytes.Buffer
	tracegen.Write(&buf, tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Duration: 2 * time.Minute, Seed: 5, Users: 50, UserPages: 1.0 / 20,
		Abusers: 1, AbuserRate: 10, Slowest: time.Second})
	combined := buf.String()
	var common, jsonl, csv strings.Builder
	csv.WriteString("when,client,path\n")
	line := regexp.MustCompile(`^(\S+) \S+ \S+ \[([^\]]+)\] "GET (\S+) [^"]*" \d+ \d+`)
	for _, l := range strings.Split(strings.TrimSpace(combined), "\n") {
		m := line.FindStringSubmatch(l)
		at, err := time.Parse("02/Jan/2006:15:04:05 -0700", m[2])
		if err != nil {
			t.Fatal(err)
		}
		common.WriteString(m[0] + "\n")
		fmt.Fprintf(&jsonl, "{\"time\":%q,\"key\":%q,\"path\":%q}\n", at.Format(time.RFC3339), m[1], m[3])
		fmt.Fprintf(&csv, "%d,%s,%s\n", at.Unix(), m[1], m[3])
	}
	cases := []struct {
		file, layout string
		flags        []string
	}{
		{"combined", "Combined Log Format", nil},
		{"common", "Common Log Format", nil},
		{"jsonl", "JSON Lines", nil},
		{"csv", "CSV with the header when,client,path", []string{"--key", "client", "--time-field", "when", "--time-format", "unix"}},
	}
	for i, text := range []string{combined, common.String(), jsonl.String(), csv.String()} {
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		w.Write([]byte(text))
		w.Close()
		sub := filepath.Join(dir, cases[i].file)
		check.Setup(t, os.MkdirAll(sub, 0o755))
		cases[i].file = filepath.Join(sub, "x.gz")
		check.Setup(t, os.WriteFile(cases[i].file, gz.Bytes(), 0o644))
	}
	return cases
}

// tune reads a gzipped log under a name that says nothing, in each format, by its
// content, and says which format it chose (in the table and the JSON).
func TestTuneTellsTheFormatByContent(t *testing.T) {
	dir := t.TempDir()
	for _, c := range formatsByContent(t, dir) {
		jsonPath := filepath.Join(filepath.Dir(c.file), "grid.json")
		code, out, errOut := ratelab(t, append([]string{"tune", "--trace", c.file, "--points", "2", "--algorithms", "token-bucket", "--json", jsonPath, "--verbose"}, c.flags...)...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.file, code, errOut)
			continue
		}
		if want := "requests from 51 keys over 2m0s, read as " + c.layout + " (told by its content)"; !strings.Contains(out, want) {
			t.Errorf("%s: the report lacks %q:\n%s", c.file, want, out)
		}
		var j struct {
			Trace struct {
				Format, Layout, By string
				Keys               int
			}
		}
		data, _ := os.ReadFile(jsonPath)
		json.Unmarshal(bytes.ReplaceAll(bytes.ReplaceAll(data, []byte(`"format_layout"`), []byte(`"layout"`)), []byte(`"format_by"`), []byte(`"by"`)), &j)
		if j.Trace.Layout != c.layout || j.Trace.By != "content" || j.Trace.Keys != 51 {
			t.Errorf("%s: the JSON's trace is %+v", c.file, j.Trace)
		}
	}
}

// run replays a scenario's trace whose format neither the scenario nor the name
// gives, and its note says which format the content told.
func TestRunTellsATraceFormatByContent(t *testing.T) {
	dir := t.TempDir()
	formatsByContent(t, dir)
	scenario := filepath.Join(dir, "s.toml")
	check.Setup(t, os.WriteFile(scenario, []byte(`[[scenario]]
name = "by-content"
duration = "2m"
[scenario.policy]
limit = 5
period = "1s"
burst = 10
[[scenario.lane]]
algorithm = "token-bucket"
[[scenario.client]]
name = "log"
pattern = "trace"
file = "combined/x.gz"
`), 0o644))
	code, out, errOut := ratelab(t, "run", "--file", scenario, "--scenario", "by-content")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "trace combined/x.gz (clf: Combined Log Format, told by its content): "; !strings.Contains(out, want) {
		t.Errorf("run's notes lack %q:\n%s", want, out)
	}
}

// Bad input: one message naming the place and the fix, exit 2, no file written.
func TestTuneBadInput(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	dir := t.TempDir()
	log := writeLog(t, dir, time.Minute)
	check.Setup(t, os.WriteFile(filepath.Join(dir, "empty.log"), nil, 0o644))
	check.Setup(t, os.WriteFile(filepath.Join(dir, "iso.log"), []byte("1.2.3.4 - - [2026-03-02T00:00:00Z] \"GET / HTTP/1.1\" 200 1\n"), 0o644))
	check.Setup(t, os.WriteFile(filepath.Join(dir, "x.bin"), []byte("hello world\n"), 0o644))
	check.Setup(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(`{"time":"2026-03-02T00:00:00Z","ip":"1.2.3.4"}`+"\n"), 0o644))
	out := filepath.Join(dir, "out.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", filepath.Join(dir, "nope.log")}, "no such file or directory"},
		{[]string{"--trace", log, "--format", "apache"}, `--format: unknown format "apache"; use csv, clf (Common or Combined Log Format), jsonl or auto (by the file's content)`},
		{[]string{"--trace", filepath.Join(dir, "x.bin")}, `: "hello world" is not a Common or Combined Log line, a JSON object or a CSV header; give it with --format clf (Common or Combined Log), --format jsonl or --format csv`},
		{[]string{"--trace", filepath.Join(dir, "empty.log")}, "empty.log: the trace has no requests"},
		{[]string{"--trace", filepath.Join(dir, "iso.log")}, "iso.log: none of its 1 lines could be read as clf; the first: " + filepath.Join(dir, "iso.log") + ":1: time"},
		{[]string{"--trace", filepath.Join(dir, "a.jsonl")}, `no field "key" for the key (fields: ip, time); set key`},
		{[]string{"--trace", log, "--key", "referer"}, `a Common/Combined Log has no field "referer"; use ip, user, ident, method, path or agent`},
		{[]string{"--trace", log, "--rate", "50..5"}, `--rate: "50..5" is inverted (MAX below MIN); write it as 5..50`},
		{[]string{"--trace", log, "--burst", "0..5"}, `--burst: "0..5" starts below 1`},
		{[]string{"--trace", log, "--goal", "vip<1%"}, `--goal: "vip<1%": the class is ordinary, median, p99 or all`},
		{[]string{"--trace", log, "--algorithms", "token-bucket,leaky"}, `--algorithms: unknown algorithm "leaky"`},
		{[]string{"--trace", log, "--goal", "capacity", "--capacity", "10/s", "--target", "nginx"}, "--goal capacity gives a limit of its own"},
		{[]string{"--trace", log, "--goal", "capacity"}, "--goal capacity needs the backend's capacity"},
		{[]string{"--trace", log, "--goal", "capacity", "--capacity", "1e300/s"}, "the capacity must be a number above 0 and at most"},
		{[]string{"--trace", log, "--share", "5"}, "--share is for --goal fair-share"},
		{[]string{"--trace", log, "--goal", "abuse", "--headroom", "3"}, "--headroom is for the safety net"},
		{[]string{"--trace", log, "--exclude", "referer=x"}, `--exclude: "referer=x": the field is path, agent, method or status`},
		{[]string{"--trace", log, "--exclude", "path=*"}, "every one of its"},
		{[]string{"--trace", log, "--strict", "--reorder-window", "1s"}, "behind the latest time read before it"},
		{[]string{}, "tune: --trace FILE is required"},
	} {
		code, _, errOut := ratelab(t, append(append([]string{"tune"}, tc.args...), "--csv", out)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("tune %v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("tune %v left %s behind", tc.args, out)
		}
	}
}

// ratelab tui --trace in a real terminal: the sweep, then the recommended policy
// and its neighbours as lanes, the lesson saying why, the heaviest key watched.
func TestTUIOnATraceInARealTerminal(t *testing.T) {
	_, dir := buildForTmux(t)
	writeLog(t, dir, 5*time.Minute)
	s := startTmux(t, dir, 160, 48, "", "tui --trace access.log")
	sc := s.waitFor("the trace's scenario", func(sc string) bool {
		return strings.Contains(sc, "trace — access.log: the recommended limit and its neighbours") && regexp.MustCompile(`recommended: [a-z-]+ \d+/(s|min|h)( burst \d+)?( \+ [a-z-]+ \d+/(s|min|h)( burst \d+)?)? +\d+`).MatchString(sc)
	})
	for _, want := range []string{"the tightest policy that refuses no request", `The first lane, named "recommended: …", is that policy`, "token-bucket"} {
		if !strings.Contains(strings.ReplaceAll(sc, "\n", " "), want) {
			t.Errorf("the screen lacks %q:\n%s", want, sc)
		}
	}
	s.keys("q")
	s.waitFor("a clean exit", func(sc string) bool { return strings.Contains(sc, "ratelab exited 0") })
}

// tune --partition K/N --partial FILE for every K, then tune merge: the report,
// CSV and JSON of one tune --single run, byte for byte; a partition missing or
// given twice is refused with exit 2.
func TestTunePartitionsAndMerge(t *testing.T) {
	dir := t.TempDir()
	log := writeLog(t, dir, 10*time.Minute)
	flags := []string{"--trace", log, "--points", "3", "--periods", "1s,1m"}
	code, want, errOut := ratelab(t, append(append([]string{"tune"}, flags...), "--single", "--verbose", "--csv", filepath.Join(dir, "one.csv"), "--json", filepath.Join(dir, "one.json"))...)
	if code != 0 {
		t.Fatalf("tune --single: exit %d: %s", code, errOut)
	}
	// the answer replays the requests, which a merge has not: the merge
	// prints the sweep in full, as the one run does after its answer
	if i := strings.Index(want, tune.SweepHeading); i >= 0 {
		want = want[i:]
	} else {
		t.Fatalf("tune --verbose printed no %q:\n%s", tune.SweepHeading, want)
	}
	var parts []string
	for k := range 3 {
		part := filepath.Join(dir, fmt.Sprintf("part%d.json", k))
		if code, _, errOut := ratelab(t, append(append([]string{"tune"}, flags...), "--memory", "1", "--partition", fmt.Sprintf("%d/3", k), "--partial", part)...); code != 0 {
			t.Fatalf("partition %d: exit %d: %s", k, code, errOut)
		}
		parts = append(parts, part)
	}
	code, got, errOut := ratelab(t, append([]string{"tune", "merge", "--csv", filepath.Join(dir, "merged.csv"), parts[2]}, parts[0], parts[1], "--json", filepath.Join(dir, "merged.json"))...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if got != want {
		t.Errorf("the merged report differs from one run's:\n%s\n---- one run:\n%s", got, want)
	}
	for _, ext := range []string{"csv", "json"} {
		a, _ := os.ReadFile(filepath.Join(dir, "one."+ext))
		b, _ := os.ReadFile(filepath.Join(dir, "merged."+ext))
		if ext == "json" { // the answer is one run's (see above)
			var m map[string]any
			check.Setup(t, json.Unmarshal(a, &m))
			if m["answer"] == nil {
				t.Error("one run's JSON has no answer")
			}
			delete(m, "answer")
			a, _ = json.MarshalIndent(m, "", "  ")
			check.Setup(t, json.Unmarshal(b, &m))
			b, _ = json.MarshalIndent(m, "", "  ")
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("the merged %s differs from one run's (%d and %d bytes)", ext, len(b), len(a))
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "merge", parts[0], parts[1]}, "partitions [2/3] of 3 are missing"},
		{[]string{"tune", "merge", parts[0], parts[1], parts[1], parts[2]}, "are both partition 1/3; give each partition once"},
		{[]string{"tune", "merge", log}, "not a partial sweep of ratelab tune --partition"},
		{[]string{"tune", "--trace", log, "--partition", "3/3", "--partial", filepath.Join(dir, "x")}, `--partition: "3/3": K must be from 0 to N-1 (2)`},
		{[]string{"tune", "--trace", log, "--partition", "0/3"}, "--partition K/N and --partial FILE go together"},
	} {
		code, _, errOut := ratelab(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tc.args[1:], code, errOut, tc.want)
		}
	}
}

// A trace whose spill fills the disk — a tmpfs of 256 KiB as TMPDIR, in a
// mount namespace of its own (unshare -m, as root) — is a failure at run
// time: exit 1, saying the disk is full and what to do, and nothing left on
// it. It was a usage error, exit 2. Skips (fails in CI) where the namespace
// cannot be made.
func TestTuneSpillFillsTheDisk(t *testing.T) {
	dir := t.TempDir()
	log, tmp := filepath.Join(dir, "big.csv"), filepath.Join(dir, "tmp")
	check.Setup(t, os.WriteFile(log, requestsCSV(100_000), 0o644))
	check.Setup(t, os.Mkdir(tmp, 0o755))
	// what is left in TMPDIR is listed before the namespace, and its tmpfs, go
	out, errOut, code := onSmallDisk(t, tmp, 256, fmt.Sprintf(`TMPDIR='%s' '%s' tune --trace '%s' --memory 1
code=$?
ls -A '%s'
exit $code`, tmp, builtRatelab(t), log, tmp))
	want := "ratelab: the trace does not fit in memory, and spilling it to disk in " + tmp + " failed: no space left on device; free space there, or set TMPDIR to a folder with room\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d, %q; want exit 1 and %q", code, errOut, want)
	}
	if out != "" {
		t.Errorf("tune printed, or left in TMPDIR: %q", out)
	}
}

// tune on a multi-day log of a small site, as a person runs it: the answer,
// in at most 24 lines of 80 columns, names the goal, the recommendation,
// whom it refuses and the back-test; --goal abuse --exclude assets holds the
// scraper, the stuffer and the scanner by name; --json - reads back.
func TestTuneAnswersFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var buf bytes.Buffer
	spec := tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.FixedZone("", 3600)), Duration: 72 * time.Hour, Seed: 4,
		Users: 80, Visits: 0.05, VisitPages: 3, PageGap: 30 * time.Second, PageAssets: [2]int{20, 60},
		Crawlers: 1, CrawlerRate: 0.0016, CrawlerAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		FeedReaders: 2, FeedEvery: 15 * time.Minute, Scrapers: 1, ScraperRate: 5, ScraperBurst: time.Minute, ScraperEvery: 6 * time.Hour,
		Stuffers: 1, StufferRate: 0.02, Scanners: 1, ScannerRate: 3, ScannerBurst: 40 * time.Second, ScannerEvery: 8 * time.Hour, Slowest: 2 * time.Second}
	check.Setup(t, func() error { _, err := tracegen.Write(&buf, spec); return err }())
	log := filepath.Join(dir, "blog.log")
	check.Setup(t, os.WriteFile(log, buf.Bytes(), 0o644))
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"Goal: safety", "Recommended: ", "It refuses nobody in this log.", "Back-test: fitted on all but the last "}},
		{[]string{"--goal", "abuse", "--exclude", "assets"}, append([]string{"Goal: abuse", "Recommended: ", "Back-test: "}, append(append(spec.Addresses().Scrapers, spec.Addresses().Stuffers...), spec.Addresses().Scanners...)...)},
		{[]string{"--goal", "capacity", "--capacity", "500/s"}, []string{"No limit needed for capacity: the busiest second", "Safety net beside it: "}},
	} {
		code, out, errOut := ratelab(t, append([]string{"tune", "--trace", log}, tc.args...)...)
		if code != 0 {
			t.Fatalf("tune %v: exit %d: %s", tc.args, code, errOut)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) > tune.AnswerLines {
			t.Errorf("tune %v: %d lines:\n%s", tc.args, len(lines), out)
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > tune.AnswerWidth {
				t.Errorf("tune %v: a line of %d columns: %q", tc.args, n, l)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("tune %v: the answer lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	// the abusive clients refused, by name, in the log's own time; nobody else
	code, out, _ := ratelab(t, "tune", "--trace", log, "--goal", "abuse", "--exclude", "assets", "--json", "-")
	var j struct {
		Answer tune.Answer `json:"answer"`
	}
	if err := json.Unmarshal([]byte(out), &j); code != 0 || err != nil || j.Answer.RecommendedJSON == nil {
		t.Fatalf("tune --json -: exit %d, %v", code, err)
	}
	abusive := map[string]bool{}
	for _, k := range append(append(spec.Addresses().Scrapers, spec.Addresses().Stuffers...), spec.Addresses().Scanners...) {
		abusive[k] = true
	}
	for _, f := range j.Answer.Refused {
		if !abusive[f.Key] || !f.Abusive || !strings.HasSuffix(f.FirstAt, " +0100") || 2*f.Refused < f.Sent {
			t.Errorf("refused %+v: want only the abusive clients, most of their requests, the first refusal in the log's zone", f)
		}
		delete(abusive, f.Key)
	}
	if len(abusive) > 0 {
		t.Errorf("not refused: %v", abusive)
	}
}
