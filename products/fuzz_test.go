package products

import (
	"errors"
	"testing"
)

// checkConfig holds what every read must give, whatever the input: an *Error
// placed in the file, or a Config whose lanes have unique names, places and
// limits of the product read, and whose warnings are placed.
func checkConfig(t *testing.T, p *Info, c *Config, err error) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Place.File == "" || e.Text == "" {
			t.Fatalf("error %v is not an *Error placed in a file", err)
		}
		return
	}
	names := map[string]bool{}
	for _, l := range c.Lanes {
		if l.Name == "" || names[l.Name] || l.Place.Line <= 0 || len(l.Limits) == 0 {
			t.Fatalf("lane %+v: want a unique name, a place and limits", l)
		}
		names[l.Name] = true
		for _, m := range l.Limits {
			if m.Place.Line <= 0 || !isParamsOf(p, m.Params) {
				t.Fatalf("limit %+v of lane %s: want a place and the %v parameters", m, l.Name, p)
			}
		}
	}
	for _, w := range c.Warnings {
		if w.Place.File == "" || w.Text == "" {
			t.Fatalf("warning %+v: want a place and a text", w)
		}
	}
}

// isParamsOf says params are the parameters of p's limits.
func isParamsOf(p *Info, params Params) bool {
	switch params.(type) {
	case *SpringLimit:
		return p == Spring
	case *TraefikLimit:
		return p == Traefik
	case *KongLimit:
		return p == Kong
	}
	return false
}
