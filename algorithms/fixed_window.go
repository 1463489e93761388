package algorithms

import "time"

// FixedWindowName is the fixed window's name in scenario files and on the command
// line.
const FixedWindowName Name = "fixed-window"

// fixedWindowOptions are the fixed window's scenario keys.
var fixedWindowOptions = []Option{
	{Key: "window_start", Doc: `"epoch" (default): every key's windows start together; "random": each key's start at a share of the period taken from its hash`,
		set: func(o Options) string { return setIf(o.RandomStart, `window_start = "random"`) }},
	{Key: "rollover", Doc: "the most unused units a window carries into the next; default 0",
		set: func(o Options) string { return setIf(o.Rollover != 0, "rollover") }},
}

// fixedWindowPort is scripts/fixed_window.lua: a hash per key, w = the window's
// index, n = units accepted in it, a = its allowance; Args limit, period_us,
// rollover, offset_us (the key's window start, per key with random starts).
// Its reply is {allowed, allowance − count, retry_us, reset_us, 0, allowance}.
var fixedWindowPort = &RedisPort{Script: "fixed_window", Call: func(p Policy, o Options) ScriptCall {
	call := callOf(p.Limit, int64(p.Period/Resolution), o.Rollover, 0)
	if o.RandomStart {
		call.PerKeyArg, call.PerKey = 3, func(key string) int64 { return WindowOffset(key, p.Period) }
	}
	call.Decision = func(key string, r []int64) Decision {
		d := Decision{Allowed: r[0] == 1, Limit: r[5], Remaining: float64(r[1]), ResetAfter: microsToDuration(r[3])}
		replyRetry(&d, p, key, r[2])
		return d
	}
	call.Level = func(r []int64) float64 { return plainUnits(r[1]) }
	return call
}}

// FixedWindow counts the units accepted per key in consecutive windows of length
// Period and accepts a request while the window's count plus its cost stays within
// the window's allowance (Limit). It keeps one counter per key and is cheap, but a
// client can spend the limit at the end of one window and again at the start of the
// next: up to 2× the limit in an instant (the boundary-burst scenario: 200 requests
// in 2 ms at 100/s).
//
// Window start: windows are aligned to the origin by default, so every key's window
// turns over at the same instant, which is what makes herds. With RandomStart, a
// key's windows are offset by a deterministic share of the period taken from the
// key's hash, which spreads the turnovers.
//
// Rollover: with Rollover > 0, units left unused in a window carry into the next,
// up to Rollover, so a window's allowance is Limit + carry. Idle windows carry
// their whole allowance forward, so a new key starts with Limit + Rollover.
//
// Time going backwards into an earlier window counts against the stored window.
type FixedWindow struct {
	policy      Policy
	periodUS    int64
	rollover    int64
	randomStart bool
	keyed[FixedWindowState]
}

// FixedWindowState is the fixed window's state for one key.
type FixedWindowState struct {
	Window    int64 // the window's index: floor((now − Offset) / Period)
	Count     int64 // units accepted in it
	Allowance int64 // units it may accept: Limit plus what rolled over
	Offset    int64 // the key's window start offset in µs, 0 when aligned
}

// NewFixedWindow returns a fixed window enforcing p, with windows offset per key
// when randomStart, carrying up to rollover unused units into the next window.
func NewFixedWindow(p Policy, randomStart bool, rollover int64) *FixedWindow {
	p = p.WithDefaults()
	return &FixedWindow{
		policy:      p,
		periodUS:    int64(p.Period / Resolution),
		rollover:    rollover,
		randomStart: randomStart,
		keyed:       newKeyed[FixedWindowState](),
	}
}

func (f *FixedWindow) Algorithm() Name { return FixedWindowName }
func (f *FixedWindow) Policy() Policy  { return f.policy }

// StateBytes counts a counter and the window it belongs to per key, and the
// allowance when rollover is on.
func (f *FixedWindow) StateBytes() int64 {
	per := int64(16)
	if f.rollover > 0 {
		per += 8
	}
	return f.keyBytes + int64(f.Keys())*per
}

// Allow decides atomically.
func (f *FixedWindow) Allow(key string, now time.Duration, cost int64) (d Decision) {
	s, ok := f.state(key)
	if !ok {
		idle := f.idle(key, toMicros(now))
		s = f.add(key, &idle)
	}
	f.decide(&d, s, key, now, cost)
	return d
}

// Check is what Allow would decide, on a copy of the state: nothing changes.
func (f *FixedWindow) Check(key string, now time.Duration, cost int64) (d Decision) {
	var s FixedWindowState
	if stored, ok := f.state(key); ok {
		s = *stored
	} else {
		s = f.idle(key, toMicros(now))
	}
	f.decide(&d, &s, key, now, cost)
	return d
}

// decide decides on *s, updates it in place and writes the decision into *d,
// which is zero: a Decision returned by value would be copied once more into
// Allow's, a third of a decision's time.
func (f *FixedWindow) decide(d *Decision, s *FixedWindowState, key string, now time.Duration, cost int64) {
	n := toMicros(now)
	*s = f.roll(*s, n)
	d.Limit = s.Allowance
	end := (s.Window+1)*f.periodUS + s.Offset
	if s.Count+cost <= s.Allowance {
		s.Count += cost
		d.Allowed = true
	} else if cost > f.policy.Limit+f.rollover {
		d.RetryAfter = Forever
	} else {
		// The next window's allowance is Limit plus this window's unused units
		// (capped); each further window adds up to Limit more.
		carry := min(f.rollover, max(0, s.Allowance-s.Count))
		windows := int64(0)
		if short := cost - f.policy.Limit - carry; short > 0 {
			windows = ceilDiv(short, f.policy.Limit)
		}
		d.RetryAfter = jitter(end+windows*f.periodUS-n, JitterFactor(key, f.policy.RetryJitter))
	}
	d.Remaining = float64(max(0, s.Allowance-s.Count)) // a count added past it (Add) leaves none
	d.ResetAfter = fromMicros(end - n)
}

// idle is the state of a key that has been idle forever, at n.
func (f *FixedWindow) idle(key string, n int64) FixedWindowState {
	var offset int64
	if f.randomStart {
		offset = WindowOffset(key, f.policy.Period)
	}
	return FixedWindowState{
		Window:    floorDiv(n-offset, f.periodUS),
		Allowance: f.policy.Limit + f.rollover,
		Offset:    offset,
	}
}

// roll moves s to the window holding n, carrying unused units over; an earlier
// window (time went backwards) leaves s as it is.
func (f *FixedWindow) roll(s FixedWindowState, n int64) FixedWindowState {
	w := floorDiv(n-s.Offset, f.periodUS)
	if w <= s.Window {
		return s
	}
	carry := min(f.rollover, max(0, s.Allowance-s.Count))
	if idle := w - s.Window - 1; idle > 0 && carry < f.rollover {
		// each idle window's allowance, Limit + carry, goes unused and rolls over
		if idle >= ceilDiv(f.rollover-carry, f.policy.Limit) {
			carry = f.rollover
		} else {
			carry = min(f.rollover, carry+idle*f.policy.Limit)
		}
	}
	return FixedWindowState{Window: w, Allowance: f.policy.Limit + carry, Offset: s.Offset}
}

// Level is the units accepted in key's current window at now.
func (f *FixedWindow) Level(key string, now time.Duration) float64 {
	s, ok := f.state(key)
	if !ok {
		return 0
	}
	return float64(f.roll(*s, toMicros(now)).Count)
}

// Evict forgets keys whose window has turned over with the full allowance carried.
func (f *FixedWindow) Evict(now time.Duration) int {
	n := toMicros(now)
	return f.evict(func(s *FixedWindowState) bool {
		r := f.roll(*s, n)
		return r.Window > s.Window && r.Allowance == f.policy.Limit+f.rollover
	})
}
