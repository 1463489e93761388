package e2e

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// A claim could fail: run with the lanes it names replaced by a broken limiter,
// it must turn false. These are the broken limiters, the mutants.
type mutant int

const (
	allowAll mutant = iota // accepts everything
	denyAll                // refuses everything
	half                   // the same algorithm at half the policy (limit and burst)
	twice                  // the same algorithm at twice the policy
	limited                // a no-limit lane given a real limit: a token bucket at the policy
)

var mutants = []mutant{allowAll, denyAll, half, twice, limited}

func (m mutant) String() string {
	return [...]string{"allow-all", "deny-all", "half", "twice", "limited"}[m]
}

// mutantStore is sim.Memory with every lane's limiters replaced by mutant m: a
// lane's configuration (its name, its policy, the contract its metrics are
// measured against) stays what the scenario says; only what decides changes.
type mutantStore struct{ m mutant }

func (s mutantStore) Limiter(lane int, lc sim.LaneConfig, part sim.Part) (algorithms.Limiter, sim.Health, error) {
	none := part.Algorithm == algorithms.UnlimitedName
	switch {
	case s.m == allowAll:
		part.Algorithm, part.Options = algorithms.UnlimitedName, algorithms.Options{}
	case s.m == denyAll:
		return denier{part.Policy.WithDefaults()}, nil, nil
	case s.m == limited && none:
		part.Algorithm = algorithms.TokenBucketName
		part.Options = algorithms.Options{MonotonicTimestamp: true}
	case none, s.m == limited:
		// half or twice of no limit is no limit; limited changes only a
		// no-limit lane
	case s.m == half:
		p := part.Policy.WithDefaults()
		part.Policy.Limit, part.Policy.Burst = max(1, p.Limit/2), max(1, p.Burst/2)
		part.Options.Delay = min(part.Options.Delay/2, part.Policy.Burst-1) // nginx's delay=N counts requests, as the burst does
	case s.m == twice:
		p := part.Policy.WithDefaults()
		part.Policy.Limit, part.Policy.Burst = 2*p.Limit, 2*p.Burst
		part.Options.Delay *= 2
	}
	return sim.Memory.Limiter(lane, lc, part)
}

// denier refuses every request, telling the client to come back a period later.
type denier struct{ p algorithms.Policy }

func (d denier) Algorithm() algorithms.Name          { return "deny-all" }
func (d denier) Policy() algorithms.Policy           { return d.p }
func (d denier) Level(string, time.Duration) float64 { return 0 }
func (d denier) Keys() int                           { return 0 }
func (d denier) StateBytes() int64                   { return 0 }
func (d denier) Evict(time.Duration) int             { return 0 }
func (d denier) Check(string, time.Duration, int64) algorithms.Decision {
	return algorithms.Decision{Limit: d.p.Burst, RetryAfter: d.p.Period, ResetAfter: d.p.Period}
}
func (d denier) Allow(k string, now time.Duration, cost int64) algorithms.Decision {
	return d.Check(k, now, cost)
}

// mutantConfig is cfg for mutant m: a lane whose strategy reads and writes the
// state itself (multi, watch) decides atomically when its limiter is replaced
// by one that keeps no state, and a deployment's instances, whose state is
// none, share nothing (a product's protocol needs the product's state).
func mutantConfig(cfg *sim.Config, m mutant) *sim.Config {
	out := *cfg
	out.Lanes = slices.Clone(cfg.Lanes)
	if m == allowAll || m == denyAll {
		for i := range out.Lanes {
			out.Lanes[i].Strategy = algorithms.Atomic
			if out.Lanes[i].Deployed() {
				out.Lanes[i].Deploy.Sync = deploy.Local
				out.Lanes[i].Deploy.Replicated = false
			}
		}
	}
	return &out
}

// pushed is cfg with its traffic pushing against every limit: each event
// delivered four times, four times the closed-loop workers.
func pushed(cfg *sim.Config) *sim.Config {
	out := *cfg
	out.Clients = slices.Clone(cfg.Clients)
	for i := range out.Clients {
		c := &out.Clients[i]
		if loop, ok := c.Pattern.(sim.ClosedLoop); ok {
			loop.Concurrency *= 4
			c.Pattern = loop
			continue
		}
		c.Deliveries *= 4
	}
	return &out
}

// laneResults are every lane's metrics and scope counts after a run of cfg.
type laneResults struct {
	ms     []sim.Metrics
	scoped [][]sim.ScopeCounts
}

func runLanes(t *testing.T, cfg *sim.Config, store sim.StateStore) laneResults {
	t.Helper()
	r, err := sim.NewRun(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	res := laneResults{ms: r.Metrics()}
	for _, l := range r.Lanes {
		res.scoped = append(res.scoped, l.ScopeCounts())
	}
	return res
}

// with is base with the lanes in swap taking their results from mutated: lanes
// run independently (each its own copy of the clients and the backend), so a
// lane's results do not depend on what the others are.
func (base laneResults) with(mutated laneResults, swap []int) laneResults {
	out := laneResults{ms: slices.Clone(base.ms), scoped: slices.Clone(base.scoped)}
	for _, i := range swap {
		out.ms[i], out.scoped[i] = mutated.ms[i], mutated.scoped[i]
	}
	return out
}

// swaps are the sets of lanes a claim's mutants replace: every lane it names,
// and when it compares with another lane, its own lanes alone and that lane
// alone.
func swaps(c sim.Claim) [][]int {
	all := slices.Clone(c.Lanes)
	if c.Than < 0 {
		return [][]int{all}
	}
	if !slices.Contains(all, c.Than) {
		all = append(all, c.Than)
	}
	return [][]int{all, slices.Clone(c.Lanes), {c.Than}}
}

// breaks says which of the claims of cfg each mutant turns false (any of its
// swaps), for the claims of kind.
func breaks(t *testing.T, cfg *sim.Config, kind sim.ClaimKind) (base laneResults, broken map[mutant][]bool) {
	base = runLanes(t, cfg, sim.Memory)
	broken = map[mutant][]bool{}
	for _, m := range mutants {
		mutated := runLanes(t, mutantConfig(cfg, m), mutantStore{m})
		broken[m] = make([]bool, len(cfg.Claims))
		for i, c := range cfg.Claims {
			if c.Kind != kind {
				continue
			}
			for _, swap := range swaps(c) {
				res := base.with(mutated, swap)
				if !sim.Judge(cfg, res.ms, res.scoped)[i].Holds {
					broken[m][i] = true
				}
			}
		}
	}
	return base, broken
}

// Every claim could fail: for each shipped claim that states a fact of its
// traffic, some mutant of the lanes it names (allow-all, deny-all, half or
// twice the policy, a real limit for a no-limit lane) turns it false on seed 1.
// A claim of kind "invariant" is checked instead on traffic pushing against it
// (four times the deliveries or workers): the lanes it names refuse some of it
// or their backend fails some (what pushes against a client's retry budget),
// and it still holds (an invariant of how a lane combines its limiters — all or
// nothing wastes nothing — holds whatever the limiters are, so no mutant need
// break it). The log prints, per scenario, how many claims each mutant breaks
// (invariants on the pushing traffic).
func TestClaimsFailUnderMutants(t *testing.T) {
	c := catalogue(t)
	var mu sync.Mutex
	table := map[string]string{}
	for _, name := range c.Names() {
		if _, ok := handsOn[name]; ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, err := c.Compile(name, scenarios.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			_, facts := breaks(t, cfg, sim.Fact)
			var invariants map[mutant][]bool
			if slices.ContainsFunc(cfg.Claims, func(c sim.Claim) bool { return c.Kind == sim.Invariant }) {
				push := pushed(cfg)
				var base laneResults
				base, invariants = breaks(t, push, sim.Invariant)
				for _, res := range sim.Judge(push, base.ms, base.scoped) {
					if res.Kind != sim.Invariant {
						continue
					}
					if !res.Holds {
						t.Errorf("invariant %s does not hold on traffic pushing against it: %s", res.ID, present.ClaimLine(push, res))
					}
					for _, lane := range res.Lanes {
						if base.ms[lane].Denied == 0 && base.ms[lane].Errors == 0 {
							t.Errorf("invariant %s: lane %s refuses nothing of the pushing traffic and its backend fails none: nothing pushed against it", res.ID, push.Lanes[lane].Name)
						}
					}
				}
			}
			counts := map[mutant]int{}
			for i, cl := range cfg.Claims {
				by := facts
				if cl.Kind == sim.Invariant {
					by = invariants
				}
				var names []string
				for _, m := range mutants {
					if by[m][i] {
						counts[m]++
						names = append(names, m.String())
					}
				}
				if len(names) == 0 && cl.Kind == sim.Fact {
					t.Errorf("claim %s (%s) holds under every mutant of its lanes: it would hold for a broken limiter", cl.ID, cl.Kind)
				}
			}
			row := fmt.Sprintf("%-20s %6d", name, len(cfg.Claims))
			for _, m := range mutants {
				row += fmt.Sprintf(" %9d", counts[m])
			}
			mu.Lock()
			table[name] = row
			mu.Unlock()
		})
	}
	t.Cleanup(func() {
		var b strings.Builder
		b.WriteString(fmt.Sprintf("%-20s %6s", "scenario", "claims"))
		for _, m := range mutants {
			b.WriteString(fmt.Sprintf(" %9s", m))
		}
		for _, name := range c.Names() {
			if row, ok := table[name]; ok {
				b.WriteString("\n" + row)
			}
		}
		t.Log("claims each mutant breaks (on seed 1; invariants on pushing traffic):\n" + b.String())
	})
}
