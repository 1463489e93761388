package products

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/printable"
)

// RatelabLane is a lane as ratelab runs it: one limit, or several that each
// request is held to (nginx's several limit_req: all or nothing, the longest
// delay, as algorithms.NginxRequest decides).
type RatelabLane struct {
	// Name is the context's (Lane.Name), with no comma or control character
	// (a lane's name is a word of --lanes).
	Name    string
	Place   Place
	Limits  []RatelabLimit
	Combine algorithms.Combine // for several limits
}

// RatelabLimit is one limit as ratelab runs it: the product's lane
// (algorithms.NginxName or HAProxyName), its policy and options, and the key
// template it keeps its state under ("{key}": the request's key; text without
// it: one key every request shares).
type RatelabLimit struct {
	Name      string // the zone (nginx) or the table (HAProxy)
	Place     Place
	Algorithm algorithms.Name
	Policy    algorithms.Policy
	Options   algorithms.Options
	Key       string
}

// Ratelab maps the configuration's lanes to ratelab's: an nginx lane to one
// lane of its limit_req, in order (several: all or nothing); a HAProxy rule to
// a lane of its own (a proxy's rules each count their own table). traceKey is
// what identifies a client in the requests replayed (a trace's key: "ip",
// "user", "ip+path"; "" when the traffic is not a log's): a limit keyed by
// something else keeps the request's key, and a Warning says so. A limit
// ratelab cannot run (a threshold that refuses every request) is left out,
// with a Warning.
func (c *Config) Ratelab(traceKey string) ([]RatelabLane, []Warning) {
	var lanes []RatelabLane
	var notes []Warning
	names := map[string]bool{}
	unique := func(name string, place Place) string {
		name = LaneWord(name)
		if names[name] {
			name = fmt.Sprintf("%s (%s)", name, LaneWord(place.String()))
		}
		names[name] = true
		return name
	}
	note := func(place Place, text string) { // a note of "" says nothing
		if text != "" {
			notes = append(notes, Warningf(place, "%s", text))
		}
	}
	// keyOf is m's key as ratelab keys its lane (a name for a key the trace has no field for)
	keyOf := func(m Limit, name string, p Product) string {
		key, text := keyTemplate(m.Key, name, traceKey, p)
		note(m.Place, text)
		return key
	}
	for _, l := range c.Lanes {
		switch c.Product {
		case Nginx:
			lane := RatelabLane{Place: l.Place, Combine: algorithms.AllOrNothing}
			for _, m := range l.Limits {
				lim, text := nginxRatelab(m, traceKey)
				note(m.Place, text)
				lane.Limits = append(lane.Limits, lim)
			}
			lane.Name = unique(l.Name, l.Place)
			lanes = append(lanes, lane)
		case HAProxy:
			for _, m := range l.Limits {
				lim, text, ok := haproxyRatelab(m, traceKey)
				note(m.Place, text)
				if !ok {
					continue
				}
				name := l.Name
				if len(l.Limits) > 1 {
					name = fmt.Sprintf("%s line %d", l.Name, m.Place.Line)
				}
				lanes = append(lanes, RatelabLane{Name: unique(name, m.Place), Place: m.Place, Limits: []RatelabLimit{lim}})
			}
		case EnvoyLocal:
			// the buckets in the order requestAllowed takes them: in
			// order, stopping at the first refusal, earlier ones kept
			lane := RatelabLane{Place: l.Place, Combine: algorithms.InOrder}
			for _, m := range l.Limits {
				e := m.Params.(*EnvoyLocalLimit)
				name := "token_bucket"
				if e.Descriptor != "" {
					name = LaneWord("descriptor " + e.Descriptor)
				}
				key := keyOf(m, LaneWord(name), EnvoyLocal)
				lane.Limits = append(lane.Limits, RatelabLimit{Name: name, Place: m.Place, Algorithm: algorithms.EnvoyLocalName, Key: key,
					Policy: algorithms.Policy{Limit: e.TokensPerFill, Period: e.FillInterval, Burst: e.MaxTokens}})
			}
			lane.Name = unique(l.Name, l.Place)
			lanes = append(lanes, lane)
		case EnvoyGlobal:
			for _, m := range l.Limits {
				e := m.Params.(*EnvoyGlobalLimit)
				key := keyOf(m, LaneWord(e.Descriptor), EnvoyGlobal)
				lanes = append(lanes, RatelabLane{Name: unique(l.Name, l.Place), Place: l.Place, Limits: []RatelabLimit{{
					Name: e.Descriptor, Place: m.Place, Algorithm: algorithms.EnvoyGlobalName, Key: key,
					Options: algorithms.Options{ShadowMode: e.ShadowMode},
					Policy:  algorithms.Policy{Limit: e.RequestsPerUnit, Period: e.Period}}}})
			}
		case Cloudflare:
			for _, m := range l.Limits {
				cf := m.Params.(*CloudflareLimit)
				key := keyOf(m, LaneWord(cf.Rule), Cloudflare)
				o := algorithms.Options{MitigationTimeout: cf.MitigationTimeout}
				if cf.Status != 429 {
					o.DenyStatus = cf.Status
				}
				lanes = append(lanes, RatelabLane{Name: unique(l.Name, l.Place), Place: l.Place, Limits: []RatelabLimit{{
					Name: cf.Rule, Place: m.Place, Algorithm: algorithms.CloudflareName, Key: key, Options: o,
					Policy: algorithms.Policy{Limit: cf.RequestsPerPeriod, Period: cf.Period}}}})
			}
		case Spring, Traefik, Kong:
			for _, m := range l.Limits {
				lim := gatewayRatelab(m)
				key := keyOf(m, LaneWord(l.Name), c.Product)
				lim.Key = key
				lanes = append(lanes, RatelabLane{Name: unique(l.Name, l.Place), Place: l.Place, Limits: []RatelabLimit{lim}})
			}
		case APIGateway:
			for _, m := range l.Limits {
				a := m.Params.(*APIGatewayLimit)
				key := keyOf(m, LaneWord(a.Scope), APIGateway)
				// rateLimit requests a second: whole, per 1s; else in
				// thousandths, per 1000s
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
				lanes = append(lanes, RatelabLane{Name: unique(l.Name, l.Place), Place: l.Place, Limits: []RatelabLimit{{
					Name: a.Scope, Place: m.Place, Algorithm: algorithms.APIGatewayName, Key: key, Options: o, Policy: p}}})
			}
		}
	}
	// a limit's name is the configuration's (a zone, a table, a route): shown
	// with the lane's, made printable as it is
	for _, l := range lanes {
		for j := range l.Limits {
			l.Limits[j].Name = printable.String(l.Limits[j].Name)
		}
	}
	return lanes, notes
}

// LaneWord makes a context's name a lane's, a word of --lanes on one line:
// a comma becomes a semicolon, a line break or a tab a space, and what a
// terminal would act on an escape (internal/printable).
func LaneWord(s string) string {
	return printable.String(strings.Map(func(r rune) rune {
		switch r {
		case ',':
			return ';'
		case '\n', '\r', '\t', '\v', '\f':
			return ' '
		}
		return r
	}, s))
}

// keyTemplate is the key template of a limit keyed by k, for requests keyed by
// traceKey, and a note when they differ.
func keyTemplate(k Key, name, traceKey string, p Product) (string, string) {
	switch {
	case k.Mapped && k.Shared:
		return "shared " + strings.NewReplacer("{", "(", "}", ")").Replace(name), ""
	case k.Mapped && traceKey != "" && !sameFields(k.Trace, traceKey):
		return "{key}", fmt.Sprintf("%s keys this limit by %s (the log's %s); the requests replayed are keyed by %s, which the lane uses (read the log with --key %s, or key = %q, to key it as %s does)",
			p, k.Expr, k.Trace, traceKey, k.Trace, k.Trace, p)
	}
	return "{key}", ""
}

// sameFields says two trace keys name the same fields, in any order.
func sameFields(a, b string) bool {
	split := func(s string) []string {
		parts := strings.Split(s, "+")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
			if parts[i] == "host" {
				parts[i] = "ip"
			}
		}
		slices.Sort(parts)
		return slices.Compact(parts)
	}
	return slices.Equal(split(a), split(b))
}

// nginxRatelab is one limit_req as the nginx lane runs it: rate=Nr/s is N per
// 1s, Nr/m N per 1m; nginx's burst=B is the policy's burst B+1 (the request
// served plus the excess nginx counts); nodelay, delay=N, limit_req_dry_run and
// limit_req_status as the lane's options. A delay above the burst delays no
// request, as nodelay.
func nginxRatelab(m Limit, traceKey string) (RatelabLimit, string) {
	n := m.Params.(*NginxLimit)
	o := algorithms.Options{Nodelay: n.NoDelay, Delay: n.Delay, DryRun: n.DryRun}
	if o.Delay > n.Burst {
		o.Nodelay, o.Delay = true, 0
	}
	if n.Status != 503 {
		o.DenyStatus = n.Status
	}
	key, note := keyTemplate(m.Key, n.Zone, traceKey, Nginx)
	return RatelabLimit{Name: n.Zone, Place: m.Place, Algorithm: algorithms.NginxName, Key: key, Options: o,
		Policy: algorithms.Policy{Limit: n.Rate, Period: n.Per, Burst: n.Burst + 1}}, note
}

// haproxyRatelab is one rule as the haproxy lane runs it: the table's period;
// a limit the lane compares as the rule does (counted before the deny: it
// passes while the rate read, with the request, is at most Limit, so gt N is
// N and ge N is N−1; looked up before the track: it refuses when the rate
// read, without the request, is at least Limit, so ge N is N and gt N is
// N+1); the table's expire; deny_status when it is one the lane sends.
func haproxyRatelab(m Limit, traceKey string) (RatelabLimit, string, bool) {
	h := m.Params.(*HAProxyLimit)
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
		return RatelabLimit{}, fmt.Sprintf("%s refuses every request (its rate is always at least %d): no lane", h.Cond, h.Threshold), false
	}
	var note string
	if h.Status != 403 && h.Status != 0 {
		o.DenyStatus = h.Status
		if err := o.Check(algorithms.HAProxyName); err != nil {
			o.DenyStatus = 0
			note = fmt.Sprintf("the lane answers a refusal with 403 (the status %d is not one http-request deny sends)", h.Status)
		}
	}
	key, keyNote := keyTemplate(m.Key, h.Table, traceKey, HAProxy)
	if keyNote != "" {
		note = strings.TrimPrefix(note+"; "+keyNote, "; ")
	}
	return RatelabLimit{Name: h.Table, Place: m.Place, Algorithm: algorithms.HAProxyName, Key: key, Options: o,
		Policy: algorithms.Policy{Limit: limit, Period: h.Period}}, note, true
}

// gatewayRatelab is a Spring, Traefik or Kong limit as its lane runs it.
// Spring: replenishRate R, burstCapacity B, requestedTokens k are R requests
// per k seconds with a burst of B/k requests (algorithms.SpringConfigOf gives
// them back, divided by their common factor, which decides the same).
// Traefik: average per period, burst. Kong: the shortest of its second,
// minute, hour and day limits as the policy, the others as kong_windows,
// policy and error_code as options.
func gatewayRatelab(m Limit) RatelabLimit {
	switch p := m.Params.(type) {
	case *SpringLimit:
		s := p
		o := algorithms.Options{}
		if s.Status != 429 {
			o.DenyStatus = s.Status
		}
		return RatelabLimit{Name: s.Route, Place: m.Place, Algorithm: algorithms.SpringName, Options: o,
			Policy: algorithms.Policy{Limit: s.ReplenishRate, Period: time.Duration(s.RequestedTokens) * time.Second, Burst: s.BurstCapacity / s.RequestedTokens}}
	case *TraefikLimit:
		t := p
		algorithm := algorithms.TraefikName
		if t.Redis {
			algorithm = algorithms.TraefikRedisName
		}
		return RatelabLimit{Name: t.Middleware, Place: m.Place, Algorithm: algorithm,
			Policy: algorithms.Policy{Limit: t.Average, Period: t.Period, Burst: t.Burst}}
	}
	k := m.Params.(*KongLimit)
	periods := []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour}
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
		case p.Limit == 0 && w < len(periods):
			p = algorithms.Policy{Limit: limit, Period: periods[w]}
		default:
			o.KongWindows[w] = limit
		}
	}
	return RatelabLimit{Name: k.Plugin, Place: m.Place, Algorithm: algorithms.KongName, Policy: p, Options: o}
}
