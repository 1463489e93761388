package algorithms

// A request held to several limit_req of nginx: all or nothing, the longest
// delay, as ngx_http_limit_req_handler decides.

import "time"

// NginxLimit is one limit_req of a location: its zone, the key the request has
// in it, and the cost it is charged there.
type NginxLimit struct {
	Zone *Nginx
	Key  string
	Cost int64
}

// NginxRequest decides a request held to several limit_req, as
// ngx_http_limit_req_handler and ngx_http_limit_req_account do, and sets out[i]
// to limits[i]'s decision. The limits are looked up in order: each lookup moves
// the key's node to its zone's newest end, and a key with no node gets one
// (after its zone's expiry), which the earlier limits hold uncharged (last =
// nginx's 0). The first limit whose e is over its burst refuses the request: no
// limit is charged, the limits after it are not looked up, and out holds what
// each would answer (Check). Otherwise every limit is charged as one limit_req
// is (account recomputes e at the same now), and each decision carries its own
// delay: the request waits the longest (a multi-limit lane's decision does).
// Dry run is the first limit's (limit_req_dry_run is the location's): a refusal
// then passes, uncharged, with Shadow = ShadowRefused. Every zone's clock reads
// now; a zone must appear once.
func NginxRequest(limits []NginxLimit, now time.Duration, out []Decision) {
	n := toMicros(now)
	ms := msOf(n)
	refused := false
	for _, lim := range limits {
		z := lim.Zone
		s, ok := z.state(lim.Key)
		if ok {
			z.touch(s)
		} else {
			s = nil
		}
		if e, _ := z.excessFor(s, ms, lim.Cost); e > z.burst {
			refused = true
			break
		}
		if s == nil {
			z.expire(ms)
			z.allocate(lim.Key, ms).Boot = true
		}
	}
	dryRun := len(limits) > 0 && limits[0].Zone.dryRun
	for i, lim := range limits {
		out[i] = lim.Zone.decide(lim.Key, n, lim.Cost, !refused, dryRun)
	}
}

// JoinSet joins parts, nginx zones (under key templates or not), into a Set
// whose all-or-nothing groups are NginxRequest (SetJoiner); false when a part is
// something else.
func (l *Nginx) JoinSet(parts []Limiter) (Set, bool) {
	s := &nginxSet{parts: parts}
	for _, p := range parts {
		t := KeyTemplate{}
		if tp, ok := p.(*templated); ok {
			p, t = tp.Limiter, tp.t
		}
		z, ok := p.(*Nginx)
		if !ok {
			return nil, false
		}
		s.zones, s.templates = append(s.zones, z), append(s.templates, t)
	}
	return s, true
}

// nginxSet is a lane's nginx zones called together: one at a time, and a group
// of all-or-nothing calls as one request held to each (NginxRequest).
type nginxSet struct {
	parts     []Limiter
	zones     []*Nginx
	templates []KeyTemplate
	limits    []NginxLimit
}

func (s *nginxSet) Parts() []Limiter { return s.parts }

func (s *nginxSet) Do(calls []Call, out []Decision) {
	for i := 0; i < len(calls); {
		c := calls[i]
		switch c.Mode {
		case ModeAllow:
			out[i] = s.parts[c.Part].Allow(c.Req.Key, c.Req.Now, c.Req.Cost)
		case ModeCheck:
			out[i] = s.parts[c.Part].(Checker).Check(c.Req.Key, c.Req.Now, c.Req.Cost)
		case ModeAll:
			group := calls[i : i+max(1, c.Group)]
			s.limits = s.limits[:0]
			for _, g := range group {
				s.limits = append(s.limits, NginxLimit{Zone: s.zones[g.Part], Key: s.templates[g.Part].Render(g.Req.Key), Cost: g.Req.Cost})
			}
			NginxRequest(s.limits, c.Req.Now, out[i:i+len(group)])
			i += len(group)
			continue
		}
		i++
	}
}
