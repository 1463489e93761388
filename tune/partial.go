package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"ratelab/internal/histogram"
	"ratelab/traces"
)

// A sweep too large for one machine is spread by key: `ratelab tune --partition
// K/N --partial FILE` sweeps only the keys whose hash is K modulo N (each run
// reads the whole log, counting every key, and keeps only its keys' requests),
// and writes its counts — a Partial — to FILE; `ratelab tune merge FILES...`
// adds the N partials up and prints exactly the report one run over every key
// prints. Any batch runner can run the N sweeps: a cluster's job array, xargs -P,
// a workflow engine. Layered pairs are left out of a partitioned sweep, since
// which pairs are worth replaying depends on every key's results; a single run
// with --single prints the same report as the merge.

// partialVersion is the Partial file format's version: 2 holds the delays'
// histogram (version 1 lost it, and a merge reported no delay).
const partialVersion = 2

// Partial is a sweep's counts before its report: the trace as the report shows
// it, the grids, the classes, every policy's tally, for one partition of the keys
// or all of them.
type Partial struct {
	Version   int       `json:"ratelab_tune_partial"`
	Partition Partition `json:"partition"`
	Trace     partialTrace
	Goal      string
	Grids     []Grid
	Classes   partialClasses
	Totals    totals
	Limits    []Limits
	Tallies   []tally
	// Target and TraceKey, for a sweep of tune --target, are the product and
	// what the trace's keys are ("ip"…), so that merging the partials prints
	// the product's snippet as one run does; "" otherwise.
	Target   string `json:",omitempty"`
	TraceKey string `json:",omitempty"`
	// Summed, in a round of a partitioned sweep after the first, is how many
	// of the Tallies (the first) are the rounds before's, already summed over
	// every part: the same in every partial of the round, added once.
	Summed int `json:",omitempty"`
	// Distributed, for a sweep over a partitioned log, is what its workers
	// were planned with (see Plan).
	Distributed *Distributed `json:",omitempty"`

	// for the run that made it
	classes Classes
	goal    Goal
	grids   []Grid
}

// partialTrace is what a report says of the trace, its keys reduced to those it
// names.
type partialTrace struct {
	Name     string
	KeyCount int
	Count    int64
	Span     time.Duration
	Stats    traces.Stats
	Format   traces.Detected
	Spread   traces.Spread
	Keys     keyList // the keys a report names (any bytes: see keyJSON)
	Volume   []int64
	Peak     []int64
	MaxCost  int64
}

// partialClasses are Classes with key indexes into partialTrace.Keys.
type partialClasses struct {
	Median, P99, Heaviest, HeavyCount int
	ByVolume                          bool
	Over                              []Standout
}

func newPartial(t *Trace, c Classes, grids []Grid, g Goal, limits []Limits, tallies []tally, tot totals) *Partial {
	p := &Partial{Version: partialVersion, Partition: t.Partition, Goal: g.String(), Grids: grids, Totals: tot, Limits: limits, Tallies: tallies, classes: c, goal: g, grids: grids}
	if p.Partition.N == 0 {
		p.Partition = Partition{K: 0, N: 1}
	}
	pt := partialTrace{Name: t.Name, KeyCount: t.KeyCount, Count: t.Count, Span: t.Span, Stats: t.Stats, Format: t.Format, Spread: t.Spread, MaxCost: t.maxCost}
	index := map[int]int{}
	name := func(k int) int {
		if i, ok := index[k]; ok {
			return i
		}
		index[k] = len(pt.Keys)
		pt.Keys, pt.Volume, pt.Peak = append(pt.Keys, t.Keys[k]), append(pt.Volume, t.Volume[k]), append(pt.Peak, t.Peak[k])
		return index[k]
	}
	pc := partialClasses{HeavyCount: c.HeavyCount, ByVolume: c.ByVolume}
	if t.KeyCount > 0 {
		pc.Median, pc.P99, pc.Heaviest = name(c.Median), name(c.P99), name(c.Heaviest)
	}
	for _, o := range c.Over {
		so := Standout{Period: o.Period, Typical: o.Typical, Peaks: o.Peaks, Keys: []int{}}
		for _, k := range o.Keys {
			so.Keys = append(so.Keys, name(k))
		}
		pc.Over = append(pc.Over, so)
	}
	p.Trace, p.Classes = pt, pc
	return p
}

// WritePartial writes p as JSON.
func (p *Partial) Write(w io.Writer) error {
	sw := newSealWriter(w)
	if err := json.NewEncoder(sw).Encode(p); err != nil {
		return err
	}
	return sw.seal()
}

// ReadPartial reads a Partial written by Write; name names it in errors. A
// partial is untrusted input: one that is not what a sweep writes (a digit
// changed, a size that no sweep makes) is refused, naming the field (see
// check), before anything is made from it.
func ReadPartial(name string, r io.Reader) (*Partial, error) {
	var p Partial
	sealed, trailing, err := decodeSealed(name, r, &p)
	var bad *decodeError
	switch {
	case errors.As(err, &bad):
		return nil, fmt.Errorf("%s: not a partial sweep of ratelab tune --partition (%v)", name, err)
	case err != nil:
		return nil, err
	case p.Version != partialVersion:
		return nil, fmt.Errorf("%s: a partial sweep of version %d; this ratelab reads version %d (run every partition with the same ratelab)", name, p.Version, partialVersion)
	case trailing:
		return nil, fmt.Errorf("%s: a damaged partial sweep: something follows its end; run its tune --partition again", name)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%s: a damaged partial sweep: %v; run its tune --partition again", name, err)
	}
	if p.Distributed != nil && !sealed {
		return nil, fmt.Errorf("%s: a partial of a partitioned sweep without the seal tune sweep ends it with: it was cut short or changed; run its tune sweep again", name)
	}
	g, err := ParseGoal(p.Goal)
	if err != nil {
		return nil, fmt.Errorf("%s: a damaged partial sweep: Goal %v; run its tune --partition again", name, err)
	}
	p.goal = g
	return &p, nil
}

// Merge adds up the partials of every partition of one sweep (each once, in any
// order) into the report one run over every key gives. The partials must come
// from the same trace, grid and goal, each as ReadPartial checked it.
func Merge(parts []*Partial, names []string) (*Report, error) {
	sum, err := mergeTallies(parts, names)
	if err != nil {
		return nil, err
	}
	first := parts[0]
	if NeedsPairs(parts) {
		return nil, fmt.Errorf("%s is the first round of a sweep with layered pairs: its merge plans the pairs' round (tune merge --pairs FILE)", names[0])
	}
	return reportOf(first, sum), nil
}

// mergeTallies checks that the partials are every partition of one sweep, each
// once, and adds up their tallies.
func mergeTallies(parts []*Partial, names []string) ([]tally, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no partial sweep to merge")
	}
	first := parts[0]
	n := first.Partition.N
	seen := map[int]string{} // by K: at most one a partial, whatever N claims
	sum := make([]tally, len(first.Tallies))
	for i, p := range parts {
		switch {
		case p.Partition.N != n:
			return nil, fmt.Errorf("%s is partition %s and %s partition %s: merge the partials of one sweep, all of N = %d", names[0], first.Partition, names[i], p.Partition, n)
		case seen[p.Partition.K] != "":
			return nil, fmt.Errorf("%s and %s are both partition %s; give each partition once", seen[p.Partition.K], names[i], p.Partition)
		case (first.Summed == 0) != (p.Summed == 0):
			return nil, fmt.Errorf("%s and %s are partials of different rounds (the grid's policies, and the layered pairs'); merge one round's partials, every part's once", names[0], names[i])
		case !sameSweep(first, p):
			return nil, fmt.Errorf("%s and %s are partials of different sweeps (the trace, the grid or the goal differ); run every partition with the same trace and flags", names[0], names[i])
		}
		seen[p.Partition.K] = names[i]
		for j := range p.Tallies {
			if j >= first.Summed || i == 0 {
				sum[j].add(&p.Tallies[j])
			}
		}
	}
	if len(seen) < n {
		const listed = 10
		var missing []string
		for k := 0; k < n && len(missing) < listed; k++ {
			if seen[k] == "" {
				missing = append(missing, Partition{K: k, N: n}.String())
			}
		}
		more := ""
		if left := n - len(seen) - len(missing); left > 0 {
			more = fmt.Sprintf(" and %d more", left)
		}
		how := "run tune --partition for each"
		if first.Distributed != nil {
			how = "run tune sweep --part K/N for each"
		}
		return nil, fmt.Errorf("partitions %v%s of %d are missing; %s and merge them all", missing, more, n, how)
	}
	for j := range sum {
		if err := sum[j].within(fmt.Sprintf("Tallies[%d]", j), first.Totals); err != nil {
			return nil, fmt.Errorf("the partials' counts add up to more than the trace holds (%v): they are not the partitions of one sweep; run each again", err)
		}
	}
	return sum, nil
}

// reportOf is the report of the partials' header and their summed tallies.
func reportOf(first *Partial, sum []tally) *Report {
	pt := first.Trace
	t := &Trace{Name: pt.Name, Keys: []string(pt.Keys), KeyCount: pt.KeyCount, Count: pt.Count, Span: pt.Span, Volume: pt.Volume, Peak: pt.Peak,
		Stats: pt.Stats, Format: pt.Format, Spread: pt.Spread, maxCost: pt.MaxCost}
	pc := first.Classes
	c := Classes{Median: pc.Median, P99: pc.P99, Heaviest: pc.Heaviest, HeavyCount: pc.HeavyCount, ByVolume: pc.ByVolume, Over: pc.Over}
	results := finalize(sum, first.Limits, first.Totals)
	rep := newReport(t, c, results, first.goal, first.Grids)
	if d := first.Distributed; d != nil && d.Holdout > 0 {
		rep.NoBackTest = "a sweep of a partitioned log is not back-tested; run ratelab tune over all its parts for one."
	}
	return rep
}

// sameSweep says two partials sweep the same trace with the same grid and goal.
func sameSweep(a, b *Partial) bool {
	ja, _ := json.Marshal([]any{a.Trace, a.Goal, a.Grids, a.Classes, a.Totals, a.Limits, a.Summed, a.Tallies[:a.Summed], a.Distributed})
	jb, _ := json.Marshal([]any{b.Trace, b.Goal, b.Grids, b.Classes, b.Totals, b.Limits, b.Summed, b.Tallies[:b.Summed], b.Distributed})
	return slices.Equal(ja, jb)
}

// MarshalJSON writes a tally with its histograms as (bucket, count) pairs.
func (t tally) MarshalJSON() ([]byte, error) {
	type plain tally
	return json.Marshal(struct {
		plain
		Retry, Delay [][2]int64
	}{plain(t), t.Retry.Buckets(), t.Delay.Buckets()})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (t *tally) UnmarshalJSON(b []byte) error {
	type plain tally
	var v struct {
		plain
		Retry, Delay [][2]int64
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	retry, ok1 := histogram.FromBuckets(v.Retry)
	delay, ok2 := histogram.FromBuckets(v.Delay)
	if !ok1 || !ok2 {
		return fmt.Errorf("a damaged Retry-After or delay histogram")
	}
	*t = tally(v.plain)
	t.Retry, t.Delay = retry, delay
	return nil
}
