package sim

import (
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
	Allowed    bool
	Remaining  float64
	RetryAfter time.Duration
	// For the headers (RequestWriter with headers, the UI): the decision's reset
	// and limit, the shard that made it (-1 when the lane is not sharded), and a
	// multi-limit lane's decision per limit (as listed; a zero Limit: not asked).
	ResetAfter time.Duration
	Limit      int64
	Shard      int32
	Limits     []algorithms.Decision
	// The attempt's fate (see fate.go), filled in for a row sink only: the time
	// on the deciding node's clock when the decision landed (At under the
	// server's clock), when an accepted request went ahead and the queue delay or
	// reservation it waited (0 when denied), what became of it, the time from
	// the logical request's first attempt until this attempt's answer reached
	// the application (-1 while in flight), and whether the backend served it
	// after its client had stopped waiting.
	DecidedAt  time.Duration
	AdmittedAt time.Duration
	QueueDelay time.Duration
	Outcome    Outcome
	Latency    time.Duration
	Wasted     bool
}

// rowDetail is what a composite lane's decider adds to a row.
type rowDetail struct {
	shard  int32
	limits []algorithms.Decision
}

// LastDecision is the lane's latest decision and its key, and false before the first.
func (l *Lane) LastDecision() (algorithms.Decision, Key, bool) {
	return l.last, l.cfg.Keys[l.lastKey], l.lastSeen
}

// LastRow is the lane's latest decision as a row (with what its headers need), and
// false before the first.
func (l *Lane) LastRow() (Row, bool) { return l.lastRow, l.lastSeen }

// record keeps d as the latest decision, notes the watched key's level after it,
// counts it in the claims' scopes, and hands it to the row sink. noDecision (a
// WATCH that kept losing) says nothing about the level.
func (l *Lane) record(r *request, d algorithms.Decision) {
	l.last, l.lastKey, l.lastSeen = d, r.key, true
	l.lastRow = Row{At: l.now, Lane: l.Index, Client: int(r.client), Key: int(r.key), Request: r.n, Attempt: int(r.attempt), Cost: r.cost,
		Allowed: d.Allowed, Remaining: d.Remaining, RetryAfter: d.RetryAfter, ResetAfter: d.ResetAfter, Limit: d.Limit, Shard: l.detail.shard, Limits: l.detail.limits}
	if int(r.key) == l.cfg.WatchKey && d != noDecision && !l.Config.Composite() {
		l.observe(levelAfter(l.watchShape, d))
	}
	if l.rec.scopes.scopes != nil {
		l.rec.scopes.count(r, d.Allowed, l.now)
	}
	if l.stream == nil {
		return
	}
	l.holdRow(r, l.lastRow)
}
