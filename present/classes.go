package present

import (
	"fmt"
	"strings"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/sim"
)

// ClassColumns are the columns of what ratelab tune judges a policy by, for a
// run whose keys are classed into heavy hitters and ordinary keys
// (sim.Config.Classes, a trace replay's): the share of the ordinary keys'
// requests denied, and of the heavy hitters' admitted.
var ClassColumns = []Column{
	{"ordinary denied", func(m sim.Metrics) string { return share(m.OrdinaryDeniedShare()) }, "the share of the ordinary keys' requests (all but the heavy hitters' ratelab tune classed) denied: what a limit costs the users it should leave alone", "ordinary_denied"},
	{"heavy admitted", func(m sim.Metrics) string { return share(m.HeavyAcceptedShare()) }, "the share of the heavy hitters' requests admitted: how much of them the limit lets through", "heavy_accepted"},
}

// ColumnsFor are the comparison's columns for cfg: Columns, or for a run whose
// keys are classed, the lane, then ClassColumns, then the others but
// peak/limit. A limit per key against a whole log's traffic goes past its
// limit for some key by its burst, by design; what it is judged by is how it
// treats each kind of key.
func ColumnsFor(cfg *sim.Config) []Column {
	if cfg == nil || cfg.Classes == nil {
		return deploymentColumns(cfg, Columns)
	}
	out := append([]Column{Columns[0]}, ClassColumns...)
	for _, c := range Columns[1:] {
		if c.Metric != "peak_window_ratio" {
			out = append(out, c)
		}
	}
	return deploymentColumns(cfg, out)
}

// share is a share as a percentage, or a dash before anything was counted.
func share(f float64, counted bool) string {
	if !counted {
		return "—"
	}
	return format.Percent(f)
}

// classFact is what a lane did to each kind of key, as ratelab tune words it,
// and, for the lane of the policy tune recommends, that it is.
func classFact(m sim.Metrics) string {
	fact := fmt.Sprintf("denied ordinary keys %s of their requests, admitted %s of the heavy hitters'",
		share(m.OrdinaryDeniedShare()), share(m.HeavyAcceptedShare()))
	if strings.HasPrefix(m.Lane, sim.Recommended) {
		fact = "recommended by ratelab tune for its goal: " + fact
	}
	return fact
}

// classedFacts are a lane's facts when the run's keys are classed: what it did
// to each kind of key, then how it combined its limits or whether it kept its
// algorithm's contract — not the policy as a user reads it (peak/limit).
func classedFacts(cfg *sim.Config, lane sim.LaneConfig, info algorithms.Info, m sim.Metrics) []string {
	facts := []string{classFact(m)}
	switch {
	case lane.MultiLimit():
		facts = append(facts, limitsFact(lane, m))
	case m.Accepted > 0:
		facts = append(facts, contractYardstick(cfg, lane, info, m))
	}
	return facts
}
