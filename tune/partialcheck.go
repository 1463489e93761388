package tune

import (
	"fmt"
	"slices"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/printable"
	"ratelab/traces"
)

// A partial sweep is read from a file that anyone may have damaged or written
// by hand, so ReadPartial believes nothing in it before checking it against
// the rest: every key index against the keys it names, every count against the
// requests it says the trace holds, every size against a bound ratelab itself
// never passes (a partition's N, the points of a grid, the periods), every
// name against the registry, and the policies and their tallies against its
// grids, which are what the sweep replayed. A partial that passes can be
// merged and reported without an index out of range, an allocation sized by a
// number it claims, or a share above one.

// maxVariants bounds the knobs a grid sweeps each policy with (a target's
// variants: nginx has three).
const maxVariants = 16

// damaged is what is wrong with a partial: the field, as its JSON names it
// (Classes.Heaviest, Tallies[3].Denied), and why.
type damaged struct {
	field, why string
}

func (d *damaged) Error() string { return d.field + " " + d.why }

func bad(field, format string, args ...any) error {
	return &damaged{field, fmt.Sprintf(format, args...)}
}

// check says what is wrong with p, read from a file, nil when nothing is.
func (p *Partial) check() error {
	if n := p.Partition.N; n < 1 || n > maxPartitions {
		return bad("partition.N", "is %d; a sweep has 1 to %d partitions", n, maxPartitions)
	}
	if k := p.Partition.K; k < 0 || k >= p.Partition.N {
		return bad("partition.K", "is %d; partition K of %d is 0 to %d", k, p.Partition.N, p.Partition.N-1)
	}
	if printable.String(p.TraceKey) != p.TraceKey || printable.String(p.Target) != p.Target {
		return bad("TraceKey", "or Target holds control characters")
	}
	if err := p.Trace.check(); err != nil {
		return err
	}
	if err := p.checkClasses(); err != nil {
		return err
	}
	if err := p.checkTotals(); err != nil {
		return err
	}
	if err := p.checkGrids(); err != nil {
		return err
	}
	if err := p.checkLimits(); err != nil {
		return err
	}
	for i := range p.Tallies {
		if err := p.Tallies[i].within(fmt.Sprintf("Tallies[%d]", i), p.Totals); err != nil {
			return err
		}
	}
	if p.Summed < 0 || p.Summed > len(p.Tallies) {
		return bad("Summed", "is %d, of %d tallies", p.Summed, len(p.Tallies))
	}
	return p.checkDistributed()
}

// checkDistributed checks what a partitioned sweep's workers were planned with.
func (p *Partial) checkDistributed() error {
	d := p.Distributed
	if d == nil {
		if p.Summed != 0 {
			return bad("Summed", "is %d in a sweep of one log", p.Summed)
		}
		return nil
	}
	switch {
	case d.Parts != p.Partition.N:
		return bad("Distributed.Parts", "is %d, of partition %s", d.Parts, p.Partition)
	case len(d.PartKeys) != d.Parts || len(d.PartRequests) != d.Parts:
		return bad("Distributed.PartKeys", "counts %d parts' keys and %d parts' requests, of %d", len(d.PartKeys), len(d.PartRequests), d.Parts)
	case len(d.Bars) != len(p.Classes.Over):
		return bad("Distributed.Bars", "has %d bars for %d periods (Classes.Over)", len(d.Bars), len(p.Classes.Over))
	case d.Origin < 0 || d.Origin%time.Second != 0:
		return bad("Distributed.Origin", "is %d ns; an origin is a whole second", int64(d.Origin))
	case d.Span != p.Trace.Span:
		return bad("Distributed.Span", "is %s; the trace spans %s", d.Span, p.Trace.Span)
	case d.Holdout < 0:
		return bad("Distributed.Holdout", "is %s", d.Holdout)
	case (d.Cutoff != nil) != (p.Classes.ByVolume && p.Trace.KeyCount > 0):
		return bad("Distributed.Cutoff", "is given only when the heavy hitters are by volume")
	case p.Summed != 0 && (!d.Pairs || p.Summed != slices.IndexFunc(append(slices.Clone(p.Limits), Limits{Long: Policy{Limit: 1}}), Limits.Layered)):
		return bad("Summed", "is %d: only the pairs' round sums the policies' round", p.Summed)
	}
	var keys, requests int64
	for i := range d.PartKeys {
		if d.PartKeys[i] < 0 || d.PartRequests[i] < int64(d.PartKeys[i]) {
			return bad(fmt.Sprintf("Distributed.PartKeys[%d]", i), "is %d keys for %d requests", d.PartKeys[i], d.PartRequests[i])
		}
		keys, requests = keys+int64(d.PartKeys[i]), requests+d.PartRequests[i]
	}
	if keys != int64(p.Trace.KeyCount) || requests != p.Trace.Count {
		return bad("Distributed.PartKeys", "add up to %d keys and %d requests; the trace has %d and %d", keys, requests, p.Trace.KeyCount, p.Trace.Count)
	}
	for i, b := range d.Bars {
		if b < minHeavyPeak {
			return bad(fmt.Sprintf("Distributed.Bars[%d]", i), "is %d; a bar is at least %d", b, minHeavyPeak)
		}
	}
	return nil
}

// check checks what a report says of the trace: its keys' volumes and peaks,
// its counts, how it was read.
func (t *partialTrace) check() error {
	switch {
	case t.Count < 0:
		return bad("Trace.Count", "is %d", t.Count)
	case t.KeyCount < 0 || int64(t.KeyCount) > t.Count:
		return bad("Trace.KeyCount", "is %d, for %d requests", t.KeyCount, t.Count)
	case len(t.Keys) > t.KeyCount:
		return bad("Trace.Keys", "names %d keys, of %d (Trace.KeyCount)", len(t.Keys), t.KeyCount)
	case t.KeyCount > 0 && len(t.Keys) == 0:
		return bad("Trace.Keys", "names no key, of %d (Trace.KeyCount): a report names at least the heaviest", t.KeyCount)
	case len(t.Volume) != len(t.Keys):
		return bad("Trace.Volume", "has %d keys' volumes for %d keys (Trace.Keys)", len(t.Volume), len(t.Keys))
	case len(t.Peak) != len(t.Keys):
		return bad("Trace.Peak", "has %d keys' peaks for %d keys (Trace.Keys)", len(t.Peak), len(t.Keys))
	case t.Span < 0 || t.Span%time.Second != 0:
		return bad("Trace.Span", "is %d ns; a span is whole seconds", int64(t.Span))
	case t.MaxCost < 0 || t.MaxCost > MaxCost:
		return bad("Trace.MaxCost", "is %d; a request costs 0 to %d", t.MaxCost, int64(MaxCost))
	case t.Format.Format < traces.FormatAuto || t.Format.Format > traces.FormatJSONL:
		return bad("Trace.Format.Format", "is %d, no format ratelab reads", t.Format.Format)
	case t.Format.By < traces.FormatGiven || t.Format.By > traces.FormatByName:
		return bad("Trace.Format.By", "is %d, no way ratelab tells a format", t.Format.By)
	case t.Spread != traces.SpreadNone && t.Spread != traces.SpreadUniform:
		return bad("Trace.Spread", "is %d, no spread ratelab makes", t.Spread)
	case t.Stats.Rows < 0 || t.Stats.Unparsed < 0 || t.Stats.Resolution < 0:
		return bad("Trace.Stats", "counts %d rows and %d lines unread at a resolution of %d ns", t.Stats.Rows, t.Stats.Unparsed, int64(t.Stats.Resolution))
	case int64(len(t.Stats.Shown)) != min(t.Stats.Unparsed, traces.MaxUnparsedShown):
		return bad("Trace.Stats.Shown", "shows %d of %d lines unread; a trace shows the first %d", len(t.Stats.Shown), t.Stats.Unparsed, traces.MaxUnparsedShown)
	}
	var sum int64
	for i, v := range t.Volume {
		if v < 1 || v > t.Count-sum {
			return bad(fmt.Sprintf("Trace.Volume[%d]", i), "is %d; the keys named sent %d of the trace's %d requests before it", v, sum, t.Count)
		}
		sum += v
		if pk := t.Peak[i]; pk < 1 || pk > v {
			return bad(fmt.Sprintf("Trace.Peak[%d]", i), "is %d, for a key that sent %d", pk, v)
		}
	}
	return nil
}

// key checks that k indexes the keys the partial names.
func (p *Partial) key(field string, k int) error {
	if k < 0 || k >= len(p.Trace.Keys) {
		return bad(field, "is key %d, but the partial names %d keys (Trace.Keys)", k, len(p.Trace.Keys))
	}
	return nil
}

// checkClasses checks the classes' keys against the keys named, and their
// periods against the grids'.
func (p *Partial) checkClasses() error {
	c := p.Classes
	if p.Trace.KeyCount > 0 {
		for _, f := range []struct {
			name string
			k    int
		}{{"Classes.Median", c.Median}, {"Classes.P99", c.P99}, {"Classes.Heaviest", c.Heaviest}} {
			if err := p.key(f.name, f.k); err != nil {
				return err
			}
		}
	}
	if c.HeavyCount < 0 || c.HeavyCount > p.Trace.KeyCount {
		return bad("Classes.HeavyCount", "is %d, of %d keys", c.HeavyCount, p.Trace.KeyCount)
	}
	if len(c.Over) > maxPeriods || len(c.Over) != len(p.Grids) && !(p.Trace.KeyCount == 0 && len(c.Over) == 0) {
		return bad("Classes.Over", "has %d periods for %d grids (Grids); a sweep classes keys over each grid's period, at most %d", len(c.Over), len(p.Grids), maxPeriods)
	}
	for i, o := range c.Over {
		f := fmt.Sprintf("Classes.Over[%d]", i)
		switch {
		case o.Period != p.Grids[i].Period:
			return bad(f+".Period", "is %s, but its grid's period is %s (Grids[%d].Period)", o.Period, p.Grids[i].Period, i)
		case o.Typical < 0 || o.Typical > p.Trace.Count:
			return bad(f+".Typical", "is %d, of %d requests", o.Typical, p.Trace.Count)
		case len(o.Peaks) != len(o.Keys):
			return bad(f+".Peaks", "has %d peaks for %d keys", len(o.Peaks), len(o.Keys))
		}
		for j, k := range o.Keys {
			if err := p.key(fmt.Sprintf("%s.Keys[%d]", f, j), k); err != nil {
				return err
			}
			if pk := o.Peaks[j]; pk < 1 || pk > p.Trace.Volume[k] {
				return bad(fmt.Sprintf("%s.Peaks[%d]", f, j), "is %d, for a key that sent %d", pk, p.Trace.Volume[k])
			}
		}
	}
	return nil
}

// checkTotals checks the totals the shares are of against the trace and the
// classes they were counted from.
func (p *Partial) checkTotals() error {
	o, t, c := p.Totals, &p.Trace, &p.Classes
	switch {
	case o.Count != t.Count:
		return bad("Totals.Count", "is %d, but the trace has %d requests (Trace.Count)", o.Count, t.Count)
	case o.Keys != t.KeyCount:
		return bad("Totals.Keys", "is %d, but the trace has %d keys (Trace.KeyCount)", o.Keys, t.KeyCount)
	case o.SpanMS != t.Span.Milliseconds():
		return bad("Totals.SpanMS", "is %d, but the trace spans %d ms (Trace.Span)", o.SpanMS, t.Span.Milliseconds())
	case o.Ordinary < 0 || o.Heavy < 0 || o.Ordinary > o.Count-o.Heavy || o.Ordinary+o.Heavy != o.Count:
		return bad("Totals.Ordinary", "and Totals.Heavy are %d and %d; they add up to the trace's %d requests", o.Ordinary, o.Heavy, o.Count)
	case o.Overs != len(c.Over):
		return bad("Totals.Overs", "is %d, but the keys are classed over %d periods (Classes.Over)", o.Overs, len(c.Over))
	}
	for i := range maxPeriods {
		var keys int
		var sent int64
		if i < len(c.Over) {
			keys = len(c.Over[i].Keys)
			for _, k := range c.Over[i].Keys {
				sent += t.Volume[k]
			}
		}
		if o.OverKeys[i] != keys || o.Over[i] != sent || sent > o.Count {
			return bad(fmt.Sprintf("Totals.Over[%d]", i), "counts %d requests of %d keys, but the keys standing out over that period (Classes.Over[%d]) sent %d of %d", o.Over[i], o.OverKeys[i], i, sent, keys)
		}
	}
	if t.KeyCount > 0 {
		for _, f := range []struct {
			name string
			got  int64
			k    int
		}{{"Totals.Median", o.Median, c.Median}, {"Totals.P99", o.P99, c.P99}, {"Totals.Heaviest", o.Heaviest, c.Heaviest}} {
			if f.got != t.Volume[f.k] {
				return bad(f.name, "is %d, but that key sent %d (Trace.Volume[%d])", f.got, t.Volume[f.k], f.k)
			}
		}
	}
	return nil
}

// checkGrids checks each grid against what a sweep makes: known algorithms,
// a period, at most MaxPoints rates and bursts, increasing, and the trace's
// span.
func (p *Partial) checkGrids() error {
	for i, g := range p.Grids {
		f := fmt.Sprintf("Grids[%d]", i)
		switch {
		case g.Period <= 0 || g.Period%algorithms.Resolution != 0 || (i > 0 && g.Period <= p.Grids[i-1].Period):
			return bad(f+".Period", "is %d ns; a grid's period is whole microseconds, longer than the grid's before", int64(g.Period))
		case g.Span != p.Trace.Span:
			return bad(f+".Span", "is %s, but the trace spans %s (Trace.Span)", g.Span, p.Trace.Span)
		case len(g.Algorithms) == 0 || len(g.Algorithms) > len(algorithms.Names()):
			return bad(f+".Algorithms", "names %d algorithms", len(g.Algorithms))
		case len(g.Variants) > maxVariants:
			return bad(f+".Variants", "has %d; a grid sweeps at most %d", len(g.Variants), maxVariants)
		case g.RateRange.Min < 0 || g.RateRange.Max < g.RateRange.Min || g.BurstRange.Min < 0 || g.BurstRange.Max < g.BurstRange.Min:
			return bad(f+".RateRange", "or BurstRange is inverted (%s, %s)", g.RateRange, g.BurstRange)
		}
		for j, a := range g.Algorithms {
			if _, ok := algorithms.Lookup(a); !ok || slices.Contains(g.Algorithms[:j], a) {
				return bad(fmt.Sprintf("%s.Algorithms[%d]", f, j), "is %q, not an algorithm, or one named twice", a)
			}
		}
		for j, v := range g.Variants {
			if v.TrackSC != algorithms.TrackBeforeDeny && v.TrackSC != algorithms.TrackAfterDeny || v.MitigationPeriods < 0 || v.MitigationPeriods > maxVariants {
				return bad(fmt.Sprintf("%s.Variants[%d]", f, j), "sets knobs no sweep sets")
			}
		}
		for _, s := range []struct {
			name string
			v    []int64
		}{{"Rates", g.Rates}, {"Bursts", g.Bursts}} {
			if len(s.v) == 0 || len(s.v) > MaxPoints {
				return bad(f+"."+s.name, "has %d; a grid has 1 to %d", len(s.v), MaxPoints)
			}
			for j, v := range s.v {
				if v < 1 || (j > 0 && v <= s.v[j-1]) {
					return bad(fmt.Sprintf("%s.%s[%d]", f, s.name, j), "is %d; a grid's are from 1 up, increasing", v)
				}
			}
		}
	}
	return nil
}

// checkLimits checks that the policies are the grids' (every one each grid
// sweeps on the trace's largest cost, in order), then, for a partial of every
// key, layered pairs of them: the policies replayed, and no other.
func (p *Partial) checkLimits() error {
	cost := max(p.Trace.MaxCost, 1)
	var singles []Policy
	for _, g := range p.Grids {
		singles = append(singles, g.Policies(cost)...)
	}
	if len(p.Limits) < len(singles) {
		return bad("Limits", "has %d policies, but the grids sweep %d (Grids)", len(p.Limits), len(singles))
	}
	for i, l := range p.Limits {
		f := fmt.Sprintf("Limits[%d]", i)
		if i < len(singles) {
			if l != (Limits{Policy: singles[i]}) {
				return bad(f, "is %s, but the grids' policy there is %s (Grids)", l, singles[i])
			}
			continue
		}
		switch {
		case p.Partition.N > 1 && (p.Distributed == nil || !p.Distributed.Pairs):
			return bad(f, "is more than the grids' %d policies; a partition of a log read whole by each sweeps no pairs", len(singles))
		case !l.Layered() || !slices.Contains(singles, l.Policy) || !slices.Contains(singles, l.Long) || l.Period >= l.Long.Period:
			return bad(f, "is %s, not a pair of a policy of the grids with one of a longer period", l)
		case slices.Contains(p.Limits[len(singles):i], l):
			return bad(f, "is %s, a pair swept twice", l)
		}
	}
	if len(p.Tallies) != len(p.Limits) {
		return bad("Tallies", "has %d tallies for %d policies (Limits)", len(p.Tallies), len(p.Limits))
	}
	return nil
}

// within checks a tally's counts against the totals they are shares of: none
// negative, none above the requests it counts among, each denial told a
// Retry-After or never, each delay measured.
func (t *tally) within(field string, o totals) error {
	for _, c := range []struct {
		name     string
		got, max int64
	}{
		{"Denied", t.Denied, o.Count}, {"Never", t.Never, t.Denied},
		{"OrdinaryDenied", t.OrdinaryDenied, o.Ordinary}, {"HeavyDenied", t.HeavyDenied, o.Heavy},
		{"MedianDenied", t.MedianDenied, o.Median}, {"P99Denied", t.P99Denied, o.P99}, {"HeaviestDenied", t.HeaviestDenied, o.Heaviest},
		{"Delayed", t.Delayed, o.Count - t.Denied}, {"OrdinaryDelayed", t.OrdinaryDelayed, o.Ordinary}, {"HeavyDelayed", t.HeavyDelayed, o.Heavy},
	} {
		if c.got < 0 || c.got > c.max {
			return bad(field+"."+c.name, "is %d; it counts 0 to %d", c.got, c.max)
		}
	}
	for i, d := range t.OverDenied {
		if d < 0 || d > o.Over[i] {
			return bad(fmt.Sprintf("%s.OverDenied[%d]", field, i), "is %d, of %d requests", d, o.Over[i])
		}
	}
	switch {
	case t.OrdinaryDenied+t.HeavyDenied != t.Denied:
		return bad(field+".Denied", "is %d, but the ordinary keys' and the heavy hitters' denials add up to %d", t.Denied, t.OrdinaryDenied+t.HeavyDenied)
	case t.OrdinaryDelayed+t.HeavyDelayed != t.Delayed:
		return bad(field+".Delayed", "is %d, but the ordinary keys' and the heavy hitters' add up to %d", t.Delayed, t.OrdinaryDelayed+t.HeavyDelayed)
	case t.Retry.Count() != t.Denied-t.Never:
		return bad(field+".Retry", "counts %d Retry-Afters for %d denials that could be accepted later", t.Retry.Count(), t.Denied-t.Never)
	case t.Delay.Count() != t.Delayed:
		return bad(field+".Delay", "counts %d delays for %d requests delayed", t.Delay.Count(), t.Delayed)
	}
	for i, s := range t.State {
		if s < 0 {
			return bad(fmt.Sprintf("%s.State[%d]", field, i), "is %d bytes", s)
		}
	}
	return nil
}
