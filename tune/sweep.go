package tune

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/histogram"
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
}

// evictEvery is how often, in virtual time, a policy's limiter forgets idle keys
// (at least its period).
const evictEvery = 10 * time.Second

// replay is one policy (or pair) being replayed: its limiters, its counts per
// key.
type replay struct {
	p         Limits
	t         *Trace
	lim       algorithms.Limiter
	long      algorithms.Limiter // nil for one limit
	check     [2]algorithms.Checker
	denied    []int32
	every     int64 // µs between evictions
	nextEvict int64
	peak      int64
	retry     histogram.Histogram
	never     int64
}

// newLimiter checks p against the trace and makes its limiter.
func newLimiter(t *Trace, p Policy) (algorithms.Limiter, error) {
	if err := p.policy().Validate(t.maxCost); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	if err := p.policy().CheckHorizon(t.Span); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	info, err := algorithms.Get(p.Algorithm)
	if err != nil {
		return nil, err
	}
	return algorithms.New(p.Algorithm, p.policy(), info.Defaults)
}

func newReplay(t *Trace, p Limits) (*replay, error) {
	lim, err := newLimiter(t, p.Policy)
	if err != nil {
		return nil, err
	}
	every := int64(max(p.Period, evictEvery) / time.Microsecond)
	r := &replay{p: p, t: t, lim: lim, denied: make([]int32, len(t.Keys)), every: every, nextEvict: every}
	if p.Layered() {
		if r.long, err = newLimiter(t, p.Long); err != nil {
			return nil, err
		}
		var ok1, ok2 bool
		r.check[0], ok1 = lim.(algorithms.Checker)
		r.check[1], ok2 = r.long.(algorithms.Checker)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: a layered pair needs limiters that can check without deciding", p)
		}
		r.every = int64(max(p.Long.Period, evictEvery) / time.Microsecond)
		r.nextEvict = r.every
	}
	return r, nil
}

// decide asks the limiter (or both, all or nothing) about one request.
func (r *replay) decide(q Request) {
	if q.At >= r.nextEvict {
		now := time.Duration(q.At) * time.Microsecond
		state := r.lim.StateBytes()
		if r.long != nil {
			state += r.long.StateBytes()
			r.long.Evict(now)
		}
		r.peak = max(r.peak, state)
		r.lim.Evict(now)
		r.nextEvict = (q.At/r.every + 1) * r.every
	}
	key, now, cost := r.t.Keys[q.Key], time.Duration(q.At)*time.Microsecond, int64(q.Cost)
	var d algorithms.Decision
	if r.long == nil {
		d = r.lim.Allow(key, now, cost)
	} else {
		// as algorithms.AllOrNothing: both check; both allow, or neither records
		d = r.check[0].Check(key, now, cost)
		if l := r.check[1].Check(key, now, cost); !l.Allowed {
			if d.Allowed || l.RetryAfter > d.RetryAfter {
				d.RetryAfter = l.RetryAfter
			}
			d.Allowed = false
		}
		if d.Allowed {
			r.lim.Allow(key, now, cost)
			r.long.Allow(key, now, cost)
		}
	}
	if !d.Allowed {
		r.denied[q.Key]++
		if d.RetryAfter == algorithms.Forever {
			r.never++
		} else {
			r.retry.Add(d.RetryAfter)
		}
	}
}

// result computes the figures once every request was decided.
func (r *replay) result(c Classes) Result {
	t := r.t
	res := Result{Limits: r.p, Requests: t.Count, Never: r.never}
	res.PeakStateBytes = r.lim.StateBytes()
	if r.long != nil {
		res.PeakStateBytes += r.long.StateBytes()
	}
	res.PeakStateBytes = max(r.peak, res.PeakStateBytes)
	var ordOffered, ordDenied, heavyOffered, heavyDenied int64
	for k, d := range r.denied {
		res.Denied += int64(d)
		if c.Heavy[k] {
			heavyOffered += t.Volume[k]
			heavyDenied += int64(d)
		} else {
			ordOffered += t.Volume[k]
			ordDenied += int64(d)
		}
	}
	share := func(part, whole int64) float64 {
		if whole == 0 {
			return 0
		}
		return float64(part) / float64(whole)
	}
	for i, o := range c.Over {
		var offered, denied int64
		for _, k := range o.Keys {
			offered += t.Volume[k]
			denied += int64(r.denied[k])
		}
		res.OverAdmitted[i] = 1 - share(denied, offered)
	}
	res.DeniedShare = share(res.Denied, res.Requests)
	res.HeavyAdmitted = 1 - share(heavyDenied, heavyOffered)
	res.WorstKindAdmitted = -1
	for i, o := range c.Over {
		if len(o.Keys) > 0 {
			res.WorstKindAdmitted = max(res.WorstKindAdmitted, res.OverAdmitted[i])
		}
	}
	if res.WorstKindAdmitted < 0 {
		res.WorstKindAdmitted = res.HeavyAdmitted
	}
	res.OrdinaryDenied = share(ordDenied, ordOffered)
	if len(t.Keys) > 0 {
		res.MedianKeyDenied = share(int64(r.denied[c.Median]), t.Volume[c.Median])
		res.P99KeyDenied = share(int64(r.denied[c.P99]), t.Volume[c.P99])
		span := max(t.Span, time.Second).Seconds()
		res.HeaviestOffered = float64(t.Volume[c.Heaviest]) / span
		res.HeaviestAdmitted = float64(t.Volume[c.Heaviest]-int64(r.denied[c.Heaviest])) / span
	}
	res.RetryAfterP50, res.RetryAfterP99 = r.retry.Quantile(0.5), r.retry.Quantile(0.99)
	return res
}

// Sweep replays the trace through every policy on `workers` goroutines
// (GOMAXPROCS when 0) and returns the results in the policies' order, whatever
// the number of workers. progress, if not nil, is called on the calling
// goroutine after each policy finishes. When ctx is done the workers stop within
// a block of requests (a streamed trace's reading skips the rest) and Sweep
// returns ctx's cause.
//
// In memory each worker takes the next policy and replays the requests through
// it; a streamed trace is read once per worker instead, each worker feeding every
// request to its share of the policies.
func Sweep(ctx context.Context, t *Trace, policies []Policy, workers int, progress func(done, total int)) ([]Result, error) {
	c, err := t.Classify(periodsOf(policies))
	if err != nil {
		return nil, err
	}
	limits := make([]Limits, len(policies))
	for i, p := range policies {
		limits[i] = Limits{Policy: p}
	}
	return sweep(ctx, t, c, limits, workers, progress)
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

// sweep replays the trace through every one of the limits, the keys classed by
// c (see Sweep).
func sweep(ctx context.Context, t *Trace, c Classes, policies []Limits, workers int, progress func(done, total int)) ([]Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(policies)))
	results := make([]Result, len(policies))
	errs := make([]error, len(policies))
	done := make(chan int, len(policies))
	var wg sync.WaitGroup
	if !t.Streamed {
		var next atomic.Int64
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(policies); i = int(next.Add(1) - 1) {
					r, err := newReplay(t, policies[i])
					if err == nil {
						for _, block := range t.Requests {
							if ctx.Err() != nil {
								break
							}
							for _, q := range block {
								r.decide(q)
							}
						}
						results[i] = r.result(c)
					}
					errs[i] = err
					done <- i
				}
			})
		}
	} else {
		for w := range workers {
			lo, hi := w*len(policies)/workers, (w+1)*len(policies)/workers
			wg.Go(func() {
				var rs []*replay
				for i := lo; i < hi; i++ {
					r, err := newReplay(t, policies[i])
					if err != nil {
						errs[i] = err
						return
					}
					rs = append(rs, r)
				}
				seen := 0
				stopped := false
				err := t.each(func(q Request) {
					if seen++; seen%4096 == 0 {
						stopped = ctx.Err() != nil
					}
					if stopped {
						return
					}
					for _, r := range rs {
						r.decide(q)
					}
				})
				for j, r := range rs {
					results[lo+j], errs[lo+j] = r.result(c), err
					done <- lo + j
				}
			})
		}
	}
	go func() { wg.Wait(); close(done) }()
	n := 0
	for range done {
		n++
		if progress != nil {
			progress(n, len(policies))
		}
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// Denials replays the trace through one policy and returns each key's denied
// requests.
func Denials(t *Trace, p Limits) ([]int32, error) {
	r, err := newReplay(t, p)
	if err != nil {
		return nil, err
	}
	if err := t.each(r.decide); err != nil {
		return nil, err
	}
	return r.denied, nil
}
