package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"ratelab/internal/printable"
	"ratelab/traces"
)

// planVersion is the Plan format's version.
const planVersion = 1

// Plan is what every worker of a round of a partitioned sweep needs about the
// whole log (see Summary): the sweep's header — the trace as the report shows
// it, the grids, the classes, the totals, the policies to replay — and how to
// class its own keys.
type Plan struct {
	Version int `json:"ratelab_tune_plan"`
	// Round is 0 for the grids' policies, 1 for the layered pairs.
	Round int
	// Sweep is the header every partial of the round carries: Limits are the
	// policies, Tallies those of the rounds before, summed (Sweep.Summed of
	// them), Distributed the facts below.
	Sweep *Partial
}

// Distributed are the facts of a sweep over a partitioned log that its workers
// need and its report does not show.
type Distributed struct {
	Parts int
	// Read says how every part is read (see ReadFingerprint).
	Read string
	// Origin is the log's first second from the epoch (0 for an undated log),
	// Span its span: what every worker measures time by.
	Origin, Span time.Duration
	// PartKeys and PartRequests are each part's keys and requests, as its scan
	// counted them: a worker given another part's files is told so.
	PartKeys     []int
	PartRequests []int64
	// Bars are, for each period the keys are classed over (Classes.Over), the
	// peak that makes a key stand out over it.
	Bars []int64
	// Cutoff, when no key stands out (Classes.ByVolume), is the lightest
	// heavy hitter by volume: a key is heavy when it ranks at or above it.
	Cutoff *RankCutoff `json:",omitempty"`
	// Pairs says the layered pairs are swept, in round 1.
	Pairs bool
	// Holdout is the back-test one run would make (0: none), which a
	// partitioned sweep does not.
	Holdout time.Duration
}

// RankCutoff is a place in the keys' order by volume (ties by first
// appearance).
type RankCutoff struct {
	Volume int64
	Seen   seen
}

// NewPlan merges the summaries of every part of a log (each once, in any
// order) into the plan of the sweep o asks for.
func NewPlan(sums []*Summary, names []string, o Options) (*Plan, error) {
	if len(sums) == 0 {
		return nil, fmt.Errorf("no summary to plan from")
	}
	n := sums[0].Part.N
	byPart := make([]*Summary, n)
	for i, s := range sums {
		switch {
		case s.Part.N != n:
			return nil, fmt.Errorf("%s is part %s and %s part %s: plan from the summaries of one scan, all of N = %d", names[0], sums[0].Part, names[i], s.Part, n)
		case byPart[s.Part.K] != nil:
			return nil, fmt.Errorf("%s and %s are both part %s; give each part's summary once", names[slices.Index(sums, byPart[s.Part.K])], names[i], s.Part)
		case s.Read != sums[0].Read:
			return nil, fmt.Errorf("%s and %s were read with different flags (format, key, time, spread or exclusions); scan every part alike", names[0], names[i])
		}
		byPart[s.Part.K] = s
	}
	if k := slices.Index(byPart, nil); k >= 0 {
		return nil, fmt.Errorf("the summary of part %s is missing (%d of %d given); scan every part and plan from them all", Partition{K: k, N: n}, len(sums), n)
	}
	t, err := traceOfSummaries(byPart, o)
	if err != nil {
		return nil, err
	}
	grids, singles, periods, c, err := prepare(t, o)
	if err != nil {
		return nil, err
	}
	tot := newTotals(t, c)
	d := &Distributed{Parts: n, Read: sums[0].Read, Origin: t.origin, Span: t.Span, Pairs: !o.Single && len(periods) > 1, Holdout: holdoutFor(o, t.Span)}
	for _, s := range byPart {
		d.PartKeys, d.PartRequests = append(d.PartKeys, len(s.Keys)), append(d.PartRequests, s.Count)
	}
	for _, ov := range c.Over {
		d.Bars = append(d.Bars, max(HeavyFactor*ov.Typical, minHeavyPeak))
	}
	if c.ByVolume && t.KeyCount > 0 {
		r := t.ranks()
		k := r[t.KeyCount-c.HeavyCount]
		d.Cutoff = &RankCutoff{Volume: t.Volume[k], Seen: t.firstSeen[k]}
	}
	p := newPartial(t, c, grids, o.Goal, singles, nil, tot)
	p.Partition = Partition{K: 0, N: n}
	p.Distributed = d
	return &Plan{Version: planVersion, Sweep: p}, nil
}

// traceOfSummaries is the trace the summaries describe: every key, in the order
// it first appears, with its volume, peaks and kinds, and no request.
func traceOfSummaries(parts []*Summary, o Options) (*Trace, error) {
	periods := o.Periods
	var files []FileRead
	t := &Trace{Name: parts[0].Name, keyOf: map[string]uint32{}, Spread: parts[0].Spread}
	total := 0
	for _, s := range parts {
		total += len(s.Keys)
		files = append(files, s.Files...)
		t.Count += s.Count
		t.maxCost = max(t.maxCost, s.MaxCost)
		for _, p := range periods {
			if !slices.Contains(s.Periods, p) {
				return nil, fmt.Errorf("part %s's summary has no peaks over %s; scan every part with --periods naming it", s.Part, p)
			}
		}
	}
	sort.SliceStable(files, func(a, b int) bool { return files[a].Rank < files[b].Rank })
	for i := 1; i < len(files); i++ {
		if files[i].Rank == files[i-1].Rank {
			return nil, fmt.Errorf("%s and %s both have rank %d: a file was scanned twice, or two parts were given the same part number", files[i-1].Name, files[i].Name, files[i].Rank)
		}
	}
	type placed struct {
		*SummaryKey
		part int
	}
	keys := make([]placed, 0, total)
	for p, s := range parts {
		for i := range s.Keys {
			keys = append(keys, placed{&s.Keys[i], p})
		}
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a].Seen.before(keys[b].Seen) })
	// the periods measured: the standard ones and those swept, in the order a
	// loaded trace keeps them
	measured := slices.Clone(StandardPeriods)
	for _, p := range periods {
		if !slices.Contains(measured, p) {
			measured = append(measured, p)
		}
	}
	index := make([][]int, len(parts)) // per part: each measured period's index in its Periods
	for i, s := range parts {
		for _, p := range measured {
			index[i] = append(index[i], slices.Index(s.Periods, p))
		}
	}
	pcs := make([]periodPeaks, len(measured))
	for i, p := range measured {
		pcs[i] = periodPeaks{period: p, peak: make([]int64, 0, total)}
	}
	for _, k := range keys {
		if _, dup := t.keyOf[k.Key]; dup {
			return nil, fmt.Errorf("the key %q is in two parts: a partitioned log holds each key in one file (partition it by the key ratelab reads, --key)", printable.String(k.Key))
		}
		t.keyOf[k.Key] = uint32(len(t.Keys))
		t.Keys = append(t.Keys, k.Key)
		t.Volume = append(t.Volume, k.Volume)
		t.firstSeen = append(t.firstSeen, k.Seen)
		t.kindPairs = append(t.kindPairs, k.Kinds)
		for i, j := range index[k.part] {
			v := int64(0)
			if j >= 0 {
				v = k.Peaks[j]
			}
			pcs[i].peak = append(pcs[i].peak, v)
		}
	}
	t.KeyCount = len(t.Keys)
	t.peaks, t.Peak = pcs, pcs[0].peak
	t.Partition = Partition{K: 0, N: 2} // no requests: a period not measured is an error, not zeros (see PeakOver)
	var stats []traces.Stats
	var names []string
	first := -1
	for i, f := range files {
		stats, names = append(stats, f.Stats), append(names, f.Name)
		if f.Stats.Rows > 0 && (first < 0 || f.Stats.First < files[first].Stats.First) {
			first = i
		}
	}
	t.Stats = MergeStats(stats, names, first)
	for _, f := range files { // the first file's format, of those not blank (see mergedRows.Format)
		if !f.Blank {
			t.Format = f.Format
			break
		}
	}
	if t.Count == 0 {
		return nil, fmt.Errorf("%s: none of its parts holds a request; give a log with at least one", t.Name)
	}
	if t.Stats.Dated {
		t.origin = t.Stats.First.Truncate(time.Second)
	}
	t.Span = time.Duration(int64((t.Stats.Last-t.origin)/time.Microsecond)/1e6+1) * time.Second
	return t, nil
}

// SweepPart replays a worker's part of the log (loaded with the plan's origin
// and periods, see PartLoad) through the round's policies, its keys classed by
// the plan's bars, and returns its partial.
func SweepPart(ctx context.Context, t *Trace, p *Plan, part Partition, workers int, progress func(done, total int)) (*Partial, error) {
	d := p.Sweep.Distributed
	switch {
	case part.N != d.Parts:
		return nil, fmt.Errorf("part %s of a plan for %d parts; give the part as K/%d", part, d.Parts, d.Parts)
	case t.KeyCount != d.PartKeys[part.K] || t.Count != d.PartRequests[part.K]:
		return nil, fmt.Errorf("part %s holds %d keys and %d requests, and its scan counted %d and %d: sweep each part with the files (or the standard input) it was scanned with", part, t.KeyCount, t.Count, d.PartKeys[part.K], d.PartRequests[part.K])
	}
	c, err := p.classes(t)
	if err != nil {
		return nil, err
	}
	t.Span = d.Span
	limits := p.Sweep.Limits[p.Sweep.Summed:]
	tallies, err := sweep(ctx, t, c, limits, workers, progress)
	if err != nil {
		return nil, err
	}
	out := *p.Sweep
	out.Partition = part
	out.Tallies = append(slices.Clone(p.Sweep.Tallies), tallies...)
	return &out, nil
}

// PartLoad is how a worker loads its part for the plan's sweep.
func (p *Plan) PartLoad(budget int64, tempDir string) LoadOptions {
	d := p.Sweep.Distributed
	origin := d.Origin
	var periods []time.Duration
	for _, o := range p.Sweep.Classes.Over {
		periods = append(periods, o.Period)
	}
	return LoadOptions{Budget: budget, TempDir: tempDir, Periods: periods, Profiles: true, FirstSeen: true, Origin: &origin, AllowEmpty: true}
}

// classes classes the worker's keys as the plan says every key is classed: a
// key stands out over a period when its peak reaches the period's bar, is
// heavy when it stands out over any (or ranks at or above the cutoff, when
// none does), and is the median, 99th-percentile or heaviest key when the
// report names it so.
func (p *Plan) classes(t *Trace) (Classes, error) {
	d, pc := p.Sweep.Distributed, p.Sweep.Classes
	n := len(t.Keys)
	c := Classes{Heavy: make([]bool, n), Median: -1, P99: -1, Heaviest: -1, HeavyCount: pc.HeavyCount, ByVolume: pc.ByVolume}
	named := func(i int) int {
		if i < 0 || i >= len(p.Sweep.Trace.Keys) {
			return -1
		}
		if k, ok := t.keyOf[p.Sweep.Trace.Keys[i]]; ok {
			return int(k)
		}
		return -1
	}
	if p.Sweep.Trace.KeyCount > 0 {
		c.Median, c.P99, c.Heaviest = named(pc.Median), named(pc.P99), named(pc.Heaviest)
	}
	for i, ov := range pc.Over {
		peaks, err := t.PeakOver(ov.Period)
		if err != nil {
			return c, err
		}
		o := Standout{Period: ov.Period, Typical: ov.Typical}
		for k, v := range peaks {
			if v >= d.Bars[i] {
				o.Keys = append(o.Keys, k)
				c.Heavy[k] = true
			}
		}
		c.Over = append(c.Over, o)
	}
	if c.ByVolume && d.Cutoff != nil {
		for k, v := range t.Volume {
			c.Heavy[k] = v > d.Cutoff.Volume || v == d.Cutoff.Volume && !t.firstSeen[k].before(d.Cutoff.Seen)
		}
	}
	c.Kinds = make([]uint8, n)
	for k := range c.Kinds {
		i, _ := KindOf(&t.Profiles[k], c.standsOut(k))
		c.Kinds[k] = uint8(i)
	}
	return c, nil
}

// Write writes the plan as JSON, sealed (see seal.go).
func (p *Plan) Write(w io.Writer) error {
	sw := newSealWriter(w)
	if err := json.NewEncoder(sw).Encode(p); err != nil {
		return err
	}
	return sw.seal()
}
