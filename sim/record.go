package sim

import (
	"math"
	"time"

	"ratelab/algorithms"
)

// Row is one decision, as the request CSV records it.
type Row struct {
	At         time.Duration // when the decision landed, true virtual time
	Lane       int
	Client     int
	Key        int
	Request    int64 // the logical request's number within its client, from 1
	Attempt    int   // from 1
	Cost       int64
	Remaining  float64
	RetryAfter time.Duration
	// For the headers (RequestWriter with headers, the UI): the decision's reset
	// and limit, and a multi-limit lane's decision per limit (as listed; a zero
	// Limit: not asked), or a product's answer per window
	// (algorithms.Decision.Windows).
	ResetAfter time.Duration
	Limit      int64
	Limits     []algorithms.Decision
	// The attempt's fate (see fate.go), filled in for a row sink only: the time
	// on the deciding node's clock when the decision landed (At under the
	// server's clock), when an accepted request went ahead (NotAdmitted for
	// one that left a queue before its turn, abandon.go) and the queue delay or
	// reservation it waited (0 when denied), and the time from the logical
	// request's first attempt until this attempt's answer reached the
	// application (-1 while in flight).
	DecidedAt  time.Duration
	AdmittedAt time.Duration
	QueueDelay time.Duration
	Latency    time.Duration
	// The small fields last, side by side: a Row is copied for every decision
	// written, and the padding after each, were they among the others, would be
	// a sixth of it.
	//
	// Shard is the shard that made the decision, for the headers (-1 when the
	// lane is not sharded). Shadow is what a product in dry run would have done
	// with the request it let through (algorithms.Decision.Shadow). Outcome is
	// what became of the attempt, and Wasted whether the backend served it after
	// its client had stopped waiting (the fate, as above).
	//
	// Decisive is the rule that refused the attempt, from 1 (its index in
	// LaneConfig.RuleNames, plus 1), and AlsoRefusing how many other rules
	// refused it too (see rules.go); both 0 for an acceptance and for a
	// refusal no rule made.
	Shard        int32
	Decisive     int16
	AlsoRefusing int16
	Allowed      bool
	Shadow       algorithms.Shadow
	Outcome      Outcome
	Wasted       bool
}

// landing is what a decider decided for one attempt, and all it hands the lane:
// every decision, however it was made (at once, in a batch, in non-atomic steps,
// in a composite lane's stages), lands through Lane.land, the one place it is
// recorded — the counts, the claims' scopes, the watched level, the row, the
// lane's latest decision — and the request carried on (admitted, retried or
// given up on). A decider measures; the lane records.
type landing struct {
	d algorithms.Decision
	// answered is when the application has the answer: now in memory, a round
	// trip later for a call to a store.
	answered time.Duration
	// lost: a WATCH commit that kept losing to other writers, given up on with
	// no decision of the limiter's (d is noDecision): a conflict, denied.
	lost bool
	// shard is the shard that decided, for a sharded lane; -1 otherwise.
	shard int32
	// limits, for a multi-limit lane, is each limit's decision, as listed (a zero
	// Limit: not asked); granted the units they granted this attempt.
	limits  []algorithms.Decision
	granted int64
	// unreached, for an in-order lane, is the mask of the limits past the
	// refusing one that had no room either, checked uncharged (rules.go).
	unreached uint64
}

// decision is the landing of a plain decision d, answered at `answered`.
func decision(d algorithms.Decision, answered time.Duration) *landing {
	return &landing{d: d, answered: answered, shard: -1}
}

// latest is what a lane keeps of its latest decision: a few words, from which
// LastDecision rebuilds what the UI shows.
type latest struct {
	at     time.Duration
	key    int32
	shard  int32
	seen   bool
	rule   int16 // Row.Decisive
	also   int16 // Row.AlsoRefusing
	d      algorithms.Decision
	limits []algorithms.Decision
}

// Last is a lane's latest decision as the UI shows it: the limiter's answer, the
// key it was for, and the row its response headers are read from
// (present.ResponseHeaders) — when it landed, its lane, key, answer, the shard
// that made it (-1 when not sharded) and each limit's answer. The row's client,
// request and attempt are not kept (they are zero), nor its fate.
type Last struct {
	Decision algorithms.Decision
	Key      Key
	Row      Row
}

// LastDecision is the lane's latest decision, rebuilt from what the lane keeps
// of it, and false before the first made since Run.KeepLive (a headless run,
// which does not keep live figures, keeps none).
func (l *Lane) LastDecision() (Last, bool) {
	if !l.last.seen {
		return Last{}, false
	}
	d := l.last.d
	return Last{Decision: d, Key: l.cfg.Keys[l.last.key], Row: Row{At: l.last.at, Lane: l.Index, Key: int(l.last.key),
		Allowed: d.Allowed, Remaining: d.Remaining, RetryAfter: d.RetryAfter, Shadow: d.Shadow, ResetAfter: d.ResetAfter, Limit: d.Limit,
		Shard: l.last.shard, Limits: l.last.limits, Decisive: l.last.rule, AlsoRefusing: l.last.also}}, true
}

// land records what a decider decided for request id, now, and carries the
// request on: a denial (or a lost WATCH race) to its client's retry policy, an
// acceptance to its admission. noDecision (a lost race) and a decision of
// on_error (the store failed) say nothing about the watched level.
func (l *Lane) land(id int32, o *landing) {
	r := l.reqs.At(id)
	d := o.d
	limits := o.limits
	if limits == nil {
		limits = d.Windows // a product's answer per window (Kong's), for its headers
	}
	var rule, also int16
	if !d.Allowed && !o.lost {
		decisive, mask := l.Config.attribute(r.client, d, o.limits, o.unreached)
		l.rec.countRule(decisive, mask)
		if decisive >= 0 {
			rule, also = int16(min(decisive+1, math.MaxInt16)), int16(min(alsoRefusing(decisive, mask), math.MaxInt16))
		}
	}
	if l.keepLast { // field by field: a latest built apart and copied in is read back wide
		last := &l.last
		last.at, last.key, last.shard, last.seen = l.now, r.key, o.shard, true
		last.d, last.limits, last.rule, last.also = o.d, limits, rule, also
		if rule > 0 {
			l.latestRefusal = Refusal{At: l.now, Key: r.key, Rule: rule, AlsoRefusing: also}
		}
	}
	if int(r.key) == l.cfg.WatchKey && !l.composite && !d.IsZero() && !d.OnError {
		l.observe(levelAfter(l.watchShape, d))
	}
	if l.rec.scopes.scopes != nil {
		l.rec.scopes.count(r, d.Allowed, l.now)
	}
	if l.stream != nil {
		l.holdRow(r, &o.d, o.shard, limits, rule, also)
	}
	m := &l.rec.m
	l.rec.tally(r.client, d.Allowed && !o.lost)
	if c := &l.clients[r.client]; c.retry.HonourRateLimit && !o.lost {
		l.paceAnswer(r, d, later(o.answered, c.c.Latency))
	}
	if o.shard >= 0 && d.Allowed {
		l.rec.shardUnits[o.shard] += r.cost
	}
	if o.shard >= 0 && !d.OnError && l.whole != nil && l.wholeLimit(r, d.Allowed) {
		m.FalseDenials++
	}
	if o.limits != nil {
		m.GrantedUnits += o.granted
		if !d.Allowed && o.granted > 0 {
			m.WastedUnits += o.granted
			r.spent = true
		}
	}
	if c := l.cfg.Classes; c != nil {
		switch heavy := c.Heavy[r.key]; {
		case heavy:
			m.HeavyAttempts++
			if d.Allowed && !o.lost {
				m.HeavyAccepted++
			}
		default:
			m.OrdinaryAttempts++
			if !d.Allowed || o.lost {
				m.OrdinaryDenied++
			}
		}
	}
	switch {
	case o.lost:
		m.Conflicts++
		m.Denied++
		l.tick.Denied++
		l.failedAs(id, OutcomeDenied)
	case !d.Allowed:
		m.Denied++
		l.tick.Denied++
		l.failedAt(id, true, d, o.answered, OutcomeDenied)
	default:
		m.Accepted++
		l.tick.Accepted++
		l.accepted(id, d, o.answered)
	}
}

// storeCall counts a round trip to the limiter's store, made now.
func (l *Lane) storeCall() { l.rec.m.StoreCalls++ }
