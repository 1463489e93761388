// Package deploy models a limiter deployed as several gateway instances: N
// copies of one policy behind a load balancer, each product's own way of
// sharing what the copies admitted (its sync protocol), the links between them
// and to a store with a latency, and membership that changes over time
// (scale up, scale down: a new instance starts with an empty state, a removed
// one's state is lost).
//
// A Deployment decides a request that reaches one instance (Decide), on the
// virtual clock: time is an argument, and everything a protocol does between
// requests (a sync every wait, a message arriving a link's latency later, an
// instance seeing a new membership) is a timer the deployment runs, in order,
// before the first decision at or after its instant. Timers at the same
// instant run in the order they were set; a timer runs before a decision at
// its instant. So a deployment decides the same way every run, and a
// protocol's behaviour between two requests never depends on anything but
// their times.
//
// Score holds a deployment against the ideal: one limiter of the same policy,
// synchronised instantly, fed the same arrivals (see score.go).
//
// Each protocol's file cites the product source it follows; what a protocol
// leaves out is said there, and in docs/peers.md.
package deploy
