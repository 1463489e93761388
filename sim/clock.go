package sim

import (
	"time"

	"ratelab/algorithms"
)

// Node is an application node whose clock stamps the requests its clients send to
// the limiter. Its reading at true virtual time t is
//
//	t + Offset + t × DriftPPM / 10^6
//
// so Offset is where it starts (−300ms: 300 ms behind) and DriftPPM how fast it
// wanders (1,000 ppm gains a millisecond a second). Skewed clocks are harmless to a
// limiter that only ever moves its stored time forward, and over-grant with one that
// stores whatever time it is given.
type Node struct {
	Name     string
	Offset   time.Duration
	DriftPPM float64
}

// Clock is the node's reading at true virtual time t, to the microsecond, rounding
// towards the past (negative readings too).
func (n Node) Clock(t time.Duration) time.Duration {
	reading := t + n.Offset
	if n.DriftPPM != 0 {
		reading += time.Duration(float64(t) * n.DriftPPM / 1e6)
	}
	us := reading / algorithms.Resolution
	if reading < 0 && reading%algorithms.Resolution != 0 {
		us--
	}
	return us * algorithms.Resolution
}
