package tune

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/histogram"
)

// Result is how one policy treated the trace.
type Result struct {
	Policy
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

// replay is one policy being replayed: its limiter, its counts per key.
type replay struct {
	p         Policy
	t         *Trace
	lim       algorithms.Limiter
	denied    []int32
	every     int64 // µs between evictions
	nextEvict int64
	peak      int64
	retry     histogram.Histogram
	never     int64
}

func newReplay(t *Trace, p Policy) (*replay, error) {
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
	lim, err := algorithms.New(p.Algorithm, p.policy(), info.Defaults)
	if err != nil {
		return nil, err
	}
	every := int64(max(p.Period, evictEvery) / time.Microsecond)
	return &replay{p: p, t: t, lim: lim, denied: make([]int32, len(t.Keys)), every: every, nextEvict: every}, nil
}

// decide asks the limiter about one request.
func (r *replay) decide(q Request) {
	if q.At >= r.nextEvict {
		r.peak = max(r.peak, r.lim.StateBytes())
		r.lim.Evict(time.Duration(q.At) * time.Microsecond)
		r.nextEvict = (q.At/r.every + 1) * r.every
	}
	d := r.lim.Allow(r.t.Keys[q.Key], time.Duration(q.At)*time.Microsecond, int64(q.Cost))
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
	res := Result{Policy: r.p, Requests: t.Count, Never: r.never}
	res.PeakStateBytes = max(r.peak, r.lim.StateBytes())
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
	res.DeniedShare = share(res.Denied, res.Requests)
	res.OrdinaryDenied = share(ordDenied, ordOffered)
	res.HeavyAdmitted = 1 - share(heavyDenied, heavyOffered)
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
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(policies)))
	c := t.Classify()
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
func Denials(t *Trace, p Policy) ([]int32, error) {
	r, err := newReplay(t, p)
	if err != nil {
		return nil, err
	}
	if err := t.each(r.decide); err != nil {
		return nil, err
	}
	return r.denied, nil
}
