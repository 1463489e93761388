package products

import (
	"errors"
	"testing"
	"time"
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
	if e := m0EnvoyLocal(c); e != nil && (e.MaxTokens <= 0 || e.TokensPerFill <= 0 || e.FillInterval < 50*time.Millisecond) {
		t.Fatalf("envoy bucket %+v: parameters Envoy refuses", *e)
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
	case *EnvoyLocalLimit:
		return p == EnvoyLocal
	case *EnvoyGlobalLimit:
		return p == EnvoyGlobal
	case *CloudflareLimit:
		return p == Cloudflare
	case *APIGatewayLimit:
		return p == APIGateway
	case *SpringLimit:
		return p == Spring
	case *TraefikLimit:
		return p == Traefik
	case *KongLimit:
		return p == Kong
	}
	return false
}

// m0EnvoyLocal is the first Envoy bucket of c, if any.
func m0EnvoyLocal(c *Config) *EnvoyLocalLimit {
	for _, l := range c.Lanes {
		for _, m := range l.Limits {
			if e, ok := m.Params.(*EnvoyLocalLimit); ok {
				return e
			}
		}
	}
	return nil
}

// No input makes the Envoy readers panic, hang or answer without a place.
func FuzzEnvoyConfig(f *testing.F) {
	for _, seed := range []string{envoyLocalFilter, envoyLocalDescriptors, rlsConfig, "", "a: [", "&a [*a]", "<<: 1", "descriptors: 3",
		"stat_prefix: x\ntoken_bucket: {max_tokens: 1, fill_interval: 0.05s}\nfilter_enabled: {default_value: {numerator: 1}}\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, conf string) {
		for _, p := range []*Info{EnvoyLocal, EnvoyGlobal} {
			c, err := Read("envoy.yaml", []byte(conf), Options{Product: p})
			checkConfig(t, p, c, err)
			if err == nil {
				c.Ratelab("ip")
			}
		}
	})
}
