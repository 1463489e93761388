// Package traefik reads Traefik's rateLimit middleware into lanes, from its
// dynamic configuration in YAML or TOML: every
// http.middlewares.NAME.rateLimit with its average per period, burst,
// sourceCriterion and redis option, each a lane of Traefik's token bucket (on
// Redis with redis, shared by the instances).
//
// A value Traefik refuses (a negative period) is a *products.Error at its
// line with the fix; what the lane does not model (a source criterion no
// request log field stands for, an average of 0, which limits nothing) is a
// Warning at its line. The other way, a limit is written as the middleware's
// YAML, for ratelab tune --target traefik.
package traefik

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// Info is Traefik's rateLimit middleware, read from its dynamic
// configuration in YAML or TOML.
var Info = &products.Info{Name: algorithms.TraefikName, File: "Traefik's YAML or TOML", Limiting: "rateLimit middleware with an average above 0",
	Detect: detect, Shows: "a rateLimit middleware", Read: read, Lanes: lanes,
	Target: &products.Target{Writable: "a period in whole microseconds", Period: products.EveryPeriod,
		MaxLimit: math.MaxInt64 / int64(time.Second), MaxBurst: math.MaxInt64, Delays: true, Write: write}}

// Limit is a rateLimit middleware: average requests per period, burst.
type Limit struct {
	Middleware string
	Average    int64
	Period     time.Duration
	Burst      int64
	// Redis is the redis option: the buckets in Redis (v3.4+), shared by the
	// instances, each on its own clock.
	Redis bool
}

// String is l as a lane's description: "average=100/1s burst=50".
func (l *Limit) String() string {
	s := fmt.Sprintf("average=%d/%s burst=%d", l.Average, l.Period, l.Burst)
	if l.Redis {
		s += " redis"
	}
	return s
}

// isTOML says a Traefik configuration is TOML: a line opens a table
// of http ([http…] or [[http…]]).
func isTOML(data []byte) bool {
	for line := range bytes.Lines(data) {
		t := bytes.TrimLeft(bytes.TrimSpace(line), "[")
		if len(t) < len(bytes.TrimSpace(line)) && bytes.HasPrefix(t, []byte("http")) {
			return true
		}
	}
	return false
}

// detect finds a rateLimit among http middlewares (YAML's
// middlewares:, TOML's [http.middlewares…]).
func detect(data []byte) products.Sign {
	if bytes.Contains(data, []byte("rateLimit")) && (bytes.Contains(data, []byte("middlewares:")) || bytes.Contains(data, []byte("[http.middlewares"))) {
		return products.Sign{Mark: products.StrongMark}
	}
	return products.Sign{}
}

// reader reads Traefik's dynamic configuration.
type reader struct{ products.Reader }
