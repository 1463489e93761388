package scenarios

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ratelab/algorithms"
	"ratelab/traces"
)

// A trace replay is written as a scenario file from the schema's own types
// and reads back as one: its lanes (one limit; a layered pair, all or nothing,
// each on its own key), its policy, its log and how it is read, and text a
// hand-written quoter could get wrong (quotes, a backslash, a newline).
func TestTraceReplayReadsBack(t *testing.T) {
	tb := algorithms.Policy{Limit: 5, Period: time.Second, Burst: 10}
	long := algorithms.Policy{Limit: 300, Period: time.Hour, Burst: 300}
	r := TraceReplay{Title: `a "log" \ replayed`, Lesson: "line one\nline two", Seed: 7, WatchKey: "10.0.0.1 /",
		HeavyKeys: []string{"10.0.0.1 /"}, TypicalKey: "10.0.0.2 /x",
		Policy: TraceLimit{Algorithm: algorithms.TokenBucketName, Policy: tb},
		Lanes: []TraceLane{
			{Name: "recommended: token-bucket 5/s burst 10", Limits: []TraceLimit{{Algorithm: algorithms.TokenBucketName, Policy: tb}}},
			{Name: "layered", Limits: []TraceLimit{{Name: "5/s", Algorithm: algorithms.GCRAName, Policy: tb, Key: "short:{key}"}, {Name: "300/h", Algorithm: algorithms.SlidingLogName, Policy: long, Key: "long:{key}"}}},
		},
		Log: TraceLog{File: "access.log", Format: traces.FormatCLF, ReorderWindow: 10 * time.Second, Key: "ip+path", Spread: true}}
	text, err := r.Text()
	if err != nil {
		t.Fatal(err)
	}
	log := "10.0.0.1 - - [10/Oct/2025:13:55:36 +0000] \"GET / HTTP/1.1\" 200 5\n10.0.0.2 - - [10/Oct/2025:13:55:40 +0000] \"GET /x HTTP/1.1\" 200 5\n"
	c, err := Parse(FSSource(fstest.MapFS{"access.log": {Data: []byte(log)}}, "replay.toml"), text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	cfg, err := c.Compile("trace", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Scenarios[0]
	if cfg.Title != r.Title || !strings.Contains(cfg.Lesson, "line one\nline two") || cfg.Seed != 7 || len(cfg.Lanes) != 2 {
		t.Errorf("read back: title %q, lesson %q, seed %d, %d lanes", cfg.Title, cfg.Lesson, cfg.Seed, len(cfg.Lanes))
	}
	if l := cfg.Lanes[1]; !l.MultiLimit() || l.Combine != algorithms.AllOrNothing || len(l.Limits) != 2 || l.Limits[1].Algorithm != algorithms.SlidingLogName || l.Limits[1].Policy != long || s.Lanes[1].Limits[0].Key != "short:{key}" {
		t.Errorf("the layered lane read back as %+v", l)
	}
	if c := cfg.Classes; c == nil || len(c.Heavy) != len(cfg.Keys) || cfg.Keys[c.Typical].Name != "10.0.0.2 /x" || !c.Heavy[cfg.WatchKey] || c.Heavy[c.Typical] {
		t.Errorf("the classes read back as %+v (keys %v, watched %d)", c, cfg.Keys, cfg.WatchKey)
	}
	if cl := s.Clients[0]; cl.File != "access.log" || cl.Key != "ip+path" || cl.ReorderWindow.Duration != 10*time.Second || cl.Spread.Mode != "uniform" || cl.Format.Value() != traces.FormatCLF {
		t.Errorf("the log's client read back as %+v", cl)
	}
}

// heavy_keys and typical_key name keys the clients use, each once, the typical
// key an ordinary one; Overrides.WatchKey watches another key, or says it is
// none of the scenario's.
func TestHeavyKeysAreKeys(t *testing.T) {
	log := "10.0.0.1 - - [10/Oct/2025:13:55:36 +0000] \"GET / HTTP/1.1\" 200 5\n10.0.0.2 - - [10/Oct/2025:13:55:40 +0000] \"GET /x HTTP/1.1\" 200 5\n"
	catalogue := func(heavy []string, typical string) (*Catalogue, error) {
		r := TraceReplay{Title: "t", Seed: 1, WatchKey: "10.0.0.1", HeavyKeys: heavy, TypicalKey: typical,
			Policy: TraceLimit{Algorithm: algorithms.TokenBucketName, Policy: algorithms.Policy{Limit: 1, Period: time.Second, Burst: 1}},
			Lanes:  []TraceLane{{Name: "tb", Limits: []TraceLimit{{Algorithm: algorithms.TokenBucketName, Policy: algorithms.Policy{Limit: 1, Period: time.Second, Burst: 1}}}}},
			Log:    TraceLog{File: "access.log", Format: traces.FormatCLF}}
		text, err := r.Text()
		if err != nil {
			t.Fatal(err)
		}
		return Parse(FSSource(fstest.MapFS{"access.log": {Data: []byte(log)}}, "replay.toml"), text)
	}
	for _, c := range []struct {
		heavy   []string
		typical string
		want    string
	}{
		{[]string{"10.0.0.9"}, "", `heavy_keys[0] "10.0.0.9" is not a key any client uses`},
		{[]string{"10.0.0.1", "10.0.0.1"}, "", `heavy_keys names "10.0.0.1" twice`},
		{nil, "10.0.0.2", "typical_key names an ordinary key, which needs heavy_keys"},
		{[]string{"10.0.0.1"}, "10.0.0.1", `typical_key "10.0.0.1" is one of heavy_keys`},
		{[]string{"10.0.0.1"}, "10.0.0.3", `typical_key "10.0.0.3" is not a key any client uses`},
	} {
		cat, err := catalogue(c.heavy, c.typical)
		if err == nil {
			_, err = cat.Compile("trace", Overrides{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("heavy %q, typical %q: %v; want %q", c.heavy, c.typical, err, c.want)
		}
	}
	cat, err := catalogue(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cat.Compile("trace", Overrides{WatchKey: "10.0.0.2"})
	if err != nil || cfg.Keys[cfg.WatchKey].Name != "10.0.0.2" || cfg.Classes != nil {
		t.Errorf("Overrides{WatchKey: 10.0.0.2}: %v; want it watched, and no classes", err)
	}
	if _, err := cat.Compile("trace", Overrides{WatchKey: "10.0.0.9"}); err == nil || !strings.Contains(err.Error(), `the key to watch, "10.0.0.9", is not a key any client uses`) {
		t.Errorf("Overrides{WatchKey: 10.0.0.9}: %v", err)
	}
}
