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
func (r *recorder) windowAdmit(key int32, stamp time.Duration, cost int64) {
	t := &r.tiers[r.cfg.Keys[key].Tier]
	periodUS := int64(t.policy.Period / algorithms.Resolution)
	var offset int64
	if r.lane.Options.RandomStart {
		offset = algorithms.WindowOffset(r.cfg.Keys[key].Name, t.policy.Period)
	}
	us := algorithms.Micros(stamp) - offset
	w := us / periodUS
	if us < 0 && us%periodUS != 0 {
		w--
	}
	ws := &r.windows[key]
	if !ws.seen {
		r.running.window.most += t.allowance // a key that admitted anything is held to its allowance
	}
	if !ws.seen || w != ws.window {
		ws.window, ws.count, ws.seen = w, 0, true
	}
	ws.count += cost
	if ws.count > ws.peak {
		r.running.window.peaked(t.allowance, ws.peak, ws.count)
		ws.peak = ws.count
	}
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
