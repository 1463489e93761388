package plots

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// comparisonData is a 10 s run with a tick of 100 ms: a no-limit lane that
// accepts base a second but peak a second from 4 s to 5 s, and a token bucket
// that accepts 100 a second throughout.
func comparisonData(base, peak int64, backend *sim.Backend) *Data {
	const tick = 100 * time.Millisecond
	cfg := &sim.Config{Name: "spike", Seed: 1, Tick: tick, Duration: 10 * time.Second, Keys: []sim.Key{{Name: "k"}}, Backend: backend,
		Tiers: []sim.Tier{{Name: "default", Policy: algorithms.Policy{Limit: 100, Period: time.Second, Burst: 100}}}}
	d := &Data{Config: cfg, UpTo: cfg.Duration}
	for _, lane := range []struct {
		name      string
		algorithm algorithms.Name
		perSecond func(at time.Duration) int64
	}{
		{"no limit", "none", func(at time.Duration) int64 {
			if at > 4*time.Second && at <= 5*time.Second {
				return peak
			}
			return base
		}},
		{"token-bucket", "token-bucket", func(time.Duration) int64 { return 100 }},
	} {
		info, _ := algorithms.Lookup(lane.algorithm)
		l := Lane{Config: sim.LaneConfig{Name: lane.name, Algorithm: lane.algorithm}, Info: info, Step: tick}
		for at := tick; at <= cfg.Duration; at += tick {
			l.Samples = append(l.Samples, sim.Sample{At: at, Accepted: lane.perSecond(at) / 10})
		}
		d.Lanes = append(d.Lanes, l)
	}
	return d
}

// The comparison's axis is set by the limited lanes: a no-limit lane that goes
// to 18,000 a second while the token bucket keeps to 100 gets a panel of its own
// above, on its own scale, its peak in its legend; the limited lanes' axis ends
// within a small multiple of their 100 (room for the legend), not at 18,000.
func TestComparisonScalesToTheLimitedLanes(t *testing.T) {
	for _, tc := range []struct {
		name           string
		base, peak     int64
		backend        *sim.Backend
		split          bool
		belowMin, most float64 // the (lower) axis' maximum, from and to
	}{
		{"a spike 180× the limit", 100, 18000, nil, true, 100, 3 * 100},
		{"a spike under twice the limit: one axis", 100, 190, nil, false, 190, 3 * 190},
		{"a spike over the backend's capacity but not twice it", 100, 700, &sim.Backend{Concurrency: 20, ServiceTime: 50 * time.Millisecond}, false, 700, 3 * 700},
		{"a spike twice the backend's capacity", 100, 900, &sim.Backend{Concurrency: 20, ServiceTime: 50 * time.Millisecond}, true, 400, 3 * 400},
	} {
		d := comparisonData(tc.base, tc.peak, tc.backend)
		f, err := comparisonFigure(d)
		if err != nil {
			t.Fatal(err)
		}
		if (f.above != nil) != tc.split {
			t.Errorf("%s: a panel above: %v, want %v", tc.name, f.above != nil, tc.split)
			continue
		}
		if max := f.plot.Y.Max; max < tc.belowMin || max > tc.most {
			t.Errorf("%s: the axis ends at %g, want from %g to %g", tc.name, max, tc.belowMin, tc.most)
		}
		svg, err := f.Render("svg")
		if err != nil {
			t.Fatal(err)
		}
		if !tc.split {
			continue
		}
		if f.above.Y.Max < float64(tc.peak) {
			t.Errorf("%s: the no-limit panel's axis ends at %g, below its peak %d", tc.name, f.above.Y.Max, tc.peak)
		}
		peak := "peak " + formatRate(float64(tc.peak)) + " a second, at 4 s"
		if !strings.Contains(string(svg), peak) {
			t.Errorf("%s: the SVG does not say %q", tc.name, peak)
		}
		if w, h := f.Size(); w != Width || h != Height+baselineHeight {
			t.Errorf("%s: size %v × %v", tc.name, w, h)
		}
	}
}

func TestFormatRate(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 18000: "18,000", 1234567: "1,234,567", 11339.6: "11,340"} {
		if got := formatRate(v); got != want {
			t.Errorf("formatRate(%g) = %q, want %q", v, got, want)
		}
	}
}
