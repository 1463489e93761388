package tune

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// ReadPlan reads a Plan Write wrote; name names it in errors. A plan is
// anyone's file: it is checked as a partial is (see Partial.check) before a
// worker sweeps by it.
func ReadPlan(name string, r io.Reader) (*Plan, error) {
	var p Plan
	sealed, trailing, err := decodeSealed(name, r, &p)
	var bad *decodeError
	switch {
	case err != nil && !errors.As(err, &bad):
		return nil, err
	case !sealed:
		return nil, fmt.Errorf("%s: a plan ends with the seal tune plan writes, and this has none: it was cut short, changed or is another file; make it again", name)
	case err != nil:
		return nil, fmt.Errorf("%s: not a plan of ratelab tune plan (%v)", name, err)
	case p.Version != planVersion:
		return nil, fmt.Errorf("%s: a plan of version %d; this ratelab reads version %d (plan and sweep with the same ratelab)", name, p.Version, planVersion)
	case trailing:
		return nil, fmt.Errorf("%s: a damaged plan: something follows its end; make it again", name)
	}
	s := p.Sweep
	switch {
	case s == nil || s.Distributed == nil:
		return nil, fmt.Errorf("%s: a damaged plan: it has no sweep; make it again", name)
	case p.Round < 0 || p.Round > 1 || p.Round == 1 && !s.Distributed.Pairs:
		return nil, fmt.Errorf("%s: a damaged plan: round %d; a sweep has round 0, and round 1 for the layered pairs", name, p.Round)
	case s.Version != partialVersion:
		return nil, fmt.Errorf("%s: a damaged plan: its sweep is of version %d", name, s.Version)
	case len(s.Tallies) != s.Summed || s.Summed > len(s.Limits):
		return nil, fmt.Errorf("%s: a damaged plan: %d tallies of which %d summed, for %d policies", name, len(s.Tallies), s.Summed, len(s.Limits))
	}
	// checked as the partials it makes will be, with nothing counted yet
	whole := *s
	whole.Tallies = append(slices.Clone(s.Tallies), make([]tally, len(s.Limits)-s.Summed)...)
	if err := whole.check(); err != nil {
		return nil, fmt.Errorf("%s: a damaged plan: %v; make it again", name, err)
	}
	g, err := ParseGoal(s.Goal)
	if err != nil {
		return nil, fmt.Errorf("%s: a damaged plan: Goal %v; make it again", name, err)
	}
	s.goal = g
	return &p, nil
}

// NeedsPairs says the partials are a partitioned sweep's first round, and the
// sweep asked for layered pairs: their merge is a plan for round 1, not a
// report (see NextRound).
func NeedsPairs(parts []*Partial) bool {
	d := parts[0].Distributed
	return d != nil && d.Pairs && parts[0].Summed == 0
}

// NextRound merges round 0's partials (every part, each once) and plans round
// 1: the layered pairs of the best policies of each period, as one run picks
// them from every key's results, to be swept by every worker.
func NextRound(parts []*Partial, names []string) (*Plan, error) {
	if !NeedsPairs(parts) {
		return nil, fmt.Errorf("%s is not the first round of a partitioned sweep with layered pairs; merge it into the report", names[0])
	}
	sum, err := mergeTallies(parts, names)
	if err != nil {
		return nil, err
	}
	first := parts[0]
	results := finalize(sum, first.Limits, first.Totals)
	pc := first.Classes
	c := Classes{Median: pc.Median, P99: pc.P99, Heaviest: pc.Heaviest, HeavyCount: pc.HeavyCount, ByVolume: pc.ByVolume, Over: pc.Over}
	var periods []time.Duration
	for _, g := range first.Grids {
		periods = append(periods, g.Period)
	}
	pairs := layeredPairs(results, c, first.goal, periods, first.Distributed.Span)
	next := *first
	next.Partition = Partition{K: 0, N: first.Partition.N}
	next.Limits = append(slices.Clone(first.Limits), pairs...)
	next.Tallies = sum
	next.Summed = len(sum)
	return &Plan{Version: planVersion, Round: 1, Sweep: &next}, nil
}
