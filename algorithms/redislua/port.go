package redislua

import (
	"time"

	"ratelab/algorithms"
)

// port is how one algorithm's script is called and answered: the argument list
// (the one place it is built, for the simulated lanes and the live benchmark
// alike) and how a reply becomes a decision and a level. Every script takes
// ARGV: now (µs from the run's origin), cost, the policy's own arguments, the mode
// ('allow' or 'level'); the scripts' headers list the policy's.
type port struct {
	algorithm string
	policy    algorithms.Policy
	credits   algorithms.Credits
	args      []any // the policy's arguments
	// offset, when >= 0, is the index in args of the fixed window's start offset,
	// which is per key (random window starts).
	offset int
	// monotonic, when >= 0, is the index in args of the token bucket's
	// max(now, ts) switch.
	monotonic int
	decision  func(p *port, key string, r []int64) algorithms.Decision
	levelOf   func(p *port, r []int64) float64
}

// portOf returns the port of algorithm enforcing p with o. The algorithm must have
// a script (algorithms.Info.RedisScript).
func portOf(algorithm string, p algorithms.Policy, o algorithms.Options) port {
	p = p.WithDefaults()
	c := algorithms.CreditsOf(p, o.MaxReserved)
	ttl := keyTTL.Milliseconds()
	bit := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	units := func(pt *port, r []int64) float64 { return pt.credits.Units(r[1]) }
	plain := func(_ *port, r []int64) float64 { return float64(r[1]) }
	pt := port{algorithm: algorithm, policy: p, credits: c, offset: -1, monotonic: -1}
	switch algorithm {
	case "token-bucket":
		pt.args = []any{c.Unit, c.PerMicro, c.Capacity, c.Floor, c.FillUS, bit(o.MonotonicTimestamp), ttl}
		pt.monotonic = 5
		pt.decision, pt.levelOf = decodeBucket(p.Burst, units), units
	case "gcra":
		pt.args = []any{c.Unit, c.PerMicro, c.Capacity, ttl}
		pt.decision, pt.levelOf = decodeBucket(p.Burst, units), units
	case "leaky-bucket":
		pt.args = []any{c.Unit, c.PerMicro, c.Capacity, c.FillUS, bit(o.Mode == algorithms.LeakyQueue), ttl}
		pt.decision, pt.levelOf = decodeBucket(p.Burst, units), units
	case "fixed-window":
		pt.args = []any{p.Limit, c.PeriodUS, o.Rollover, 0, ttl}
		if o.RandomStart {
			pt.offset = 3
		}
		pt.decision, pt.levelOf = decodeFixedWindow, plain
	case "sliding-log":
		pt.args = []any{p.Limit, c.PeriodUS, ttl}
		pt.decision, pt.levelOf = decodeBucket(p.Limit, plain), plain
	case "sliding-counter":
		pt.args = []any{p.Limit, c.PeriodUS, ttl}
		pt.decision = decodeSlidingCounter
		pt.levelOf = func(pt *port, r []int64) float64 { return float64(r[1]) / float64(pt.credits.PeriodUS) }
	}
	return pt
}

// setMonotonic switches the token bucket's max(now, ts) fix in later calls.
func (p *port) setMonotonic(on bool) {
	if p.monotonic >= 0 {
		p.args[p.monotonic] = 0
		if on {
			p.args[p.monotonic] = 1
		}
	}
}

// argv is the arguments of a call for key at now, of cost, in mode.
func (p *port) argv(key string, now time.Duration, cost int64, mode string) []any {
	args := make([]any, 0, 3+len(p.args))
	args = append(args, algorithms.Micros(now), cost)
	args = append(args, p.args...)
	if p.offset >= 0 {
		args[2+p.offset] = algorithms.WindowOffset(key, p.policy.Period)
	}
	return append(args, mode)
}

// level is the level in a 'level' reply.
func (p *port) level(r []int64) float64 { return p.levelOf(p, r) }

// decodeBucket composes a decision as the buckets (and the sliding log) do:
// {allowed, remaining, retry_us (−1: never), reset_us, delay_us}.
func decodeBucket(limit int64, remaining func(*port, []int64) float64) func(*port, string, []int64) algorithms.Decision {
	return func(p *port, key string, r []int64) algorithms.Decision {
		d := algorithms.Decision{Allowed: r[0] == 1, Limit: limit, Remaining: remaining(p, r),
			ResetAfter: algorithms.MicrosDuration(r[3]), Delay: algorithms.MicrosDuration(r[4])}
		p.retryAfter(&d, key, r[2])
		return d
	}
}

func decodeFixedWindow(p *port, key string, r []int64) algorithms.Decision {
	d := algorithms.Decision{Allowed: r[0] == 1, Limit: r[5], Remaining: float64(r[1]), ResetAfter: algorithms.MicrosDuration(r[3])}
	p.retryAfter(&d, key, r[2])
	return d
}

func decodeSlidingCounter(p *port, key string, r []int64) algorithms.Decision {
	period, limit := p.credits.PeriodUS, p.policy.Limit
	d := algorithms.Decision{Allowed: r[0] == 1, Limit: limit, Remaining: float64(max(0, limit*period-r[1])) / float64(period), ResetAfter: algorithms.MicrosDuration(r[3])}
	p.retryAfter(&d, key, r[2])
	return d
}

// retryAfter sets a denial's retry-after from the script's µs, with the key's jitter.
func (p *port) retryAfter(d *algorithms.Decision, key string, us int64) {
	switch {
	case d.Allowed:
	case us < 0:
		d.RetryAfter = algorithms.Forever
	default:
		d.RetryAfter = algorithms.Jitter(us, algorithms.JitterFactor(key, p.policy.RetryJitter))
	}
}
