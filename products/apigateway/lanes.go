package apigateway

import (
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// lanes maps each throttle to a lane: rateLimit requests a second,
// whole per 1s, else in thousandths per 1000s; burstLimit the burst; the
// plan's quota as options.
func lanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	return products.EachLimit(l, m, func(lim products.Limit) (products.RatelabLimit, string) {
		a := lim.Params.(*Limit)
		p := algorithms.Policy{Limit: a.RateMilli, Period: 1000 * time.Second, Burst: a.Burst}
		if a.RateMilli%1000 == 0 {
			p.Limit, p.Period = a.RateMilli/1000, time.Second
		}
		o := algorithms.Options{QuotaLimit: a.QuotaLimit, QuotaOffset: a.QuotaOffset}
		switch a.QuotaPeriod {
		case "DAY":
			o.QuotaPeriod = algorithms.QuotaDay
		case "WEEK":
			o.QuotaPeriod = algorithms.QuotaWeek
		case "MONTH":
			o.QuotaPeriod = algorithms.QuotaMonth
		}
		return products.RatelabLimit{Name: a.Scope, Algorithm: algorithms.APIGatewayName, Options: o, Policy: p}, a.Scope
	})
}
