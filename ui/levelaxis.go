package ui

import (
	"math"

	"ratelab/algorithms"
	"ratelab/sim"
)

// The level graph's vertical axis: a lane's range, grown past the capacity
// where the level goes past it, in rows that keep the labels round.

// yRange is a lane's fixed graph range: from the deepest reservation to the most
// its algorithm holds (algorithms.Capacity), so graphs of the same lane compare over
// time and a full bucket always reaches the top.
func yRange(cfg *sim.Config, lane sim.LaneConfig) (lo, hi float64) {
	k := cfg.Keys[cfg.WatchKey]
	p := lane.TierPolicy(cfg, k.Tier)
	return -float64(lane.Options.MaxReserved), float64(algorithms.Capacity(lane.Algorithm, p, lane.Options))
}

// levelTop is hi (the lane's capacity), or the multiple of it that holds the
// highest of levels: a deployment's instances together hold several times the
// limit (and a counter of every request, Kong's, counts past it), and a graph
// cut at the limit would hide the overshoot it shows.
func levelTop(hi float64, levels []float64) float64 {
	if top := maxFloat(levels); hi > 0 && top > hi {
		return hi * math.Ceil(top/hi)
	}
	return hi
}

// roundRows is the number of graph rows, at most most, that divides span into
// whole steps (so labels read 0, 25, 50…); most itself when none does.
func roundRows(span float64, most int) int {
	if span == float64(int64(span)) {
		for rows := most; rows >= max(2, most/2); rows-- {
			if int64(span)%int64(rows) == 0 {
				return rows
			}
		}
	}
	return most
}
