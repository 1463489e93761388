package sim

import (
	"slices"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/slab"
)

// Composite lanes call several limiters for one decision: a sharded lane (one hot
// limit split into shards, see algorithms.ShardPolicies) and a multi-limit lane
// (every request held to several limits, see algorithms.Combine). The lane's
// limiters for a tier are an algorithms.Set, called in stages: each stage is one
// round trip to the store (one pipeline on Redis), and the next stage starts when
// its answer is back, a round trip later on the virtual clock — so another
// request can come between two stages of one decision, which is what makes the
// two-step strategies race. With no round trip the stages follow at once and
// nothing comes between them.
//
//   - shards, random: one stage, the request's shard decides.
//   - shards, two choices: check two shards; if neither has room, refuse with the
//     earlier of their retry times; else, a round trip later, the one that had more
//     room decides (and may refuse, if others took the room meanwhile).
//   - limits in order: one stage per limit, in the client's order, stopping at the
//     first refusal; what the earlier ones granted stays spent.
//   - check then consume: check every limit; if all have room, a round trip later
//     consume every one; one may refuse by then, and the others' units are spent.
//   - all or nothing: one stage, every limit at once, atomically.
//
// Measured on the way: each shard's admitted units (imbalance), the units limits
// granted and those wasted on requests refused anyway, and requests starved
// (never served, though they spent); a sharded lane's false denials are the
// lane's to measure, against its whole limit (Lane.wholeLimit).
type compositeDecider struct {
	l         *Lane
	plans     slab.Slab[plan]
	lookahead bool

	pending []stage // stages deferred to the next batch (lookahead)
	until   time.Duration
	calls   []algorithms.Call // the pending stages' calls, or the stage made at once
	out     []algorithms.Decision
	// settle's buffers, kept between batches
	tierCalls []algorithms.Call
	tierOut   []algorithms.Decision
	where     []int
}

// plan is a request's decision in progress.
type plan struct {
	step          int8
	first, second int // sharded: the shards drawn
	chosen        int // sharded: the shard deciding
	// multi-limit: each limit's decision so far, in the listed order (a zero
	// Limit: not asked), and the units they granted this attempt
	decisions []algorithms.Decision
	granted   int64
	unreached uint64 // in-order: the limits past the refusal with no room either (rules.go)
}

// stage is a plan's stage deferred to a batch: its calls are calls[from:to].
type stage struct {
	id       int32
	seq      uint64
	at       time.Duration
	tier     int
	from, to int
}

func newComposite(l *Lane, lookahead bool) *compositeDecider {
	remote := false
	for _, s := range l.sets {
		_, remote = s.Parts()[0].(algorithms.BatchLimiter)
	}
	return &compositeDecider{l: l, lookahead: lookahead && remote}
}

// shardDraw is request n of client c's random draw for its attempt: which
// shards it looks at (algorithms.PickShards). A pure function of the seed and the
// request, the same in every lane and however decisions are batched.
func shardDraw(seed uint64, client int32, n int64, attempt int32) uint64 {
	return splitmix(splitmix(seed^0x5ca1ab1e) ^ splitmix(uint64(client)<<40^uint64(n)) ^ uint64(attempt)<<52)
}

func (d *compositeDecider) decide(id int32) {
	l := d.l
	r := l.reqs.At(id)
	p := plan{}
	if lc := l.Config; lc.Sharded() {
		p.first, p.second = algorithms.PickShards(shardDraw(l.cfg.Seed, r.client, r.n, r.attempt), lc.Shards)
		p.chosen = p.first
	} else if lc.Balanced() {
		p.first = l.instance(r)
		p.chosen = p.first
	} else {
		p.decisions = make([]algorithms.Decision, len(lc.Limits))
	}
	r.slot = d.plans.Put(p)
	d.issue(id)
}

// commit starts a plan's next stage, a round trip after the last one.
func (d *compositeDecider) commit(id int32) { d.issue(id) }

func (d *compositeDecider) due() time.Duration {
	if len(d.pending) == 0 {
		return never
	}
	return d.until
}

// issue makes request id's current stage: now, or deferred to the batch.
func (d *compositeDecider) issue(id int32) {
	l := d.l
	l.storeCall()
	r := l.reqs.At(id)
	tier := l.cfg.Keys[r.key].Tier
	if d.lookahead {
		if len(d.pending) == 0 {
			d.until = l.now + l.Config.RoundTrip
		}
		from := len(d.calls)
		d.calls = d.appendCalls(d.calls, id)
		d.pending = append(d.pending, stage{id: id, seq: l.reserve(), at: l.now, tier: tier, from: from, to: len(d.calls)})
		return
	}
	calls := d.appendCalls(nil, id)
	out := make([]algorithms.Decision, len(calls))
	l.sets[tier].Do(calls, out)
	d.advance(id, out)
}

// settle decides the deferred stages, a batch per tier, and applies the answers
// in the order the stages were made, each at the time it was made.
func (d *compositeDecider) settle() {
	if len(d.pending) == 0 {
		return
	}
	l := d.l
	d.out = slices.Grow(d.out[:0], len(d.calls))[:len(d.calls)]
	for tier, set := range l.sets {
		calls, where := d.tierCalls[:0], d.where[:0]
		for _, st := range d.pending {
			if st.tier != tier {
				continue
			}
			for i := st.from; i < st.to; i++ {
				calls, where = append(calls, d.calls[i]), append(where, i)
			}
		}
		if len(calls) == 0 {
			continue
		}
		out := slices.Grow(d.tierOut[:0], len(calls))[:len(calls)]
		set.Do(calls, out)
		for j, i := range where {
			d.out[i] = out[j]
		}
		d.tierCalls, d.tierOut, d.where = calls, out, where
	}
	now := l.now
	for _, st := range d.pending {
		l.applying(st.at, st.seq)
		d.advance(st.id, d.out[st.from:st.to])
	}
	l.done(now)
	d.pending, d.calls = d.pending[:0], d.calls[:0]
}

// appendCalls appends the calls of request id's current stage.
func (d *compositeDecider) appendCalls(calls []algorithms.Call, id int32) []algorithms.Call {
	l := d.l
	lc := l.Config
	r := l.reqs.At(id)
	p := d.plans.At(r.slot)
	req := algorithms.Request{Key: l.cfg.Keys[r.key].Name, Now: l.stamp(r), Cost: r.cost}
	call := func(mode algorithms.Mode, part int) algorithms.Call {
		return algorithms.Call{Mode: mode, Part: part, Req: req}
	}
	if lc.Pieces() > 1 {
		if lc.Sharded() && lc.ShardPick == algorithms.PickTwoChoices && p.step == 0 {
			return append(calls, call(algorithms.ModeCheck, p.first), call(algorithms.ModeCheck, p.second))
		}
		return append(calls, call(algorithms.ModeAllow, p.chosen))
	}
	order := lc.order(int(r.client))
	limitCall := func(mode algorithms.Mode, limit int) algorithms.Call {
		c := call(mode, limit)
		if cost := lc.Limits[limit].Cost; cost > 0 {
			c.Req.Cost = cost
		}
		return c
	}
	switch lc.Combine {
	case algorithms.InOrder:
		// the stage's limit, and a check of each limit after it, which
		// changes nothing: what they would answer should this one refuse
		// (attribution, rules.go), seen at the same instant on any store
		calls = append(calls, limitCall(algorithms.ModeAllow, order[p.step]))
		for _, later := range order[p.step+1:] {
			calls = append(calls, limitCall(algorithms.ModeCheck, later))
		}
	case algorithms.CheckThenConsume:
		mode := algorithms.ModeCheck
		if p.step == 1 {
			mode = algorithms.ModeAllow
		}
		for _, limit := range order {
			calls = append(calls, limitCall(mode, limit))
		}
	case algorithms.AllOrNothing:
		for i, limit := range order {
			c := limitCall(algorithms.ModeAll, limit)
			if i == 0 {
				c.Group = len(order)
			}
			calls = append(calls, c)
		}
	}
	return calls
}

// advance takes a stage's answers (out, in the order appendCalls made the calls):
// the next stage, a round trip later (at once with no round trip), or the
// decision, which lands now and is heard a round trip later.
func (d *compositeDecider) advance(id int32, out []algorithms.Decision) {
	l := d.l
	lc := l.Config
	r := l.reqs.At(id)
	p := d.plans.At(r.slot)
	if lc.Pieces() > 1 {
		if lc.Sharded() && lc.ShardPick == algorithms.PickTwoChoices && p.step == 0 {
			a, b := out[0], out[1]
			if !a.Allowed && !b.Allowed { // neither has room: the earlier retry
				dec, shard := a, p.first
				if b.RetryAfter < a.RetryAfter {
					dec, shard = b, p.second
				}
				d.shardDecided(id, shard, dec)
				return
			}
			if !a.Allowed || (b.Allowed && b.Remaining > a.Remaining) {
				p.chosen = p.second
			}
			p.step = 1
			d.next(id)
			return
		}
		d.shardDecided(id, p.chosen, out[0])
		return
	}
	order := lc.order(int(r.client))
	cost := func(limit int) int64 {
		if c := lc.Limits[limit].Cost; c > 0 {
			return c
		}
		return r.cost
	}
	// what this stage's limits granted: each allow that allowed (in order, or
	// check-then-consume's consuming stage); an all-or-nothing group all or none;
	// a check, nothing
	all := true
	var granted int64
	var unreached []algorithms.Decision
	if lc.Combine == algorithms.InOrder { // the stage's limit, then its checks of those after it
		out, unreached = out[:1], out[1:]
	}
	for i, dec := range out {
		limit := order[i]
		if lc.Combine == algorithms.InOrder {
			limit = order[p.step]
		}
		p.decisions[limit] = dec
		all = all && dec.Allowed
		if dec.Allowed {
			granted += cost(limit)
		}
	}
	switch {
	case lc.Combine == algorithms.AllOrNothing && all,
		lc.Combine == algorithms.InOrder,
		lc.Combine == algorithms.CheckThenConsume && p.step == 1:
		p.granted += granted
	}
	switch {
	case !all:
		for i, dec := range unreached {
			if limit := order[int(p.step)+1+i]; !dec.Allowed && !dec.OnError && limit < maxRuleMask {
				p.unreached |= 1 << limit
			}
		}
		d.limitsDecided(id, false)
	case lc.Combine == algorithms.InOrder && int(p.step) < len(order)-1,
		lc.Combine == algorithms.CheckThenConsume && p.step == 0:
		p.step++
		d.next(id)
	default:
		d.limitsDecided(id, true)
	}
}

// next schedules a plan's next stage a round trip from now, or makes it now.
func (d *compositeDecider) next(id int32) {
	if rt := d.l.Config.RoundTrip; rt > 0 {
		d.l.schedule(d.l.now+rt, evCommit, int(id))
		return
	}
	d.issue(id)
}

// shardDecided lands a decision made by shard, a shard or an instance (the lane
// measures false denials against its whole limit, see Lane.wholeLimit).
func (d *compositeDecider) shardDecided(id int32, shard int, dec algorithms.Decision) {
	l := d.l
	o := decision(dec, l.now+l.Config.RoundTrip)
	o.shard = int32(shard)
	d.land(id, o)
}

// limitsDecided lands a multi-limit decision: allowed when every limit allowed.
// Its retry-after is the latest of the refusing limits'; its delay the longest
// (as nginx's ngx_http_limit_req_account has it), and a product's dry-run
// shadow the strongest (a refusal over a delay); remaining, limit and reset are
// the first listed limit's that was asked.
func (d *compositeDecider) limitsDecided(id int32, allowed bool) {
	l := d.l
	r := l.reqs.At(id)
	p := d.plans.At(r.slot)
	dec := algorithms.Decision{Allowed: allowed}
	shown := false
	for _, ld := range p.decisions {
		if ld.Limit == 0 {
			continue // not asked
		}
		if !shown {
			dec.Remaining, dec.Limit, dec.ResetAfter, shown = ld.Remaining, ld.Limit, ld.ResetAfter, true
		}
		dec.OnError = dec.OnError || ld.OnError
		if allowed {
			dec.Delay, dec.Shadow = max(dec.Delay, ld.Delay), max(dec.Shadow, ld.Shadow)
		} else if !ld.Allowed {
			dec.RetryAfter = max(dec.RetryAfter, ld.RetryAfter)
		}
	}
	o := decision(dec, l.now+l.Config.RoundTrip)
	o.limits, o.granted, o.unreached = p.decisions, p.granted, p.unreached
	d.land(id, o)
}

// land frees request id's plan and hands the lane what was decided, now.
func (d *compositeDecider) land(id int32, o *landing) {
	l := d.l
	d.plans.Release(l.reqs.At(id).slot)
	l.reqs.At(id).slot = -1
	l.land(id, o)
}

// wholeLimit measures a sharded lane's shard decision (or a balanced lane's
// instance's) on request r against the limit as a whole: one limiter of the
// lane's whole policy and algorithm, in memory, for the same key, fed every
// request the shards (the instances) accepted at the instant they accepted it. A request the shards accepted is taken from it too;
// for one they refused, it says whether the whole limit, with the same
// history, would have accepted it: a false denial, the cost of splitting.
func (l *Lane) wholeLimit(r *request, allowed bool) (falseDenial bool) {
	k := l.cfg.Keys[r.key]
	whole := l.whole[k.Tier]
	if allowed {
		whole.Allow(k.Name, l.stamp(r), r.cost)
		return false
	}
	return whole.(algorithms.Checker).Check(k.Name, l.stamp(r), r.cost).Allowed
}
