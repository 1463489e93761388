package sim

import (
	"cmp"
	"slices"

	"ratelab/algorithms"
)

// A limit kept in the memory of each application instance, behind a load
// balancer (LaneConfig.Instances). Each instance knows nothing of the others and
// holds a limiter of either
//
//   - the lane's whole policy (per_instance = "whole"): together they allow up
//     to Instances times it — the limit a user wrote holds per instance, not
//     per key; or
//   - a share of it (per_instance = "share"), the policy divided as shards
//     divide it (algorithms.ShardPolicies): together exactly the policy, as
//     long as the balancer sends each instance its share of every key's
//     requests.
//
// The balancer sends each request (each attempt) to one instance:
//
//   - round-robin: the instances in turn, in the order the lane's attempts
//     reach it;
//   - random: one drawn uniformly for each attempt, from the run's seed and the
//     request (the same draw in every lane);
//   - weighted: one drawn with the shares Weights gives (an uneven balancer:
//     sticky sessions, long-lived connections, instances of unequal size);
//   - hash: consistent hashing of the request's key over the members (a ring
//     of hashRing points per instance): one key always reaches one instance,
//     and a change of membership moves only the keys of the instances that
//     came or went (a deployed lane's);
//   - sticky: each client stays with the instance it was first sent to (in
//     turn, as round-robin sends), and is sent to the next in turn when that
//     instance is removed.
//
// The lane is measured as the sharded ones are: against its policy as one
// limit (peak/limit and over-grant: how far past it the instances together
// went), with false denials (an instance refused what one limit of the policy,
// fed everything the instances accepted, would have accepted) and the busiest
// instance's share (shard_imbalance). A share per instance holds the policy
// while the balancer is even, and refuses falsely when it is not.

// PerInstance is what each instance of a balanced lane holds.
type PerInstance int

const (
	InstanceWhole PerInstance = iota // the lane's whole policy, each
	InstanceShare                    // a share: the policy divided by the instances
)

// String is the setting's word in scenario files.
func (p PerInstance) String() string { return [...]string{"whole", "share"}[p] }

// PiecePolicy is the policy of piece i of the lane for tier t (see Pieces): a
// shard's share, an instance's whole policy or share, or the lane's own.
func (l LaneConfig) PiecePolicy(cfg *Config, t, i int) (algorithms.Policy, algorithms.Options) {
	p := l.TierPolicy(cfg, t)
	if l.Sharded() || (l.Balanced() && l.PerInstance == InstanceShare) {
		n := l.Pieces()
		return algorithms.ShardPolicies(p, n)[i], algorithms.ShardOptions(l.Options, n, i)
	}
	return p, l.Options
}

// Balance is how a load balancer spreads requests over the instances.
type Balance int

const (
	BalanceRoundRobin Balance = iota // in turn
	BalanceRandom                    // uniformly at random
	BalanceWeighted                  // at random, in the shares of Weights
	BalanceHash                      // consistent hashing of the key
	BalanceSticky                    // each client to one instance
)

// String is the balance's word in scenario files.
func (b Balance) String() string {
	return [...]string{"round-robin", "random", "weighted", "hash", "sticky"}[b]
}

// members is how many instances the balancer sends to now: a deployed lane's
// membership, else its instances.
func (l *Lane) members() int {
	if l.Config.Deployed() {
		return l.deployed.members()
	}
	return l.Config.Instances
}

// instance is the instance the balancer sends request r's attempt to.
func (l *Lane) instance(r *request) int {
	lc := l.Config
	n := l.members()
	switch lc.Balance {
	case BalanceRoundRobin:
		i := l.turn
		l.turn = (l.turn + 1) % n
		return i
	case BalanceHash:
		return l.ring().pick(l.cfg.Keys[r.key].Name)
	case BalanceSticky:
		if l.sticky == nil {
			l.sticky = make([]int32, len(l.cfg.Clients))
			for i := range l.sticky {
				l.sticky[i] = -1
			}
		}
		if i := l.sticky[r.client]; i >= 0 && int(i) < n {
			return int(i)
		}
		i := l.turn
		l.turn = (l.turn + 1) % n
		l.sticky[r.client] = int32(i)
		return i
	case BalanceWeighted:
		total := 0
		for _, w := range lc.Weights {
			total += w
		}
		x := int(shardDraw(l.cfg.Seed, r.client, r.n, r.attempt) % uint64(total))
		for i, w := range lc.Weights {
			if x < w {
				return i
			}
			x -= w
		}
	}
	return int(shardDraw(l.cfg.Seed, r.client, r.n, r.attempt) % uint64(n))
}

// hashRing is the points each instance has on the consistent-hashing ring.
const hashRing = 64

// ring is the consistent-hashing ring of the members now, made again when the
// membership changed.
func (l *Lane) ring() *ring {
	if n := l.members(); l.hashed == nil || l.hashed.members != n {
		l.hashed = newRing(n)
	}
	return l.hashed
}

// ring is a consistent-hashing ring (Karger et al., 1997): each instance at
// hashRing points, a key at the first point at or after its hash.
type ring struct {
	members int
	points  []uint64
	owners  []int
}

func newRing(n int) *ring {
	r := &ring{members: n}
	type point struct {
		at    uint64
		owner int
	}
	pts := make([]point, 0, n*hashRing)
	for i := range n {
		for v := range hashRing {
			pts = append(pts, point{splitmix(uint64(i)<<20 ^ uint64(v) ^ 0x9e3779b97f4a7c15), i})
		}
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.at, b.at) })
	for _, p := range pts {
		r.points, r.owners = append(r.points, p.at), append(r.owners, p.owner)
	}
	return r
}

// pick is the instance key reaches: its FNV-1a hash, mixed, on the ring.
func (r *ring) pick(key string) int {
	h := uint64(14695981039346656037) // FNV-1a 64, inline: no allocation a decision
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * 1099511628211
	}
	x := splitmix(h)
	i, _ := slices.BinarySearch(r.points, x)
	if i == len(r.points) {
		i = 0
	}
	return r.owners[i]
}
