package deploy

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
)

// peerPushes is how HAProxy's peers section sends what a member's table
// counted (src/peers.c at 50872daa), for haproxy-peers and haproxy-peers-sum
// alike. An entry a member touched is pushed whole to every other member at
// once, and arrives a link's latency later to overwrite the receiver's table
// (for a shared table, the receiver's own; with a table per server, its copy
// of the sender's). Touches of one entry at one instant are one message: a
// later one rides in the message not yet arrived. While a partition holds,
// the entries each member touches are noted, and when members are together
// again (the partition healed or moved) their peer sessions resume from the
// last update the other side acknowledged (init_connected_peer: last_pushed
// = update), so each pushes them again, as they are then.
type peerPushes struct {
	d *Deployment
	// table is member from's own table; receiver the table at to that
	// from's pushes overwrite.
	table    func(from int) *algorithms.HAProxy
	receiver func(to, from int) *algorithms.HAProxy
	sent     map[pushKey]*algorithms.HAProxyState // pushes in flight sent at sentAt
	sentAt   time.Duration
	// apart are the entries each member touched during a partition.
	apart map[pushKey]bool
}

type pushKey struct {
	from int
	key  string
}

func newPeerPushes(d *Deployment, table func(int) *algorithms.HAProxy, receiver func(int, int) *algorithms.HAProxy) *peerPushes {
	return &peerPushes{d: d, table: table, receiver: receiver, sent: map[pushKey]*algorithms.HAProxyState{}, apart: map[pushKey]bool{}}
}

// touched pushes member from's entry for key if a decision at now changed it
// from before.
func (q *peerPushes) touched(from int, key string, before algorithms.HAProxyState, now time.Duration) {
	after, ok := q.table(from).Entry(key, now)
	if !ok || after == before {
		return
	}
	q.push(from, key, after, now)
	if q.d.split {
		q.apart[pushKey{from, key}] = true
	}
}

// push sends member from's entry s for key to every other member, once per
// instant.
func (q *peerPushes) push(from int, key string, s algorithms.HAProxyState, now time.Duration) {
	if now != q.sentAt {
		clear(q.sent)
		q.sentAt = now
	}
	pk := pushKey{from, key}
	if msg, ok := q.sent[pk]; ok {
		*msg = s // the message not yet arrived carries the entry as it is now
		return
	}
	msg := &s
	if q.d.cfg.Latency > 0 || q.d.cfg.Jitter > 0 {
		q.sent[pk] = msg
	}
	q.d.sendOthers(from, now, func(to int, arrival time.Duration) {
		q.receiver(to, from).Receive(key, *msg, now, arrival)
	})
}

// heal pushes every entry a member touched while apart, as it reads now, to
// the members it is together with again under the cut that was (was); the
// notes are emptied once the deployment is whole again. Every entry is read
// before any is sent: both sides push at once.
func (q *peerPushes) heal(now time.Duration, was []bool) {
	d := q.d
	keys := slices.SortedFunc(maps.Keys(q.apart), func(a, b pushKey) int {
		return cmp.Or(cmp.Compare(a.from, b.from), strings.Compare(a.key, b.key))
	})
	if !d.split {
		clear(q.apart) // whole again: every pair has had them
	}
	type resume struct {
		pushKey
		entry algorithms.HAProxyState
	}
	var pushes []resume
	for _, pk := range keys {
		if pk.from >= d.members {
			continue // removed since
		}
		if e, ok := q.table(pk.from).Entry(pk.key, now); ok {
			pushes = append(pushes, resume{pk, e})
		}
	}
	for _, r := range pushes {
		for to := range d.members {
			if d.rejoined(was, r.from, to) {
				d.send(r.from, to, now, func(arrival time.Duration) { q.receiver(to, r.from).Receive(r.key, r.entry, now, arrival) })
			}
		}
	}
}
