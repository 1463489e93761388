package nginx

import (
	"strings"
	"time"

	"ratelab/internal/suggest"
	"ratelab/products"
)

// zoneDef is one limit_req_zone.
type zoneDef struct {
	name  string
	place products.Place
	key   string
	size  int64
	rate  int64
	per   time.Duration
	sync  bool
	used  bool
}

// reqDef is one limit_req directive.
type reqDef struct {
	zone    *zoneDef
	place   products.Place
	burst   int64
	delay   int64
	nodelay bool
}

// zone reads limit_req_zone KEY zone=NAME:SIZE rate=Nr/s|Nr/m [sync].
func (r *reader) zone(s *directive) error {
	z := &zoneDef{place: s.place, rate: 1, per: time.Second}
	args := s.args
	if n := len(args); n > 0 && args[n-1] == "sync" {
		z.sync = true
		args = args[:n-1]
	}
	if len(args) != 3 {
		return products.Errorf(s.place, "invalid number of arguments in \"limit_req_zone\" directive; write limit_req_zone KEY zone=NAME:SIZE rate=RATE; (rate=10r/s or 30r/m)")
	}
	z.key = args[0]
	sawZone := false
	for _, a := range args[1:] {
		switch {
		case strings.HasPrefix(a, "zone="):
			v := a[len("zone="):]
			colon := strings.IndexByte(v, ':')
			if colon < 0 {
				return products.Errorf(s.place, "invalid zone size %q; write zone=NAME:SIZE, like zone=one:10m", a)
			}
			size, ok := products.ParseSize(v[colon+1:], "km", 1<<62)
			if !ok {
				return products.Errorf(s.place, "invalid zone size %q; a size is a number of bytes, or of k or m (10m)", a)
			}
			if size < zoneMinSize {
				return products.Errorf(s.place, "zone %q is too small; nginx needs at least %d bytes (32k)", a, zoneMinSize)
			}
			z.name, z.size, sawZone = v[:colon], size, true
		case strings.HasPrefix(a, "rate="):
			v := a[len("rate="):]
			per := time.Second
			switch {
			case strings.HasSuffix(v, "r/s"):
				v = v[:len(v)-3]
			case strings.HasSuffix(v, "r/m"):
				v, per = v[:len(v)-3], time.Minute
			}
			n, ok := products.ParseDigits(v)
			if !ok || n <= 0 {
				return products.Errorf(s.place, "invalid rate %q; a rate is a whole number of requests a second or a minute, like rate=10r/s or rate=30r/m (for less than 1r/s write r/m)", a)
			}
			z.rate, z.per = n, per
		default:
			return products.Errorf(s.place, "invalid parameter %q in limit_req_zone; it takes KEY zone=NAME:SIZE rate=RATE", a)
		}
	}
	if !sawZone || z.name == "" {
		return products.Errorf(s.place, "\"limit_req_zone\" must have \"zone\" parameter, like zone=one:10m")
	}
	if prev, ok := r.zones[z.name]; ok {
		return products.Errorf(s.place, "limit_req_zone %q is already bound to key %q at %s; give this zone another name", z.name, prev.key, prev.place)
	}
	r.zones[z.name] = z
	r.order = append(r.order, z)
	return nil
}

// limitReq reads limit_req zone=NAME [burst=N] [nodelay | delay=N].
func (r *reader) limitReq(c *ctx, s *directive) error {
	if len(s.args) < 1 || len(s.args) > 3 {
		return products.Errorf(s.place, "invalid number of arguments in \"limit_req\" directive; write limit_req zone=NAME [burst=N] [nodelay | delay=N];")
	}
	q := reqDef{place: s.place}
	zone := ""
	for _, a := range s.args {
		switch {
		case strings.HasPrefix(a, "zone="):
			zone = a[len("zone="):]
		case strings.HasPrefix(a, "burst="):
			n, ok := products.ParseDigits(a[len("burst="):])
			if !ok || n <= 0 {
				return products.Errorf(s.place, "invalid burst value %q; burst is a whole number > 0 (leave it out for none)", a)
			}
			q.burst = n
		case strings.HasPrefix(a, "delay="):
			n, ok := products.ParseDigits(a[len("delay="):])
			if !ok || n <= 0 {
				return products.Errorf(s.place, "invalid delay value %q; delay is a whole number > 0 (nodelay for none delayed)", a)
			}
			q.delay, q.nodelay = n, false
		case a == "nodelay":
			q.delay, q.nodelay = 0, true
		default:
			return products.Errorf(s.place, "invalid parameter %q in limit_req; it takes zone=NAME, burst=N, nodelay, delay=N", a)
		}
	}
	if zone == "" {
		return products.Errorf(s.place, "\"limit_req\" must have \"zone\" parameter, like zone=one")
	}
	z, ok := r.zones[zone]
	if !ok {
		names := make([]string, 0, len(r.order))
		for _, z := range r.order {
			names = append(names, z.name)
		}
		fix := "declare it in http: limit_req_zone $binary_remote_addr zone=" + zone + ":10m rate=10r/s;"
		if near := suggest.Nearest(zone, names); near != "" {
			fix = "did you mean zone=" + near + "?"
		} else if len(names) > 0 {
			fix += " (the zones are " + strings.Join(names, ", ") + ")"
		}
		return products.Errorf(s.place, "limit_req zone=%s: no limit_req_zone declares zone %q (nginx -t: zero size shared memory zone %q); %s", zone, zone, zone, fix)
	}
	for _, prev := range c.limits {
		if prev.zone == z {
			return products.Errorf(s.place, "\"limit_req\" directive is duplicate: zone %q is already limited in this context at %s; one limit_req per zone", zone, prev.place)
		}
	}
	z.used = true
	q.zone = z
	c.limits = append(c.limits, q)
	return nil
}

// zoneWarnings say what ratelab does not model about each zone: its key, sync,
// and zones no limit_req uses.
func (r *reader) zoneWarnings() {
	for _, z := range r.order {
		if !z.used {
			r.warn(z.place, "limit_req_zone %q is used by no limit_req: it limits nothing", z.name)
			continue
		}
		if z.sync {
			r.warn(z.place, "limit_req_zone %q: sync (NGINX Plus; stock nginx refuses it) shares the zone's state across a cluster; ratelab models one nginx: not modelled", z.name)
		}
		k := r.zoneKey(z)
		switch {
		case !k.Mapped:
			r.warn(z.place, "limit_req_zone %q: key %s — %s; the lane keys requests by the trace's own key", z.name, z.key, k.Note)
		case k.Note != "":
			r.warn(z.place, "limit_req_zone %q: key %s — %s", z.name, z.key, k.Note)
		}
	}
}

// zoneKey maps a zone's key expression to a request log's fields.
func (r *reader) zoneKey(z *zoneDef) products.Key {
	return keyOf(z.key, r.vars)
}
