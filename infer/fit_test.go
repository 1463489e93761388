package infer

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

// truth is a limiter a synthetic client log is made with.
type truth struct {
	family Family
	alg    algorithms.Name
	policy algorithms.Policy
	opts   algorithms.Options
	rate   float64 // a second
	burst  int64
}

func truths() []truth {
	p := func(limit int64, period time.Duration, burst int64) algorithms.Policy {
		return algorithms.Policy{Limit: limit, Period: period, Burst: burst}
	}
	return []truth{
		{TokenBucket, algorithms.TokenBucketName, p(5, time.Second, 8), algorithms.Options{}, 5, 8},
		{TokenBucket, algorithms.GCRAName, p(12, time.Second, 3), algorithms.Options{}, 12, 3},
		{TokenBucket, algorithms.NginxName, p(7, time.Second, 14), algorithms.Options{Nodelay: true}, 7, 14},
		{FixedWindow, algorithms.FixedWindowName, p(10, time.Second, 0), algorithms.Options{}, 10, 10},
		{FixedWindow, algorithms.FixedWindowName, p(30, 2*time.Second, 0), algorithms.Options{}, 15, 30},
		{SlidingLog, algorithms.SlidingLogName, p(8, time.Second, 0), algorithms.Options{}, 8, 8},
		{SlidingCounter, algorithms.SlidingCounterName, p(20, time.Second, 0), algorithms.Options{}, 20, 20},
		{SlidingCounter, algorithms.HAProxyName, p(15, time.Second, 0), algorithms.Options{}, 15, 15},
		{LeakyQueue, algorithms.NginxName, p(6, time.Second, 9), algorithms.Options{}, 6, 9},
	}
}

// synthetic is a sparse client log of the truth: bursts of requests at random
// instants (a client that sends when it has work), n requests over about span.
func synthetic(tr truth, seed uint64, n int) []Observation {
	rng := rand.New(rand.NewPCG(seed, 7))
	lim, err := algorithms.New(tr.alg, tr.policy, tr.opts)
	if err != nil {
		panic(err)
	}
	origin := 20000 * 24 * time.Hour // a UTC midnight: the clock's windows stay aligned
	at := time.Duration(rng.Int64N(int64(time.Second)))
	var obs []Observation
	for len(obs) < n {
		// a pause, then a run of requests a little faster than the limit
		at += time.Duration(rng.ExpFloat64() * float64(3*time.Second) / tr.rate * float64(tr.burst) / 4)
		run := 1 + rng.IntN(int(2*tr.burst)+2)
		gap := time.Duration(float64(time.Second) / tr.rate / (1 + 3*rng.Float64()))
		for range run {
			d := lim.Allow("k", at, 1)
			// answered in 0.3 ms, or when the queue lets it go
			obs = append(obs, Observation{At: origin + at, Refused: !d.Allowed, Latency: 300*time.Microsecond + d.Delay})
			at += time.Duration(rng.Float64() * 2 * float64(gap))
		}
	}
	return obs[:n]
}

// Offline, on sparse synthetic client logs of 80 requests, the truth's family
// stays consistent and its intervals of rate and burst contain the truth in at
// least 90% of trials.
func TestOfflineIntervalsContainTheTruth(t *testing.T) {
	trials := 12
	if testing.Short() {
		trials = 4
	}
	for _, tr := range truths() {
		contained, top := 0, 0
		for seed := range uint64(trials) {
			fits := Fit(synthetic(tr, seed, 80), 0)
			if fits[0].Family == tr.family {
				top++
			}
			for _, f := range fits {
				if f.Family != tr.family || !f.Consistent() {
					continue
				}
				rlo, rhi := f.Rate()
				blo, bhi := f.Burst()
				if rlo <= tr.rate*1.005 && tr.rate <= rhi*1.005 && blo <= tr.burst && tr.burst <= bhi {
					contained++
					break
				}
			}
		}
		name := fmt.Sprintf("%s %s", tr.alg, tr.policy)
		if contained*10 < trials*9 {
			t.Errorf("%s: the intervals held the truth in %d of %d trials", name, contained, trials)
		}
		t.Logf("%s: truth inside %d/%d, family ranked first %d/%d", name, contained, trials, top, trials)
	}
}
