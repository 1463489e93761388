package products

import (
	"ratelab/internal/format"
)

// KeyWarnings say, for each nginx zone and HAProxy table that holds fewer keys
// than keys (a trace's distinct keys: the most that can be active at once),
// what the product does when it is full — a behaviour ratelab does not model,
// since its lanes keep every key. keyBytes is the length of a trace's key,
// used for an nginx key whose length the expression does not fix (the
// client address is 4 bytes as $binary_remote_addr, up to 15 as
// $remote_addr). One warning per zone or table, at its line.
func (c *Config) KeyWarnings(keys int64, keyBytes int) []Warning {
	var out []Warning
	seen := map[Place]bool{}
	for _, l := range c.Lanes {
		for _, m := range l.Limits {
			n, isNginx := m.Params.(*NginxLimit)
			h, isHAProxy := m.Params.(*HAProxyLimit)
			switch {
			case isNginx && !seen[n.ZonePlace]:
				seen[n.ZonePlace] = true
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
				out = append(out, Warningf(n.ZonePlace,
					"zone %q (%s) holds about %d keys of %d bytes and the trace has %d: when more are active at once, nginx frees the least recently used key, which starts again with no excess (let through as new), and refuses with %d only when even that fails; ratelab keeps every key: not modelled",
					n.Zone, format.Bytes(n.ZoneSize), capacity, kb, keys, n.Status))
			case isHAProxy && !seen[h.TablePlace]:
				seen[h.TablePlace] = true
				if keys <= h.TableSize {
					continue
				}
				what := "HAProxy purges the oldest entries to store new ones, which start again from zero"
				if h.NoPurge {
					what = "with nopurge HAProxy stores no new key: requests of keys it cannot store are not tracked, so this rule never refuses them"
				}
				out = append(out, Warningf(h.TablePlace,
					"table %s holds %d entries and the trace has %d keys: when it is full, %s; ratelab keeps every key: not modelled",
					h.Table, h.TableSize, keys, what))
			}
		}
	}
	return out
}
