package algorithms

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// EnvoyLocalName is Envoy's local rate limit filter
// (envoy.filters.http.local_ratelimit) as a lane, in scenario files and on the
// command line.
const EnvoyLocalName Name = "envoy-local"

// envoyLocalOptions are the Envoy local lane's scenario keys.
var envoyLocalOptions = []Option{
	{Key: "envoy_version", Doc: `the Envoy release whose token bucket the lane runs: "1.30" or older, a timer that refills the whole tokens_per_fill every fill_interval; "1.31" or newer (default), refilled continuously when accessed`,
		set: func(o Options) string { return setIf(o.EnvoyVersion != "", "envoy_version") }},
	{Key: "config_load_at", Doc: "timer bucket (envoy_version <= 1.30): when the config was loaded, from the run's start; the fill timer fires every fill_interval after it; default 0",
		set: func(o Options) string { return setIf(o.ConfigLoadAt != 0, "config_load_at") }},
}

// EnvoyTimerBucket says an Envoy release (envoy_version, "1.30") runs the
// timer-based token bucket: every release up to 1.30. From 1.31 the timer-free
// bucket is the default (changelogs/1.31.0.yaml, runtime guard
// envoy.reloadable_features.no_timer_based_rate_limit_token_bucket), and 1.34
// removed the timer. "" is the newest. An error names a version it cannot read.
func EnvoyTimerBucket(version string) (bool, error) {
	if version == "" {
		return false, nil
	}
	major, minor, ok := strings.Cut(version, ".")
	m, err1 := strconv.Atoi(major)
	n, err2 := strconv.Atoi(strings.SplitN(minor, ".", 2)[0])
	if !ok || err1 != nil || err2 != nil || m != 1 || n < 0 {
		return false, fmt.Errorf("envoy_version %q is not an Envoy release; write one such as \"1.30\" (timer bucket) or \"1.31\" (timer-free)", version)
	}
	return n <= 30, nil
}

// EnvoyLocal is one token bucket of Envoy's local rate limit filter: the
// filter's default bucket, or a descriptor's (one per key: a key is a descriptor
// value; a key template naming no {key} is the filter's one shared bucket). Its
// token_bucket is max_tokens = Burst, tokens_per_fill = Limit, fill_interval =
// Period. Both kinds start full. Sources, envoyproxy/envoy:
// source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc at
// 5a6c7aa8 (1.31–1.33: TimerTokenBucket::{consume,onFillTimer},
// AtomicTokenBucket::consume, LocalRateLimiterImpl::requestAllowed) and
// source/common/common/token_bucket_impl.h (AtomicTokenBucketImpl::consume).
//
// Timer bucket (envoy_version ≤ 1.30): an integer count of tokens. A request
// takes one token, whatever its cost (TimerTokenBucket::consume ignores it), and
// is refused when none is left, changing nothing. A timer armed at config load
// (config_load_at) fires every fill_interval and adds tokens_per_fill, capped at
// max_tokens: refill comes in whole steps, so after a drain nothing passes until
// the next fire, and with fill_interval 60s every key refills at once at each
// fire. A fire at the same microsecond as a request comes first. Not modelled:
// the phase drift of the re-armed timer (its callback latency), the share factor
// of local_cluster_rate_limit, and Envoy's refusal of a fill_interval under
// 50 ms (the lane runs it).
//
// Timer-free bucket (envoy_version ≥ 1.31, default): one double, the time t0 in
// seconds at which the bucket was empty; tokens(now) = min(max_tokens, (now − t0)
// × fill_rate), fill_rate = tokens_per_fill / fill_interval in tokens per second
// (doubles, as AtomicTokenBucketImpl computes them), and at least a token a year:
// AtomicTokenBucketImpl's constructor takes max(|fill_rate|, kMinFillRate), and
// kMinFillRate is 1/(365 × 24 × 60 × 60) (source/common/common/token_bucket_impl.cc,
// from the atomic bucket's first version, PR #34789; the same clamp is in
// TokenBucketImpl at 040783c8; its test AtomicTokenBucketImplTest.YearlyMinRefillRate),
// so a fill_interval of two years refills a token a year. A request of cost c is
// refused when tokens < c (nothing changes), else t0 = now − (tokens − c) /
// fill_rate. A new bucket has t0 = now − max_tokens / fill_rate. The clock is
// the run's time in double seconds (Envoy's is the monotonic clock since boot:
// the rounding of its doubles differs at that magnitude).
//
// Decision: Remaining is the tokens left (the header's x-ratelimit-remaining
// truncates them), Limit max_tokens; a refusal's RetryAfter is exact to the µs
// (the next fire, or the first µs at which the doubles reach the cost).
//
// Several descriptors per request: EnvoyLocalRequest charges them as
// requestAllowed does. A scenario's multi-limit lane with combine = "in-order"
// and its limits listed slowest first, the default bucket last, decides the same
// (in-order stops at the first refusal and keeps what earlier limits took).
//
// Time going backwards: timer fires already applied stay applied; the
// timer-free bucket takes the earlier now as Envoy's arithmetic would (tokens
// computed from it, possibly none). Eviction forgets a timer bucket that is full
// (a new one is); a timer-free bucket is kept, because a new one's t0 rounds
// differently from an old full one's and could refuse a full-bucket request.
type EnvoyLocal struct {
	policy   Policy
	timer    bool
	loadUS   int64   // timer: config load, µs from the origin
	fillUS   int64   // timer: fill_interval in µs
	rate     float64 // timer-free: fill_rate, tokens per second
	maxToken float64
	keyed[EnvoyLocalState]
}

// EnvoyLocalState is one bucket: Tokens and Fires (the timer's fires applied so
// far) for the timer bucket, T0 (seconds) for the timer-free one.
type EnvoyLocalState struct {
	Tokens int64
	Fires  int64
	T0     float64
}

// envoyLocalStateBytes is a bucket's state: one 8-byte number either way.
const envoyLocalStateBytes = 8

// envoyMinFillRate is AtomicTokenBucketImpl's kMinFillRate: a token a year, in
// tokens a second (source/common/common/token_bucket_impl.cc).
const envoyMinFillRate = 1.0 / (365 * 24 * 60 * 60)

// NewEnvoyLocal returns Envoy's local rate limit bucket for p: the timer bucket
// (armed at configLoad) when timer, else the timer-free one.
func NewEnvoyLocal(p Policy, timer bool, configLoad time.Duration) *EnvoyLocal {
	p = p.WithDefaults()
	return &EnvoyLocal{
		policy:   p,
		timer:    timer,
		loadUS:   toMicros(configLoad),
		fillUS:   toMicros(p.Period),
		rate:     math.Max(float64(p.Limit)/(float64(toMicros(p.Period))/1e6), envoyMinFillRate),
		maxToken: float64(p.Burst),
		keyed:    newKeyed[EnvoyLocalState](),
	}
}

func (e *EnvoyLocal) Algorithm() Name   { return EnvoyLocalName }
func (e *EnvoyLocal) Policy() Policy    { return e.policy }
func (e *EnvoyLocal) StateBytes() int64 { return e.keyBytes + int64(e.Keys())*envoyLocalStateBytes }

// FillRate is the rate by which requestAllowed sorts the matched descriptors:
// the timer-free bucket's fill_rate in tokens per second (a double, at
// 5a6c7aa8; RateLimitTokenBucket::fillRate is the token bucket's, a token a
// year at least); the timer bucket's tokensFillPerSecond, tokens_per_fill divided by
// the whole seconds of fill_interval, an integer division in which an interval
// under a second counts as one (local_ratelimit_impl.cc at 016c0c80, a
// timer-only version: 2 tokens per 100 ms sort as 2 per second).
func (e *EnvoyLocal) FillRate() float64 {
	if e.timer {
		return float64(e.policy.Limit / max(1, int64(e.policy.Period/time.Second)))
	}
	return e.rate
}

// seconds is n µs as the double seconds Envoy's timer-free bucket reads.
func seconds(n int64) float64 { return float64(n) / 1e6 }

// firesBy is how many timer fires have happened by n µs (a fire at n included).
func (e *EnvoyLocal) firesBy(n int64) int64 { return max(0, floorDiv(n-e.loadUS, e.fillUS)) }

// fresh is a new bucket at n: full.
func (e *EnvoyLocal) fresh(n int64) EnvoyLocalState {
	if e.timer {
		return EnvoyLocalState{Tokens: e.policy.Burst, Fires: e.firesBy(n)}
	}
	return EnvoyLocalState{T0: seconds(n) - e.maxToken/e.rate}
}

// tokens is the timer-free bucket's tokens at n.
func (e *EnvoyLocal) tokens(s EnvoyLocalState, n int64) float64 {
	return math.Min(e.maxToken, (seconds(n)-s.T0)*e.rate)
}

// refill applies the timer fires up to n.
func (e *EnvoyLocal) refill(s *EnvoyLocalState, n int64) {
	if k := e.firesBy(n); k > s.Fires {
		s.Tokens = min(e.policy.Burst, s.Tokens+(k-s.Fires)*e.policy.Limit)
		s.Fires = k
	}
}

// decide decides on s at n and updates it in place.
func (e *EnvoyLocal) decide(s *EnvoyLocalState, key string, n, cost int64) Decision {
	d := Decision{Limit: e.policy.Burst}
	if e.timer {
		e.refill(s, n)
		if s.Tokens > 0 {
			s.Tokens--
			d.Allowed = true
		} else {
			d.RetryAfter = jitter(e.loadUS+(s.Fires+1)*e.fillUS-n, JitterFactor(key, e.policy.RetryJitter))
		}
		d.Remaining = float64(s.Tokens)
		if missing := e.policy.Burst - s.Tokens; missing > 0 {
			d.ResetAfter = fromMicros(e.loadUS + (s.Fires+ceilDiv(missing, e.policy.Limit))*e.fillUS - n)
		}
		return d
	}
	total := e.tokens(*s, n)
	c := float64(cost)
	switch {
	case cost > e.policy.Burst:
		d.RetryAfter = Forever
		d.Remaining = math.Max(0, total)
	case total < c:
		d.RetryAfter = jitter(e.firstAccepting(*s, n, c)-n, JitterFactor(key, e.policy.RetryJitter))
		d.Remaining = math.Max(0, total)
	default:
		d.Allowed = true
		s.T0 = seconds(n) - (total-c)/e.rate
		d.Remaining = math.Max(0, e.tokens(*s, n)) // as remainingTokens reads it back
	}
	if d.Remaining < e.maxToken {
		d.ResetAfter = fromMicros(max(0, int64(math.Ceil((e.maxToken-d.Remaining)/e.rate*1e6))))
	}
	return d
}

// firstAccepting is the first µs after n at which s's bucket holds c tokens, by
// the bucket's own doubles: an estimate, settled on the µs either side.
func (e *EnvoyLocal) firstAccepting(s EnvoyLocalState, n int64, c float64) int64 {
	us := max(n+1, int64(math.Ceil((s.T0+c/e.rate)*1e6)))
	for us > n+1 && e.tokens(s, us-1) >= c {
		us--
	}
	for e.tokens(s, us) < c {
		us++
	}
	return us
}

// Allow charges key's bucket as Envoy's consume does.
func (e *EnvoyLocal) Allow(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	s, ok := e.state(key)
	if !ok {
		f := e.fresh(n)
		s = e.add(key, &f)
	}
	return e.decide(s, key, n, cost)
}

// Check is what Allow would decide, and changes nothing.
func (e *EnvoyLocal) Check(key string, now time.Duration, cost int64) Decision {
	n := toMicros(now)
	s := e.fresh(n)
	if st, ok := e.state(key); ok {
		s = *st
	}
	return e.decide(&s, key, n, cost)
}

// Level is the tokens in key's bucket at now.
func (e *EnvoyLocal) Level(key string, now time.Duration) float64 {
	n := toMicros(now)
	s := e.fresh(n)
	if st, ok := e.state(key); ok {
		s = *st
	}
	if e.timer {
		e.refill(&s, n)
		return float64(s.Tokens)
	}
	return math.Max(0, e.tokens(s, n))
}

// Evict forgets timer buckets that are full at now (see EnvoyLocal).
func (e *EnvoyLocal) Evict(now time.Duration) int {
	if !e.timer {
		return 0
	}
	n := toMicros(now)
	return e.evict(func(s *EnvoyLocalState) bool {
		c := *s
		e.refill(&c, n)
		return c.Tokens == e.policy.Burst && s.Fires <= e.firesBy(n)
	})
}

// EnvoyDescriptor is one descriptor a request matched: its bucket and the key
// its state is under.
type EnvoyDescriptor struct {
	Bucket *EnvoyLocal
	Key    string
}

// EnvoyLocalRequest is LocalRateLimiterImpl::requestAllowed: the matched
// descriptors' buckets are sorted by FillRate, slowest first (std::sort; equal
// rates keep the order given here, which Envoy leaves unspecified), and charged
// in turn; the first refusal refuses the request and what the buckets before it
// took stays taken (no rollback). Then, when no descriptor matched or
// alwaysConsumeDefault (always_consume_default_token_bucket, default true), the
// default bucket is charged. It returns the decision of the bucket that refused,
// or of the first bucket charged, and that bucket's index in matched (−1: the
// default).
func EnvoyLocalRequest(matched []EnvoyDescriptor, def EnvoyDescriptor, alwaysConsumeDefault bool, now time.Duration, cost int64) (Decision, int) {
	order := make([]int, len(matched))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return matched[order[a]].Bucket.FillRate() < matched[order[b]].Bucket.FillRate() })
	var first Decision
	for i, m := range order {
		d := matched[m].Bucket.Allow(matched[m].Key, now, cost)
		if !d.Allowed {
			return d, m
		}
		if i == 0 {
			first = d
		}
	}
	if len(matched) == 0 || alwaysConsumeDefault {
		if def.Bucket != nil {
			d := def.Bucket.Allow(def.Key, now, cost)
			if !d.Allowed || len(matched) == 0 {
				return d, -1
			}
		}
	}
	if len(matched) == 0 {
		return Decision{Allowed: true}, -1
	}
	return first, order[0]
}
