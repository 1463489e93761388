package deploy

import "time"

// Score holds a deployment's decisions against the ideal's: one limiter of the
// same policy, synchronised instantly, asked about every request the
// deployment was asked about, at the same instant (the arrivals are the
// deployment's: a client's retries follow the deployment's answers). Add each
// decision as it is made, in time order.
//
//   - Overshoot is the units the deployment admitted beyond the ideal over the
//     run (its admitted units less the ideal's; 0 when it admitted fewer), and
//     WorstWindow the most it admitted beyond the ideal for one key within any
//     span of at most one period of the policy: how far past the limit a
//     client got, in the limit's own terms.
//   - FalseDenials is the decisions the deployment refused that the ideal
//     admitted; Excess those it admitted that the ideal refused.
//   - Converge, after a membership change, is how long the deployment took to
//     admit, again, what the ideal admits: the time from the change to the last
//     disagreement before the next change (or the run's end) after which the
//     units the two admitted in the last period, over every key, differed by
//     more than a tenth of the limit (at least one unit); the longest over the
//     run's changes. Decisions that only move a refusal in time (the ideal
//     refuses one request, the deployment the next) do not count against it. A
//     deployment that never comes within it converges at the run's end.
type Score struct {
	period time.Duration
	keys   map[string]*keyScore
	// the last period's disagreements over every key, and their sum: the
	// units the deployment admitted beyond the ideal in it
	recent    queue[point]
	recentSum int64
	tolerance int64

	deployed, ideal int64 // units admitted by each
	// IdealAccepted is the decisions the ideal admitted.
	IdealAccepted int64
	FalseDenials  int64
	Excess        int64
	WorstWindow   int64
	WorstKey      string
	WorstAt       time.Duration // when the worst window ended

	changed   bool
	unsettled bool          // an earlier change's last disagreement came less than a period before the next change
	change    time.Duration // the latest membership change
	lastOff   time.Duration // the last disagreement after which the period's sums differed by more than tolerance
	converge  time.Duration
}

// keyScore is one key's running difference D (units the deployment admitted
// less the ideal's, so far): base, its value at the start of the last period
// (after the last change at or before it), the changes since (window, in time
// order) and, of those, the candidates for the minimum (mins: a monotonic
// queue, values rising).
type keyScore struct {
	d, base int64
	seq     uint64
	window  queue[point]
	mins    queue[point]
}

type point struct {
	at  time.Duration
	d   int64
	seq uint64
}

// NewScore scores against a policy of limit units per period (> 0).
func NewScore(limit int64, period time.Duration) *Score {
	return &Score{period: period, keys: map[string]*keyScore{}, tolerance: max(1, limit/10)}
}

// Add records a decision on cost units for key at `at`: deployed and ideal say
// whether each admitted it.
func (s *Score) Add(key string, at time.Duration, cost int64, deployed, ideal bool) {
	if deployed {
		s.deployed += cost
	}
	if ideal {
		s.ideal += cost
		s.IdealAccepted++
	}
	if deployed == ideal {
		return
	}
	if deployed {
		s.Excess++
	} else {
		s.FalseDenials++
	}
	diff := cost
	if !deployed {
		diff = -cost
	}
	for !s.recent.empty() && s.recent.front().at <= at-s.period {
		s.recentSum -= s.recent.front().d
		s.recent.popFront()
	}
	s.recent.push(point{at: at, d: diff})
	s.recentSum += diff
	if s.recentSum > s.tolerance || s.recentSum < -s.tolerance {
		s.lastOff = at
	}
	k := s.keys[key]
	if k == nil {
		k = &keyScore{}
		s.keys[key] = k
	}
	// the changes at or before at − period leave the span (at − period, at]
	for !k.window.empty() && k.window.front().at <= at-s.period {
		left := k.window.front()
		k.base = left.d
		k.window.popFront()
		if !k.mins.empty() && k.mins.front().seq == left.seq {
			k.mins.popFront()
		}
	}
	if deployed {
		k.d += cost
	} else {
		k.d -= cost
	}
	low := k.base
	if !k.mins.empty() {
		low = min(low, k.mins.front().d)
	}
	if w := k.d - low; w > s.WorstWindow {
		s.WorstWindow, s.WorstKey, s.WorstAt = w, key, at
	}
	k.seq++
	p := point{at: at, d: k.d, seq: k.seq}
	k.window.push(p)
	// a later point no higher makes an earlier one no span's minimum
	for !k.mins.empty() && k.mins.back().d >= k.d {
		k.mins.popBack()
	}
	k.mins.push(p)
}

// Changed records a membership change at `at`.
func (s *Score) Changed(at time.Duration) {
	s.closeChange(at)
	s.changed, s.change, s.lastOff = true, at, at
}

func (s *Score) closeChange(next time.Duration) {
	if s.changed {
		s.converge = max(s.converge, s.lastOff-s.change)
		s.unsettled = s.unsettled || next-s.lastOff < s.period
	}
}

// Converged says every membership change was followed, before the next (or
// now, the run's end so far), by a whole period within a tenth of the limit of
// the ideal: Converge then measures a return; else the deployment had not come
// back when the next change, or the end, came.
func (s *Score) Converged(now time.Duration) bool {
	return !s.unsettled && (!s.changed || now-s.lastOff >= s.period)
}

// Overshoot is the units the deployment admitted beyond the ideal, 0 when it
// admitted fewer.
func (s *Score) Overshoot() int64 { return max(0, s.deployed-s.ideal) }

// Converge is the longest time to converge after a membership change (see
// Score), 0 without one; pending changes count up to their last disagreement.
func (s *Score) Converge() time.Duration {
	c := s.converge
	if s.changed {
		c = max(c, s.lastOff-s.change)
	}
	return c
}
