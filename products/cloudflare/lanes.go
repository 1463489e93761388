package cloudflare

import (
	"ratelab/algorithms"
	"ratelab/products"
)

// lanes maps each rule to a lane: requests_per_period per period,
// its mitigation_timeout and status.
func lanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	return products.EachLimit(l, m, func(lim products.Limit) (products.RatelabLimit, string) {
		cf := lim.Params.(*Limit)
		o := algorithms.Options{MitigationTimeout: cf.MitigationTimeout}
		if cf.Status != 429 {
			o.DenyStatus = cf.Status
		}
		return products.RatelabLimit{Name: cf.Rule, Algorithm: algorithms.CloudflareName, Options: o,
			Policy: algorithms.Policy{Limit: cf.RequestsPerPeriod, Period: cf.Period}}, cf.Rule
	})
}
