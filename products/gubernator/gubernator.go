// Package gubernator reads Gubernator's rate limits into lanes: the requests
// of its GetRateLimits API (POST /v1/GetRateLimits, as JSON or YAML), each
// {name, unique_key, limit, duration, algorithm, behavior}, a lane of
// Gubernator's token bucket (algorithms.Gubernator). Gubernator keeps its
// limits in no file — a client sends one with every request — so this is the
// requests a service sends, written once.
//
// GLOBAL (behavior) and the daemon's behaviours (GUBER_GLOBAL_SYNC_WAIT, …)
// are the deployment's: a lane runs them as sync = "gubernator-global" with
// sync_wait (package deploy); the reader notes them. The leaky bucket is not
// modelled (an error at its line), nor RESET_REMAINING,
// DURATION_IS_GREGORIAN or DRAIN_OVER_LIMIT asked by the client (notes).
package gubernator

import (
	"bytes"
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/products"
)

// Info is Gubernator's rate limits, as its GetRateLimits requests write them.
var Info = &products.Info{Name: algorithms.GubernatorName, File: "Gubernator's GetRateLimits requests (JSON or YAML)", Limiting: "rate limit with a limit above 0",
	Detect: detect, Shows: "Gubernator's requests with unique_key", Read: read, Lanes: lanes, Syncs: syncs}

// Limit is one rate limit: limit hits per duration (ms), the limit's name
// and what its unique_key is.
type Limit struct {
	Name      string
	UniqueKey string
	Limit     int64
	Duration  time.Duration
	Global    bool
}

// String is l as a lane's description: "limit=10/1s GLOBAL".
func (l *Limit) String() string {
	s := fmt.Sprintf("limit=%d/%s", l.Limit, l.Duration)
	if l.Global {
		s += " GLOBAL"
	}
	return s
}

// detect finds the API's requests: a unique_key beside a duration.
func detect(data []byte) products.Sign {
	if bytes.Contains(data, []byte("unique_key")) && bytes.Contains(data, []byte("duration")) {
		return products.Sign{Mark: products.StrongMark}
	}
	return products.Sign{}
}

// syncs are how Gubernator's peers share a limit (gubernator-io/gubernator
// v2.13.0): GLOBAL, each peer answering from its copy and the owner
// broadcasting; GLOBAL before mailgun/gubernator PR #219; without GLOBAL the
// owner decides every request (forwarded in batches: exact, a round trip
// late), one store in effect.
func syncs(algorithms.Options) []deploy.Protocol {
	return []deploy.Protocol{deploy.GubernatorGlobal, deploy.GubernatorGlobalPre219, deploy.Central}
}

// lanes maps each rate limit to a lane of Gubernator's token bucket.
func lanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	return products.EachLimit(l, m, func(lim products.Limit) (products.RatelabLimit, string) {
		g := lim.Params.(*Limit)
		return products.RatelabLimit{Name: g.Name, Algorithm: algorithms.GubernatorName, Policy: algorithms.Policy{Limit: g.Limit, Period: g.Duration}}, l.Name
	})
}
