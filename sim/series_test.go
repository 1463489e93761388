package sim_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/present"
	"ratelab/sim"
)

// A run longer than sim.MaxSeriesPoints ticks keeps at most that many samples per lane,
// covering the whole run with every decision counted, while the series CSV written
// as it runs has every tick; a short run's streamed CSV is the kept series'.
func TestSeriesIsBoundedAndStreamedWhole(t *testing.T) {
	ticks := 3*sim.MaxSeriesPoints + 5
	cfg := sim.NewConfig(algorithms.Policy{Limit: 5, Period: time.Second}, time.Duration(ticks)*10*time.Millisecond,
		[]sim.LaneConfig{sim.NewLane("token-bucket", "token-bucket"), sim.NewLane("fixed-window", "fixed-window")},
		sim.Client{Name: "c", Pattern: sim.Poisson{Rate: 20}})
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	sw, _ := present.NewSeriesWriter(&csv, cfg)
	r.OnSeries(sw.Write)
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	sw.Flush()
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 1+2*ticks {
		t.Fatalf("streamed %d rows, want %d (a row per tick per lane, and the header)", len(lines)-1, 2*ticks)
	}
	if lines[1][:6] != "10.000" || !strings.HasPrefix(lines[2], "10.000,fixed-window,") || !strings.HasPrefix(lines[len(lines)-1], fmt.Sprintf("%d.000,fixed-window,", cfg.Duration/time.Millisecond)) {
		t.Errorf("rows not by tick then lane: %q %q … %q", lines[1], lines[2], lines[len(lines)-1])
	}
	for i, l := range r.Lanes {
		s := l.Series()
		if len(s) > sim.MaxSeriesPoints || len(s) < sim.MaxSeriesPoints/2 {
			t.Errorf("lane %d keeps %d samples; want at most %d and at least half", i, len(s), sim.MaxSeriesPoints)
		}
		if l.SeriesStep() != 4*cfg.Tick {
			t.Errorf("lane %d: step %s, want 4 ticks", i, l.SeriesStep())
		}
		var acc, den int64
		for j, x := range s {
			acc, den = acc+x.Accepted, den+x.Denied
			if j > 0 && x.At-s[j-1].At != l.SeriesStep() {
				t.Fatalf("lane %d: sample %d at %s after %s", i, j, x.At, s[j-1].At)
			}
		}
		m := l.Metrics()
		// the last ticks not yet filling a whole sample are not kept
		if acc > m.Accepted || den > m.Denied || m.Accepted+m.Denied-(acc+den) > 100 {
			t.Errorf("lane %d: kept series counts %d accepted, %d denied of %d and %d", i, acc, den, m.Accepted, m.Denied)
		}
	}

	short := sim.NewConfig(algorithms.Policy{Limit: 5, Period: time.Second}, 3*time.Second, []sim.LaneConfig{sim.NewLane("gcra", "gcra"), sim.NewLane("sliding-log", "sliding-log")},
		sim.Client{Name: "c", Pattern: sim.Poisson{Rate: 20}})
	_, _, kept := runToEnd(t, short)
	r, _ = sim.NewRun(short, sim.Memory)
	csv.Reset()
	sw, _ = present.NewSeriesWriter(&csv, short)
	r.OnSeries(sw.Write)
	r.AdvanceTo(short.Duration)
	sw.Flush()
	if csv.String() != kept {
		t.Error("a short run's streamed series differs from the series it kept")
	}
}
