package spring

import (
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// lanes maps each RequestRateLimiter to a lane: replenishRate R,
// burstCapacity B, requestedTokens k are R requests per k seconds with a burst
// of B/k requests (algorithms.SpringConfigOf gives them back, divided by their
// common factor, which decides the same).
func lanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	return products.EachLimit(l, m, func(lim products.Limit) (products.RatelabLimit, string) {
		s := lim.Params.(*Limit)
		o := algorithms.Options{}
		if s.Status != 429 {
			o.DenyStatus = s.Status
		}
		return products.RatelabLimit{Name: s.Route, Algorithm: algorithms.SpringName, Options: o,
			Policy: algorithms.Policy{Limit: s.ReplenishRate, Period: time.Duration(s.RequestedTokens) * time.Second, Burst: s.BurstCapacity / s.RequestedTokens}}, l.Name
	})
}
