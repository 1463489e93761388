package sim

import "ratelab/algorithms"

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
//     sticky sessions, long-lived connections, instances of unequal size).
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
)

// String is the balance's word in scenario files.
func (b Balance) String() string { return [...]string{"round-robin", "random", "weighted"}[b] }

// instance is the instance the balancer sends request r's attempt to.
func (l *Lane) instance(r *request) int {
	lc := l.Config
	switch lc.Balance {
	case BalanceRoundRobin:
		i := l.turn
		l.turn = (l.turn + 1) % lc.Instances
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
	return int(shardDraw(l.cfg.Seed, r.client, r.n, r.attempt) % uint64(lc.Instances))
}
