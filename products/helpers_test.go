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
func (c confCase) check(t *testing.T, p *Info) (*Config, string) {
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
			fmt.Fprintf(&b, " %s", m.Params)
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

// every is the products of this package, as products/all lists them (a test
// of this package cannot import it).
var every = List{Spring, Traefik, Kong}

// Read, ReadFile and Detect are every product's, as products/all's.
func Read(name string, data []byte, o Options) (*Config, error) { return every.Read(name, data, o) }
func ReadFile(path string, o Options) (*Config, error)          { return every.ReadFile(path, o) }
func Detect(data []byte) (*Info, bool)                          { return every.Detect(data) }
