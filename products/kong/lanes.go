package kong

import (
	"ratelab/algorithms"
	"ratelab/products"
)

// lanes maps each plugin to a lane: the shortest of its second, minute,
// hour and day limits as the policy, the others as kong_windows, policy and
// error_code as options.
func lanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	return products.EachLimit(l, m, func(lim products.Limit) (products.RatelabLimit, string) {
		k := lim.Params.(*Limit)
		o := algorithms.Options{}
		switch k.Policy {
		case "cluster":
			o.KongPolicy = algorithms.KongCluster
		case "redis":
			o.KongPolicy = algorithms.KongRedis
		}
		if k.Status != 429 {
			o.DenyStatus = k.Status
		}
		o.HideClientHeaders = k.HideClientHeaders
		var p algorithms.Policy
		for w, limit := range k.Windows {
			switch {
			case limit == 0:
			case p.Limit == 0 && algorithms.KongWindowPeriod(w) > 0:
				p = algorithms.Policy{Limit: limit, Period: algorithms.KongWindowPeriod(w)}
			default:
				o.KongWindows[w] = limit
			}
		}
		return products.RatelabLimit{Name: k.Plugin, Rule: "rate-limiting", Algorithm: algorithms.KongName, Policy: p, Options: o}, l.Name
	})
}
