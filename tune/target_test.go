package tune

import (
	"context"
	"testing"
	"time"

	"ratelab/algorithms"
)

// A grid's variants sweep a product's knobs beside the rate and the burst, and
// a replay counts the requests a lane delays and how long: nginx at 2r/s with
// nginx's burst=2 and ten requests at once lets three through — at once with
// nodelay, waiting 500 ms and 1 s without it, the first at once and then one
// waiting 500 ms with delay=1 — and refuses the other seven.
func TestVariantsAndDelays(t *testing.T) {
	var reqs []Request
	for range 10 {
		reqs = append(reqs, Request{At: 0, Key: 0, Cost: 1})
	}
	tr := FromRequests("burst", []string{"k"}, reqs)
	g := Grid{Algorithms: []algorithms.Name{algorithms.NginxName}, Rates: []int64{2}, Bursts: []int64{3}, Period: time.Second,
		Variants: []Variant{{Nodelay: true}, {}, {DelayHalf: true}}}
	ps := g.Policies(1)
	want := []string{"nginx 2/s burst 3 nodelay", "nginx 2/s burst 3", "nginx 2/s burst 3 delay=1"}
	if len(ps) != len(want) {
		t.Fatalf("policies %v, want %v", ps, want)
	}
	for i, p := range ps {
		if p.String() != want[i] {
			t.Errorf("policy %d: %s, want %s", i, p, want[i])
		}
	}
	res, err := Sweep(context.Background(), tr, ps, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct {
		delayed  int64
		p50, p99 time.Duration
	}{{0, 0, 0}, {2, 500 * time.Millisecond, time.Second}, {1, 500 * time.Millisecond, 500 * time.Millisecond}} {
		r := res[i]
		near := func(d, want time.Duration) bool { return d >= want*99/100 && d <= want*101/100 }
		if r.Denied != 7 || r.Delayed != w.delayed || !near(r.DelayP50, w.p50) || !near(r.DelayP99, w.p99) {
			t.Errorf("%s: denied %d, delayed %d (p50 %s, p99 %s); want 7, %d (%s, %s)", r.Policy, r.Denied, r.Delayed, r.DelayP50, r.DelayP99, w.delayed, w.p50, w.p99)
		}
	}
	// a delay=N of 0 is the variant without it, not repeated
	g.Bursts = []int64{2}
	if ps := g.Policies(1); len(ps) != 2 {
		t.Errorf("at burst 2 the grid has %v, want nodelay and the default only (delay=0 is no delay=)", ps)
	}
	// HAProxy's variants are where its track-sc0 sits
	h := Grid{Algorithms: []algorithms.Name{algorithms.HAProxyName}, Rates: []int64{5}, Bursts: []int64{5}, Period: 10 * time.Second,
		Variants: []Variant{{TrackSC: algorithms.TrackBeforeDeny}, {TrackSC: algorithms.TrackAfterDeny}}}
	if ps := h.Policies(1); len(ps) != 2 || ps[1].String() != "haproxy 5/10s after-deny" || ps[1].Options().TrackSC != algorithms.TrackAfterDeny {
		t.Errorf("HAProxy's grid: %v", ps)
	}
}

// Cloudflare's variants are its mitigation_timeout as a number of the
// policy's periods: 0 is throttle, the default, written as no knob; one
// period is mitigation_timeout=10 on a 10s rule, which the lane runs with.
func TestCloudflareMitigationVariants(t *testing.T) {
	g := Grid{Algorithms: []algorithms.Name{algorithms.CloudflareName}, Rates: []int64{2}, Bursts: []int64{2}, Period: 10 * time.Second,
		Variants: []Variant{{}, {MitigationPeriods: 1}, {MitigationPeriods: 10000}}}
	ps := g.Policies(1)
	// 10000 periods, 100000 s, is more than the day Cloudflare takes: that variant is left out
	want := []string{"cloudflare 2/10s", "cloudflare 2/10s mitigation_timeout=10"}
	if len(ps) != len(want) {
		t.Fatalf("policies %v, want %v", ps, want)
	}
	for i, p := range ps {
		if p.String() != want[i] {
			t.Errorf("policy %d: %s, want %s", i, p, want[i])
		}
		if got, w := p.Options().MitigationTimeout, time.Duration(i)*10*time.Second; got != w {
			t.Errorf("policy %d runs with mitigation_timeout %s, want %s", i, got, w)
		}
	}
}
