package conformance

import (
	"fmt"
	"math/rand/v2"
	"time"

	"ratelab/algorithms"
)

// A seeded random trace: requests over a few keys from a few application nodes,
// each stamping its requests with its own clock (one true, the others behind or
// ahead by up to two periods), so requests arrive stamped before the key's last;
// bursts at one instant, gaps of a fraction of an emission interval to several,
// and now and then an idle gap of hours; costs mostly small, some up to the
// capacity, and some above it (never accepted).

// stamped is one request of a trace, and the node whose clock stamped it.
type stamped struct {
	algorithms.Request
	node int
}

// traceShape says what a trace may hold.
type traceShape struct {
	n        int
	capacity int64 // the most one request may cost and be accepted (algorithms.Capacity)
	maxCost  int64 // the largest cost drawn at all; above capacity it is refused
	keys     int
	skewed   bool // several nodes with clocks behind and ahead; else one true clock
	hours    bool // idle gaps of hours
	days     bool // idle gaps of days (windows of a month, counters that expire)
}

// randomPolicy draws a policy: limits 1 to 50 over periods from 100 ms to an hour,
// bursts from 1 to twice the limit.
func randomPolicy(r *rand.Rand) algorithms.Policy {
	periods := []time.Duration{100 * time.Millisecond, time.Second, 1500 * time.Millisecond, 7 * time.Second, time.Minute, time.Hour}
	limit := 1 + r.Int64N(50)
	return algorithms.Policy{Limit: limit, Period: periods[r.IntN(len(periods))], Burst: 1 + r.Int64N(2*limit)}
}

// randomTrace draws a trace of shape sh for policy p.
func randomTrace(r *rand.Rand, p algorithms.Policy, sh traceShape) []stamped {
	p = p.WithDefaults()
	interval := p.Period / time.Duration(p.Limit)
	offsets := []time.Duration{0}
	if sh.skewed {
		for range 1 + r.IntN(3) {
			offsets = append(offsets, time.Duration(r.Int64N(int64(4*p.Period)))-2*p.Period)
		}
	}
	at := time.Duration(r.Int64N(int64(p.Period)))
	out := make([]stamped, sh.n)
	for i := range out {
		switch x := r.IntN(100); {
		case x < 30: // a burst: the same instant
		case x < 33 && sh.hours:
			at += time.Hour + time.Duration(r.Int64N(int64(3*time.Hour)))
		case x < 36 && sh.days:
			at += 24*time.Hour + time.Duration(r.Int64N(int64(5*24*time.Hour)))
		default:
			at += time.Duration(r.ExpFloat64() * 2 * float64(interval))
		}
		node := r.IntN(len(offsets))
		cost := 1 + r.Int64N(min(3, sh.capacity))
		switch x := r.IntN(100); {
		case x < 10:
			cost = 1 + r.Int64N(sh.capacity)
		case x < 18 && sh.maxCost > sh.capacity:
			cost = sh.capacity + 1 + r.Int64N(sh.maxCost-sh.capacity)
		}
		out[i] = stamped{Request: algorithms.Request{
			Key:  fmt.Sprintf("k%d", r.IntN(sh.keys)),
			Now:  (at + offsets[node]).Truncate(time.Microsecond),
			Cost: cost,
		}, node: node}
	}
	return out
}

// horizon is the latest |time| a trace reaches, for Policy.CheckHorizon.
func horizon(trace []stamped) time.Duration {
	var h time.Duration
	for _, q := range trace {
		h = max(h, q.Now, -q.Now)
	}
	return h
}
