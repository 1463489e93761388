package conformance

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// The promises every limiter makes on every backend, checked after every decision
// of seeded random traces (skewed clocks, idle hours, costs above the capacity):
//
//   - RetryAfter is honoured to the microsecond: the same request, stamped by the
//     same clock, is accepted at now + RetryAfter and refused at
//     now + RetryAfter − 1µs (jitter off); Forever means it is refused whenever
//     it comes;
//   - Remaining is never negative without reservations (with them, never below
//     −max_reserved);
//   - the header's remaining (the draft's r=) agrees with Check: r units would be
//     accepted now (at once, for a bucket with reservations) and r + 1 would not.
//
// Check is what Allow would decide at that moment without deciding, so these ask
// the state the decision left; on Redis it is the script's 'check' mode.

// withReservations is the token bucket that schedules work (max_reserved).
var withReservations = lane{"token-bucket (reservations)", algorithms.TokenBucketName, algorithms.Options{MonotonicTimestamp: true, MaxReserved: 1}}

// propertyLanes are every lane, and the token bucket with reservations.
func propertyLanes() []lane { return append(append([]lane(nil), lanes...), withReservations) }

func TestPropertiesOnEveryBackend(t *testing.T) {
	seeds := map[string]int{"memory": 60, "redis": 12}
	for _, b := range backends(t) {
		for _, l := range propertyLanes() {
			if info, _ := algorithms.Lookup(l.algorithm); b.name == "redis" && info.Redis == nil {
				continue // no Lua port: the lane runs in memory only
			}
			t.Run(b.name+"/"+l.label, func(t *testing.T) {
				for seed := uint64(1); seed <= uint64(seeds[b.name]); seed++ {
					if err := checkProperties(t, b, l, seed); err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
				}
			})
		}
	}
}

// checkProperties runs one seeded trace through a fresh limiter of lane l on b
// and checks every promise after every decision, but those its product does not
// make (waivers).
func checkProperties(t *testing.T, b backend, l lane, seed uint64) error {
	return checkPropertiesWaiving(t, b, l, seed, waivers[l.label])
}

// checkPropertiesWaiving is checkProperties with the promises named in waived
// left unchecked.
func checkPropertiesWaiving(t *testing.T, b backend, l lane, seed uint64, waived map[string]string) error {
	r := rand.New(rand.NewPCG(seed, 18))
	p := admitted(&l, randomPolicy(r))
	if l.opts.MaxReserved > 0 {
		l.opts.MaxReserved = 1 + r.Int64N(2*p.Burst)
	}
	if l.opts.Rollover > 0 {
		l.opts.Rollover = r.Int64N(p.Limit + 1)
	}
	capacity := algorithms.Capacity(l.algorithm, p, l.opts)
	trace := randomTrace(r, p, traceShape{n: 150, capacity: capacity, maxCost: capacity + 3, keys: 3, skewed: true, hours: true})
	if err := p.Validate(capacity + 3); err != nil {
		return err
	}
	if err := p.CheckHorizon(horizon(trace) + 100*p.Period); err != nil {
		return err
	}
	lim, _ := b.build(t, l, p)
	check := lim.(algorithms.Checker).Check
	for i, q := range trace {
		d := lim.Allow(q.Key, q.Now, q.Cost)
		where := func(format string, args ...any) error {
			return fmt.Errorf("%s, %+v: request %d (%s at %v from node %d, cost %d) = %+v: %s", p, l.opts, i, q.Key, q.Now, q.node, q.Cost, d, fmt.Sprintf(format, args...))
		}
		_, early := waived["retry-after"]
		_, late := waived["retry-after-honoured"]
		// Remaining
		if _, ok := waived["remaining"]; !ok {
			if floor := -float64(l.opts.MaxReserved); d.Remaining < floor {
				return where("remaining %v is below %v", d.Remaining, floor)
			}
		}
		// RetryAfter
		switch {
		case d.Allowed:
			if d.RetryAfter != 0 {
				return where("an acceptance with a retry-after")
			}
		case d.RetryAfter == algorithms.Forever:
			if q.Cost <= capacity {
				return where("refused for ever a cost within the capacity %d", capacity)
			}
			if later := check(q.Key, q.Now+100*p.Period, q.Cost); later.Allowed {
				return where("refused for ever, but accepted 100 periods later")
			}
		case d.RetryAfter <= 0:
			return where("a denial with no retry-after")
		default:
			if at := check(q.Key, q.Now+d.RetryAfter, q.Cost); !at.Allowed && !late {
				return where("the same request at now + retry-after is refused again: %+v", at)
			}
			if c := check(q.Key, q.Now+d.RetryAfter-time.Microsecond, q.Cost); c.Allowed && !early {
				return where("the same request is accepted a microsecond before now + retry-after")
			}
		}
		if _, ok := waived["header"]; ok {
			continue
		}
		// headers
		rem := draftRemaining(p, d)
		if rem < 0 {
			return where("the header's remaining is r=%d", rem)
		}
		if rem > 0 {
			if c := check(q.Key, q.Now, rem); !c.Allowed || (l.opts.MaxReserved > 0 && c.Delay > 0) {
				return where("the header says r=%d, but Check(%d) = %+v", rem, rem, c)
			}
		}
		if c := check(q.Key, q.Now, rem+1); c.Allowed && (l.opts.MaxReserved == 0 || c.Delay == 0) {
			return where("the header says r=%d, but Check(%d) accepts at once: %+v", rem, rem+1, c)
		}
	}
	return nil
}

// The checks can fail: a limiter that tells a request stamped before the key's
// time to come back too early, a negative remaining, a header one short.
func TestPropertiesCatchBrokenLimiters(t *testing.T) {
	for _, tc := range []struct {
		name   string
		broken func(algorithms.Limiter) algorithms.Limiter
		want   string
	}{
		{"retry-after short", func(l algorithms.Limiter) algorithms.Limiter {
			return shifted{l, func(d *algorithms.Decision) {
				if !d.Allowed && d.RetryAfter != algorithms.Forever {
					d.RetryAfter -= 50 * time.Millisecond
				}
			}}
		}, "refused again"},
		{"negative remaining", func(l algorithms.Limiter) algorithms.Limiter {
			return shifted{l, func(d *algorithms.Decision) {
				if d.Remaining < 1 {
					d.Remaining -= 1
				}
			}}
		}, "is below"},
		{"header one short", func(l algorithms.Limiter) algorithms.Limiter {
			return shifted{l, func(d *algorithms.Decision) {
				if d.Remaining >= 1 {
					d.Remaining -= 1e-9
				}
			}}
		}, "the header says"},
	} {
		b := backend{name: "broken", build: func(t *testing.T, l lane, p algorithms.Policy) (algorithms.Limiter, bool) {
			lim, _ := memory.build(t, l, p)
			return tc.broken(lim), true
		}}
		failed := ""
		for seed := uint64(1); seed <= 20 && failed == ""; seed++ {
			if err := checkProperties(t, b, laneNamed("token-bucket"), seed); err != nil {
				failed = err.Error()
			}
		}
		if !strings.Contains(failed, tc.want) {
			t.Errorf("%s: the properties said %q, want a failure containing %q", tc.name, failed, tc.want)
		}
	}
}

// shifted is a limiter whose every decision (Allow and Check) is bent by bend.
type shifted struct {
	algorithms.Limiter
	bend func(*algorithms.Decision)
}

func (s shifted) Allow(key string, now time.Duration, cost int64) algorithms.Decision {
	d := s.Limiter.Allow(key, now, cost)
	s.bend(&d)
	return d
}

func (s shifted) Check(key string, now time.Duration, cost int64) algorithms.Decision {
	d := s.Limiter.(algorithms.Checker).Check(key, now, cost)
	s.bend(&d)
	return d
}

// Memory and Redis make the same decisions, to the last bit, on the same skewed
// traces (algorithms/redislua's own differential test covers pipelines, random
// options and a cluster; this one adds idle hours, costs above the capacity and
// several clocks), and report the same levels after them.
func TestMemoryAndRedisDecideAlike(t *testing.T) {
	red := redisBackend(t)
	for _, l := range propertyLanes() {
		if info, _ := algorithms.Lookup(l.algorithm); info.Redis == nil {
			continue
		}
		t.Run(l.label, func(t *testing.T) {
			for seed := uint64(1); seed <= 12; seed++ {
				r := rand.New(rand.NewPCG(seed, 81))
				p := admitted(&l, randomPolicy(r))
				o := l.opts
				if o.MaxReserved > 0 {
					o.MaxReserved = 1 + r.Int64N(2*p.Burst)
				}
				ln := lane{l.label, l.algorithm, o}
				capacity := algorithms.Capacity(l.algorithm, p, o)
				trace := randomTrace(r, p, traceShape{n: 150, capacity: capacity, maxCost: capacity + 3, keys: 3, skewed: true, hours: true})
				mem, _ := memory.build(t, ln, p)
				rl, _ := red.build(t, ln, p)
				for i, q := range trace {
					a, b := mem.Allow(q.Key, q.Now, q.Cost), rl.Allow(q.Key, q.Now, q.Cost)
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("seed %d, %s, %+v: request %d (%s at %v, cost %d): memory %+v, redis %+v", seed, p, o, i, q.Key, q.Now, q.Cost, a, b)
					}
					if a, b := mem.Level(q.Key, q.Now), rl.Level(q.Key, q.Now); a != b {
						t.Fatalf("seed %d, %s, %+v: level of %s at %v after request %d: memory %v, redis %v", seed, p, o, q.Key, q.Now, i, a, b)
					}
				}
			}
		})
	}
}

// waivers are the promises a product lane does not make because the product
// does not make them, each with why; TestWaiversAreNeeded shows each one would
// fail, so a waiver never hides a promise the lane keeps. The promises:
// "capacity" (a cost above it is refused for ever), "header" (the header's
// remaining is what Check accepts), "remaining" (never negative without
// max_reserved), "retry-after" (not accepted a microsecond before now +
// RetryAfter), "retry-after-honoured" (accepted at now + RetryAfter).
var waivers = map[string]map[string]string{}

func init() {
	guava := map[string]string{
		"capacity": "Guava accepts any cost when the next free ticket is due (the next request pays for this one): tryAcquire(1000) succeeds on an idle limiter, so no cost is refused for ever",
		"header":   "for the same reason Check accepts any cost while the ticket is due, whatever the stored permits; Guava sends no rate-limit header",
	}
	for _, label := range []string{"guava", "guava (warm-up)", "guava (acquire timeout)"} {
		waivers[label] = guava
	}
	haproxy := map[string]string{
		"capacity": "HAProxy's track-sc0 counts a request as one whatever its cost (update_freq_ctr_period(..., 1)), so no cost is refused for ever",
		"header":   "for the same reason a request of any cost passes while the rate is within the threshold; HAProxy sends no rate-limit header",
	}
	for _, l := range lanes {
		if l.algorithm == algorithms.HAProxyName {
			waivers[l.label] = haproxy
		}
	}
	waivers["nginx (dry run)"] = map[string]string{
		"capacity": "limit_req_dry_run lets every request through, whatever it costs; what nginx would have done is only logged (Decision.Shadow)",
		"header":   "for the same reason Check accepts more than the room left; nginx sends no rate-limit header",
	}
	waivers["envoy-global (shadow_mode)"] = map[string]string{
		"capacity": "under shadow_mode the rate limit service answers OK to every request, a cost above the limit too (it is counted, and would have been OVER_LIMIT)",
		"header":   "for the same reason a request over the remaining passes: the count is past the limit, remaining 0, and the answer OK",
	}
	apiGateway := map[string]string{
		"capacity": "API Gateway counts requests: a token each, whatever its cost, so no cost is refused for ever",
		"header":   "for the same reason a request of any cost passes while one token is left (and with a quota spent none does, however many tokens)",
	}
	waivers["api-gateway"], waivers["api-gateway (quota)"] = apiGateway, apiGateway
	waivers["spring"] = map[string]string{
		"header": "Spring's ttl trap (replenishRate > 2 × burstCapacity): the script stores nothing, so the remaining it reports (capacity − requested) is not what the next request finds, a full bucket; outside the trap the promise holds (TestSpringHeaderHoldsOutsideTheTTLTrap)",
	}
	waivers["traefik"] = map[string]string{
		"capacity":    "Traefik's middleware reserves one token per request whatever its cost (ServeHTTP ignores the source's amount), so no cost is refused for ever",
		"header":      "for the same reason a request of any cost passes while a token (or a wait up to maxDelay) is there; Traefik sends no header with the remaining",
		"remaining":   "Traefik serves a request whose token is up to maxDelay away, charged at admission: the bucket goes up to maxDelay × rate tokens negative, with no max_reserved",
		"retry-after": "Traefik's Retry-After (X-Retry-In) is the wait for the whole token; a request maxDelay sooner is already served, with a delay",
	}
	waivers["traefik-redis"] = waivers["traefik"] // the Redis mode's script charges and serves as the middleware does
	kong := map[string]string{
		"capacity":             "Kong counts requests, not costs (every request is 1), so no cost is refused for ever",
		"header":               "for the same reason a request of any cost passes while a window has room",
		"retry-after":          "Kong's Retry-After is the shown window's RateLimit-Reset, counted from the whole second (ngx.time()): the window turns up to a second before it",
		"retry-after-honoured": "Kong's Retry-After is the reset of the window shown, the window of the request's own second: a node whose clock is ahead may already have filled the next one, and with redis a refusal counts in the longer windows",
	}
	for _, label := range []string{"kong", "kong (redis)", "kong (increment delay)"} {
		waivers[label] = kong
	}
	waivers["envoy-local (1.30 timer)"] = map[string]string{
		"capacity": "Envoy's timer bucket (TimerTokenBucket::consume) takes one token per request whatever its cost, so no cost is refused for ever",
		"header":   "for the same reason a request of any cost passes while one token is left",
	}
}

// Spring's header waiver is for its ttl trap only: on every policy outside it,
// the header's remaining is what Check accepts.
func TestSpringHeaderHoldsOutsideTheTTLTrap(t *testing.T) {
	checked := 0
	for _, b := range backends(t) {
		for seed := uint64(1); seed <= 60; seed++ {
			p := randomPolicy(rand.New(rand.NewPCG(seed, 18))) // the policy checkPropertiesWaiving draws first
			if algorithms.SpringConfigOf(p).TTL() == 0 {
				continue
			}
			checked++
			if err := checkPropertiesWaiving(t, b, laneNamed("spring"), seed, nil); err != nil {
				t.Fatalf("%s, seed %d: %v", b.name, seed, err)
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d seeds outside the ttl trap", checked)
	}
}

// Each waiver is needed: without it, the promise fails for that lane.
func TestWaiversAreNeeded(t *testing.T) {
	for label, ws := range waivers {
		for promise, why := range ws {
			l := laneNamed(label)
			name := l.algorithm
			failed := ""
			switch promise {
			case "capacity":
				p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 4}
				lim, _ := memory.build(t, l, p)
				if d := lim.Allow("a", time.Hour, algorithms.Capacity(name, p, l.opts)+1); d.Allowed {
					failed = "a cost above the capacity is accepted"
				}
			case "header", "remaining", "retry-after", "retry-after-honoured":
				// the lane's other waivers kept: this promise is the one that fails
				others := maps.Clone(ws)
				delete(others, promise)
				says := map[string]string{"header": "the header says", "remaining": "is below", "retry-after": "a microsecond before now + retry-after",
					"retry-after-honoured": "at now + retry-after is refused again"}[promise]
				for seed := uint64(1); seed <= 60 && failed == ""; seed++ { // the seeds TestPropertiesOnEveryBackend runs in memory
					if err := checkPropertiesWaiving(t, memory, l, seed, others); err != nil && strings.Contains(err.Error(), says) {
						failed = err.Error()
					}
				}
			default:
				t.Errorf("%s: waiver of an unknown promise %q", label, promise)
				continue
			}
			if failed == "" {
				t.Errorf("%s keeps the %s promise it is excused from (%s): remove the waiver", label, promise, why)
			}
		}
	}
}

// Every algorithm in the registry (but the no-limit baseline) is one of the lanes
// these tests run, so a new one is held to the same promises.
func TestEveryAlgorithmIsALane(t *testing.T) {
	for _, a := range algorithms.All() {
		if a.Baseline {
			continue
		}
		found := false
		for _, l := range lanes {
			found = found || l.algorithm == a.Name
		}
		if !found {
			t.Errorf("%s is not among algorithms/conformance's lanes (steps_test.go): add it, in each mode that decides differently, so the property and step tests run it", a.Name)
		}
	}
}
