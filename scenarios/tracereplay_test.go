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
	if cl := s.Clients[0]; cl.File != "access.log" || cl.Key != "ip+path" || cl.ReorderWindow.Duration != 10*time.Second || cl.Spread.Mode != "uniform" || cl.Format.Value() != traces.FormatCLF {
		t.Errorf("the log's client read back as %+v", cl)
	}
}
