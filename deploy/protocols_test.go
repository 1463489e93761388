package deploy

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

func tokenBucket(limit int64, period time.Duration, burst int64) func() (algorithms.Limiter, error) {
	return func() (algorithms.Limiter, error) {
		return algorithms.NewTokenBucket(algorithms.Policy{Limit: limit, Period: period, Burst: burst}, true, 0), nil
	}
}

// Local: each instance a full limiter of its own; one added starts full, one
// removed and added back starts full again.
func TestLocalInstancesAreAlone(t *testing.T) {
	d := mustNew(t, Config{Protocol: Local, Instances: 2, Most: 3, New: tokenBucket(1, time.Hour, 1)})
	run(t, d, []step{
		{0, 0, "k", 1, true, 0}, {0, 1, "k", 1, true, 0}, {0, 0, "k", 1, false, 0},
	})
	d.Scale(time.Second, 3)
	run(t, d, []step{{time.Second, 2, "k", 1, true, 0}})
	d.Scale(2*time.Second, 1)
	d.Scale(3*time.Second, 2)
	run(t, d, []step{{3 * time.Second, 1, "k", 1, true, 0}, {3 * time.Second, 0, "k", 1, false, 0}})
}

// Share, as Envoy's local_cluster_rate_limit: a request costs an instance the
// membership it saw in tokens. Envoy's test
// (test/extensions/filters/common/local_ratelimit/local_ratelimit_test.cc at
// 0419ded4: share 0.5, max 2, 2 tokens per 200 ms): allow, deny | +200 ms
// allow | +200 ms allow, deny. A membership change is seen SeenAfter later;
// the bucket is kept, only the cost changes.
func TestShareIsEnvoysLocalClusterRateLimit(t *testing.T) {
	d := mustNew(t, Config{Protocol: Share, Instances: 2, New: tokenBucket(2, 200*time.Millisecond, 2)})
	ms := time.Millisecond
	run(t, d, []step{
		{0, 0, "k", 1, true, -1}, {0, 0, "k", 1, false, -1},
		{200 * ms, 0, "k", 1, true, -1},
		{400 * ms, 0, "k", 1, true, -1}, {400 * ms, 0, "k", 1, false, -1},
	})
	d = mustNew(t, Config{Protocol: Share, Instances: 2, Most: 2, SeenAfter: 100 * ms, New: tokenBucket(4, time.Second, 4)})
	d.Scale(0, 1) // instance 0 still divides by 2 for 100 ms
	run(t, d, []step{
		{0, 0, "k", 1, true, -1}, {50 * ms, 0, "k", 1, true, -1}, {60 * ms, 0, "k", 1, false, -1},
		{1100 * ms, 0, "k", 1, true, -1}, {1100 * ms, 0, "k", 1, true, -1}, {1100 * ms, 0, "k", 1, true, -1},
		{1100 * ms, 0, "k", 1, true, -1}, {1100 * ms, 0, "k", 1, false, -1},
	})
}

// Central: one limiter every instance asks, a latency away: its decisions
// are those of one limiter fed every request a latency late, answered a round
// trip after the request.
func TestCentralIsOneLimiterALatencyAway(t *testing.T) {
	const lat = 3 * time.Millisecond
	d := mustNew(t, Config{Protocol: Central, Instances: 4, Latency: lat, New: tokenBucket(10, time.Second, 5)})
	ref, _ := tokenBucket(10, time.Second, 5)()
	r := rand.New(rand.NewPCG(1, 2))
	at := time.Duration(0)
	for i := range 2000 {
		at += time.Duration(r.ExpFloat64() * float64(50*time.Millisecond))
		got, wait := d.Decide(r.IntN(4), "k", at, 1)
		want := ref.Allow("k", at+lat, 1)
		if got.Allowed != want.Allowed || wait != 2*lat {
			t.Fatalf("request %d at %s: allowed %v after %s, want %v after %s", i, at, got.Allowed, wait, want.Allowed, 2*lat)
		}
	}
	if d.Stats().StoreCalls != 2000 {
		t.Errorf("%d store calls for 2,000 decisions", d.Stats().StoreCalls)
	}
}

// HAProxy's peers: a push overwrites the receiver's entry, so increments made
// on two instances between pushes are lost (the worked vector of the peers
// protocol: A counts 5 and B 3 unsynced; each takes the other's; B's next
// request makes it 6, which A takes: nine requests, both read 6).
func TestHAProxyPeersOverwrite(t *testing.T) {
	d := mustNew(t, Config{Protocol: HAProxyPeers, Instances: 2, Latency: time.Second,
		New: func() (algorithms.Limiter, error) {
			return algorithms.NewHAProxy(algorithms.Policy{Limit: 100, Period: time.Minute}, algorithms.TrackBeforeDeny, 0, algorithms.HAProxyRelease{}), nil
		}})
	ms := time.Millisecond
	for i := range 5 {
		d.Decide(0, "k", time.Duration(i)*ms, 1)
	}
	for i := range 3 {
		d.Decide(1, "k", time.Duration(i)*ms, 1)
	}
	p := d.proto.(*haproxyPeers)
	count := func(i int, at time.Duration) uint32 {
		d.runTimers(at)
		s, _ := p.instances[i].Entry("k", at)
		return s.Curr
	}
	if a, b := count(0, 1100*ms), count(1, 1100*ms); a != 3 || b != 5 {
		t.Errorf("after the pushes: A %d, B %d; want 3 and 5 (each the other's)", a, b)
	}
	d.Decide(1, "k", 2*time.Second, 1)
	if a, b := count(0, 3100*ms), count(1, 3100*ms); a != 6 || b != 6 {
		t.Errorf("after B's next request: A %d, B %d; want 6 and 6", a, b)
	}
	if got := d.Stats().Messages; got != 5+3+1 {
		t.Errorf("%d messages, want 9 (one a touch, to the one other member)", got)
	}
}

// Score's worst window is the most the deployment admitted beyond the ideal
// for one key in any span of at most one period: a brute force over every
// span agrees on random decisions.
func TestScoreWorstWindowIsTheBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		period := time.Duration(1+r.IntN(50)) * time.Millisecond
		s := NewScore(10, period)
		type ev struct {
			at   time.Duration
			key  string
			diff int64
		}
		var evs []ev
		at := time.Duration(0)
		for range r.IntN(200) {
			at += time.Duration(r.IntN(5)) * time.Millisecond
			key := []string{"a", "b"}[r.IntN(2)]
			dep, ideal := r.IntN(2) == 0, r.IntN(2) == 0
			cost := int64(1 + r.IntN(3))
			s.Add(key, at, cost, dep, ideal)
			var diff int64
			if dep {
				diff += cost
			}
			if ideal {
				diff -= cost
			}
			evs = append(evs, ev{at, key, diff})
		}
		var want int64
		for i := range evs {
			sums := map[string]int64{}
			for j := i; j < len(evs) && evs[j].at-evs[i].at < period; j++ {
				sums[evs[j].key] += evs[j].diff
				want = max(want, sums[evs[j].key])
			}
		}
		if s.WorstWindow != want {
			t.Fatalf("seed %d, period %s: worst window %d, brute force %d", seed, period, s.WorstWindow, want)
		}
	}
}
