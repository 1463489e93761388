package tune

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Limits are what every key is held to: one policy, or two layered as gateways
// layer them (Kong's second and hour, a token bucket with a daily quota): a
// request is accepted only when both would accept it, and then counts against
// both; refused, it counts against neither (all or nothing, as
// algorithms.AllOrNothing decides a multi-limit lane).
type Limits struct {
	Policy
	Long Policy // the zero Policy when there is one limit
}

// Layered says the limits are two.
func (l Limits) Layered() bool { return l.Long.Limit > 0 }

// String is "token-bucket 5/s burst 20", or with a second limit "token-bucket
// 5/s burst 20 + fixed-window 300/h".
func (l Limits) String() string {
	if !l.Layered() {
		return l.Policy.String()
	}
	return l.Policy.String() + " + " + l.Long.String()
}

// Result is how one policy (or a layered pair) treated the trace.
type Result struct {
	Limits
	Requests, Denied int64
	// DeniedShare is Denied / Requests.
	DeniedShare float64
	// MedianKeyDenied and P99KeyDenied are the share of its requests denied to
	// the median key and to the 99th-percentile key by volume.
	MedianKeyDenied, P99KeyDenied float64
	// OrdinaryDenied is the share of the ordinary keys' requests denied (all but
	// the heaviest 1% of keys by volume).
	OrdinaryDenied float64
	// HeavyAdmitted is the share of the heavy hitters' requests (the heaviest 1%
	// of keys) admitted.
	HeavyAdmitted float64
	// OverAdmitted is, for each period the keys were classed over (in
	// Classes.Over's order), the share of the requests of the keys standing out
	// over it that were admitted (1 when none stands out).
	OverAdmitted [maxPeriods]float64
	// WorstKindAdmitted is the largest of OverAdmitted over the periods some
	// key stands out over: how much of its requests the kind of heavy key held
	// least gets through (HeavyAdmitted when no key stands out). A policy holds
	// every kind of heavy key only when this is low.
	WorstKindAdmitted float64
	// HeaviestOffered and HeaviestAdmitted are the heaviest key's requests per
	// second over the trace's span, offered and admitted.
	HeaviestOffered, HeaviestAdmitted float64
	// PeakStateBytes is the most state the limiter held (see
	// algorithms.Limiter.StateBytes), sampled before each eviction of idle keys.
	PeakStateBytes int64
	// RetryAfterP50 and RetryAfterP99 spread the Retry-After of the denials that
	// could be accepted later; Never counts those that never could.
	RetryAfterP50, RetryAfterP99 time.Duration
	Never                        int64
	// Delayed are the requests accepted to wait before they go on (nginx's
	// limit_req without nodelay); DelayedShare their share of all requests,
	// OrdinaryDelayed and HeavyDelayed of the ordinary keys' and of the heavy
	// hitters' requests; DelayP50 and DelayP99 how long they waited (quantiles
	// within 1%).
	Delayed                       int64
	DelayedShare                  float64
	OrdinaryDelayed, HeavyDelayed float64
	DelayP50, DelayP99            time.Duration
	// AbuseAdmitted is, over the kinds of key that are abusive (Rules), the
	// largest share of a kind's requests admitted: how much the kind held
	// least gets through; -1 when the trace has no abusive key (or no kinds).
	// AbuseHeld says every abusive kind had at least minHeld of its requests
	// denied.
	// OthersDenied are the denied requests of every key that is not abusive
	// (every denied request, without kinds).
	AbuseAdmitted float64
	AbuseHeld     bool
	OthersDenied  int64
	// KindDenied are the denied requests of each kind of key (by index in
	// Rules; zero without kinds).
	KindDenied [maxKinds]int64 `json:"-"`
}

// Sweep replays the trace through every policy on `workers` goroutines
// (GOMAXPROCS when 0) and returns the results in the policies' order, whatever
// the number of workers, the keys classed over the policies' periods. progress,
// if not nil, is called on the calling goroutine as policies finish. When ctx is
// done the workers stop within a block of requests and Sweep returns ctx's
// cause.
func Sweep(ctx context.Context, t *Trace, policies []Policy, workers int, progress func(done, total int)) ([]Result, error) {
	c, err := t.Classify(periodsOf(policies))
	if err != nil {
		return nil, err
	}
	limits := make([]Limits, len(policies))
	for i, p := range policies {
		limits[i] = Limits{Policy: p}
	}
	tallies, err := sweep(ctx, t, c, limits, workers, progress)
	if err != nil {
		return nil, err
	}
	return finalize(tallies, limits, newTotals(t, c)), nil
}

// periodsOf are the distinct periods of the policies, shortest first.
func periodsOf(policies []Policy) []time.Duration {
	var out []time.Duration
	for _, p := range policies {
		if !slices.Contains(out, p.Period) {
			out = append(out, p.Period)
		}
	}
	slices.Sort(out)
	return out
}

// sweep replays the trace's requests through every one of the limits, the keys
// classed by c, part by part (the whole trace when it is in memory; each batch
// of key buckets when it was spilled to disk, see spill.go): within a part each
// worker takes the next policy and replays the part through a limiter of its
// own, and what it counted is added to the policy's tally.
func sweep(ctx context.Context, t *Trace, c Classes, limits []Limits, workers int, progress func(done, total int)) ([]tally, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(limits)))
	k := newKinds(t, c)
	tallies := make([]tally, len(limits))
	errs := make([]error, len(limits))
	parts := t.parts()
	total := len(parts) * len(limits)
	done := 0
	for _, part := range parts {
		if ctx.Err() != nil { // before reading a part back from disk
			return nil, context.Cause(ctx)
		}
		blocks, err := part()
		if err != nil {
			return nil, err
		}
		finished := make(chan int, len(limits))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(limits); i = int(next.Add(1) - 1) {
					if errs[i] == nil {
						r, err := newReplay(t, limits[i], k)
						if err == nil {
							r.run(ctx, blocks)
							tallies[i].add(r.finish())
						}
						errs[i] = err
					}
					finished <- i
				}
			})
		}
		go func() { wg.Wait(); close(finished) }()
		for range finished {
			done++
			if progress != nil {
				progress(done, total)
			}
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return tallies, nil
}

// Denials replays the trace through one policy (or pair) and returns each key's
// denied requests (see DenialsOf).
func Denials(t *Trace, p Limits) ([]int32, error) {
	kd, err := DenialsOf(t, p, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	return kd.Denied, nil
}
