package conformance

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/algorithms/redislua"
	"ratelab/internal/redistest"
)

// lane is one algorithm with its options, as a scenario's lane names it.
type lane struct {
	label     string
	algorithm algorithms.Name
	opts      algorithms.Options
}

// lanes are every algorithm in each of its modes that decides differently.
var lanes = []lane{
	{"fixed-window", algorithms.FixedWindowName, algorithms.Options{}},
	{"fixed-window (random start, rollover)", algorithms.FixedWindowName, algorithms.Options{RandomStart: true, Rollover: 1}},
	{"sliding-log", algorithms.SlidingLogName, algorithms.Options{}},
	{"sliding-counter", algorithms.SlidingCounterName, algorithms.Options{}},
	{"leaky-bucket (queue)", algorithms.LeakyBucketName, algorithms.Options{Mode: algorithms.LeakyQueue}},
	{"leaky-bucket (meter)", algorithms.LeakyBucketName, algorithms.Options{Mode: algorithms.LeakyMeter}},
	{"token-bucket", algorithms.TokenBucketName, algorithms.Options{MonotonicTimestamp: true}},
	{"token-bucket (fix off)", algorithms.TokenBucketName, algorithms.Options{}},
	{"gcra", algorithms.GCRAName, algorithms.Options{}},
	{"x-time-rate", algorithms.XTimeRateName, algorithms.Options{}},
	{"guava", algorithms.GuavaName, algorithms.Options{}},
	{"guava (warm-up)", algorithms.GuavaName, algorithms.Options{Warmup: 2 * time.Second}},
	{"envoy-local", algorithms.EnvoyLocalName, algorithms.Options{}},
	{"envoy-local (1.30 timer)", algorithms.EnvoyLocalName, algorithms.Options{EnvoyVersion: "1.30", ConfigLoadAt: 123456 * time.Microsecond}},
	{"guava (acquire timeout)", algorithms.GuavaName, algorithms.Options{AcquireTimeout: 300 * time.Millisecond}},
	{"haproxy", algorithms.HAProxyName, algorithms.Options{}},
	{"haproxy (after-deny)", algorithms.HAProxyName, algorithms.Options{TrackSC: algorithms.TrackAfterDeny}},
	{"haproxy (expire 700ms)", algorithms.HAProxyName, algorithms.Options{Expire: 700 * time.Millisecond}},
	{"haproxy (1.7)", algorithms.HAProxyName, algorithms.Options{HAProxyVersion: "1.7"}},
	{"haproxy (2.2.11, expire 3s)", algorithms.HAProxyName, algorithms.Options{HAProxyVersion: "2.2.11", Expire: 3 * time.Second}},
	{"nginx", algorithms.NginxName, algorithms.Options{}},
	{"nginx (nodelay)", algorithms.NginxName, algorithms.Options{Nodelay: true}},
	{"nginx (delay=1)", algorithms.NginxName, algorithms.Options{Delay: 1}},
	{"nginx (dry run)", algorithms.NginxName, algorithms.Options{DryRun: true}},
	{"envoy-global", algorithms.EnvoyGlobalName, algorithms.Options{}},
	{"envoy-global (shadow_mode)", algorithms.EnvoyGlobalName, algorithms.Options{ShadowMode: true}},
	{"cloudflare (throttle)", algorithms.CloudflareName, algorithms.Options{}},
	{"cloudflare (mitigation)", algorithms.CloudflareName, algorithms.Options{MitigationTimeout: time.Minute}},
	{"cloudflare (blocked counted)", algorithms.CloudflareName, algorithms.Options{MitigationTimeout: 10 * time.Second, CountBlocked: true}},
	{"api-gateway", algorithms.APIGatewayName, algorithms.Options{}},
	{"api-gateway (quota)", algorithms.APIGatewayName, algorithms.Options{QuotaLimit: 20, QuotaPeriod: algorithms.QuotaDay, QuotaOffset: 5}},
	{"spring", algorithms.SpringName, algorithms.Options{}},
	{"traefik", algorithms.TraefikName, algorithms.Options{}},
	{"traefik-redis", algorithms.TraefikRedisName, algorithms.Options{}},
	{"kong", algorithms.KongName, algorithms.Options{}},
	{"kong (redis)", algorithms.KongName, algorithms.Options{KongPolicy: algorithms.KongRedis, KongWindows: algorithms.KongWindows{algorithms.KongDay: 1000}}},
	{"kong (increment delay)", algorithms.KongName, algorithms.Options{KongIncrementDelay: 3 * time.Millisecond}},
	{"gubernator", algorithms.GubernatorName, algorithms.Options{}},
}

// admitted is p, or, for a product lane configured only in its product's units
// (algorithms.Info.CheckPolicy: nginx takes a rate per second or per minute),
// p with the first of 1s, 10s and 1m it takes; an nginx delay is kept within
// nginx's burst (the policy's less one).
func admitted(l *lane, p algorithms.Policy) algorithms.Policy {
	if l.opts.Delay > 0 {
		l.opts.Delay = min(l.opts.Delay, p.WithDefaults().Burst-1)
	}
	a, _ := algorithms.Lookup(l.algorithm)
	if a.CheckPolicy == nil || a.CheckPolicy(p.WithDefaults(), l.opts) == nil {
		return p
	}
	for _, period := range []time.Duration{time.Second, 10 * time.Second, time.Minute} {
		q := p
		q.Period = period
		if a.CheckPolicy(q.WithDefaults(), l.opts) == nil {
			return q
		}
	}
	panic(fmt.Sprintf("%s takes none of the periods 1s, 10s, 1m for %s", l.label, p))
}

// laneNamed returns the lane labelled label.
func laneNamed(label string) lane {
	for _, l := range lanes {
		if l.label == label {
			return l
		}
	}
	panic("no lane " + label)
}

// backend builds limiters: in memory, or as Lua on a redis-server.
type backend struct {
	name string
	// build returns the lane's limiter enforcing p, and false when the lane has
	// no port on this backend.
	build func(t *testing.T, l lane, p algorithms.Policy) (algorithms.Limiter, bool)
}

var memory = backend{name: "memory", build: func(t *testing.T, l lane, p algorithms.Policy) (algorithms.Limiter, bool) {
	t.Helper()
	lim, err := algorithms.New(l.algorithm, p, l.opts)
	if err != nil {
		t.Fatal(err)
	}
	return lim, true
}}

// redisBackend starts a redis-server for t (skipped without one, a failure in CI)
// and returns the backend that runs each lane's script there, every limiter under
// a lane name of its own.
func redisBackend(t *testing.T) backend {
	t.Helper()
	srv := redistest.Start(t)
	s, err := redislua.Open(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	n := 0
	return backend{name: "redis", build: func(t *testing.T, l lane, p algorithms.Policy) (algorithms.Limiter, bool) {
		t.Helper()
		if info, _ := algorithms.Lookup(l.algorithm); info.Redis == nil {
			return nil, false
		}
		n++
		lim, err := redislua.NewLimiter(s, redislua.Config{Lane: fmt.Sprintf("l%d", n), Algorithm: l.algorithm, Policy: p, Options: l.opts})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(lim.Close)
		return lim, true
	}}
}

// backends are memory and Redis.
func backends(t *testing.T) []backend { return []backend{memory, redisBackend(t)} }

// step is one call at a fixed instant and what the limiter must answer.
type step struct {
	check   bool // Check instead of Allow
	at      time.Duration
	cost    int64  // 0 means 1
	key     string // "" means "k"
	allowed bool
	// retry, when not 0, is the RetryAfter the denial must carry (Forever allowed).
	retry time.Duration
	// remaining, when not nil, is the Remaining the decision must carry exactly.
	remaining *float64
	// header, when not nil, is the r= of the draft RateLimit header.
	header *int64
	// delay is the Delay the decision must carry.
	delay time.Duration
}

func f(x float64) *float64 { return &x }
func n(x int64) *int64     { return &x }

func ms(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }

// runSteps makes the steps in order on lim and reports each wrong answer as
// "step 3: token-bucket.Allow(k, 1.001s, cost 1) = false, want true".
func runSteps(t *testing.T, lim algorithms.Limiter, steps []step) {
	t.Helper()
	for i, s := range steps {
		cost, key := max(s.cost, 1), s.key
		if key == "" {
			key = "k"
		}
		call := "Allow"
		var d algorithms.Decision
		if s.check {
			call = "Check"
			d = lim.(algorithms.Checker).Check(key, s.at, cost)
		} else {
			d = lim.Allow(key, s.at, cost)
		}
		what := fmt.Sprintf("step %d: %s.%s(%s, %v, cost %d)", i, lim.Algorithm(), call, key, s.at, cost)
		var wrong []string
		if d.Allowed != s.allowed {
			wrong = append(wrong, fmt.Sprintf("= %v, want %v (retry-after %s, remaining %v)", d.Allowed, s.allowed, duration(d.RetryAfter), d.Remaining))
		}
		if s.retry != 0 && d.RetryAfter != s.retry {
			wrong = append(wrong, fmt.Sprintf("retry-after = %s, want %s", duration(d.RetryAfter), duration(s.retry)))
		}
		if s.remaining != nil && d.Remaining != *s.remaining {
			wrong = append(wrong, fmt.Sprintf("remaining = %v, want %v", d.Remaining, *s.remaining))
		}
		if s.header != nil {
			if got := draftRemaining(lim.Policy(), d); got != *s.header {
				wrong = append(wrong, fmt.Sprintf("header r=%d, want r=%d (remaining %v)", got, *s.header, d.Remaining))
			}
		}
		if d.Delay != s.delay {
			wrong = append(wrong, fmt.Sprintf("delay = %v, want %v", d.Delay, s.delay))
		}
		if len(wrong) > 0 {
			t.Errorf("%s %s", what, strings.Join(wrong, "; "))
		}
	}
}

// duration prints d, and Forever by its name.
func duration(d time.Duration) string {
	if d == algorithms.Forever {
		return "Forever"
	}
	return d.String()
}

// draftRemaining is the r= member of the draft RateLimit header rendered for d.
func draftRemaining(p algorithms.Policy, d algorithms.Decision) int64 {
	for _, h := range algorithms.Headers("q", p, d) {
		if h.Name != "RateLimit" {
			continue
		}
		for _, param := range strings.Split(h.Value, ";") {
			var r int64
			if _, err := fmt.Sscanf(param, "r=%d", &r); err == nil {
				return r
			}
		}
	}
	return math.MinInt64
}

// onEveryBackend runs fn as a subtest per backend and per lane that has a port
// there, each with a fresh limiter enforcing p.
func onEveryBackend(t *testing.T, labels []string, p algorithms.Policy, fn func(t *testing.T, l lane, lim algorithms.Limiter)) {
	for _, b := range backends(t) {
		for _, label := range labels {
			l := laneNamed(label)
			if info, _ := algorithms.Lookup(l.algorithm); b.name == "redis" && info.Redis == nil {
				continue // no Lua port: the lane runs in memory only
			}
			t.Run(b.name+"/"+label, func(t *testing.T) {
				lim, _ := b.build(t, l, p)
				fn(t, l, lim)
			})
		}
	}
}
