package deploy

import (
	"fmt"
	"testing"
)

// BenchmarkOvershootSweep prints the overshoot sweep (Sweep), the table
// docs/peers.md quotes: go test -run '^$' -bench OvershootSweep -benchtime 1x.
func BenchmarkOvershootSweep(b *testing.B) {
	var lines []SweepLine
	for range b.N {
		var err error
		if lines, err = sweep(); err != nil {
			b.Fatal(err)
		}
	}
	for _, l := range lines {
		for j, n := range SweepInstances {
			b.Run(fmt.Sprintf("%s/instances=%d", l.Label(), n), func(b *testing.B) {
				b.ReportMetric(float64(l.Overshoot[j]), "overshoot-units")
				b.ReportMetric(float64(l.Overshoot[j])/float64(SweepPolicy.Limit), "overshoot/limit")
			})
		}
	}
}

// The sweep's figures are the ones docs/peers.md quotes (the table under
// "Deployments"): each protocol's overshoot on the seeded traffic.
func TestSweepIsTheTableQuoted(t *testing.T) {
	lines, err := Sweep()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{
		"kong-sync, sync 100ms":         {39, 47, 48, 49, 42, 2},
		"kong-sync, sync 1s":            {146, 256, 243, 239, 239, 233},
		"gubernator-global, sync 20ms":  {105, 109, 111, 111, 114, 113},
		"gubernator-global, sync 100ms": {38, 130, 131, 138, 141, 139},
		"haproxy-peers, links 1ms":      {33, 37, 37, 37, 37, 37},
		"haproxy-peers, links 10ms":     {201, 283, 289, 291, 291, 291},
		"share":                         {2, 4, 8, 15, 30, 58},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for _, l := range lines {
		if got := fmt.Sprint(l.Overshoot); got != fmt.Sprint(want[l.Label()]) {
			t.Errorf("%s: %s, want %v", l.Label(), got, want[l.Label()])
		}
	}
}
