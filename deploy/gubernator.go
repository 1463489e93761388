package deploy

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"time"

	"ratelab/algorithms"
)

// gubernator is Gubernator's GLOBAL behaviour over its token bucket
// (algorithms.Gubernator), exact to gubernator-io/gubernator v2.13.0 (commit
// a7295734) where the timing is the protocol's, and, with pre, as it was
// before mailgun/gubernator PR #219 (at 6f1e32a5).
//
// The owner of a key is the peer its hash key (Name + "_" + key) falls to on
// the consistent-hash ring of the members (replicated_hash.go: FNV-1 64, 512
// points per peer at itoa(i) + hex(md5(address))). v2.13.0:
//
//   - the owner decides a request on its own item and queues a broadcast of
//     the key (getLocalRateLimit, QueueUpdate);
//   - any other peer decides it on its own copy — the owner's last broadcast,
//     taken from since, or a fresh full item when it has none — at once, and
//     queues the hits for the owner, refused or not (getGlobalRateLimit,
//     QueueHit);
//   - a peer's queued hits, summed per key, are sent GlobalSyncWait after the
//     first was queued into an empty queue (or at once when GlobalBatchLimit
//     keys wait): one message per owner, arriving a link's latency later,
//     where the owner applies each key's sum as one request made when its
//     first hit was, with DRAIN_OVER_LIMIT (GetPeerRateLimits), and queues a
//     broadcast;
//   - the owner's broadcasts go the same way (runBroadcasts): at the flush it
//     reads each key's item (Hits = 0) and sends it to every other member,
//     whose copy it replaces on arrival (UpdatePeerGlobals).
//
// Before PR #219 a peer that held a broadcast answered it as it was, taking
// nothing from it (a Hits = 0 status reads UNDER_LIMIT until the owner has
// refused a hit at Remaining 0: mailgun/gubernator#208), fell back on a local
// item of its own while it held none, and the owner applied forwarded sums
// without DRAIN_OVER_LIMIT (a sum over what remains takes nothing).
//
// Not modelled: sendHits and broadcastPeers waiting for their RPC before the
// next flush (Gubernator's loops block on fan.Wait: each flush can come up to
// a round trip later), RPC failures and GlobalTimeout, the hit and broadcast
// channels filling, the LRU's size. A peer added starts with an empty cache;
// a peer removed takes its queues with it.
type gubernator struct {
	d     *Deployment
	pre   bool
	name  string
	peers []*guberPeer // per instance slot; nil when not a member
	ring  guberRing
	rings map[int]guberRing // by membership: the addresses depend on it alone
}

// guberPeer is one Gubernator daemon.
type guberPeer struct {
	addr                    string
	cache                   *algorithms.Gubernator
	statuses                map[string]guberStatus // pre-219: broadcast statuses held
	statusBytes             int64                  // the bytes of their keys' names (state.go)
	hits                    map[string]*guberHits  // queued for owners
	updates                 map[string]int64       // queued broadcasts: key → the request's CreatedAt
	hitsArmed, updatesArmed bool
}

type guberHits struct{ hits, createdAt int64 }

// guberStatus is a broadcast RateLimitResp as a pre-219 peer kept it.
type guberStatus struct {
	under               bool
	remaining, expireAt int64
}

func newGubernator(d *Deployment, pre bool) (protocol, error) {
	p := &gubernator{d: d, pre: pre, name: d.cfg.Name, peers: make([]*guberPeer, d.cfg.Most)}
	for i := range d.members {
		peer, err := p.newPeer(i)
		if err != nil {
			return nil, err
		}
		p.peers[i] = peer
	}
	p.rings = map[int]guberRing{}
	p.ring = p.ringOf(d.members)
	return p, nil
}

// ringOf is the ring of the first n instances, made once.
func (p *gubernator) ringOf(n int) guberRing {
	r, ok := p.rings[n]
	if !ok {
		r = newGuberRing(p.addresses())
		p.rings[n] = r
	}
	return r
}

// Address is instance i's GRPCAddress: Config.Peers[i], or "peer-<i>".
func (d *Deployment) address(i int) string {
	if i < len(d.cfg.Peers) {
		return d.cfg.Peers[i]
	}
	return "peer-" + strconv.Itoa(i)
}

func (p *gubernator) newPeer(i int) (*guberPeer, error) {
	lim, err := p.d.cfg.New()
	if err != nil {
		return nil, err
	}
	g, ok := lim.(*algorithms.Gubernator)
	if !ok {
		return nil, fmt.Errorf("sync %q is Gubernator's: it needs Gubernator's lane (got %s)", GubernatorGlobal, lim.Algorithm())
	}
	return &guberPeer{addr: p.d.address(i), cache: g, statuses: map[string]guberStatus{}, hits: map[string]*guberHits{}, updates: map[string]int64{}}, nil
}

func (p *gubernator) addresses() []string {
	var out []string
	for _, peer := range p.peers[:p.d.members] {
		out = append(out, peer.addr)
	}
	return out
}

func (p *gubernator) decide(inst int, key string, now time.Duration, cost int64) (algorithms.Decision, time.Duration) {
	peer := p.peers[inst]
	ms := peer.cache.MS(now)
	if p.ring.owner(p.name+"_"+key) == inst {
		under, rem, reset := peer.cache.Apply(key, ms, ms, cost, false)
		if cost != 0 {
			p.queueUpdate(inst, key, ms, now)
		}
		return peer.cache.Answer(now, under, rem, reset), 0
	}
	if cost != 0 || p.pre { // QueueHit: Hits != 0 since #219
		p.queueHit(inst, key, cost, ms, now)
	}
	if p.pre {
		if st, ok := peer.statuses[key]; ok && st.expireAt >= ms {
			return peer.cache.Answer(now, st.under, st.remaining, st.expireAt), 0
		} else if ok {
			peer.statusBytes -= int64(len(key))
			delete(peer.statuses, key)
		}
	}
	under, rem, reset := peer.cache.Apply(key, ms, ms, cost, false)
	return peer.cache.Answer(now, under, rem, reset), 0
}

// queueHit queues hits of key at peer inst for the owner (runAsyncHits).
func (p *gubernator) queueHit(inst int, key string, hits, createdAt int64, now time.Duration) {
	peer := p.peers[inst]
	if h, ok := peer.hits[key]; ok {
		h.hits += hits
	} else {
		peer.hits[key] = &guberHits{hits: hits, createdAt: createdAt}
	}
	p.batch(inst, len(peer.hits), &peer.hitsArmed, now, p.sendHits)
}

// batch is Gubernator's queue of hits or of broadcasts at instance inst
// (runAsyncHits, runBroadcasts: an Interval and a batch limit), waiting keys
// now queued: flushed at once when GlobalBatchLimit keys wait, else
// GlobalSyncWait after the first key entered it empty (a timer already
// armed is not armed again).
func (p *gubernator) batch(inst, waiting int, armed *bool, now time.Duration, flush func(inst int, at time.Duration)) {
	switch {
	case waiting >= p.d.cfg.BatchLimit:
		flush(inst, now)
	case waiting == 1 && !*armed:
		*armed = true
		p.d.afterFor(inst, now+p.d.cfg.SyncWait, func(at time.Duration) {
			*armed = false
			flush(inst, at)
		})
	}
}

// sendHits sends peer inst's queued hits, a message to each owner.
func (p *gubernator) sendHits(inst int, at time.Duration) {
	peer := p.peers[inst]
	if len(peer.hits) == 0 {
		return
	}
	byOwner := map[int][]string{}
	for _, key := range slices.Sorted(maps.Keys(peer.hits)) {
		o := p.ring.owner(p.name + "_" + key)
		byOwner[o] = append(byOwner[o], key)
	}
	queued := peer.hits
	peer.hits = map[string]*guberHits{}
	for _, o := range slices.Sorted(maps.Keys(byOwner)) {
		keys := byOwner[o]
		p.d.send(inst, o, at, func(arrival time.Duration) { // lost if the owner left or is cut off
			owner := p.peers[o]
			ms := owner.cache.MS(arrival)
			for _, key := range keys {
				h := queued[key]
				owner.cache.Apply(key, ms, h.createdAt, h.hits, !p.pre)
				if h.hits != 0 { // QueueUpdate
					p.queueUpdate(o, key, h.createdAt, arrival)
				}
			}
		})
	}
}

// queueUpdate queues a broadcast of key at its owner o (runBroadcasts).
func (p *gubernator) queueUpdate(o int, key string, createdAt int64, now time.Duration) {
	owner := p.peers[o]
	owner.updates[key] = createdAt
	p.batch(o, len(owner.updates), &owner.updatesArmed, now, p.broadcast)
}

// broadcast sends owner o's queued keys' state, read now with Hits = 0, to
// every other member (broadcastPeers).
func (p *gubernator) broadcast(o int, at time.Duration) {
	owner := p.peers[o]
	if len(owner.updates) == 0 {
		return
	}
	keys := slices.Sorted(maps.Keys(owner.updates))
	ms := owner.cache.MS(at)
	sent := make([]guberStatus, len(keys))
	for i, key := range keys {
		under, rem, reset := owner.cache.Apply(key, ms, owner.updates[key], 0, false)
		sent[i] = guberStatus{under: under, remaining: rem, expireAt: reset}
	}
	clear(owner.updates)
	p.d.sendOthers(o, at, func(to int, arrival time.Duration) {
		peer := p.peers[to]
		ms := peer.cache.MS(arrival)
		for j, key := range keys {
			st := sent[j]
			if p.pre {
				if _, ok := peer.statuses[key]; !ok {
					peer.statusBytes += int64(len(key))
				}
				peer.statuses[key] = st
				peer.cache.Forget(key)
				continue
			}
			peer.cache.Put(key, algorithms.GubernatorItem{Over: !st.under, Remaining: st.remaining, CreatedAt: ms, ExpireAt: st.expireAt})
		}
	})
}

func (p *gubernator) scale(_ time.Duration, before, n int) {
	for i := n; i < before; i++ {
		p.peers[i] = nil
	}
	for i := before; i < n; i++ {
		p.peers[i], _ = p.newPeer(i) // newPeer succeeded with the same arguments
	}
	p.ring = p.ringOf(n)
}

// restart gives peer i an empty cache and empty queues at the same address:
// it owns the same keys, and has forgotten their counts.
func (p *gubernator) restart(_ time.Duration, i int) { p.peers[i], _ = p.newPeer(i) }

// level is the hits the key's owner has counted in its window.
func (p *gubernator) level(key string, now time.Duration) float64 {
	return p.peers[p.ring.owner(p.name+"_"+key)].cache.Level(key, now)
}

func (p *gubernator) forget() {}

// failover: the instances keep their state in their own memory.
func (p *gubernator) failover(time.Duration) {}

// guberRing is Gubernator's ReplicatedConsistentHash with its defaults
// (replicated_hash.go at v2.13.0: 512 replicas, segmentio/fasthash's FNV-1
// 64-bit).
type guberRing struct {
	points []uint64
	owners []int
}

// guberReplicas is defaultReplicas.
const guberReplicas = 512

func fnv1(s string) uint64 {
	h := fnv.New64()
	h.Write([]byte(s))
	return h.Sum64()
}

func newGuberRing(addrs []string) guberRing {
	type point struct {
		hash  uint64
		owner int
	}
	var pts []point
	for o, addr := range addrs {
		sum := md5.Sum([]byte(addr))
		hexed := hex.EncodeToString(sum[:])
		for i := range guberReplicas {
			pts = append(pts, point{fnv1(strconv.Itoa(i) + hexed), o})
		}
	}
	slices.SortStableFunc(pts, func(a, b point) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return 0
	})
	var r guberRing
	for _, pt := range pts {
		r.points, r.owners = append(r.points, pt.hash), append(r.owners, pt.owner)
	}
	return r
}

// owner is the member hashKey falls to: the first point at or above its hash,
// wrapping round.
func (r guberRing) owner(hashKey string) int {
	h := fnv1(hashKey)
	i, _ := slices.BinarySearch(r.points, h)
	if i == len(r.points) {
		i = 0
	}
	return r.owners[i]
}

// GubernatorOwner is the address, of addrs, that owns hashKey
// (Name + "_" + UniqueKey) in Gubernator's ring.
func GubernatorOwner(addrs []string, hashKey string) string {
	return addrs[newGuberRing(addrs).owner(hashKey)]
}
