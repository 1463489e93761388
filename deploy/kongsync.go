package deploy

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// kongSync is the KongSync protocol: Kong's rate-limiting plugin with policy
// redis and sync_rate > 0, exact to Kong/kong at 22246ef2
// (kong/plugins/rate-limiting/policies/init.lua: usage, increment,
// rate_limited_sync, sync_to_redis; handler.lua: access). Each instance is
// one of Kong's agents — a worker process (the tables are module-level Lua,
// per worker: a node of W workers is W instances) — and keeps, per counter
// (key, window, window start):
//
//   - cached: the value Redis returned at the agent's last fresh read, and
//     delta, its increments not yet pushed. usage is cached + delta when it
//     has them (no Redis call); else a fresh read: INCR in Redis, returning
//     the value before it, cached = that, delta = −1 (PR #11859; before it,
//     0: the fresh read's request was counted twice).
//
// A request is refused when any configured window's limit − usage ≤ 0
// (nothing is incremented, but its fresh reads have INCRed Redis); else every
// window's delta goes up by one, and the agent's first increment since its
// last sync arms a one-shot timer sync_rate later (kong.timer:at). The sync
// pipelines INCRBY delta for every counter of the agent and forgets all its
// cached values and deltas: the next request of each counter reads afresh.
// The push reaches Redis a link's latency after the timer; a fresh read is a
// round trip, answered 2 × Latency after the request.
//
// An agent removed (scaled down) loses its deltas unsent, as a worker killed
// before its timer does. Not modelled: a sync that fails (Kong drops the
// deltas), increments made while a sync yields (wiped by its clear), the
// expiry of Redis keys (a counter's window is in its name; a new window is
// a new key).
type kongSync struct {
	d      *Deployment
	pre    bool // before PR #11859: a fresh read's delta starts at 0
	limits algorithms.KongWindows
	jitter float64 // the policy's retry_after_jitter
	redis  counters
	agents []*kongAgent
	prune  int // the Redis counters past which old windows' are dropped
}

// kongCounter is one of Kong's Redis keys: the identifier (ratelab's key), the
// window and its start (Unix s).
type kongCounter struct {
	key    string
	window int
	start  int64
}

type kongAgent struct {
	cached  counters
	delta   counters
	pending bool // a sync timer is armed
}

// counters are Kong counters by name, with the bytes of their keys' names
// kept as they come and go, so that what they hold is known at once (state).
type counters struct {
	m        map[kongCounter]int64
	keyBytes int64
}

func newCounters() counters { return counters{m: map[kongCounter]int64{}} }

// set gives counter c the value v.
func (cs *counters) set(c kongCounter, v int64) {
	if _, ok := cs.m[c]; !ok {
		cs.keyBytes += int64(len(c.key))
	}
	cs.m[c] = v
}

// add adds v to counter c (0 when it had none).
func (cs *counters) add(c kongCounter, v int64) { cs.set(c, cs.m[c]+v) }

// drop deletes counter c.
func (cs *counters) drop(c kongCounter) {
	if _, ok := cs.m[c]; ok {
		cs.keyBytes -= int64(len(c.key))
		delete(cs.m, c)
	}
}

// state is what the counters hold: each a key of its own, its key's name and
// the numbers Kong keeps with it (algorithms.KongCounterBytes).
func (cs *counters) state() State {
	return State{len(cs.m), cs.keyBytes + int64(len(cs.m))*algorithms.KongCounterBytes}
}

func newKongSync(d *Deployment, pre bool) (protocol, error) {
	probe, err := d.cfg.New()
	if err != nil {
		return nil, err
	}
	k, ok := probe.(*algorithms.Kong)
	if !ok {
		return nil, fmt.Errorf("sync %q is Kong's plugin's: it needs Kong's lane (got %s)", KongSync, probe.Algorithm())
	}
	p := &kongSync{d: d, pre: pre, limits: k.Limits(), jitter: k.Policy().RetryJitter, redis: newCounters(), agents: make([]*kongAgent, d.cfg.Most), prune: 1024}
	for i := range d.members {
		p.agents[i] = p.newAgent()
	}
	return p, nil
}

func (p *kongSync) newAgent() *kongAgent {
	return &kongAgent{cached: newCounters(), delta: newCounters()}
}

func (p *kongSync) decide(inst int, key string, now time.Duration, _ int64) (algorithms.Decision, time.Duration) {
	a := p.agents[inst]
	unix := algorithms.KongClock(now)
	var used algorithms.KongWindows
	var wait time.Duration
	for w, limit := range p.limits {
		if limit == 0 {
			continue
		}
		c := kongCounter{key: key, window: w, start: algorithms.KongWindowStart(w, unix)}
		if v, ok := a.cached.m[c]; ok {
			used[w] = v + a.delta.m[c]
			continue
		}
		r := p.redis.m[c] // EVAL INCR: the value before it
		p.redis.set(c, r+1)
		p.d.stats.StoreCalls++
		a.cached.set(c, r)
		a.delta.set(c, -1)
		if p.pre {
			a.delta.set(c, 0)
		}
		used[w] = r
		wait = 2 * p.d.cfg.Latency
	}
	p.dropOldWindows(unix)
	d := algorithms.KongAnswer(p.limits, used, unix, algorithms.JitterFactor(key, p.jitter))
	if !d.Allowed {
		return d, wait
	}
	for w, limit := range p.limits {
		if limit != 0 {
			a.delta.add(kongCounter{key: key, window: w, start: algorithms.KongWindowStart(w, unix)}, 1)
		}
	}
	if !a.pending {
		a.pending = true
		p.d.afterFor(inst, now+p.d.cfg.SyncWait, func(at time.Duration) { p.sync(inst, at) }) // an agent removed meanwhile: its deltas are gone
	}
	return d, wait
}

// sync is agent inst's timer: its deltas pushed (reaching Redis a latency
// later), its cached values and deltas forgotten.
func (p *kongSync) sync(inst int, at time.Duration) {
	a := p.agents[inst]
	a.pending = false
	push := a.delta.m
	a.cached, a.delta = newCounters(), newCounters()
	if len(push) == 0 {
		return
	}
	p.d.stats.StoreCalls++ // one pipeline
	apply := func(time.Duration) {
		for c, v := range push {
			p.redis.add(c, v)
		}
	}
	if p.d.cfg.Latency == 0 {
		apply(at)
		return
	}
	p.d.after(at+p.d.cfg.Latency, apply)
}

func (p *kongSync) scale(_ time.Duration, before, n int) {
	for i := n; i < before; i++ {
		p.agents[i] = nil
	}
	for i := before; i < n; i++ {
		p.agents[i] = p.newAgent()
	}
}

// restart gives agent i nothing cached and nothing to push: the counts it
// had not synced are lost.
func (p *kongSync) restart(_ time.Duration, i int) { p.agents[i] = p.newAgent() }

// dropOldWindows forgets the Redis counters of windows over at Unix second
// unix, once there are more than prune of them: no request reads them again
// (time does not go backwards in a deployment). The agents' own are
// forgotten at their syncs.
func (p *kongSync) dropOldWindows(unix int64) {
	if len(p.redis.m) <= p.prune {
		return
	}
	for c := range p.redis.m {
		if c.start < algorithms.KongWindowStart(c.window, unix) {
			p.redis.drop(c)
		}
	}
	p.prune = max(1024, 2*len(p.redis.m))
}

// level is the key's count in Redis in the shortest configured window now.
func (p *kongSync) level(key string, now time.Duration) float64 {
	unix := algorithms.KongClock(now)
	for w, limit := range p.limits {
		if limit != 0 {
			return float64(p.redis.m[kongCounter{key: key, window: w, start: algorithms.KongWindowStart(w, unix)}])
		}
	}
	return 0
}

func (p *kongSync) forget() { p.redis = newCounters() }

// failover is to a Redis that had none of the counters (no replica is
// modelled for Kong's): a flush.
func (p *kongSync) failover(time.Duration) { p.forget() }
