package products

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// confCase is a configuration (its main file and the files it includes), and
// what reading it gives: the lanes, described one line each with their limits
// below (describe), the warnings (each "file:line: a fragment of its text"),
// or an error (its "file:line: a fragment").
type confCase struct {
	name  string
	files map[string]string // by name; main is the main file
	main  string
	lanes string
	warns []string
	err   string
	// the real server's check: refuses says it refuses a file ratelab
	// reads (ratelab reads it with a warning: NGINX Plus's sync); noLine
	// says its message names no line (nginx's zero size shared memory zone)
	refuses, noLine bool
	// noCheck says the real server is not asked (a module it may lack)
	noCheck bool
}

// write puts c's files in a new temporary folder and returns the main file's
// path.
func (c confCase) write(t *testing.T) (dir, main string) {
	t.Helper()
	dir = t.TempDir()
	for name, text := range c.files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, c.main)
}

// check reads c with product p and compares with what c says.
func (c confCase) check(t *testing.T, p Product) (*Config, string) {
	t.Helper()
	dir, main := c.write(t)
	cfg, err := ReadFile(main, Options{Product: p})
	rel := func(s string) string { return strings.ReplaceAll(s, dir+string(filepath.Separator), "") }
	if c.err != "" {
		if err == nil {
			t.Fatalf("read without an error, want %q; lanes:\n%s", c.err, rel(describe(cfg)))
		}
		if got := rel(err.Error()); !strings.HasPrefix(got, strings.SplitN(c.err, " ", 2)[0]) || !strings.Contains(got, strings.SplitN(c.err, " ", 2)[1]) {
			t.Fatalf("error %q, want %q", got, c.err)
		}
		return nil, main
	}
	if err != nil {
		t.Fatalf("error %v", rel(err.Error()))
	}
	if got := rel(describe(cfg)); strings.TrimSpace(got) != strings.TrimSpace(c.lanes) {
		t.Errorf("lanes:\n%s\nwant:\n%s", got, c.lanes)
	}
	var got []string
	for _, w := range cfg.Warnings {
		got = append(got, rel(w.String()))
	}
	for _, want := range c.warns {
		place, text, _ := strings.Cut(want, ": ")
		found := false
		for _, g := range got {
			if strings.HasPrefix(g, place+": ") && strings.Contains(g, text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning %q among:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(c.warns) {
		t.Errorf("%d warnings, want %d:\n%s", len(got), len(c.warns), strings.Join(got, "\n"))
	}
	return cfg, main
}

// describe writes a configuration's lanes one line each, their limits below.
func describe(c *Config) string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range c.Lanes {
		fmt.Fprintf(&b, "%s @%s", l.Name, l.Place)
		if len(l.Applies) > 0 && !(len(l.Applies) == 1 && l.Applies[0] == l.Name) {
			fmt.Fprintf(&b, " [%s]", strings.Join(l.Applies, "; "))
		}
		b.WriteByte('\n')
		for _, m := range l.Limits {
			fmt.Fprintf(&b, "  %s key=%s", m.Place, describeKey(m.Key))
			if n := m.Nginx; n != nil {
				fmt.Fprintf(&b, " zone=%s rate=%s", n.Zone, n.RateString())
				if n.Burst > 0 {
					fmt.Fprintf(&b, " burst=%d", n.Burst)
				}
				if n.NoDelay {
					b.WriteString(" nodelay")
				}
				if n.Delay > 0 {
					fmt.Fprintf(&b, " delay=%d", n.Delay)
				}
				if n.DryRun {
					b.WriteString(" dry_run")
				}
				fmt.Fprintf(&b, " status=%d", n.Status)
				if n.LogLevel != "error" {
					fmt.Fprintf(&b, " log=%s", n.LogLevel)
				}
				if n.Sync {
					b.WriteString(" sync")
				}
			}
			if h := m.HAProxy; h != nil {
				fmt.Fprintf(&b, " table=%s period=%s %s %d", h.Table, h.Period, h.Op, h.Threshold)
				if h.Counted {
					b.WriteString(" counted")
				} else {
					b.WriteString(" not-counted")
				}
				if h.Counter >= 0 {
					fmt.Fprintf(&b, " sc%d", h.Counter)
				}
				if h.Expire > 0 {
					fmt.Fprintf(&b, " expire=%s", h.Expire)
				}
				fmt.Fprintf(&b, " %s", h.Action)
				if h.Status > 0 {
					fmt.Fprintf(&b, " %d", h.Status)
				}
			}
			if e := m.EnvoyLocal; e != nil {
				if e.Descriptor != "" {
					fmt.Fprintf(&b, " descriptor=%q", e.Descriptor)
				}
				fmt.Fprintf(&b, " max=%d fill=%d/%s", e.MaxTokens, e.TokensPerFill, e.FillInterval)
			}
			if e := m.EnvoyGlobal; e != nil {
				fmt.Fprintf(&b, " %d/%s", e.RequestsPerUnit, e.Unit)
				if e.ShadowMode {
					b.WriteString(" shadow")
				}
			}
			if c := m.Cloudflare; c != nil {
				fmt.Fprintf(&b, " %d/%s timeout=%s %s %d by=%s", c.RequestsPerPeriod, c.Period, c.MitigationTimeout, c.Action, c.Status, strings.Join(c.Characteristics, ","))
			}
			if s := m.Spring; s != nil {
				fmt.Fprintf(&b, " replenish=%d burst=%d requested=%d", s.ReplenishRate, s.BurstCapacity, s.RequestedTokens)
				if s.Status != 429 {
					fmt.Fprintf(&b, " status=%d", s.Status)
				}
			}
			if tr := m.Traefik; tr != nil {
				fmt.Fprintf(&b, " average=%d/%s burst=%d", tr.Average, tr.Period, tr.Burst)
				if tr.Redis {
					b.WriteString(" redis")
				}
			}
			if k := m.Kong; k != nil {
				for w, n := range k.Windows {
					if n > 0 {
						fmt.Fprintf(&b, " %s=%d", kongWindows[w], n)
					}
				}
				fmt.Fprintf(&b, " policy=%s status=%d", k.Policy, k.Status)
			}
			if a := m.APIGateway; a != nil {
				fmt.Fprintf(&b, " rate=%gr/s burst=%d", float64(a.RateMilli)/1000, a.Burst)
				if a.QuotaPeriod != "" {
					fmt.Fprintf(&b, " quota=%d/%s offset=%d", a.QuotaLimit, a.QuotaPeriod, a.QuotaOffset)
				}
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func describeKey(k Key) string {
	switch {
	case !k.Mapped:
		return k.Expr + "→?"
	case k.Shared:
		return k.Expr + "→shared"
	}
	return k.Expr + "→" + k.Trace
}
