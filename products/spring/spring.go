// Package spring reads Spring Cloud Gateway's RequestRateLimiter filter into
// lanes, from an application.yml: every route (under
// spring.cloud.gateway.routes, or .server.webflux.routes since 4.3) and the
// default-filters whose filters hold one, with its RedisRateLimiter's
// replenishRate, burstCapacity and requestedTokens (as Spring's relaxed
// binding reads them) and its statusCode, each a lane of RedisRateLimiter's
// token bucket.
//
// A value Spring refuses is a *products.Error at its line with the fix; what
// the lane does not model (a KeyResolver bean, deny-empty-key, another rate
// limiter bean) is a Warning at its line. The other way, a limit is written
// as a route of an application.yml, for ratelab tune --target spring.
package spring

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/products"
)

// Info is Spring Cloud Gateway's RequestRateLimiter filter
// (RedisRateLimiter), read from an application.yml's routes.
var Info = &products.Info{Syncs: syncs, Name: algorithms.SpringName, File: "a Spring application.yml", Limiting: "route with a RequestRateLimiter filter",
	Detect: detect, Shows: "RequestRateLimiter", Read: read, Lanes: lanes,
	Target: &products.Target{Writable: "replenishRate tokens a second and requestedTokens a request: a whole number of seconds",
		Period: func(d time.Duration) bool {
			return d >= time.Second && d%time.Second == 0 && d/time.Second <= math.MaxInt32
		},
		MaxLimit: math.MaxInt32, MaxBurst: maxBurstCapacity, Write: write}}

// Limit is a RequestRateLimiter's RedisRateLimiter: replenishRate
// tokens a second, burstCapacity at most, requestedTokens a request.
type Limit struct {
	Route                                         string
	ReplenishRate, BurstCapacity, RequestedTokens int64
	// Status is the filter's statusCode, a refusal's status; 429 by default.
	Status int
}

// String is l as a lane's description: "replenish=10 burst=20 requested=1".
func (l *Limit) String() string {
	s := fmt.Sprintf("replenish=%d burst=%d requested=%d", l.ReplenishRate, l.BurstCapacity, l.RequestedTokens)
	if l.Status != 429 {
		s += fmt.Sprintf(" status=%d", l.Status)
	}
	return s
}

// maxBurstCapacity is the largest burstCapacity RedisRateLimiter takes
// (a long, checked against the script's REDIS_LUA_MAX_SAFE_INTEGER, 2^53 − 1).
const maxBurstCapacity = 1<<53 - 1

// detect finds the RequestRateLimiter filter.
func detect(data []byte) products.Sign {
	if bytes.Contains(data, []byte("RequestRateLimiter")) {
		return products.Sign{Mark: products.StrongMark}
	}
	return products.Sign{}
}

// reader reads an application.yml.
type reader struct{ products.Reader }

// syncs: Spring Cloud Gateway's RedisRateLimiter keeps every instance's
// buckets in the one Redis (request_rate_limiter.lua).
func syncs(algorithms.Options) []deploy.Protocol { return []deploy.Protocol{deploy.Central} }
