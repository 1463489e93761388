package haproxy

import (
	"fmt"
	"strings"

	"ratelab/algorithms"
	"ratelab/products"
)

// lanes maps a proxy's rules to a lane each (a proxy's rules each count
// their own table), named after the rule's line when it has several.
func lanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	var lanes []products.RatelabLane
	for _, lim := range l.Limits {
		r, ok := laneLimit(lim, m)
		if !ok {
			continue
		}
		name := l.Name
		if len(l.Limits) > 1 {
			name = fmt.Sprintf("%s line %d", l.Name, lim.Place.Line)
		}
		lanes = append(lanes, products.RatelabLane{Name: name, Place: lim.Place, Limits: []products.RatelabLimit{r}})
	}
	return lanes
}

// laneLimit is one rule as the haproxy lane runs it: the table's period;
// a limit the lane compares as the rule does (counted before the deny: it
// passes while the rate read, with the request, is at most Limit, so gt N is
// N and ge N is N−1; looked up before the track: it refuses when the rate
// read, without the request, is at least Limit, so ge N is N and gt N is
// N+1); the table's expire; deny_status when it is one the lane sends. False,
// with a note, for a rule that refuses every request.
func laneLimit(m products.Limit, mp *products.Mapping) (products.RatelabLimit, bool) {
	h := m.Params.(*Limit)
	o := algorithms.Options{TrackSC: algorithms.TrackAfterDeny, Expire: h.Expire}
	limit := h.Threshold
	switch {
	case h.Counted && h.Op == "ge":
		limit--
	case !h.Counted && h.Op == "gt":
		limit++
	}
	if h.Counted {
		o.TrackSC = algorithms.TrackBeforeDeny
	}
	if limit <= 0 {
		mp.Note(m.Place, fmt.Sprintf("%s refuses every request (its rate is always at least %d): no lane", h.Cond, h.Threshold))
		return products.RatelabLimit{}, false
	}
	var note string
	if h.Status != 403 && h.Status != 0 {
		o.DenyStatus = h.Status
		if err := o.Check(algorithms.HAProxyName); err != nil {
			o.DenyStatus = 0
			note = fmt.Sprintf("the lane answers a refusal with 403 (the status %d is not one http-request deny sends)", h.Status)
		}
	}
	key, keyNote := mp.Template(m.Key, h.Table)
	if keyNote != "" {
		note = strings.TrimPrefix(note+"; "+keyNote, "; ")
	}
	mp.Note(m.Place, note)
	return products.RatelabLimit{Name: h.Table, Rule: strings.TrimSpace("http-request " + h.Action + " " + h.Cond), Place: m.Place, Algorithm: algorithms.HAProxyName, Key: key, Options: o,
		Policy: algorithms.Policy{Limit: limit, Period: h.Period}}, true
}

// keyWarnings say, for each table that holds fewer entries than keys,
// what HAProxy does when it is full.
func keyWarnings(c *products.Config, keys int64, _ int) []products.Warning {
	var out []products.Warning
	for m := range c.Once(func(m products.Limit) products.Place { return m.Params.(*Limit).TablePlace }) {
		h := m.Params.(*Limit)
		if keys <= h.TableSize {
			continue
		}
		what := "HAProxy purges the oldest entries to store new ones, which start again from zero"
		if h.NoPurge {
			what = "with nopurge HAProxy stores no new key: requests of keys it cannot store are not tracked, so this rule never refuses them"
		}
		out = append(out, products.Warningf(h.TablePlace,
			"table %s holds %d entries and the trace has %d keys: when it is full, %s; ratelab keeps every key: not modelled",
			h.Table, h.TableSize, keys, what))
	}
	return out
}
