package e2e

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/internal/check"
	"ratelab/internal/redistest"
	"ratelab/present"
)

// Bad shards and limits on the command line: exit 2, one message naming the place
// (the line, or for a lane a Redis Cluster cannot run, the lane: its store
// refuses it) and the fix, no file written, before anything runs (a cluster URL
// that nothing listens on is never dialled: the lane is refused first).
func TestCompositeBadInputExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, lane string) string {
		path := filepath.Join(dir, name)
		check.Setup(t, os.WriteFile(path, []byte("[[scenario]]\nname = \"x\"\nduration = \"1s\"\n[scenario.policy]\nlimit = 5\n"+lane+
			"[[scenario.client]]\nname = \"c\"\npattern = \"constant\"\nrate = 5\n"), 0o644))
		return path
	}
	tooMany := write("shards.toml", "[[scenario.lane]]\nalgorithm = \"token-bucket\"\nshards = 8\n")
	crossSlot := write("slots.toml", "[[scenario.lane]]\nname = \"both\"\ncombine = \"all-or-nothing\"\n"+
		"[[scenario.lane.limits]]\nname = \"user\"\nalgorithm = \"token-bucket\"\nkey = \"user:{key}\"\n"+
		"[[scenario.lane.limits]]\nname = \"global\"\nalgorithm = \"token-bucket\"\nkey = \"global\"\n")
	csvPath := filepath.Join(dir, "rows.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--scenario", "x", "--file", tooMany, "--csv", csvPath}, tooMany + `:8:10: scenario "x": lane "token-bucket": shards = 8 is more than the burst (5) of tier "default": a shard would get less than one unit; use at most 5 shards, or raise the burst`},
		{[]string{"run", "--scenario", "x", "--file", crossSlot, "--redis", "redis://127.0.0.1:1?cluster=true", "--csv", csvPath}, `scenario "x": lane "both" cannot run on a Redis Cluster: combine = "all-or-nothing" runs one script over every limit's keys, which a Redis Cluster allows only within one slot`},
		{[]string{"run", "--scenario", "boundary-burst", "--headers"}, "run: --headers adds the response headers as columns of the request CSV; give --csv PATH (or -) too"},
		{[]string{"bench", "--shards", "1,0"}, `bench: --shards: "0" is not a number of shards from 1 to 1024`},
		{[]string{"bench", "--shards", "4", "--shard-picks", "best"}, `bench: --shard-picks: unknown pick "best"; use random, two-choices`},
	} {
		code, _, errOut := ratelab(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("ratelab %s: exit %d, stderr:\n%s\nwant exit 2 and one line with %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(csvPath); err == nil {
		t.Error("a refused run left its CSV behind")
	}
	// the same lane in memory, or on one server, runs
	if code, _, errOut := ratelab(t, "run", "--scenario", "x", "--file", crossSlot); code != 0 {
		t.Errorf("in memory: exit %d: %s", code, errOut)
	}
}

// run --headers: the thirteen columns of the contract and the six of the
// attempt's fate, then the response headers of each lane's family; every row as
// wide as the header.
func TestRunHeadersColumns(t *testing.T) {
	t.Parallel()
	code, out, errOut := ratelab(t, "run", "--scenario", "multi-limit", "--csv", "-", "--headers", "--lanes", "all-or-nothing")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records[0][13:], ","); got != present.RequestFateColumns+","+present.RequestRuleColumns+",RateLimit-Policy,RateLimit,Retry-After" {
		t.Errorf("header columns: %s", got)
	}
	denied := 0
	for _, r := range records[1:] {
		if len(r) != len(records[0]) || r[21] != `"requests";q=10;w=1, "tokens";q=1000;w=1` {
			t.Fatalf("RateLimit-Policy: %q", r[21])
		}
		if r[10] == "false" {
			denied++
			if r[19] != "requests" && r[19] != "tokens" {
				t.Errorf("a denial without its rule: %v", r)
			}
			if r[23] == "" {
				t.Errorf("a denial without Retry-After: %v", r)
			}
		}
	}
	if denied == 0 {
		t.Error("no denial to check")
	}
}

// bench --shards on a real server: a row per cell, one key first, the CSV
// complete, the keys removed.
func TestBenchShards(t *testing.T) {
	srv := redistest.Start(t)
	path := filepath.Join(t.TempDir(), "shards.csv")
	code, out, errOut := ratelab(t, "bench", "--redis", srv.URL(), "--shards", "1,4", "--concurrency", "4", "--duration", "50ms", "--csv", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"1 node(s) holding data: " + srv.Addr(), "one key", "random", "two-choices", "100%"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	records, err := csv.NewReader(strings.NewReader(mustRead(t, path))).ReadAll()
	if err != nil || len(records) != 4 || strings.Join(records[0], ",") != "shards,pick,goroutines,decisions,decisions_per_second,calls_per_decision,errors,busiest_share,masters" {
		t.Errorf("CSV: %v %q", err, records)
	}
	if keys, _ := srv.Client().DBSize(t.Context()).Result(); keys != 0 {
		t.Errorf("%d keys left behind", keys)
	}
}
