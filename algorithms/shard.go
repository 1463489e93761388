package algorithms

// Sharding one hot limit: a policy split into N limits of about 1/N each, and a
// rule for which one a request goes to. One key is one slot on one Redis Cluster
// master, whatever the cluster's size; N shards whose keys carry the shard in their
// hash tag land on N slots and spread over the masters.

// ShardPick is how a sharded lane chooses the shard a request goes to.
type ShardPick int

const (
	// PickRandom sends each request to one shard drawn at random: one call, but
	// a request can be refused by its shard while others have room.
	PickRandom ShardPick = iota
	// PickTwoChoices looks at two shards drawn at random and sends the request to
	// the one with more room (Mitzenmacher, "The Power of Two Choices in
	// Randomized Load Balancing", IEEE TPDS 12(10), 2001); when neither has room it
	// is refused with the earlier of their retry times. Two checks, then one
	// decision.
	PickTwoChoices
)

// ShardPicks are the picks' names in scenario files.
var ShardPicks = []string{"random", "two-choices"}

// String is the pick's name.
func (p ShardPick) String() string { return ShardPicks[p] }

// ParseShardPick reads a pick's name.
func ParseShardPick(name string) (ShardPick, bool) {
	for i, n := range ShardPicks {
		if n == name {
			return ShardPick(i), true
		}
	}
	return 0, false
}

// ShardPolicies splits p into n policies, one per shard: the limit and the burst
// are divided by n, and the remainder goes one unit each to the first shards, so
// the shards together allow exactly p (100 over 8 shards: four of 13 and four of
// 12). Every shard keeps the period and the jitter. n must be at most the limit
// and the burst, so no shard gets nothing.
func ShardPolicies(p Policy, n int) []Policy {
	p = p.WithDefaults()
	out := make([]Policy, n)
	for i := range out {
		out[i] = p
		out[i].Limit = shareOf(p.Limit, n, i)
		out[i].Burst = shareOf(p.Burst, n, i)
	}
	return out
}

// ShardOptions is o for shard i of n: the fixed window's rollover, the token
// bucket's reservations and nginx's delay are split as the limit is.
func ShardOptions(o Options, n, i int) Options {
	o.Rollover = shareOf(o.Rollover, n, i)
	o.MaxReserved = shareOf(o.MaxReserved, n, i)
	o.Delay = shareOf(o.Delay, n, i)
	return o
}

// shareOf is shard i's share of total split n ways, the remainder to the first.
func shareOf(total int64, n, i int) int64 {
	share := total / int64(n)
	if int64(i) < total%int64(n) {
		share++
	}
	return share
}

// PickShards is the shards a request with the random draw looks at, of n: first
// is where a random pick sends it; two choices look at first and second, which
// differ when n > 1. Both are uniform over the shards, and the pair is uniform
// over the pairs: a pure function of the draw, so a run that makes the same draws
// picks the same shards, however its calls are batched.
func PickShards(draw uint64, n int) (first, second int) {
	first = int(draw % uint64(n))
	if n == 1 {
		return 0, 0
	}
	second = (first + 1 + int((draw/uint64(n))%uint64(n-1))) % n
	return first, second
}
