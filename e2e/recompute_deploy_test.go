package e2e

import (
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/sim"
)

// A deployed lane's figures against its ideal, from its rows alone: the ideal
// (the lane's algorithm and tier policy, in memory) asked about every row the
// deployment decided, at the row's time, in the rows' order, the scale changes
// of the scenario at their instants (before the rows of the same instant), and
// the two held against each other as deploy.Score defines: a row that on_error
// decided (outcome store_error) too, the ideal having no store to lose.

// deployedFromCSV is one deployed lane's ideal and score, as its rows are read.
type deployedFromCSV struct {
	ideal   []algorithms.Limiter // per tier
	score   *deploy.Score
	changes []sim.Input // its scale changes not yet applied, in time order
	members int
}

func newDeployedFromCSV(cfg *sim.Config, lane int) *deployedFromCSV {
	lc := cfg.Lanes[lane]
	if !lc.Deployed() {
		return nil
	}
	p := lc.TierPolicy(cfg, 0)
	d := &deployedFromCSV{score: deploy.NewScore(p.Limit, p.Period), members: lc.Instances}
	for t := range cfg.Tiers {
		lim, err := algorithms.New(lc.Algorithm, lc.TierPolicy(cfg, t), lc.Options.Ideal())
		if err != nil {
			panic(err)
		}
		d.ideal = append(d.ideal, lim)
	}
	for _, in := range cfg.Inputs {
		if in.Kind == sim.InputScale && in.Lane == lane {
			d.changes = append(d.changes, in)
		}
	}
	return d
}

// row scores one of the lane's decisions: cost units of key (tier) at `at`.
func (d *deployedFromCSV) row(key string, tier int, at time.Duration, cost int64, allowed bool) {
	d.changesUpTo(at)
	d.score.Add(key, at, cost, allowed, d.ideal[tier].Allow(key, at, cost).Allowed)
}

// changesUpTo applies the membership changes made by at.
func (d *deployedFromCSV) changesUpTo(at time.Duration) {
	for len(d.changes) > 0 && d.changes[0].At <= at {
		if n := d.changes[0].Instances; n != d.members {
			d.members = n
			d.score.Changed(d.changes[0].At)
		}
		d.changes = d.changes[1:]
	}
}

// metrics adds the deployment's figures to m, as the JSON names them.
func (d *deployedFromCSV) metrics(cfg *sim.Config, lc sim.LaneConfig, m map[string]any) {
	d.changesUpTo(cfg.Duration)
	s := d.score
	m["instances"] = int64(d.members)
	m["overshoot_units"] = s.Overshoot()
	m["overshoot_window_units"] = s.WorstWindow
	m["overshoot_ratio"] = float64(s.WorstWindow) / float64(lc.TierPolicy(cfg, 0).Limit)
	m["excess_admissions"] = s.Excess
	m["false_denials"] = s.FalseDenials
	m["ideal_accepted"] = s.IdealAccepted
	m["converge_ms"] = float64(s.Converge()) / float64(time.Millisecond)
}
