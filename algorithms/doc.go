// Package algorithms holds the rate-limiting algorithms ratelab compares: fixed
// window, sliding log, sliding window counter, leaky bucket (queue and meter), token
// bucket, GCRA, and a lane that runs golang.org/x/time/rate as a reference peer.
//
// The model shared by every limiter:
//
//   - Time is an argument. A limiter never reads the wall clock; the caller passes
//     now as a time.Duration offset from the run's origin (negative offsets are
//     allowed: a node whose clock runs behind reads before the origin). Limiters
//     distinguish times one microsecond apart (Resolution, the resolution of Redis
//     TIME); the sub-microsecond part of now is dropped, rounding towards the past.
//   - State is per key, in memory, created on first use as if the key had been idle
//     forever (a full bucket, an empty window), and evicted by Evict once it is back
//     in that state, so eviction never changes a decision.
//   - Costs are whole units (a request, a token of an LLM call). One Policy — Limit
//     units per Period, Burst at once — is mapped onto every algorithm so their
//     decisions are comparable.
//   - Arithmetic is exact. A policy is turned into integer credits (see credits.go):
//     one unit of cost is worth a fixed number of credits and buckets gain a whole
//     number of credits per microsecond, so "tokens ≥ cost" never depends on rounding.
//     The Lua ports in algorithms/redislua make the same integer steps in doubles,
//     exact below 2^53, which Policy.Validate guarantees.
//
// A limiter is not safe for concurrent use; the simulator drives each lane from one
// goroutine, and concurrent deciders are modelled explicitly (sim's store model).
package algorithms
