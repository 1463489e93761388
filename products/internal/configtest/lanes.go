package configtest

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// CheckAllowed holds that c's lanes (Config.Ratelab, keyed by ip), sent n
// requests from one client a millisecond apart, let through as many as want
// says for each, by the lane's name: no lane more, none less, and no note.
func CheckAllowed(t *testing.T, c *products.Config, n int, want map[string]int) {
	t.Helper()
	lanes, notes := c.Ratelab("ip")
	if len(notes) != 0 {
		t.Errorf("notes %v, want none", notes)
	}
	for _, l := range lanes {
		w, ok := want[l.Name]
		if !ok {
			t.Errorf("lane %q, want none such", l.Name)
			continue
		}
		delete(want, l.Name)
		if got := allowed(t, l, n); got != w {
			t.Errorf("lane %q: %d of %d allowed, want %d", l.Name, got, n, w)
		}
	}
	for name := range want {
		t.Errorf("no lane %q", name)
	}
}

// allowed sends n requests from one key, a millisecond apart, through a lane
// Config.Ratelab made, and counts those allowed.
func allowed(t *testing.T, l products.RatelabLane, n int) int {
	t.Helper()
	var lims []algorithms.Limiter
	for _, m := range l.Limits {
		lim, err := algorithms.New(m.Algorithm, m.Policy, m.Options)
		if err != nil {
			t.Fatalf("lane %s: %v", l.Name, err)
		}
		lims = append(lims, lim)
	}
	allowed := 0
	for i := range n {
		now := time.Duration(i) * time.Millisecond
		ok := true
		for _, lim := range lims {
			if d := lim.Allow("127.0.0.1", now, 1); !d.Allowed {
				ok = false
			}
		}
		if ok {
			allowed++
		}
	}
	return allowed
}

// Mapping is a limit of a product's, and what Config.Ratelab maps it to for
// requests keyed by ip: one lane of Want, and a note that holds Note ("" for
// none); with NoLane, no lane and the note.
type Mapping struct {
	Limit  products.Limit
	Want   products.RatelabLimit
	Note   string
	NoLane bool
}

// Check maps a lane of m's limit, of p's, and compares with what m says.
func (m Mapping) Check(t *testing.T, p *products.Info) {
	t.Helper()
	cfg := &products.Config{Product: p, Lanes: []products.Lane{{Name: "l", Limits: []products.Limit{m.Limit}}}}
	lanes, notes := cfg.Ratelab("ip")
	switch {
	case m.NoLane && len(lanes) != 0:
		t.Errorf("%s: lanes %+v, want none", m.Limit.Params, lanes)
	case !m.NoLane && (len(lanes) != 1 || len(lanes[0].Limits) != 1):
		t.Errorf("%s: lanes %+v, want one of one limit", m.Limit.Params, lanes)
	case !m.NoLane && lanes[0].Limits[0] != m.Want:
		t.Errorf("%s: %+v, want %+v", m.Limit.Params, lanes[0].Limits[0], m.Want)
	}
	switch {
	case m.Note == "" && len(notes) > 0:
		t.Errorf("%s: notes %v, want none", m.Limit.Params, notes)
	case m.Note != "" && (len(notes) != 1 || !strings.Contains(notes[0].Text, m.Note)):
		t.Errorf("%s: notes %v, want %q", m.Limit.Params, notes, m.Note)
	}
}

// CheckKeyWarnings holds that c.KeyWarnings(keys, keyBytes) are warnings that
// begin as want does, in order.
func CheckKeyWarnings(t *testing.T, c *products.Config, keys int64, keyBytes int, want ...string) {
	t.Helper()
	got := c.KeyWarnings(keys, keyBytes)
	if len(got) != len(want) {
		t.Errorf("%d keys of %d bytes: %d warnings, want %d: %v", keys, keyBytes, len(got), len(want), got)
		return
	}
	for j, w := range want {
		if !strings.HasPrefix(got[j].String(), w) {
			t.Errorf("%d keys of %d bytes: warning %q, want %q…", keys, keyBytes, got[j], w)
		}
	}
}

// CheckLaneLimits reads data as p's, maps it to lanes (keyed by ip) and holds
// that each lane's first limit runs as want's does, in order (algorithm,
// policy, options), with parameters its algorithm takes.
func CheckLaneLimits(t *testing.T, p *products.Info, data string, want ...products.RatelabLimit) {
	t.Helper()
	cfg, err := Read(p, "f.yml", []byte(data), products.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lanes, _ := cfg.Ratelab("ip")
	if len(lanes) != len(want) {
		t.Fatalf("%v: %d lanes, want %d", p, len(lanes), len(want))
	}
	for i, l := range lanes {
		m := l.Limits[0]
		if m.Algorithm != want[i].Algorithm || m.Policy.WithDefaults() != want[i].Policy.WithDefaults() || m.Options != want[i].Options {
			t.Errorf("%v lane %d: %s %+v %+v, want %+v %+v", p, i, m.Algorithm, m.Policy, m.Options, want[i].Policy, want[i].Options)
		}
		if _, err := algorithms.New(m.Algorithm, m.Policy, m.Options); err != nil {
			t.Errorf("%v lane %d: %v", p, i, err)
		}
	}
}
