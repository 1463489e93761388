package sim

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// A lane counts the decisions on the ordinary keys and on the heavy hitters of
// the configuration's Classes as they land: live (a snapshot mid-run) and at
// the end, each equal to the rows counted by key.
func TestClassCounts(t *testing.T) {
	p := algorithms.Policy{Limit: 5, Period: time.Second, Burst: 5}
	cfg := newConfig(p, 20*time.Second, []LaneConfig{lane("tb", algorithms.TokenBucketName), lane("log", algorithms.SlidingLogName)},
		Client{Name: "scraper", Pattern: Poisson{Rate: 40}},
		Client{Name: "user", Pattern: Poisson{Rate: 3}},
		Client{Name: "reader", Pattern: Poisson{Rate: 6}})
	cfg.Classes = &Classes{Heavy: []bool{true, false, false}, Typical: 1}
	r, err := NewRun(cfg, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.KeepLive()
	var rows []Row
	r.OnRows(func(rs []Row) error { rows = append(rows, rs...); return nil })
	// counted is the four counts of the rows of each lane landed by t
	counted := func(t time.Duration) []Metrics {
		counts := make([]Metrics, len(cfg.Lanes))
		for _, row := range rows {
			c := &counts[row.Lane]
			switch {
			case row.At > t:
			case cfg.Classes.Heavy[row.Key]:
				c.HeavyAttempts++
				if row.Allowed {
					c.HeavyAccepted++
				}
			default:
				c.OrdinaryAttempts++
				if !row.Allowed {
					c.OrdinaryDenied++
				}
			}
		}
		return counts
	}
	check := func(when time.Duration, ms []Metrics) {
		t.Helper()
		for i, c := range counted(when) {
			m := ms[i]
			if m.OrdinaryAttempts != c.OrdinaryAttempts || m.OrdinaryDenied != c.OrdinaryDenied || m.HeavyAttempts != c.HeavyAttempts || m.HeavyAccepted != c.HeavyAccepted {
				t.Errorf("at %v: lane %s counts ordinary %d/%d denied, heavy %d/%d accepted; the rows %d/%d, %d/%d", when, m.Lane,
					m.OrdinaryDenied, m.OrdinaryAttempts, m.HeavyAccepted, m.HeavyAttempts, c.OrdinaryDenied, c.OrdinaryAttempts, c.HeavyAccepted, c.HeavyAttempts)
			}
			if m.OrdinaryAttempts+m.HeavyAttempts != m.Accepted+m.Denied || m.OrdinaryDenied == 0 || m.HeavyAccepted == 0 || m.HeavyAccepted == m.HeavyAttempts {
				t.Errorf("at %v: lane %s: ordinary %d/%d denied, heavy %d/%d accepted, of %d accepted and %d denied: want every decision counted once, and some of each kind", when, m.Lane,
					m.OrdinaryDenied, m.OrdinaryAttempts, m.HeavyAccepted, m.HeavyAttempts, m.Accepted, m.Denied)
			}
		}
	}
	mid := 7 * time.Second
	if err := r.AdvanceTo(mid); err != nil {
		t.Fatal(err)
	}
	live := r.Snapshot().Metrics // the live sums, as the UI reads them
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	check(mid, live)
	check(cfg.Duration, r.Metrics())

	cfg.Classes = nil
	ms, _ := runRows(t, cfg)
	for _, m := range ms {
		if m.OrdinaryAttempts+m.OrdinaryDenied+m.HeavyAttempts+m.HeavyAccepted != 0 {
			t.Errorf("without classes, lane %s counts %+v", m.Lane, m)
		}
	}
}
