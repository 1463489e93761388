package deploy

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

func fixedWindow(limit int64, period time.Duration) func() (algorithms.Limiter, error) {
	return func() (algorithms.Limiter, error) {
		return algorithms.NewFixedWindow(algorithms.Policy{Limit: limit, Period: period}, false, 0), nil
	}
}

// every returns n requests of one key, gap apart from start, on instances in
// turn.
func every(start, gap time.Duration, n, instances int) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = step{At: start + time.Duration(i)*gap, Inst: i % instances, Key: "k", Hits: 1, Remaining: -1}
	}
	return out
}

// A read lags the writes by the replica's lag: with a limit of 5 a second and
// a request every 10 ms, the replica 100 ms behind counts the first five only
// at 140 ms, so the fourteen from 0 to 130 ms pass: nine more than the limit,
// the arrivals in the lag less the one that read the fifth write's absence
// last. The next window starts from a count of 0 on both servers.
func TestReplicaReadsPassTheLimitByTheLag(t *testing.T) {
	d := mustNew(t, Config{Protocol: ReplicaReads, Instances: 3, Replicated: true, ReplicaLag: 100 * time.Millisecond, New: fixedWindow(5, time.Second)})
	steps := every(0, 10*time.Millisecond, 30, 3)
	for i := range steps {
		steps[i].Allowed = i < 14
	}
	run(t, d, steps)
	if lv := d.Level("k", 500*time.Millisecond); lv != 14 {
		t.Errorf("the primary counted %v, want the 14 admitted (a count past the limit)", lv)
	}
	next := every(time.Second, 10*time.Millisecond, 20, 3)
	for i := range next {
		next[i].Allowed = i < 14
	}
	run(t, d, next)
	if got := d.Stats().StoreCalls; got != 50+28 {
		t.Errorf("store calls %d, want a read per request and a write per admission: 78", got)
	}
}

// Without lag and latency, reading the replica is reading the primary: the
// deployment decides as one fixed window, on random traffic.
func TestReplicaReadsWithoutLagIsOneLimiter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, fresh := range []func() (algorithms.Limiter, error){fixedWindow(7, time.Second), func() (algorithms.Limiter, error) {
		return algorithms.NewSlidingCounter(algorithms.Policy{Limit: 7, Period: time.Second}), nil
	}} {
		d := mustNew(t, Config{Protocol: ReplicaReads, Instances: 4, Replicated: true, New: fresh})
		one, _ := fresh()
		var at time.Duration
		for i := range 5000 {
			at += time.Duration(r.ExpFloat64() * float64(60*time.Millisecond))
			key := []string{"a", "b"}[r.IntN(2)]
			got, _ := d.Decide(r.IntN(4), key, at, 1)
			if want := one.Allow(key, at, 1); got.Allowed != want.Allowed {
				t.Fatalf("%s request %d at %s: replica-reads %v, one limiter %v", one.Algorithm(), i, at, got.Allowed, want.Allowed)
			}
		}
	}
}

// A failover promotes the replica: what the primary counted in the last lag
// is lost. Ten requests fill a window of 10 from 0 to 90 ms; at 150 ms the
// store fails over; then a request every 10 ms. A replica 200 ms behind had
// none of the ten: central admits ten more, and replica-reads, reading a
// replica that again lags 200 ms, all twenty of the window. One 50 ms behind
// had all ten: none pass. Without a replica (a server that had nothing) ten
// more pass too.
func TestFailoverLosesTheWritesOfTheLag(t *testing.T) {
	for _, c := range []struct {
		name          string
		replicated    bool
		lag           time.Duration
		admitted      int
		admittedReads int
	}{{"lag 200ms", true, 200 * time.Millisecond, 10, 20}, {"lag 50ms", true, 50 * time.Millisecond, 0, 0}, {"lag 0", true, 0, 0, 0}, {"no replica", false, 0, 10, -1}} {
		for _, proto := range []Protocol{Central, ReplicaReads} {
			want := c.admitted
			if proto == ReplicaReads {
				want = c.admittedReads
			}
			if want < 0 {
				continue
			}
			d := mustNew(t, Config{Protocol: proto, Instances: 2, Replicated: c.replicated, ReplicaLag: c.lag, Failovers: true, New: fixedWindow(10, time.Second)})
			before := every(0, 10*time.Millisecond, 10, 2)
			for i := range before {
				before[i].Allowed = true
			}
			run(t, d, before)
			d.Failover(150 * time.Millisecond)
			admitted := 0
			for _, s := range every(160*time.Millisecond, 10*time.Millisecond, 20, 2) {
				if dec, _ := d.Decide(s.Inst, s.Key, s.At, 1); dec.Allowed {
					admitted++
				}
			}
			if admitted != want {
				t.Errorf("%s, %s: %d admitted after the failover, want %d", proto, c.name, admitted, want)
			}
		}
	}
}

// A write on its way at the failover (sent within a link's latency before
// it) reaches the new primary; a second failover promotes a replica rebuilt
// in full from the first.
func TestFailoverKeepsWritesInFlightAndReplicatesAgain(t *testing.T) {
	d := mustNew(t, Config{Protocol: Central, Instances: 1, Latency: 20 * time.Millisecond, Replicated: true, ReplicaLag: time.Hour, Failovers: true, New: fixedWindow(3, time.Minute)})
	run(t, d, []step{{At: 0, Key: "k", Hits: 1, Allowed: true, Remaining: -1}, {At: 95 * time.Millisecond, Key: "k", Hits: 1, Allowed: true, Remaining: -1}})
	d.Failover(100 * time.Millisecond) // the first write is lost (an hour's lag); the second reaches the store at 115 ms
	if lv := d.Level("k", 200*time.Millisecond); lv != 1 {
		t.Fatalf("after the failover the store counts %v, want 1 (the write in flight)", lv)
	}
	run(t, d, []step{{At: 300 * time.Millisecond, Key: "k", Hits: 1, Allowed: true, Remaining: 1}})
	d.Failover(400 * time.Millisecond)
	if lv := d.Level("k", 500*time.Millisecond); lv != 0 {
		t.Fatalf("after the second failover the store counts %v, want 0: the replica made at 100 ms had nothing then, and lags an hour since", lv)
	}
}

// A replica rebuilt at a failover holds the new primary's whole state: after
// two failovers with a short lag the store still counts every write older
// than the lag.
func TestSecondFailoverKeepsTheRebuiltReplica(t *testing.T) {
	d := mustNew(t, Config{Protocol: Central, Instances: 2, Replicated: true, ReplicaLag: 10 * time.Millisecond, Failovers: true, New: fixedWindow(100, time.Minute)})
	for i := range 5 {
		d.Decide(i%2, "k", time.Duration(i)*time.Millisecond, 1)
	}
	d.Failover(50 * time.Millisecond)
	for i := range 3 {
		d.Decide(i%2, "k", 60*time.Millisecond+time.Duration(i)*time.Millisecond, 1)
	}
	d.Decide(0, "k", 100*time.Millisecond, 1) // within the lag of the second failover: lost
	d.Failover(105 * time.Millisecond)
	if lv := d.Level("k", 200*time.Millisecond); lv != 8 {
		t.Fatalf("after two failovers the store counts %v, want 8: five before the first, three after, the last lost", lv)
	}
}
