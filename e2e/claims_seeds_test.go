package e2e

import (
	"sync"
	"testing"

	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// sweepSeeds are the seeds every shipped claim is checked on: 1..20, or 1..3
// under -short (the full run has the rest).
func sweepSeeds() []uint64 {
	n := 20
	if testing.Short() {
		n = 3
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// runSeeded runs a shipped scenario to its end in memory on seed, with edit (if
// not nil) applied to its compiled configuration first.
func runSeeded(t *testing.T, c *scenarios.Catalogue, name string, seed uint64, edit func(*sim.Config)) (*sim.Config, []sim.ClaimResult) {
	t.Helper()
	cfg, err := c.Compile(name, scenarios.Overrides{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(cfg)
	}
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	return cfg, r.ClaimsOn(r.Metrics())
}

// A lesson holds whatever the seed: every shipped claim is checked on seeds 1..20
// in memory (1..3 under -short); seed 1 on Redis is TestEveryClaimHoldsOnRedis's
// (package session). A claim that fails on some seed prints the seed and the
// numbers, so the run that broke it can be replayed with ratelab run --seed.
func TestClaimsHoldOnEverySeed(t *testing.T) {
	c := catalogue(t)
	var mu sync.Mutex
	checks, failed := 0, 0
	t.Cleanup(func() { t.Logf("%d claim checks over %d seeds, %d failed", checks, len(sweepSeeds()), failed) })
	for _, name := range c.Names() {
		if _, ok := handsOn[name]; ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, seed := range sweepSeeds() {
				cfg, results := runSeeded(t, c, name, seed, nil)
				n, bad := 0, 0
				for _, res := range results {
					n++
					if !res.Holds {
						bad++
						t.Errorf("seed %d: claim %s does not hold: %s", seed, res.ID, present.ClaimLine(cfg, res))
					}
				}
				mu.Lock()
				checks, failed = checks+n, failed+bad
				mu.Unlock()
			}
		})
	}
}
