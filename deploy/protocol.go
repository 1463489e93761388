package deploy

import (
	"fmt"
	"strings"
)

// Protocol is how a deployment's instances share what they admitted.
type Protocol int

const (
	// Local: each instance keeps its own limiter of the whole policy and
	// tells no one (Traefik's rateLimit, Envoy's local rate limit, nginx OSS,
	// Kong's local policy, Spring without Redis): together they admit up to N
	// times the policy.
	Local Protocol = iota
	// Share: each instance keeps the policy divided by the membership it last
	// saw (Envoy's local_cluster_rate_limit).
	Share
	// Central: one store every instance asks on each decision, a link's round
	// trip away (Kong's cluster and redis policies with sync_rate −1, the
	// Redis lanes).
	Central
	// KongSync: Kong's redis policy with sync_rate > 0: each node counts
	// locally and adds its counts to Redis every sync_rate.
	KongSync
	// KongSyncPre11859: KongSync as it was before Kong PR #11859 (3.4 and
	// 3.5): a fresh read's request was counted twice in Redis.
	KongSyncPre11859
	// HAProxyPeers: HAProxy's stick tables synchronised by a peers section:
	// each instance pushes an entry it touched to the others, whose copy it
	// overwrites.
	HAProxyPeers
	// GubernatorGlobal: Gubernator's GLOBAL behaviour (v2.13.0): the owner of
	// a key decides, other peers answer from their copy and send the hits to
	// the owner every GlobalSyncWait; the owner broadcasts its state.
	GubernatorGlobal
	// GubernatorGlobalPre219: GLOBAL as it was before gubernator PR #219.
	GubernatorGlobalPre219
	// HAProxyPeersSum: HAProxy's peers with one table per server, the deny
	// rule adding the tables' rates: no count lost, each read a link late.
	HAProxyPeersSum
	// ReplicaReads: one store with a replica; each instance reads a key's
	// count from the replica and adds what it admitted on the primary
	// (GitHub's 2021 design), so admissions within the replica's lag pass
	// the limit.
	ReplicaReads
)

// protocols are the protocols' words in scenario files, in Protocol order.
var protocols = [...]string{"local", "share", "central", "kong-sync", "kong-sync-pre-11859", "haproxy-peers", "gubernator-global", "gubernator-global-pre-219", "haproxy-peers-sum", "replica-reads"}

// String is the protocol's word in scenario files.
func (p Protocol) String() string { return protocols[p] }

// Protocols lists every protocol's word, in order.
func Protocols() []string { return protocols[:] }

// ParseProtocol reads a protocol's word.
func ParseProtocol(s string) (Protocol, error) {
	for i, w := range protocols {
		if w == s {
			return Protocol(i), nil
		}
	}
	return 0, fmt.Errorf("unknown sync protocol %q; use one of %s", s, strings.Join(protocols[:], ", "))
}

// UsesStore says the protocol's instances ask a store, which an outage takes
// away (central and replica-reads; Kong's sync, whose reads and pushes go to
// Redis); the others
// keep their state in the instances' memory.
func (p Protocol) UsesStore() bool {
	return p == Central || p == KongSync || p == KongSyncPre11859 || p == ReplicaReads
}

// Periodic says the protocol sends what it counted every SyncWait (which it
// then needs).
func (p Protocol) Periodic() bool {
	switch p {
	case KongSync, KongSyncPre11859, GubernatorGlobal, GubernatorGlobalPre219:
		return true
	}
	return false
}
