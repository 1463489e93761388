package serve

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// Lane is one limiter served: its limits, each request held to every one of them
// as Combine says, keyed by Key.
type Lane struct {
	// Name is the lane's (a scenario's lane, a product's context); with several
	// lanes served, the first segment of a request's path names its lane.
	Name string
	// Limits are held in order; one for a plain lane.
	Limits  []Limit
	Combine algorithms.Combine
	// Key is how a request is keyed (a product's key, else --key).
	Key KeyOf
	// Headers is the family of rate-limit headers the responses send.
	Headers algorithms.HeaderFamily
}

// Limit is one limit of a lane: an algorithm (a product's lane among them) and
// its policy and options, and the rule a refusal it decides is named by.
type Limit struct {
	Name      string
	Rule      string
	Algorithm algorithms.Name
	Policy    algorithms.Policy
	Options   algorithms.Options
	// Template is the key the limit keeps its state under ("{key}": the
	// request's; a name without it: one key all requests share).
	Template algorithms.KeyTemplate
}

// Decision is a lane's answer to one request.
type Decision struct {
	algorithms.Decision
	// Decisive is the limit (from 0) that refused; -1 when allowed.
	Decisive int
	// Limits are each limit's own decision, those asked (a lane of several).
	Limits []algorithms.Decision
	// Status and Word are the product's answer (its HTTP status and the word
	// it logs); 200/429 for a lane of no product's.
	Status int
	Word   string
	// Headers are the rate-limit headers of the response.
	Headers []algorithms.Header
}

// lane is a Lane with its limiters.
type lane struct {
	Lane
	limiters []algorithms.Limiter
	checkers []algorithms.Checker
	keys     map[string]struct{} // the request keys held (see sweep)
	keyNames []string            // each limit's key of the request being decided
	// nextSweep is when, on the server's clock, the lane next sweeps.
	nextSweep time.Duration
	// offersNewKeys says a new key past MaxKeys is offered to the limiters,
	// which may make room for it (see decideIfRoom).
	offersNewKeys bool
	// countsKeys says some limit keeps a state per request key: only then do
	// the request keys take memory, and count against MaxKeys.
	countsKeys bool
	// kept is the keys held after the last sweep (see sweepDue).
	kept int
}

// sweepEvery is how often, on the server's clock, a lane lets go of the keys
// its limiters no longer hold (see sweep).
const sweepEvery = time.Second

// sweepDue says the lane sweeps now (at most every sweepEvery): a new key
// finds it full, or it counts twice the keys it kept at its last sweep. A
// sweep walks every key held (some 40 ms at 100,000 keys, under the server's
// lock), so a lane sweeps when it needs the room, or as often as its count
// doubles, not every second.
func (l *lane) sweepDue(full bool) bool {
	return l.countsKeys && (full || len(l.keys) >= 2*max(l.kept, 1))
}

// sweep evicts the lane's limiters' idle keys at now (a key whose state is
// what a new key gets: no decision changes, algorithms.Limiter.Evict) and lets
// go of the request keys none of its limits holds any more, which then count
// against MaxKeys no longer: a server that runs for days holds the keys in
// use, not every key it has seen. Run on a request (the time read for it: the
// served and the replayed decisions sweep alike), it costs a walk over the
// keys held.
func (l *lane) sweep(now time.Duration) {
	for _, lim := range l.limiters {
		lim.Evict(now)
	}
	for key := range l.keys {
		if !l.holds(key) {
			delete(l.keys, key)
		}
	}
	l.nextSweep, l.kept = now+sweepEvery, len(l.keys)
}

// decideIfRoom decides a request of a key new to the lane while it counts
// maxKeys keys, if its limiters have room for it: a limiter that lets go of
// its idle keys only as a new one comes (nginx's expiry, run for a new key's
// node) is asked, and when it then holds more than maxKeys states (none made
// room; the keys it let go are counted until the next sweep) it forgets the
// key again and the request is refused (false), as nginx answers when its
// zone is full. Only a lane whose every limit keeps its state per request key,
// and can forget it, is asked: a limit shared by every request would keep the
// charge of a request refused.
func (l *lane) decideIfRoom(key string, now time.Duration, maxKeys int) (Decision, bool) {
	if !l.offersNewKeys {
		return Decision{}, false
	}
	d := l.decide(key, now)
	if l.states() <= maxKeys*len(l.limiters) {
		return d, true
	}
	for i, lim := range l.limiters {
		lim.(algorithms.Forgetter).Forget(l.Limits[i].Template.Render(key))
	}
	return Decision{}, false
}

// states is the states the lane's limiters hold, together.
func (l *lane) states() int {
	n := 0
	for _, lim := range l.limiters {
		n += lim.Keys()
	}
	return n
}

// holds says one of the lane's limits that keep a state per request key holds
// one for key (a limit whose key all requests share holds one state, however
// many keys use it); a limiter that cannot say (not an algorithms.Holder)
// holds every key asked.
func (l *lane) holds(key string) bool {
	for i, lim := range l.limiters {
		if !l.Limits[i].Template.PerKey() {
			continue
		}
		h, ok := lim.(algorithms.Holder)
		if !ok || h.Holds(l.Limits[i].Template.Render(key)) {
			return true
		}
	}
	return false
}

func newLane(l Lane) (*lane, error) {
	if len(l.Limits) == 0 {
		return nil, fmt.Errorf("lane %q holds no limit", l.Name)
	}
	out := &lane{Lane: l, keys: map[string]struct{}{}, keyNames: make([]string, len(l.Limits))}
	for _, m := range l.Limits {
		lim, err := algorithms.New(m.Algorithm, m.Policy, m.Options)
		if err != nil {
			return nil, fmt.Errorf("lane %q: %v", l.Name, err)
		}
		out.limiters = append(out.limiters, lim)
		c, _ := lim.(algorithms.Checker)
		if c == nil && len(l.Limits) > 1 && l.Combine != algorithms.InOrder {
			return nil, fmt.Errorf("lane %q: %s cannot say what it would decide without deciding, which %s needs", l.Name, m.Algorithm, l.Combine)
		}
		out.checkers = append(out.checkers, c)
	}
	out.offersNewKeys = true
	for i, m := range l.Limits {
		_, forgets := out.limiters[i].(algorithms.Forgetter)
		out.offersNewKeys = out.offersNewKeys && forgets && m.Template.PerKey()
		out.countsKeys = out.countsKeys || m.Template.PerKey()
	}
	return out, nil
}

// decide decides a request of key at now (an offset from the origin) and cost 1:
// held to each limit as the lane's Combine says. The decision returned is the
// decisive limit's (the first that refused), else the last limit's with the
// longest delay of all.
func (l *lane) decide(key string, now time.Duration) Decision {
	for i, m := range l.Limits {
		l.keyNames[i] = m.Template.Render(key)
	}
	ds := make([]algorithms.Decision, len(l.Limits))
	switch {
	case len(l.Limits) == 1 || l.Combine == algorithms.InOrder:
		// each in turn, until one refuses: the earlier ones keep their charge
		for i, lim := range l.limiters {
			ds[i] = lim.Allow(l.keyNames[i], now, 1)
			if !ds[i].Allowed {
				return l.answer(ds[:i+1], i)
			}
		}
	default:
		// check-then-consume and all-or-nothing are the same one at a time,
		// under the server's lock: every limit checks, and only if all would
		// allow does each take the request
		for i, c := range l.checkers {
			ds[i] = c.Check(l.keyNames[i], now, 1)
		}
		for i := range ds {
			if !ds[i].Allowed {
				return l.answer(ds, i)
			}
		}
		for i, lim := range l.limiters {
			ds[i] = lim.Allow(l.keyNames[i], now, 1)
		}
	}
	return l.answer(ds, -1)
}

// answer combines the limits' decisions ds into the lane's, refused by ds[decisive]
// (-1: allowed).
func (l *lane) answer(ds []algorithms.Decision, decisive int) Decision {
	d := Decision{Decisive: decisive}
	if len(ds) > 1 {
		d.Limits = ds
	}
	if decisive >= 0 {
		d.Decision = ds[decisive]
	} else {
		d.Decision = ds[len(ds)-1]
		for _, x := range ds {
			d.Delay = max(d.Delay, x.Delay)
		}
	}
	return d
}

// rule names the limit that refused d: its rule, else its name, else its
// algorithm; "" when d was allowed.
func (l *lane) rule(d Decision) string {
	if d.Decisive < 0 {
		return ""
	}
	m := l.Limits[d.Decisive]
	switch {
	case m.Rule != "":
		return m.Rule
	case m.Name != "":
		return m.Name
	}
	return string(m.Algorithm)
}
