package products

import (
	"strings"
	"testing"

	"ratelab/internal/printable"
)

// hostile is text a terminal acts on, each kind once: ESC with a CSI that
// clears the screen, an OSC that retitles the window (ended by BEL), C1's CSI
// as a character, the bidi override, an isolate and a mark. "PWN" marks where
// it lands.
const hostile = "PWN\x1b[2J\x1b]0;t\x07\u009b31m\u202e\u2066\u200f"

// hostileYAML, hostileJSON and hostileTOML write hostile in each format's
// double-quoted escapes; hostileRaw is hostile as an nginx.conf or a
// haproxy.cfg holds it, with a raw 0x9b byte (CSI to a terminal reading
// 8-bit controls) besides.
const (
	hostileYAML = `"PWN\e[2J\e]0;t\a\x9b31m\u202e\u2066\u200f"`
	hostileJSON = `"PWN\u001b[2J\u001b]0;t\u0007\u009b31m\u202e\u2066\u200f"`
	hostileTOML = `"PWN\u001b[2J\u001b]0;t\u0007\u009b31m\u202e\u2066\u200f"`
	hostileRaw  = hostile + "\x9b"
)

// Config text reaches the terminal in a lane's name, a note and an error:
// each reader's, fed escape sequences and bidi controls where its file puts
// names and values, shows them as escapes (internal/printable), never raw.
// Each case says where the text must land (so it is looked for, not assumed
// away): in the lanes' names, in a note, or in the error.
func TestConfigTextIsShownAsEscapes(t *testing.T) {
	Y := func(s string) string { return strings.ReplaceAll(s, `"P"`, hostileYAML) }
	T := func(s string) string { return strings.ReplaceAll(s, `"P"`, hostileTOML) }
	for _, c := range []struct {
		name       string
		product    *Info
		text       string
		inLane     bool // a lane's name holds it
		inNote     bool // a note quotes it
		inError    bool // reading fails, and the error quotes it
		inLimitKey bool // a limit's name holds it
	}{
		{"spring route, key-resolver", Spring, Y(`spring:
  cloud:
    gateway:
      routes:
      - id: "P"
        filters:
        - name: RequestRateLimiter
          args:
            key-resolver: "P"
            redis-rate-limiter.replenishRate: 10
            redis-rate-limiter.burstCapacity: 20
`), true, true, false, true},
		{"spring status", Spring, Y(`spring:
  cloud:
    gateway:
      routes:
      - id: r
        filters:
        - name: RequestRateLimiter
          args:
            statusCode: "P"
            redis-rate-limiter.replenishRate: 10
`), false, false, true, false},
		{"traefik middleware, header", Traefik, Y(`http:
  middlewares:
    "P":
      rateLimit:
        average: 10
        sourceCriterion:
          requestHeaderName: "P"
`), true, true, false, true},
		{"traefik TOML middleware", Traefik, T(`[http.middlewares."P".rateLimit]
average = 10
`), true, false, false, true},
		{"traefik period", Traefik, Y(`http:
  middlewares:
    m:
      rateLimit:
        average: 10
        period: "P"
`), false, false, true, false},
		{"kong service", Kong, Y(`_format_version: "3.0"
services:
- name: "P"
  url: http://example.org
  plugins:
  - name: rate-limiting
    config: {minute: 5, policy: local}
`), true, true, false, true},
		{"kong policy", Kong, Y(`_format_version: "3.0"
plugins:
- name: rate-limiting
  config: {minute: 5, policy: "P"}
`), false, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Read("conf", []byte(c.text), Options{Product: c.product, ReadFile: func(string) ([]byte, error) {
				return nil, Errorf(Place{}, "no such file: %s", "/nowhere"+hostileRaw)
			}, Glob: func(string) ([]string, error) { return []string{"/a" + hostileRaw + ".conf"}, nil }})
			var shown []struct{ where, text string }
			show := func(where, text string) { shown = append(shown, struct{ where, text string }{where, text}) }
			if err != nil {
				show("error", err.Error())
			} else {
				for _, l := range cfg.Lanes {
					show("lane", l.Name)
					for _, a := range l.Applies {
						show("lane", a)
					}
				}
				for _, w := range cfg.Warnings {
					show("note", w.String())
				}
				lanes, notes := cfg.Ratelab("ip")
				for _, l := range lanes {
					show("lane", l.Name)
					for _, m := range l.Limits {
						show("limit", m.Name)
					}
				}
				for _, w := range append(notes, cfg.KeyWarnings(1<<40, 32)...) {
					show("note", w.String())
				}
			}
			if (err != nil) != c.inError {
				t.Fatalf("error %v; want one: %v", err, c.inError)
			}
			for _, s := range shown {
				if !printable.Safe(s.text) {
					t.Errorf("a %s reaches the terminal raw: %q", s.where, s.text)
				}
			}
			for where, want := range map[string]bool{"lane": c.inLane, "note": c.inNote, "error": c.inError, "limit": c.inLimitKey} {
				found := false
				for _, s := range shown {
					found = found || s.where == where && strings.Contains(s.text, "PWN")
				}
				if want && !found {
					t.Errorf("no %s holds the config's text: the case does not test what it says (shown: %q)", where, shown)
				}
			}
		})
	}
}
