package infer

import (
	"net/http"
	"sort"
	"time"
)

// Observation is one request and its answer.
type Observation struct {
	// At is when it was sent, from the epoch (time since 1970 UTC): windows
	// aligned to the clock are aligned to it.
	At time.Duration
	// Latency is how long the answer took (0 when unknown).
	Latency time.Duration
	// Refused says the answer was a refusal (429, 503, or what --refused says).
	Refused bool
	// Status is the HTTP status, for the report.
	Status int
	// Header is the answer's headers, when known (read for the limits they
	// claim).
	Header http.Header
}

// Headers are the observations' headers, those known.
func Headers(obs []Observation) []http.Header {
	var hs []http.Header
	for _, o := range obs {
		if len(o.Header) > 0 {
			hs = append(hs, o.Header)
		}
	}
	return hs
}

// sortObs orders observations by send time (stable: equal times keep their order).
func sortObs(obs []Observation) {
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].At < obs[j].At })
}

// baseLatency is the answer time of an answer not held: the 10th percentile
// of the refusals' latencies (a refusal is never held), else of all; 0 when
// none is known.
func baseLatency(obs []Observation) time.Duration {
	var ls []time.Duration
	for _, o := range obs {
		if o.Refused && o.Latency > 0 {
			ls = append(ls, o.Latency)
		}
	}
	if len(ls) == 0 {
		for _, o := range obs {
			if o.Latency > 0 {
				ls = append(ls, o.Latency)
			}
		}
	}
	if len(ls) == 0 {
		return 0
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i] < ls[j] })
	return ls[len(ls)/10]
}
