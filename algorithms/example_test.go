package algorithms_test

import (
	"fmt"
	"time"

	"ratelab/algorithms"
)

// A token bucket of 10 a second, burst 5: five at one instant, the sixth
// refused until a tenth of a second has refilled a token. Time is an argument:
// the limiter reads no clock.
func Example() {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 5}
	tb, err := algorithms.New(algorithms.TokenBucketName, p, algorithms.Options{})
	if err != nil {
		panic(err)
	}
	for i := range 6 {
		d := tb.Allow("alice", 0, 1)
		fmt.Printf("request %d at 0s: allowed %v, remaining %.0f, retry after %v\n", i+1, d.Allowed, d.Remaining, d.RetryAfter)
	}
	d := tb.Allow("alice", 100*time.Millisecond, 1)
	fmt.Printf("at 100ms: allowed %v\n", d.Allowed)
	// Output:
	// request 1 at 0s: allowed true, remaining 4, retry after 0s
	// request 2 at 0s: allowed true, remaining 3, retry after 0s
	// request 3 at 0s: allowed true, remaining 2, retry after 0s
	// request 4 at 0s: allowed true, remaining 1, retry after 0s
	// request 5 at 0s: allowed true, remaining 0, retry after 0s
	// request 6 at 0s: allowed false, remaining 0, retry after 100ms
	// at 100ms: allowed true
}

// A reservation: with max_reserved, a token bucket accepts a request it has
// no tokens for yet, and says how long it must wait (Delay) — as x/time/rate's
// ReserveN does — up to that many units ahead.
func ExampleNewTokenBucket_reservation() {
	p := algorithms.Policy{Limit: 10, Period: time.Second, Burst: 2}
	tb := algorithms.NewTokenBucket(p, true, 3)
	for i := range 6 {
		d := tb.Allow("batch", 0, 1)
		fmt.Printf("request %d: allowed %v, waits %v\n", i+1, d.Allowed, d.Delay)
	}
	// Output:
	// request 1: allowed true, waits 0s
	// request 2: allowed true, waits 0s
	// request 3: allowed true, waits 100ms
	// request 4: allowed true, waits 200ms
	// request 5: allowed true, waits 300ms
	// request 6: allowed false, waits 0s
}

// The headers a server sends for a decision (the IETF draft's RateLimit and
// RateLimit-Policy, and Retry-After on a refusal).
func ExampleHeaders() {
	p := algorithms.Policy{Limit: 100, Period: time.Minute, Burst: 100}
	gcra, _ := algorithms.New(algorithms.GCRAName, p, algorithms.Options{})
	var d algorithms.Decision
	for range 101 {
		d = gcra.Allow("k", 0, 1)
	}
	for _, h := range algorithms.Headers("default", p, d) {
		fmt.Printf("%s: %s\n", h.Name, h.Value)
	}
	// Output:
	// RateLimit-Policy: "default";q=100;w=60
	// RateLimit: "default";r=0;t=60
	// Retry-After: 1
}
