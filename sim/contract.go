package sim

import (
	"time"

	"ratelab/algorithms"
)

// What an algorithm promises, measured on the run, beside what the user's policy
// says (PeakWindowRatio: the most admitted in any sliding window of the period).
// A bucket promises at most burst + rate × T in any span T (OverGrant measures how
// far past that it went); a fixed window promises at most its allowance in each of
// its own windows (windowStats), which lets twice that through across a boundary;
// the sliding log promises the limit in any window, exactly.

// windowStats is a key's units admitted in the fixed window it is in now, and the
// most admitted in any one of its windows. Windows are the algorithm's own: aligned
// to the origin, or offset by the key's share of the period with random starts.
type windowStats struct {
	window, count, peak int64
	seen                bool
}

// windowAdmit counts cost units of key admitted by a fixed-window lane at stamp,
// the time the limiter was told.
func (r *recorder) windowAdmit(key int32, stamp time.Duration, cost int64, lane LaneConfig, cfg *Config) {
	p := lane.TierPolicy(cfg, cfg.Keys[key].Tier)
	periodUS := int64(p.Period / algorithms.Resolution)
	var offset int64
	if lane.Options.RandomStart {
		offset = algorithms.WindowOffset(cfg.Keys[key].Name, p.Period)
	}
	us := algorithms.Micros(stamp) - offset
	w := us / periodUS
	if us < 0 && us%periodUS != 0 {
		w--
	}
	ws := &r.windows[key]
	if !ws.seen || w != ws.window {
		ws.window, ws.count, ws.seen = w, 0, true
	}
	ws.count += cost
	ws.peak = max(ws.peak, ws.count)
}

// windowPeak is the most units one key got in one of its fixed windows, over that
// window's allowance (limit plus rollover), and the key: at most 1 when the
// algorithm kept its promise.
func (r *recorder) windowPeak(cfg *Config, lane LaneConfig) (ratio float64, key string) {
	for i, ws := range r.windows {
		p := lane.TierPolicy(cfg, cfg.Keys[i].Tier)
		allowance := float64(p.Limit + lane.Options.Rollover)
		if x := float64(ws.peak) / allowance; x > ratio {
			ratio, key = x, cfg.Keys[i].Name
		}
	}
	return ratio, key
}

// windowExcess measures a fixed window against its own promise: per key that
// admitted anything, its allowance (limit + rollover) against the most it admitted
// in one of its windows. most is the allowances' sum, excess the units past them
// (in each key's fullest window), overGrant excess / most.
func (r *recorder) windowExcess(cfg *Config, lane LaneConfig) (most, excess, overGrant float64) {
	for i, ws := range r.windows {
		if !ws.seen {
			continue
		}
		p := lane.TierPolicy(cfg, cfg.Keys[i].Tier)
		allowance := float64(p.Limit + lane.Options.Rollover)
		most += allowance
		excess += max(0, float64(ws.peak)-allowance)
	}
	if most > 0 {
		overGrant = excess / most
	}
	return most, excess, overGrant
}

// perSecond sums a lane's accepted decisions over the last second of ticks (as
// many whole ticks as make a second, at least one), to find the busiest second.
type perSecond struct {
	ring []int64
	at   int
	sum  int64
}

func newPerSecond(tick time.Duration) perSecond {
	n := max(1, int((time.Second+tick-1)/tick))
	return perSecond{ring: make([]int64, n)}
}

// add adds a tick's count and returns the sum over the last second of ticks.
func (p *perSecond) add(n int64) int64 {
	p.sum += n - p.ring[p.at]
	p.ring[p.at] = n
	p.at = (p.at + 1) % len(p.ring)
	return p.sum
}
