package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"ratelab/scenarios"
	"ratelab/sim"
)

// runScenario runs a shipped scenario to its end in memory.
func runScenario(t *testing.T, c *scenarios.Catalogue, name string) *sim.Run {
	t.Helper()
	cfg, err := c.Compile(name, scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.NewRun(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	return r
}

// Every claim of every shipped lesson holds on its run, every claim is cited by its
// lesson, and the lesson states no number a claim does not back up... as far as a
// test can tell: every lesson cites claims.
func TestEveryClaimHolds(t *testing.T) {
	c, err := loadCatalogue("")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range c.Names() {
		t.Run(name, func(t *testing.T) {
			r := runScenario(t, c, name)
			cited := scenarios.Citations(r.Config.Lesson)
			if len(r.Config.Claims) == 0 || len(cited) == 0 {
				t.Errorf("the lesson has %d claims and cites %d: every lesson states checked facts", len(r.Config.Claims), len(cited))
			}
			for _, res := range r.Claims() {
				if !res.Holds {
					t.Errorf("claim %s does not hold: %s", res.ID, res.Line(r.Config))
				}
				if !slices.Contains(cited, res.ID) {
					t.Errorf("claim %s is not cited in the lesson", res.ID)
				}
			}
		})
	}
}

// The verdicts of every shipped scenario, pinned as text (rewrite with -update
// after reading them against the tables).
func TestVerdictsGolden(t *testing.T) {
	c, err := loadCatalogue("")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, name := range c.Names() {
		r := runScenario(t, c, name)
		b.WriteString("== " + name + "\n")
		for _, m := range r.Metrics() {
			b.WriteString(sim.Verdict(r.Config, m) + "\n")
		}
	}
	const golden = "testdata/verdicts.golden"
	if *update {
		os.WriteFile(golden, []byte(b.String()), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the verdicts differ from %s:\n%s", golden, got)
	}
}
