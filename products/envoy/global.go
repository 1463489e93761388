package envoy

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// GlobalLimit is one rate_limit of the rate limit service's
// configuration: its domain, the descriptor path to it, requests_per_unit a
// unit (Period its divider), and shadow_mode.
type GlobalLimit struct {
	Domain          string
	Descriptor      string // "key=value" joined by " / ", outermost first
	Unit            string
	Period          time.Duration
	RequestsPerUnit int64
	ShadowMode      bool
}

// String is l as a lane's description: "5/second shadow".
func (l *GlobalLimit) String() string {
	s := fmt.Sprintf("%d/%s", l.RequestsPerUnit, l.Unit)
	if l.ShadowMode {
		s += " shadow"
	}
	return s
}

// units are the rate limit service's units and their dividers
// (envoyproxy/ratelimit src/utils/utilities.go: UnitToDivider).
var units = []struct {
	name string
	d    time.Duration
}{{"second", time.Second}, {"minute", time.Minute}, {"hour", time.Hour}, {"day", 24 * time.Hour},
	{"week", 7 * 24 * time.Hour}, {"month", 30 * 24 * time.Hour}, {"year", 365 * 24 * time.Hour}}

// readGlobal reads the rate limit service's YAML (envoyproxy/ratelimit
// src/config/config_impl.go: the domain, descriptors nested under each
// other, each with a key, a value, and a rate_limit of requests_per_unit a
// unit, shadow_mode). Each rate_limit is a lane of its own (the service
// counts each descriptor of a request apart), in the file's order.
func readGlobal(name string, data []byte, _ products.Options) (*products.Config, error) {
	root, c, tree, err := products.ReadTree(name, data, products.ParseYAML)
	if err != nil {
		return nil, err
	}
	r := reader{tree}
	if err := r.Fields(root, "the rate limit service's configuration", "domain", "descriptors"); err != nil {
		return nil, err
	}
	dn := root.Get("domain")
	if dn == nil {
		return nil, r.Errorf(root, "the configuration has no domain, which the service requires (config error, empty domain); add domain: my_domain")
	}
	domain, err := r.Text(dn, "domain")
	if err != nil {
		return nil, err
	}
	if domain == "" {
		return nil, r.Errorf(dn, "domain is empty, which the service refuses; name it: domain: my_domain")
	}
	var walk func(list *products.Node, path []string, dynamic bool) error
	walk = func(list *products.Node, path []string, dynamic bool) error {
		if list.Kind != products.SeqNode {
			return r.Errorf(list, "descriptors must be a list of {key, value, rate_limit, descriptors}; it is %s", list.What())
		}
		seen := map[string]bool{}
		for _, d := range list.Vals {
			if err := r.Fields(d, "a descriptor", "key", "value", "rate_limit", "descriptors", "shadow_mode", "detailed_metric", "value_to_metric"); err != nil {
				return err
			}
			k := d.Get("key")
			if k == nil {
				return r.Errorf(d, "a descriptor needs its key, which the service requires (config error, descriptor has empty key); add key: remote_address")
			}
			key, err := r.Text(k, "the descriptor's key")
			if err != nil {
				return err
			}
			if key == "" {
				return r.Errorf(k, "the descriptor's key is empty, which the service refuses; name it")
			}
			val := ""
			if v := d.Get("value"); v != nil && v.Tag != "!!null" {
				if val, err = r.Text(v, "the descriptor's value"); err != nil {
					return err
				}
			}
			if seen[key+"_"+val] {
				return r.Errorf(d, "the descriptor %s=%s is given twice here, which the service refuses (duplicate descriptor composite key); keep one", key, val)
			}
			seen[key+"_"+val] = true
			p := append(slices.Clone(path), key+"="+val)
			dyn := dynamic || val == ""
			shadow := false
			if s := d.Get("shadow_mode"); s != nil {
				if shadow, err = r.Bool(s, "shadow_mode"); err != nil {
					return err
				}
			}
			if rl := d.Get("rate_limit"); rl != nil {
				l, err := r.rateLimit(rl)
				if err != nil {
					return err
				}
				if l != nil {
					l.Domain, l.Descriptor, l.ShadowMode = domain, strings.Join(p, " / "), shadow
					expr := "descriptor " + l.Descriptor
					k := products.Key{Expr: expr, Shared: true, Mapped: true}
					if dyn {
						k = products.Key{Expr: expr, Mapped: false}
						r.Warn(d, "the descriptor %s counts each value its empty value takes, which Envoy's rate_limits actions set (a header, the remote address…), not this file; the lane keys it by the requests' own key", l.Descriptor)
					}
					c.Lanes = append(c.Lanes, products.Lane{Name: domain + " " + l.Descriptor, Place: r.At(d),
						Limits: []products.Limit{{Place: r.At(rl), Key: k, Params: l}}})
				}
			}
			if sub := d.Get("descriptors"); sub != nil {
				if err := walk(sub, p, dyn); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if ds := root.Get("descriptors"); ds != nil {
		if err := walk(ds, nil, false); err != nil {
			return nil, err
		}
	}
	if len(c.Lanes) == 0 {
		r.Warn(root, "no descriptor has a rate_limit: the service limits no request")
	} else {
		r.Warn(root, "which of these descriptors a request carries is decided by Envoy's rate_limits actions, not this file; each is a lane of its own, holding every request")
	}
	return c, nil
}

// rateLimit reads a descriptor's rate_limit; nil for unlimited: true.
func (r reader) rateLimit(rl *products.Node) (*GlobalLimit, error) {
	if err := r.Fields(rl, "rate_limit", "unit", "requests_per_unit", "unlimited", "name", "replaces"); err != nil {
		return nil, err
	}
	if u := rl.Get("unlimited"); u != nil {
		on, err := r.Bool(u, "unlimited")
		if err != nil {
			return nil, err
		}
		if on {
			r.Warn(u, "unlimited: true lets every request of this descriptor through: no lane")
			return nil, nil
		}
	}
	if rp := rl.Get("replaces"); rp != nil {
		r.Warn(rp, "replaces makes this limit stand in for others a request carries; the lanes are each descriptor's own")
	}
	un := rl.Get("unit")
	if un == nil {
		return nil, r.Errorf(rl, "rate_limit has no unit; add unit: second (or minute, hour, day, week, month, year)")
	}
	unit, err := r.Text(un, "unit")
	if err != nil {
		return nil, err
	}
	l := &GlobalLimit{Unit: strings.ToLower(unit)}
	for _, u := range units {
		if u.name == l.Unit {
			l.Period = u.d
		}
	}
	if l.Period == 0 {
		return nil, r.Errorf(un, "unit %q is not one of the service's (config error, invalid rate limit unit); use second, minute, hour, day, week, month or year", unit)
	}
	rp := rl.Get("requests_per_unit")
	if rp == nil {
		return nil, r.Errorf(rl, "rate_limit has no requests_per_unit; add requests_per_unit: 100")
	}
	if l.RequestsPerUnit, err = r.Int(rp, "requests_per_unit", 0, math.MaxUint32); err != nil {
		return nil, err
	}
	if l.RequestsPerUnit == 0 {
		r.Warn(rp, "requests_per_unit: 0 refuses every request of this descriptor: no lane")
		return nil, nil
	}
	return l, nil
}

// detectGlobal finds the rate limit service's top-level domain: and
// descriptors:, words another product's YAML may write too.
func detectGlobal(data []byte) products.Sign {
	var domain, descriptors bool
	for line := range bytes.Lines(data) {
		domain = domain || bytes.HasPrefix(line, []byte("domain:"))
		descriptors = descriptors || bytes.HasPrefix(line, []byte("descriptors:"))
	}
	if domain && descriptors {
		return products.Sign{Mark: products.WeakMark}
	}
	return products.Sign{}
}

// globalLanes maps each rate_limit to a lane: requests_per_unit per
// unit, shadow_mode.
func globalLanes(l products.Lane, m *products.Mapping) []products.RatelabLane {
	return products.EachLimit(l, m, func(lim products.Limit) (products.RatelabLimit, string) {
		e := lim.Params.(*GlobalLimit)
		return products.RatelabLimit{Name: e.Descriptor, Algorithm: algorithms.EnvoyGlobalName, Options: algorithms.Options{ShadowMode: e.ShadowMode},
			Policy: algorithms.Policy{Limit: e.RequestsPerUnit, Period: e.Period}}, e.Descriptor
	})
}
