package e2e

import (
	"crypto/sha256"
	"os"
	"slices"
	"strings"
	"testing"

	"ratelab/internal/check"
	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// These tests run the shipped scenarios in this process, through the packages the
// binary uses, where a test needs the run itself (its claims, its metrics) and not
// only what the binary prints.

// catalogue is the shipped catalogue, the scenarios.toml the binary embeds, read
// from the repository (its traces beside it, as in the binary).
func catalogue(t testing.TB) *scenarios.Catalogue {
	t.Helper()
	c, err := scenarios.LoadFS(os.DirFS(".."), "scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runScenario runs a shipped scenario to its end in memory.
func runScenario(t *testing.T, c *scenarios.Catalogue, name string) *sim.Run {
	t.Helper()
	cfg, err := c.Compile(name, scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	return r
}

// handsOn are the shipped scenarios whose traffic is only what the user sends:
// their run as shipped has nothing to state a fact about, and a claim on it would
// turn ✗ as soon as the user does what the lesson says.
var handsOn = map[string]string{
	"sandbox": "its lesson's one fact (sent as it says, 100 at 0.999 s and one at 1.000 s, the fixed window accepts 101, every other lane 100) is checked by ui.TestSandboxStepTable and TestSandboxInARealTerminal, driven by the lesson's own keys",
}

// Every shipped scenario, run once to its end in memory: every claim of its lesson
// holds, every claim is cited by the lesson (and every lesson cites claims), and
// its verdicts read as pinned in testdata/verdicts.golden (rewrite with -update
// after reading them against the tables).
func TestLessonsClaimsAndVerdicts(t *testing.T) {
	sequentialOnly(t)
	t.Parallel()
	c := catalogue(t)
	var b strings.Builder
	for _, name := range c.Names() {
		r := runScenario(t, c, name)
		cited := scenarios.Citations(r.Config.Lesson)
		if reason, ok := handsOn[name]; ok {
			if len(r.Config.Claims) != 0 || len(cited) != 0 {
				t.Errorf("%s: claims on a run whose traffic is the user's: %s", name, reason)
			}
		} else if len(r.Config.Claims) == 0 || len(cited) == 0 {
			t.Errorf("%s: the lesson has %d claims and cites %d: every lesson states checked facts", name, len(r.Config.Claims), len(cited))
		}
		ms := r.Metrics()
		for _, res := range r.ClaimsOn(ms) {
			if !res.Holds {
				t.Errorf("%s: claim %s does not hold: %s", name, res.ID, present.ClaimLine(r.Config, res))
			}
			if !slices.Contains(cited, res.ID) {
				t.Errorf("%s: claim %s is not cited in the lesson", name, res.ID)
			}
		}
		b.WriteString("== " + name + "\n")
		for _, m := range ms {
			b.WriteString(present.Verdict(r.Config, m) + "\n")
		}
	}
	const golden = "testdata/verdicts.golden"
	if *update {
		check.Setup(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the verdicts differ from %s:\n%s", golden, got)
	}
}

// Every shipped scenario runs, and twice gives byte-identical request and series
// CSV and comparison.
func TestEveryScenarioIsDeterministic(t *testing.T) {
	t.Parallel()
	c := catalogue(t)
	fingerprint := func(name string) string {
		cfg, err := c.Compile(name, scenarios.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.NewRun(cfg, sim.Memory)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		w, _ := present.NewRequestWriter(h, cfg)
		r.OnRows(w.Write)
		if err := r.AdvanceTo(cfg.Duration); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		present.WriteSeries(h, r)
		present.WriteTable(h, cfg, r.Metrics(), r.Claims(), r.Answers(), true)
		return string(h.Sum(nil))
	}
	for _, name := range c.Names() {
		if testing.Short() && name == "tiers" {
			continue
		}
		if a, b := fingerprint(name), fingerprint(name); a != b {
			t.Errorf("%s: two runs differ", name)
		}
	}
}
