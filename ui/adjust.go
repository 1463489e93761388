package ui

// The policy adjusted live (the [ ] and { } keys): a step along a ladder of
// round numbers, through the scenario's own value, and the run restarted.

import tea "charm.land/bubbletea/v2"

// adjust moves the default policy's burst (or, with rate, its limit) one step
// along a ladder of round numbers, up or down, passing through the scenario's
// own value (see stepVia), and restarts the run with it. A
// step the scenario cannot take (a burst below a request's cost) is refused, and
// the error says why.
func (r *runner) adjust(rate bool, dir int) (tea.Cmd, error) {
	if r.cfg == nil {
		return nil, nil
	}
	p := r.cfg.Tiers[0].Policy
	oldLimit, oldBurst := r.limit, r.burst
	if rate {
		r.limit = 0
	} else {
		r.burst = 0
	}
	own, err := r.compile() // the scenario's own value of what changes
	if err != nil {
		r.limit, r.burst = oldLimit, oldBurst
		return nil, err
	}
	r.limit, r.burst = oldLimit, oldBurst
	if rate {
		r.limit = stepVia(p.Limit, own.Tiers[0].Policy.Limit, dir)
	} else {
		r.burst = stepVia(p.Burst, own.Tiers[0].Policy.Burst, dir)
	}
	cfg, err := r.compile()
	if err != nil {
		r.limit, r.burst = oldLimit, oldBurst
		return nil, err
	}
	return r.open(cfg), nil
}

// stepVia is the next value from v in direction dir: the ladder's next round
// number (ladderStep), or the scenario's own value when it lies on the way — so
// the opposite key comes back to it — as 0, the adjustment that means "the
// scenario's own".
func stepVia(v, own int64, dir int) int64 {
	next := ladderStep(v, dir)
	if (dir > 0 && v < own && own <= next) || (dir < 0 && next <= own && own < v) {
		return 0
	}
	return next
}

// ladder is the round numbers [ ] { } step through: 1, 2, 3, 5, 8 and 10, 15, 20,
// 25, 30, 40, 50, 60, 75 times each power of ten.
var ladder = []int64{1, 2, 3, 5, 8}

var decade = []int64{10, 15, 20, 25, 30, 40, 50, 60, 75}

// ladderStep returns the next round number above (dir > 0) or below v, at least 1.
func ladderStep(v int64, dir int) int64 {
	var steps []int64
	steps = append(steps, ladder...)
	for scale := int64(1); scale <= 1e12; scale *= 10 {
		for _, d := range decade {
			steps = append(steps, d*scale)
		}
	}
	if dir > 0 {
		for _, s := range steps {
			if s > v {
				return s
			}
		}
		return v
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i] < v {
			return steps[i]
		}
	}
	return 1
}

// reachable says the keys can step the policy to v from own: v is own, or
// a round number of the ladder.
func reachable(v, own int64) bool {
	return v == own || ladderStep(ladderStep(v, -1), +1) == v
}
