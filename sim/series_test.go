package sim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// A run longer than MaxSeriesPoints ticks keeps at most that many samples per lane,
// covering the whole run with every decision counted, while the series CSV written
// as it runs has every tick; a short run's streamed CSV is the kept series'.
func TestSeriesIsBoundedAndStreamedWhole(t *testing.T) {
	ticks := 3*MaxSeriesPoints + 5
	cfg := newConfig(algorithms.Policy{Limit: 5, Period: time.Second}, time.Duration(ticks)*10*time.Millisecond,
		[]LaneConfig{lane("token-bucket", "token-bucket"), lane("fixed-window", "fixed-window")},
		Client{Name: "c", Pattern: Poisson{Rate: 20}})
	r, err := NewRun(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	sw, _ := NewSeriesWriter(&csv, cfg)
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
		if len(s) > MaxSeriesPoints || len(s) < MaxSeriesPoints/2 {
			t.Errorf("lane %d keeps %d samples; want at most %d and at least half", i, len(s), MaxSeriesPoints)
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

	short := newConfig(algorithms.Policy{Limit: 5, Period: time.Second}, 3*time.Second, []LaneConfig{lane("gcra", "gcra"), lane("sliding-log", "sliding-log")},
		Client{Name: "c", Pattern: Poisson{Rate: 20}})
	_, _, kept := runToEnd(t, short)
	r, _ = NewRun(short)
	csv.Reset()
	sw, _ = NewSeriesWriter(&csv, short)
	r.OnSeries(sw.Write)
	r.AdvanceTo(short.Duration)
	sw.Flush()
	if csv.String() != kept {
		t.Error("a short run's streamed series differs from the series it kept")
	}
}
