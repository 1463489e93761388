package deploy

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

// BenchmarkOvershootSweep measures, on one seeded traffic (one key at 300 a
// second, Poisson, for 60 s, round robin over the instances), each protocol's
// overshoot against its ideal — the most admitted beyond it in any second
// (overshoot-units), and that over the limit of 100 a second — at 2 to 64
// instances and two sync intervals each: Kong's sync_rate, Gubernator's
// GlobalSyncWait (with links of 2 ms), HAProxy's peers over links of the
// interval, and Envoy's cluster share (no interval: each instance divides by
// the membership). go test -run '^$' -bench OvershootSweep -benchtime 1x
// prints the table docs/peers.md quotes.
func BenchmarkOvershootSweep(b *testing.B) {
	policy := algorithms.Policy{Limit: 100, Period: time.Second}
	kong := func() (algorithms.Limiter, error) {
		return algorithms.NewKong(policy, algorithms.Options{KongPolicy: algorithms.KongRedis}), nil
	}
	guber := func() (algorithms.Limiter, error) { return algorithms.NewGubernator(policy), nil }
	haproxy := func() (algorithms.Limiter, error) {
		return algorithms.NewHAProxy(policy, algorithms.TrackBeforeDeny, 0, algorithms.HAProxyRelease{}), nil
	}
	bucket := tokenBucket(100, time.Second, 100)
	for _, c := range []struct {
		name      string
		proto     Protocol
		make      func() (algorithms.Limiter, error)
		intervals []time.Duration
		latency   func(time.Duration) time.Duration
		wait      func(time.Duration) time.Duration
	}{
		{"kong-sync", KongSync, kong, []time.Duration{100 * time.Millisecond, time.Second}, func(time.Duration) time.Duration { return time.Millisecond }, func(i time.Duration) time.Duration { return i }},
		{"gubernator-global", GubernatorGlobal, guber, []time.Duration{20 * time.Millisecond, 100 * time.Millisecond}, func(time.Duration) time.Duration { return 2 * time.Millisecond }, func(i time.Duration) time.Duration { return i }},
		{"haproxy-peers", HAProxyPeers, haproxy, []time.Duration{time.Millisecond, 10 * time.Millisecond}, func(i time.Duration) time.Duration { return i }, func(time.Duration) time.Duration { return 0 }},
		{"share", Share, bucket, []time.Duration{0}, func(time.Duration) time.Duration { return 0 }, func(time.Duration) time.Duration { return 0 }},
	} {
		for _, interval := range c.intervals {
			for _, n := range []int{2, 4, 8, 16, 32, 64} {
				b.Run(fmt.Sprintf("%s/interval=%s/instances=%d", c.name, interval, n), func(b *testing.B) {
					var worst int64
					for range b.N {
						d, err := New(Config{Protocol: c.proto, Instances: n, SyncWait: c.wait(interval), Latency: c.latency(interval), Name: "sweep", New: c.make})
						if err != nil {
							b.Fatal(err)
						}
						ideal, _ := c.make()
						s := NewScore(policy.Limit, policy.Period)
						r := rand.New(rand.NewPCG(1, 1))
						i := 0
						for at := 0.0; at < 60; at += r.ExpFloat64() / 300 {
							now := time.Duration(at * float64(time.Second))
							got, _ := d.Decide(i%n, "k", now, 1)
							s.Add("k", now, 1, got.Allowed, ideal.Allow("k", now, 1).Allowed)
							i++
						}
						worst = s.WorstWindow
					}
					b.ReportMetric(float64(worst), "overshoot-units")
					b.ReportMetric(float64(worst)/float64(policy.Limit), "overshoot/limit")
				})
			}
		}
	}
}
