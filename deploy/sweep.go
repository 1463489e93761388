package deploy

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"ratelab/algorithms"
)

// The overshoot sweep: each protocol's overshoot against its ideal on one
// seeded traffic — one key at 300 a second, Poisson (seed 1), for 60 s, round
// robin over the instances, a policy of 100 a second — at 2 to 64 instances
// and, for the periodic protocols, two sync intervals: Kong's sync_rate (links
// of 1 ms), Gubernator's GlobalSyncWait (links of 2 ms), HAProxy's peers over
// links of the interval, and Envoy's cluster share (no interval). The figure
// `report` and `--plot` draw for a run with a deployment, the table
// docs/peers.md quotes (BenchmarkOvershootSweep prints it).

// SweepPolicy is the sweep's policy: 100 a second (the share's bucket holds
// 100).
var SweepPolicy = algorithms.Policy{Limit: 100, Period: time.Second, Burst: 100}

// SweepInstances are the membership sizes the sweep measures.
var SweepInstances = []int{2, 4, 8, 16, 32, 64}

// SweepLine is one protocol at one interval: its overshoot at each of
// SweepInstances, the most it admitted beyond the ideal in any span of a
// second (Score.WorstWindow).
type SweepLine struct {
	Protocol Protocol
	// Interval is the sync interval (SyncWait), or for HAProxy's peers the
	// links' latency; 0 for share.
	Interval  time.Duration
	Latency   time.Duration
	Overshoot []int64
}

// Label names the line: "kong-sync, sync 100ms".
func (l SweepLine) Label() string {
	switch {
	case l.Protocol == HAProxyPeers:
		return fmt.Sprintf("%s, links %s", l.Protocol, l.Latency)
	case l.Interval > 0:
		return fmt.Sprintf("%s, sync %s", l.Protocol, l.Interval)
	}
	return l.Protocol.String()
}

var (
	sweepOnce  sync.Once
	sweepLines []SweepLine
	sweepErr   error
)

// Sweep is the overshoot sweep, measured once per process (it takes about a
// second and a half on one core).
func Sweep() ([]SweepLine, error) {
	sweepOnce.Do(func() { sweepLines, sweepErr = sweep() })
	return sweepLines, sweepErr
}

func sweep() ([]SweepLine, error) {
	p := SweepPolicy
	kong := func() (algorithms.Limiter, error) {
		return algorithms.NewKong(p, algorithms.Options{KongPolicy: algorithms.KongRedis}), nil
	}
	guber := func() (algorithms.Limiter, error) { return algorithms.NewGubernator(p), nil }
	haproxy := func() (algorithms.Limiter, error) {
		return algorithms.NewHAProxy(p, algorithms.TrackBeforeDeny, 0, algorithms.HAProxyRelease{}), nil
	}
	bucket := func() (algorithms.Limiter, error) { return algorithms.NewTokenBucket(p, true, 0), nil }
	type config struct {
		proto             Protocol
		make              func() (algorithms.Limiter, error)
		interval, latency time.Duration
	}
	var lines []SweepLine
	for _, c := range []config{
		{KongSync, kong, 100 * time.Millisecond, time.Millisecond},
		{KongSync, kong, time.Second, time.Millisecond},
		{GubernatorGlobal, guber, 20 * time.Millisecond, 2 * time.Millisecond},
		{GubernatorGlobal, guber, 100 * time.Millisecond, 2 * time.Millisecond},
		{HAProxyPeers, haproxy, 0, time.Millisecond},
		{HAProxyPeers, haproxy, 0, 10 * time.Millisecond},
		{Share, bucket, 0, 0},
	} {
		line := SweepLine{Protocol: c.proto, Interval: c.interval, Latency: c.latency}
		for _, n := range SweepInstances {
			worst, err := sweepOne(c.proto, n, c.interval, c.latency, c.make)
			if err != nil {
				return nil, err
			}
			line.Overshoot = append(line.Overshoot, worst)
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// sweepOne runs the sweep's traffic through one deployment and returns its
// overshoot.
func sweepOne(proto Protocol, n int, wait, latency time.Duration, fresh func() (algorithms.Limiter, error)) (int64, error) {
	d, err := New(Config{Protocol: proto, Instances: n, SyncWait: wait, Latency: latency, Name: "sweep", New: fresh})
	if err != nil {
		return 0, err
	}
	ideal, err := fresh()
	if err != nil {
		return 0, err
	}
	s := NewScore(SweepPolicy.Limit, SweepPolicy.Period)
	r := rand.New(rand.NewPCG(1, 1))
	i := 0
	for at := 0.0; at < 60; at += r.ExpFloat64() / 300 {
		now := time.Duration(at * float64(time.Second))
		got, _ := d.Decide(i%n, "k", now, 1)
		s.Add("k", now, 1, got.Allowed, ideal.Allow("k", now, 1).Allowed)
		i++
	}
	return s.WorstWindow, nil
}
