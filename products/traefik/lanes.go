package traefik

import (
	"ratelab/algorithms"
	"ratelab/products"
)

// lanes maps each rateLimit to a lane: average per period, burst; on
// Redis with its redis option.
func lanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	return products.EachLimit(l, m, func(lim products.Limit) (products.RatelabLimit, string) {
		t := lim.Params.(*Limit)
		algorithm := algorithms.TraefikName
		if t.Redis {
			algorithm = algorithms.TraefikRedisName
		}
		return products.RatelabLimit{Name: t.Middleware, Rule: "middleware " + t.Middleware, Algorithm: algorithm, Policy: algorithms.Policy{Limit: t.Average, Period: t.Period, Burst: t.Burst}}, l.Name
	})
}
