package tune

import (
	"fmt"
	"strings"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/traces"
)

// The sentences a report adds to its recommendation: which keys stand out over
// which timescale, why one period or a layered pair, when the choice sits on the
// grid's edge, and what one-second timestamps mean for per-second limits. Each
// states figures of the run it is printed with.

// Timescales says, for each period swept, which keys stand out over it: "Over
// seconds 2 keys stand out (192.0.2.1 sent up to 40 in a second, where the
// 99th-percentile key sent 9)"; or that none does.
func (r *Report) Timescales() string {
	c, t := r.Classes, r.Trace
	var parts, quiet []string
	for _, o := range c.Over {
		if len(o.Keys) == 0 {
			quiet = append(quiet, Over(o.Period))
			continue
		}
		keys := "1 key stands out"
		if len(o.Keys) > 1 {
			keys = fmt.Sprintf("%d keys stand out", len(o.Keys))
		}
		parts = append(parts, fmt.Sprintf("over %s %s (%s sent up to %d %s, where the 99th-percentile ordinary key sent %d)",
			Over(o.Period), keys, printable.String(t.Keys[o.Keys[0]]), o.Peaks[0], in(o.Period), o.Typical))
	}
	var b strings.Builder
	if len(parts) == 0 {
		fmt.Fprintf(&b, "No key sends %d times what the 99th-percentile key does over any period swept (%s); the heavy hitters are the heaviest 1%% by volume.", HeavyFactor, periodList(r.periods()))
		return b.String()
	}
	fmt.Fprintf(&b, "Heavy hitters are the keys that send at least %d times what the 99th-percentile ordinary key does over some period: %s.", HeavyFactor, strings.Join(parts, "; "))
	if len(quiet) > 0 {
		fmt.Fprintf(&b, " None stands out over %s.", strings.Join(quiet, " or "))
	}
	return b.String()
}

// periods are the periods the keys were classed over.
func (r *Report) periods() []time.Duration {
	var out []time.Duration
	for _, o := range r.Classes.Over {
		out = append(out, o.Period)
	}
	return out
}

// periodList is "1s, 1m, 1h".
func periodList(ps []time.Duration) string {
	var s []string
	for _, p := range ps {
		s = append(s, format.Period(p))
	}
	return strings.Join(s, ", ")
}

// bestPer is, for each period classed over, the single policy of that period
// that meets the goal and admits the least of the heavy hitters' requests (-1
// when none meets it).
func (r *Report) bestPer() []int {
	out := make([]int, len(r.Classes.Over))
	for i, o := range r.Classes.Over {
		out[i] = -1
		for j, res := range r.Results {
			if res.Layered() || res.Period != o.Period || !r.Goal.Meets(res) {
				continue
			}
			if out[i] < 0 || tighter(res, r.Results[out[i]]) {
				out[i] = j
			}
		}
	}
	return out
}

// overIndex is the index in Classes.Over of period p, -1 when not classed over.
func (r *Report) overIndex(p time.Duration) int {
	for i, o := range r.Classes.Over {
		if o.Period == p {
			return i
		}
	}
	return -1
}

// Reason says why the recommendation is one period, or a pair: what the best
// policy of each period admits of the keys standing out over the others.
func (r *Report) Reason() string {
	if r.Best < 0 || len(r.Classes.Over) < 2 {
		return ""
	}
	b := r.Results[r.Best]
	per := r.bestPer()
	// the kinds of heavy keys: the periods over which some key stands out
	var kinds []int
	for i, o := range r.Classes.Over {
		if len(o.Keys) > 0 {
			kinds = append(kinds, i)
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	c := r.Classes
	// what the best of period i admits of the keys standing out over period k
	admits := func(i, k int) string {
		if per[i] < 0 {
			return ""
		}
		return fmt.Sprintf("the best %s policy within the goal, %s, admits %s of the requests of the keys heavy over %s",
			adjective(c.Over[i].Period), r.Results[per[i]].Limits, percent(r.Results[per[i]].OverAdmitted[k]), Over(c.Over[k].Period))
	}
	if b.Layered() {
		si, li := r.overIndex(b.Period), r.overIndex(b.Long.Period)
		var against []string
		if s := admits(si, li); s != "" {
			against = append(against, s)
		}
		if s := admits(li, si); s != "" {
			against = append(against, s)
		}
		return fmt.Sprintf("No one period holds both kinds of heavy key within the goal: %s. Layered, %s admits %s of the requests of the keys heavy over %s and %s of those heavy over %s, where %s.",
			strings.Join(against, "; "), b.Limits, percent(b.OverAdmitted[si]), Over(c.Over[si].Period), percent(b.OverAdmitted[li]), Over(c.Over[li].Period),
			r.bestSingleAdmits())
	}
	bi := r.overIndex(b.Period)
	if len(kinds) == 1 && kinds[0] != bi {
		k := kinds[0]
		return fmt.Sprintf("The heavy keys are heavy over %s, not %s: a %s limit low enough to hold them would refuse ordinary users (%s), while %s admits %s of their requests.",
			Over(c.Over[k].Period), Over(c.Over[bi].Period), adjective(c.Over[bi].Period), admits(bi, k), b.Limits, percent(b.OverAdmitted[k]))
	}
	var others []string
	for i := range c.Over {
		if i != bi && per[i] >= 0 && r.Results[per[i]].WorstKindAdmitted > b.WorstKindAdmitted {
			others = append(others, fmt.Sprintf("%s admits %s", r.Results[per[i]].Limits, percent(r.Results[per[i]].WorstKindAdmitted)))
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("A %s limit holds every kind of heavy key best: it admits at most %s of any kind's requests, where the best policy of each other period within the goal admits more of the kind it holds least (%s).", adjective(b.Period), percent(b.WorstKindAdmitted), strings.Join(others, "; "))
}

// bestSingleAdmits says what the best single policy within the goal admits of
// the kind of heavy key it holds least.
func (r *Report) bestSingleAdmits() string {
	best := -1
	for i, res := range r.Results {
		if !res.Layered() && r.Goal.Meets(res) && (best < 0 || tighter(res, r.Results[best])) {
			best = i
		}
	}
	if best < 0 {
		return "no single policy meets the goal"
	}
	return fmt.Sprintf("the best single policy, %s, admits %s of the requests of the kind it holds least", r.Results[best].Limits, percent(r.Results[best].WorstKindAdmitted))
}

// Edges say when the recommendation sits on its grid's edge — its rate or burst
// the lowest or highest swept — and what to try, up to the most exact
// arithmetic holds (none past it).
func (r *Report) Edges() []string {
	if r.Best < 0 || len(r.Grids) == 0 {
		return nil
	}
	b := r.Results[r.Best]
	var out []string
	for _, p := range []Policy{b.Policy, b.Long} {
		if p.Limit == 0 {
			continue
		}
		var g *Grid
		for i := range r.Grids {
			if r.Grids[i].Period == p.Period {
				g = &r.Grids[i]
			}
		}
		if g == nil || len(g.Rates) < 2 {
			continue
		}
		// the range to try stops at what exact arithmetic holds (tune refuses
		// a --rate or --burst past it): none to try at it
		most := mostExact(p.Period, r.maxCost())
		switch {
		case p.Limit == g.Rates[0] && p.Limit == 1:
			out = append(out, fmt.Sprintf("%s is the lowest rate a %s limit can have: to hold harder, a longer period (--periods) counts more finely.", format.LimitRate(p.Limit, p.Period), adjective(p.Period)))
		case p.Limit == g.Rates[0]:
			out = append(out, fmt.Sprintf("%s is the lowest rate the grid tries %s: try --periods %s --rate %d..%d.", format.LimitRate(p.Limit, p.Period), perWord(p.Period), format.Period(p.Period), max(1, p.Limit/10), g.Rates[1]))
		case p.Limit == g.Rates[len(g.Rates)-1] && most > p.Limit:
			out = append(out, fmt.Sprintf("%s is the highest rate the grid tries %s: try --periods %s --rate %d..%d.", format.LimitRate(p.Limit, p.Period), perWord(p.Period), format.Period(p.Period), g.Rates[len(g.Rates)-2], min(10*p.Limit, most)))
		}
		if !hasBurst(p.Algorithm) || len(g.Bursts) < 2 {
			continue
		}
		switch {
		case p.Burst == g.Bursts[0] && p.Burst > 1:
			out = append(out, fmt.Sprintf("Burst %d is the lowest the grid tries %s: try --burst %d..%d.", p.Burst, perWord(p.Period), max(1, p.Burst/10), g.Bursts[1]))
		case p.Burst == g.Bursts[len(g.Bursts)-1] && most > p.Burst:
			out = append(out, fmt.Sprintf("Burst %d is the highest the grid tries %s: try --burst %d..%d.", p.Burst, perWord(p.Period), g.Bursts[len(g.Bursts)-2], min(10*p.Burst, most)))
		}
	}
	return out
}

// maxCost is the trace's largest request cost (1 for a report made without
// a trace).
func (r *Report) maxCost() int64 {
	if r.Trace == nil {
		return 1
	}
	return r.Trace.MaxRequestCost()
}

// LeftOut says, in one sentence for each reason, which policies of the grids
// were not swept because ratelab's exact arithmetic cannot replay them (see
// Policy.exact), how many and the first: a limit or burst too large for its
// period, or a large rate per hour whose credits need more than 2^53 over a
// long log; "" when none was.
func (r *Report) LeftOut() string {
	cost := r.maxCost()
	var large, long []Policy
	var span time.Duration
	for _, g := range r.Grids {
		for _, p := range g.LeftOut(cost) {
			if e, ok := p.exact(cost, g.Span).(*inexact); ok && e.long {
				long, span = append(long, p), g.Span
			} else {
				large = append(large, p)
			}
		}
	}
	was := func(ps []Policy) string {
		return map[bool]string{true: "was", false: "were"}[len(ps) == 1]
	}
	var out []string
	if len(large) > 0 {
		p := large[0]
		most := "none is"
		if m := mostExact(p.Period, cost); m > 0 {
			most = fmt.Sprintf("at most %d %s", m, perWord(p.Period))
		}
		rest := ""
		if r.Best >= 0 {
			rest = "; the recommendation is among the rest"
		}
		out = append(out, fmt.Sprintf("%s of the grid (%s first) %s not swept: ratelab's arithmetic is exact only while the limit or burst, plus a request's cost, times the period in µs stays below 2^53 (Redis's Lua numbers are doubles): %s%s.",
			plural(int64(len(large)), "policy", "policies"), p, was(large), most, rest))
	}
	if len(long) > 0 {
		out = append(out, fmt.Sprintf("%s of the grid (%s first) %s not swept: exact arithmetic cannot replay %s over the log's %s; a rate that shares more factors with its period (a round number) can.",
			plural(int64(len(long)), "policy", "policies"), long[0], was(long), map[bool]string{true: "it", false: "them"}[len(long) == 1], span))
	}
	return strings.Join(out, " ")
}

// Resolution says what the log's one-second timestamps mean for limits of a
// second or less, when the trace has them and such a period was swept.
func (r *Report) Resolution() string {
	res := r.Trace.Stats.Resolution
	if res < time.Second {
		return ""
	}
	short := false
	for _, p := range r.periods() {
		short = short || p <= res
	}
	if !short {
		return ""
	}
	spread := "Here they were not spread: --spread uniform moves each request to a point within its second (drawn from --seed and its line), as they arrived, and lets a per-second limit be judged as a server would."
	if r.Trace.Spread == traces.SpreadUniform {
		spread = "Here --spread uniform moved each request to a point within its second (drawn from --seed and its line), as they arrived."
	}
	return fmt.Sprintf("The log's times are whole seconds: without spreading, a second's requests all arrive at its first instant, so a per-second limit must take them as one burst and the burst is judged rather than the rate. %s", spread)
}
