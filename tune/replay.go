package tune

import (
	"context"
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/histogram"
)

// A policy's replay counts, for the keys it is given, what a Result reports:
// sums over keys (denied requests by class) and a state series sampled at fixed
// instants. Every figure adds up over disjoint sets of keys — the parts of a
// trace spilled to disk, the partitions of a sweep spread over machines — into
// exactly what one replay of every key counts: keys are independent under a
// per-key limit, and a limiter forgets idle keys at the same instants whoever
// else it holds.

// evictEvery is the shortest time, in virtual time, between two instants at
// which a policy's limiter forgets its idle keys and its state is sampled (at
// least its period; see tickOf).
const evictEvery = 10 * time.Second

// maxTicks bounds the state samples of one replay: a longer trace is sampled
// more sparsely.
const maxTicks = 4096

// tickOf is the time between a replay's eviction instants for a trace spanning
// span: the longest period of the limits, at least evictEvery, and at least
// span/maxTicks in whole seconds.
func tickOf(p Limits, span time.Duration) time.Duration {
	every := max(p.Period, p.Long.Period, evictEvery)
	return max(every, (span/maxTicks).Truncate(time.Second)+time.Second)
}

// tally is what replaying some keys through one policy counted.
type tally struct {
	Denied, Never               int64
	OrdinaryDenied, HeavyDenied int64
	OverDenied                  [maxPeriods]int64
	MedianDenied, P99Denied     int64
	HeaviestDenied              int64
	// KindDenied are the denied requests of each kind of key (by index in
	// Rules), when the keys have kinds
	KindDenied [maxKinds]int64
	Retry      histogram.Histogram
	// Delayed are the requests accepted to wait (nginx without nodelay), of
	// ordinary keys and of heavy hitters, and how long they waited
	Delayed, OrdinaryDelayed, HeavyDelayed int64
	Delay                                  histogram.Histogram
	// State is the limiter state held just before each eviction instant, and
	// last at the end of the trace (see tickOf).
	State []int64
}

// add adds b's counts to a's.
func (a *tally) add(b *tally) {
	a.Denied += b.Denied
	a.Never += b.Never
	a.OrdinaryDenied += b.OrdinaryDenied
	a.HeavyDenied += b.HeavyDenied
	for i := range a.OverDenied {
		a.OverDenied[i] += b.OverDenied[i]
	}
	a.MedianDenied += b.MedianDenied
	a.P99Denied += b.P99Denied
	a.HeaviestDenied += b.HeaviestDenied
	for i := range a.KindDenied {
		a.KindDenied[i] += b.KindDenied[i]
	}
	a.Retry.Merge(&b.Retry)
	a.Delayed += b.Delayed
	a.OrdinaryDelayed += b.OrdinaryDelayed
	a.HeavyDelayed += b.HeavyDelayed
	a.Delay.Merge(&b.Delay)
	if len(a.State) < len(b.State) {
		a.State = append(a.State, make([]int64, len(b.State)-len(a.State))...)
	}
	for i, v := range b.State {
		a.State[i] += v
	}
}

// heavyBit marks a heavy hitter in kinds.class; bit i below it, a key standing
// out over Classes.Over[i].
const heavyBit = 1 << 7

// kinds say, per key, which classes it is in.
type kinds struct {
	class                 []uint8
	kind                  []uint8 // Classes.Kinds: nil without profiles
	median, p99, heaviest int
}

func newKinds(t *Trace, c Classes) *kinds {
	k := &kinds{class: make([]uint8, len(t.Keys)), median: -1, p99: -1, heaviest: -1}
	if len(t.Keys) == 0 {
		return k
	}
	k.median, k.p99, k.heaviest = c.Median, c.P99, c.Heaviest
	k.kind = c.Kinds
	for i, h := range c.Heavy {
		if h {
			k.class[i] |= heavyBit
		}
	}
	for i, o := range c.Over {
		for _, key := range o.Keys {
			k.class[key] |= 1 << i
		}
	}
	return k
}

// replay is one policy (or pair) being replayed over some keys' requests.
type replay struct {
	p     Limits
	t     *Trace
	k     *kinds
	lim   algorithms.Limiter
	long  algorithms.Limiter // nil for one limit
	check [2]algorithms.Checker
	every int64 // µs between eviction instants
	next  int64 // µs: the next eviction instant
	end   int64 // µs: the end of the trace
	tally tally
	// keys, when not nil, counts each key's denials in detail (KeyDenials)
	keys *KeyDenials
	// global puts every request under one key: one limit over all clients
	global bool
}

// newLimiter checks p against the trace and makes its limiter.
func newLimiter(t *Trace, p Policy) (algorithms.Limiter, error) {
	if err := p.exact(t.maxCost, t.Span); err != nil {
		return nil, err
	}
	if _, err := algorithms.Get(p.Algorithm); err != nil {
		return nil, err
	}
	return algorithms.New(p.Algorithm, p.policy(), p.Options())
}

func newReplay(t *Trace, p Limits, k *kinds) (*replay, error) {
	lim, err := newLimiter(t, p.Policy)
	if err != nil {
		return nil, err
	}
	every := int64(tickOf(p, t.Span) / time.Microsecond)
	r := &replay{p: p, t: t, k: k, lim: lim, every: every, next: every, end: int64(t.Span / time.Microsecond)}
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
	}
	return r, nil
}

// run replays the blocks' requests (in time order), stopping early when ctx is
// done.
func (r *replay) run(ctx context.Context, blocks [][]Request) {
	for _, block := range blocks {
		if ctx.Err() != nil {
			return
		}
		for _, q := range block {
			r.decide(q)
		}
	}
}

// state is the state the limiters hold.
func (r *replay) state() int64 {
	s := r.lim.StateBytes()
	if r.long != nil {
		s += r.long.StateBytes()
	}
	return s
}

// evictUntil samples the state and forgets idle keys at every eviction instant
// up to and including us.
func (r *replay) evictUntil(us int64) {
	for ; r.next <= us && r.next < r.end; r.next += r.every {
		r.tally.State = append(r.tally.State, r.state())
		now := time.Duration(r.next) * time.Microsecond
		r.lim.Evict(now)
		if r.long != nil {
			r.long.Evict(now)
		}
	}
}

// decide asks the limiter (or both, all or nothing) about one request.
func (r *replay) decide(q Request) {
	r.evictUntil(q.At)
	key, now, cost := r.t.Keys[q.Key], time.Duration(q.At)*time.Microsecond, int64(q.Cost)
	if r.global {
		key = "*"
	}
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
	t := &r.tally
	if d.Allowed {
		if d.Delay > 0 {
			t.Delayed++
			if r.k.class[q.Key]&heavyBit != 0 {
				t.HeavyDelayed++
			} else {
				t.OrdinaryDelayed++
			}
			t.Delay.Add(d.Delay)
		}
		return
	}
	t.Denied++
	class := r.k.class[q.Key]
	if class&heavyBit != 0 {
		t.HeavyDenied++
	} else {
		t.OrdinaryDenied++
	}
	for i := range maxPeriods {
		if class&(1<<i) != 0 {
			t.OverDenied[i]++
		}
	}
	if r.k.kind != nil {
		t.KindDenied[r.k.kind[q.Key]]++
	}
	if int(q.Key) == r.k.median {
		t.MedianDenied++
	}
	if int(q.Key) == r.k.p99 {
		t.P99Denied++
	}
	if int(q.Key) == r.k.heaviest {
		t.HeaviestDenied++
	}
	if k := r.keys; k != nil {
		k.Denied[q.Key]++
		if k.First[q.Key] < 0 {
			k.First[q.Key] = q.At
		}
		if q.At >= k.Cut {
			k.After[q.Key]++
		}
	}
	if d.RetryAfter == algorithms.Forever {
		t.Never++
	} else {
		t.Retry.Add(d.RetryAfter)
	}
}

// finish samples the state at the eviction instants left and at the trace's end,
// and returns the tally.
func (r *replay) finish() *tally {
	r.evictUntil(r.end)
	r.tally.State = append(r.tally.State, r.state())
	return &r.tally
}

// totals are what the results' shares are shares of: the requests offered by
// each class of key, over the whole trace (every part, every partition).
type totals struct {
	Count                 int64
	SpanMS                int64
	Keys                  int
	Ordinary, Heavy       int64
	Over                  [maxPeriods]int64
	Overs                 int // how many periods the keys were classed over
	OverKeys              [maxPeriods]int
	Median, P99, Heaviest int64 // the keys' volumes
	// Kind and KindKeys are the requests and the keys of each kind (by index
	// in Rules); Kinds says the keys have kinds
	Kind     [maxKinds]int64
	KindKeys [maxKinds]int
	Kinds    bool
}

func newTotals(t *Trace, c Classes) totals {
	o := totals{Count: t.Count, SpanMS: t.Span.Milliseconds(), Keys: t.KeyCount, Overs: len(c.Over)}
	for k, v := range t.Volume {
		if c.Heavy[k] {
			o.Heavy += v
		} else {
			o.Ordinary += v
		}
	}
	for i, ov := range c.Over {
		o.OverKeys[i] = len(ov.Keys)
		for _, k := range ov.Keys {
			o.Over[i] += t.Volume[k]
		}
	}
	if len(t.Volume) > 0 {
		o.Median, o.P99, o.Heaviest = t.Volume[c.Median], t.Volume[c.P99], t.Volume[c.Heaviest]
	}
	if c.Kinds != nil {
		o.Kinds = true
		for k, kind := range c.Kinds {
			o.Kind[kind] += t.Volume[k]
			o.KindKeys[kind]++
		}
	}
	return o
}

// finalize turns every policy's tally into its result.
func finalize(tallies []tally, limits []Limits, o totals) []Result {
	out := make([]Result, len(tallies))
	for i := range tallies {
		out[i] = o.result(limits[i], &tallies[i])
	}
	return out
}

// result is the figures of one policy's tally.
func (o totals) result(p Limits, t *tally) Result {
	share := func(part, whole int64) float64 {
		if whole == 0 {
			return 0
		}
		return float64(part) / float64(whole)
	}
	res := Result{Limits: p, Requests: o.Count, Denied: t.Denied, Never: t.Never}
	for _, s := range t.State {
		res.PeakStateBytes = max(res.PeakStateBytes, s)
	}
	res.DeniedShare = share(t.Denied, o.Count)
	res.OrdinaryDenied = share(t.OrdinaryDenied, o.Ordinary)
	res.HeavyAdmitted = 1 - share(t.HeavyDenied, o.Heavy)
	res.WorstKindAdmitted = -1
	for i := range o.Overs {
		res.OverAdmitted[i] = 1 - share(t.OverDenied[i], o.Over[i])
		if o.OverKeys[i] > 0 {
			res.WorstKindAdmitted = max(res.WorstKindAdmitted, res.OverAdmitted[i])
		}
	}
	if res.WorstKindAdmitted < 0 {
		res.WorstKindAdmitted = res.HeavyAdmitted
	}
	if o.Keys > 0 {
		res.MedianKeyDenied = share(t.MedianDenied, o.Median)
		res.P99KeyDenied = share(t.P99Denied, o.P99)
		span := max(float64(o.SpanMS)/1000, 1)
		res.HeaviestOffered = float64(o.Heaviest) / span
		res.HeaviestAdmitted = float64(o.Heaviest-t.HeaviestDenied) / span
	}
	res.AbuseAdmitted, res.AbuseHeld, res.KindDenied = -1, false, t.KindDenied
	if o.Kinds {
		res.AbuseHeld = true
		for i, rule := range Rules {
			if !rule.Abusive {
				res.OthersDenied += t.KindDenied[i]
				continue
			}
			if o.KindKeys[i] > 0 {
				res.AbuseAdmitted = max(res.AbuseAdmitted, 1-share(t.KindDenied[i], o.Kind[i]))
				res.AbuseHeld = res.AbuseHeld && held(t.KindDenied[i], o.Kind[i])
			}
		}
		if res.AbuseAdmitted < 0 {
			res.AbuseHeld = false
		}
	} else {
		res.OthersDenied = t.Denied
	}
	res.RetryAfterP50, res.RetryAfterP99 = t.Retry.Quantile(0.5), t.Retry.Quantile(0.99)
	res.Delayed = t.Delayed
	res.DelayedShare, res.OrdinaryDelayed, res.HeavyDelayed = share(t.Delayed, o.Count), share(t.OrdinaryDelayed, o.Ordinary), share(t.HeavyDelayed, o.Heavy)
	if t.Delayed > 0 {
		res.DelayP50, res.DelayP99 = t.Delay.Quantile(0.5), t.Delay.Quantile(0.99)
	}
	return res
}
