package algorithms

import "time"

// GCRAName is GCRA's name in scenario files and on the command line.
const GCRAName Name = "gcra"

// gcraPort is scripts/gcra.lua: a string per key, the theoretical arrival time in
// scaled time; Args unit, per_micro, capacity. Its reply is a bucket's (see
// bucketReply).
var gcraPort = &RedisPort{Script: "gcra", Call: func(p Policy, _ Options) ScriptCall {
	c := CreditsOf(p, 0)
	call := callOf(c.Unit, c.PerMicro, c.Capacity)
	call.Decision = bucketReply(p, p.Burst, c.Units)
	call.Level = func(r []int64) float64 { return c.Units(r[1]) }
	return call
}}

// gcraSplit takes GCRA's decision apart; its state is one integer, a plain value
// as its script keeps it.
var gcraSplit = newSplit(nil,
	func(s GCRAState, v []int64) { v[0] = s.TAT },
	func(v []int64) GCRAState { return GCRAState{TAT: v[0]} },
	func(p Policy, _ Options) Stepper[GCRAState] { return NewGCRA(p) })

// GCRA is the generic cell rate algorithm (as in go-redis/redis_rate, redis-cell,
// throttled): one number per key, the theoretical arrival time tat. With emission
// interval T = Period / Limit, a request of cost c at now computes
// tat' = max(tat, now) + T × c and is accepted when now ≥ tat' − T × Burst, storing
// tat'. Burst means "Burst requests at one instant", so on one clock GCRA makes
// exactly the decisions of a token bucket with capacity Burst and the same rate.
// A refused request stores nothing.
//
// tat is kept in scaled time, microseconds × (Limit / g) (g as in credits.go), so
// T × c is the whole number c × unit and nothing rounds. Time going backwards needs
// no special case: max(tat, now) keeps the later time, so an early clock only makes
// the limiter stricter (a token bucket gives such a request the balance as of its
// stored time; GCRA counts the tokens as they were at the request's own time),
// and every wait it reports is measured from the request's own now. Remaining is
// never negative: a request stamped more than a burst before tat is told 0.
type GCRA struct {
	policy Policy
	c      credits
	keyed[GCRAState]
}

// GCRAState is GCRA's state for one key: the theoretical arrival time, in
// microseconds × perMicro (see credits.go).
type GCRAState struct{ TAT int64 }

const gcraStateBytes = 8

// NewGCRA returns a GCRA limiter enforcing p.
func NewGCRA(p Policy) *GCRA {
	p = p.WithDefaults()
	return &GCRA{policy: p, c: newCredits(p), keyed: newKeyed[GCRAState]()}
}

func (g *GCRA) Algorithm() Name   { return GCRAName }
func (g *GCRA) Policy() Policy    { return g.policy }
func (g *GCRA) StateBytes() int64 { return g.keyBytes + int64(g.Keys())*gcraStateBytes }

// Allow decides atomically. A refused request stores nothing, so a key whose
// first request is refused keeps no state (as gcra.lua, redis_rate and
// throttled store none): a later request stamped before it finds the key new.
func (g *GCRA) Allow(key string, now time.Duration, cost int64) (d Decision) {
	s, ok := g.state(key)
	if !ok {
		idle := g.Read(key, now)
		g.decide(&d, &idle, key, now, cost)
		if d.Allowed {
			g.add(key, &idle)
		}
		return d
	}
	g.decide(&d, s, key, now, cost)
	return d
}

// Read returns key's stored state, or the idle state (tat = now) if it has none.
func (g *GCRA) Read(key string, now time.Duration) GCRAState {
	if s, ok := g.state(key); ok {
		return *s
	}
	return GCRAState{TAT: g.scaled(now)}
}

// Write stores s as key's state (a blind overwrite).
func (g *GCRA) Write(key string, s GCRAState) {
	if old, ok := g.state(key); ok {
		*old = s
		return
	}
	g.add(key, &s)
}

// Decide is the pure decision on state s.
func (g *GCRA) Decide(s GCRAState, key string, now time.Duration, cost int64) (Decision, GCRAState) {
	var d Decision
	g.decide(&d, &s, key, now, cost)
	return d, s
}

// decide decides on *s, updates it in place and writes the decision into *d,
// which is zero: a Decision returned by value would be copied once more into
// Allow's, a third of a decision's time.
func (g *GCRA) decide(d *Decision, s *GCRAState, key string, now time.Duration, cost int64) {
	nowS := g.scaled(now)
	tat := max(s.TAT, nowS)
	newTAT := tat + cost*g.c.unit
	allowAt := newTAT - g.c.capacity
	d.Limit = g.policy.Burst
	if nowS >= allowAt {
		d.Allowed = true
		tat = newTAT
		s.TAT = newTAT
	} else if cost*g.c.unit > g.c.capacity {
		d.RetryAfter = Forever
	} else {
		d.RetryAfter = jitter(g.c.wait(allowAt-nowS), JitterFactor(key, g.policy.RetryJitter))
	}
	// a request stamped more than a burst before tat sees less than nothing:
	// without reservations there is no debt to report, so 0 (as throttled and
	// redis_rate say)
	d.Remaining = g.c.units(max(0, g.c.capacity-(tat-nowS)))
	d.ResetAfter = fromMicros(g.c.wait(tat - nowS))
}

// Level is the tokens a token bucket with the same policy would hold at now: at
// least 0, as Remaining.
func (g *GCRA) Level(key string, now time.Duration) float64 {
	s := g.Read(key, now)
	nowS := g.scaled(now)
	return g.c.units(max(0, g.c.capacity-max(0, s.TAT-nowS)))
}

// Evict forgets keys whose tat is no later than now.
func (g *GCRA) Evict(now time.Duration) int {
	nowS := g.scaled(now)
	return g.evict(func(s *GCRAState) bool { return s.TAT <= nowS })
}

// scaled converts now to GCRA's scaled time: microseconds × perMicro.
func (g *GCRA) scaled(now time.Duration) int64 { return toMicros(now) * g.c.perMicro }

// Check is what Allow would decide, and changes nothing.
func (g *GCRA) Check(key string, now time.Duration, cost int64) (d Decision) {
	s := g.Read(key, now)
	g.decide(&d, &s, key, now, cost)
	return d
}
