package nginx

import (
	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/products"
)

// lanes maps a context to one lane of its limit_req, in order, all or
// nothing.
func lanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	lane := products.RatelabLane{Name: l.Name, Place: l.Place, Combine: algorithms.AllOrNothing}
	for _, lim := range l.Limits {
		lane.Limits = append(lane.Limits, laneLimit(lim, m))
	}
	return []products.RatelabLane{lane}
}

// laneLimit is one limit_req as the nginx lane runs it: rate=Nr/s is N per
// 1s, Nr/m N per 1m; nginx's burst=B is the policy's burst B+1 (the request
// served plus the excess nginx counts); nodelay, delay=N, limit_req_dry_run and
// limit_req_status as the lane's options. A delay above the burst delays no
// request, as nodelay.
func laneLimit(m products.Limit, mp *products.Mapping) products.RatelabLimit {
	n := m.Params.(*Limit)
	o := algorithms.Options{Nodelay: n.NoDelay, Delay: n.Delay, DryRun: n.DryRun}
	if o.Delay > n.Burst {
		o.Nodelay, o.Delay = true, 0
	}
	if n.Status != 503 {
		o.DenyStatus = n.Status
	}
	return products.RatelabLimit{Name: n.Zone, Rule: "limit_req zone=" + n.Zone, Place: m.Place, Algorithm: algorithms.NginxName, Key: mp.Key(m, n.Zone), Options: o,
		Policy: algorithms.Policy{Limit: n.Rate, Period: n.Per, Burst: n.Burst + 1}}
}

// keyWarnings say, for each zone that holds fewer keys than keys, what
// nginx does when it is full. keyBytes is the length of a key whose length the
// expression does not fix (the client address is 4 bytes as
// $binary_remote_addr, up to 15 as $remote_addr).
func keyWarnings(c *products.Config, keys int64, keyBytes int) []products.Warning {
	var out []products.Warning
	for m := range c.Once(func(m products.Limit) products.Place { return m.Params.(*Limit).ZonePlace }) {
		n := m.Params.(*Limit)
		kb := keyBytes
		switch m.Key.Expr {
		case "$binary_remote_addr":
			kb = 4
		case "$remote_addr":
			kb = 15
		}
		capacity := n.ZoneCapacity(kb)
		if keys <= capacity {
			continue
		}
		out = append(out, products.Warningf(n.ZonePlace,
			"zone %q (%s) holds about %d keys of %d bytes and the trace has %d: when more are active at once, nginx frees the least recently used key, which starts again with no excess (let through as new), and refuses with %d only when even that fails; ratelab keeps every key: not modelled",
			n.Zone, format.Bytes(n.ZoneSize), capacity, kb, keys, n.Status))
	}
	return out
}
