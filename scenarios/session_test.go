package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"ratelab/present"
	"ratelab/sim"
)

// csvOf runs cfg to its end and returns its request and series CSV.
func csvOf(t *testing.T, cfg *sim.Config) string {
	t.Helper()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	w, _ := present.NewRequestWriter(&b, cfg)
	r.OnRows(w.Write)
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	present.WriteSeries(&b, r)
	return b.String()
}

// rulePlace is the file:line before a product rule's name in the CSV.
var rulePlace = regexp.MustCompile(`[^\s,"]*\.toml:\d+ `)

// A session saved with nothing done (the run's inputs are the scenario's own
// changes) replays every shipped scenario exactly, with the command line's and
// the UI's overrides written into it; one with inputs replays them.
func TestSavedSessionsReplayExactly(t *testing.T) {
	c, err := LoadFS(os.DirFS(".."), "scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(42)
	for _, name := range c.Names() {
		if testing.Short() && !slices.Contains([]string{"boundary-burst", "sandbox", "clock-skew", "trace-replay"}, name) {
			continue // -short (the race detector's pass): the kinds of scenario, not all of them
		}
		for _, o := range []Overrides{{}, {Seed: &seed, Limit: 8, Burst: 15}} {
			cfg, err := c.Compile(name, o)
			if err != nil {
				continue // an adjustment the scenario cannot take (costs above the burst)
			}
			dir := t.TempDir()
			path, session, err := c.WriteSession(name, o, cfg.Inputs, dir) // a run with nothing done: its own changes
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			saved, err := Load(path)
			if err != nil {
				data, _ := os.ReadFile(path)
				t.Fatalf("%s: the saved session does not load: %v\n%s", name, err, data)
			}
			again, err := saved.Compile(session, Overrides{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// a product's rule is named at its line of the file its lane is in
			if a, b := rulePlace.ReplaceAllString(csvOf(t, cfg), ""), rulePlace.ReplaceAllString(csvOf(t, again), ""); a != b {
				t.Errorf("%s (overrides %+v): the saved session replays differently", name, o)
			}
			if !reflect.DeepEqual(cfg.Questions, again.Questions) {
				t.Errorf("%s: the saved session asks %+v; the scenario %+v", name, again.Questions, cfg.Questions)
			}
		}
	}
	_ = filepath.Join
}

// A saved session keeps a deployed lane's partitions: cut off and healed
// again, the instances numbered as the file numbers them.
func TestSavedSessionKeepsPartitions(t *testing.T) {
	doc := minimal + "[[scenario.lane]]\nname = \"d\"\nalgorithm = \"fixed-window\"\ninstances = 3\nsync = \"central\"\non_error = \"open\"\n" +
		"[[scenario.change]]\nat = \"1s\"\nlane = \"d\"\npartition = [2, 3]\n[[scenario.change]]\nat = \"1.5s\"\nlane = \"d\"\npartition = []\n"
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	path, session, err := c.WriteSession("s", Overrides{}, cfg.Inputs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	saved, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := saved.Compile(session, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Inputs, again.Inputs) || csvOf(t, cfg) != csvOf(t, again) {
		t.Errorf("the saved session's inputs %+v, the scenario's %+v", again.Inputs, cfg.Inputs)
	}
	if len(cfg.Inputs) != 2 || !reflect.DeepEqual(cfg.Inputs[0].Slots, []int{1, 2}) || len(cfg.Inputs[1].Slots) != 0 {
		t.Errorf("inputs %+v, want instances 2 and 3 (slots 1 and 2) cut off, then none", cfg.Inputs)
	}
}
