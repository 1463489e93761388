package tune

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// Classes split a trace's keys: the median key and the 99th-percentile key by
// volume, the heavy hitters (the keys that stand out over some period swept; the
// top 1% by volume when none does) and the ordinary keys (the rest).
type Classes struct {
	Median, P99 int    // key indexes, by volume
	Heavy       []bool // per key
	Heaviest    int    // the key with the most requests
	HeavyCount  int
	// ByVolume says no key stood out over any period, and the heavy hitters are
	// the heaviest 1% of keys by volume (at least one).
	ByVolume bool
	// Over says, for each period, how much the 99th-percentile key sent in one
	// window and which keys stood out.
	Over []Standout
	// Kinds are each key's kind, an index in Rules (see KindOf), when the
	// trace has profiles; nil otherwise.
	Kinds []uint8 `json:",omitempty"`
}

// Standout is what the keys sent over one period: the 99th-percentile ordinary
// key's peak (Typical), and the keys whose peak is at least HeavyFactor times it,
// heaviest first.
type Standout struct {
	Period  time.Duration
	Typical int64
	Keys    []int
	Peaks   []int64 // the keys' peaks, in Keys' order
}

// Classify ranks the trace's keys over the periods given (as the peaks over
// each say; see PeakOver).
func (t *Trace) Classify(periods []time.Duration) (Classes, error) {
	if len(periods) > maxPeriods {
		return Classes{}, fmt.Errorf("%d periods; at most %d", len(periods), maxPeriods)
	}
	r := t.ranks()
	n := len(r)
	c := Classes{Heavy: make([]bool, n)}
	if n == 0 {
		return c, nil
	}
	c.Median = r[(n-1)/2]
	c.P99 = r[p99Index(n)]
	c.Heaviest = r[n-1]
	all := make([][]int64, len(periods))
	for i, p := range periods {
		var err error
		if all[i], err = t.PeakOver(p); err != nil {
			return c, err
		}
		c.Over = append(c.Over, Standout{Period: p})
	}
	// The ordinary level over each period is the 99th percentile of the keys not
	// heavy over any: removing the heavy ones can lower it and make more keys
	// stand out, so repeat until none does (the heavy set only grows).
	for round := 0; round < maxClassRounds; round++ {
		grew := false
		for i := range periods {
			var ordinary []int64
			for k, v := range all[i] {
				if !c.Heavy[k] {
					ordinary = append(ordinary, v)
				}
			}
			if len(ordinary) == 0 {
				continue
			}
			slices.Sort(ordinary)
			c.Over[i].Typical = ordinary[p99Index(len(ordinary))]
			bar := max(HeavyFactor*c.Over[i].Typical, minHeavyPeak)
			for k, v := range all[i] {
				if v >= bar && !c.Heavy[k] {
					c.Heavy[k], grew = true, true
					c.HeavyCount++
				}
			}
		}
		if !grew {
			break
		}
	}
	for i := range c.Over {
		o := &c.Over[i]
		bar := max(HeavyFactor*o.Typical, minHeavyPeak)
		for k, v := range all[i] {
			if v >= bar {
				o.Keys = append(o.Keys, k)
			}
		}
		sort.SliceStable(o.Keys, func(a, b int) bool { return all[i][o.Keys[a]] > all[i][o.Keys[b]] })
		for _, k := range o.Keys {
			o.Peaks = append(o.Peaks, all[i][k])
		}
	}
	if c.HeavyCount == 0 {
		c.ByVolume = true
		c.HeavyCount = max(1, n-int(math.Ceil(0.99*float64(n))))
		for _, k := range r[n-c.HeavyCount:] {
			c.Heavy[k] = true
		}
	}
	if t.Profiles != nil {
		c.Kinds = make([]uint8, n)
		for k := range c.Kinds {
			i, _ := KindOf(&t.Profiles[k], c.standsOut(k))
			c.Kinds[k] = uint8(i)
		}
	} else if t.kindPairs != nil {
		c.Kinds = make([]uint8, n)
		for k := range c.Kinds {
			c.Kinds[k] = t.kindPairs[k][b2i(c.standsOut(k))]
		}
	}
	return c, nil
}

// p99Index is the index of the 99th percentile of n sorted values.
func p99Index(n int) int { return max(0, int(math.Ceil(0.99*float64(n)))-1) }

// standsOut says key k stands out over some period: a heavy hitter that is
// not one only because it is among the heaviest 1% by volume (ByVolume).
func (c Classes) standsOut(k int) bool { return c.Heavy[k] && !c.ByVolume }

// KindOf is key k's kind (tune's Rules), why in the log's terms, and whether
// it is abusive; "" without profiles.
func (c Classes) KindOf(t *Trace, k int) (kind, why string, abusive bool) {
	if t.Profiles == nil || c.Kinds == nil {
		return "", "", false
	}
	i, why := KindOf(&t.Profiles[k], c.standsOut(k))
	return Rules[i].Kind, why, Rules[i].Abusive
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
