// Package configtest is what the products' tests share: a configuration read
// and compared with what it should give (Case), its lanes described one line
// each, and the checks every product's reader is held to — its configuration
// text shown as escapes, a byte-order mark taken off, no input answered
// without a place. It is imported by tests only.
package configtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"ratelab/internal/producttest"
	"ratelab/products"
)

// Case is a configuration (its main file and the files it includes), and
// what reading it gives: the lanes, described one line each with their limits
// below (Describe), the warnings (each "file:line: a fragment of its text"),
// or an error (its "file:line: a fragment").
type Case struct {
	Name  string
	Files map[string]string // by name; Main is the main file
	Main  string
	Lanes string
	Warns []string
	Err   string
	// the real server's check: Refuses says it refuses a file ratelab
	// reads (ratelab reads it with a warning: NGINX Plus's sync); NoLine
	// says its message names no line (nginx's zero size shared memory zone)
	Refuses, NoLine bool
	// NoCheck says the real server is not asked (a module it may lack)
	NoCheck bool
}

// Write puts c's files in a new temporary folder and returns the main file's
// path.
func (c Case) Write(t *testing.T) (dir, main string) {
	t.Helper()
	dir = t.TempDir()
	for name, text := range c.Files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, c.Main)
}

// Check reads c as product p's and compares with what c says.
func (c Case) Check(t *testing.T, p *products.Info) (*products.Config, string) {
	t.Helper()
	dir, main := c.Write(t)
	cfg, err := products.List{p}.ReadFile(main, products.Options{Product: p})
	rel := func(s string) string { return strings.ReplaceAll(s, dir+string(filepath.Separator), "") }
	if c.Err != "" {
		if err == nil {
			t.Fatalf("read without an error, want %q; lanes:\n%s", c.Err, rel(Describe(cfg)))
		}
		if got := rel(err.Error()); !strings.HasPrefix(got, strings.SplitN(c.Err, " ", 2)[0]) || !strings.Contains(got, strings.SplitN(c.Err, " ", 2)[1]) {
			t.Fatalf("error %q, want %q", got, c.Err)
		}
		return nil, main
	}
	if err != nil {
		t.Fatalf("error %v", rel(err.Error()))
	}
	if got := rel(Describe(cfg)); strings.TrimSpace(got) != strings.TrimSpace(c.Lanes) {
		t.Errorf("lanes:\n%s\nwant:\n%s", got, c.Lanes)
	}
	var got []string
	for _, w := range cfg.Warnings {
		got = append(got, rel(w.String()))
	}
	for _, want := range c.Warns {
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
	if len(got) != len(c.Warns) {
		t.Errorf("%d warnings, want %d:\n%s", len(got), len(c.Warns), strings.Join(got, "\n"))
	}
	return cfg, main
}

// Read and ReadFile read as --config does, among p alone.
func Read(p *products.Info, name string, data []byte, o products.Options) (*products.Config, error) {
	return products.List{p}.Read(name, data, o)
}

func ReadFile(p *products.Info, path string, o products.Options) (*products.Config, error) {
	return products.List{p}.ReadFile(path, o)
}

// Describe writes a configuration's lanes one line each, their limits below.
func Describe(c *products.Config) string {
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
			fmt.Fprintf(&b, "  %s key=%s %s\n", m.Place, describeKey(m.Key), m.Params)
		}
	}
	return b.String()
}

func describeKey(k products.Key) string {
	switch {
	case !k.Mapped:
		return k.Expr + "→?"
	case k.Shared:
		return k.Expr + "→shared"
	}
	return k.Expr + "→" + k.Trace
}

// diff says how got differs from want, "" when it does not.
func diff[T any](got, want T) string {
	g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want)
	if g == w {
		return ""
	}
	return g + ", want " + w
}

// CheckServer runs the real server's check on c's main file (check: nginx
// -t, haproxy -c, as internal/producttest runs it; server names it): it
// accepts what the reader accepts, refuses what it refuses, at the same line.
func (c Case) CheckServer(t *testing.T, main, server string, check func(testing.TB, string) producttest.Result) {
	t.Helper()
	if c.NoCheck {
		return
	}
	r := check(t, main)
	switch {
	case c.Refuses:
		if r.OK {
			t.Errorf("%s accepts it; the case says it refuses it", server)
		}
	case c.Err == "" && !r.OK:
		t.Errorf("%s refuses what ratelab reads:\n%s", server, r.Output)
	case c.Err != "" && r.OK:
		t.Errorf("%s accepts what ratelab refuses (%s)", server, c.Err)
	case c.Err != "" && !c.NoLine:
		want := strings.TrimSuffix(strings.SplitN(c.Err, " ", 2)[0], ":")
		got := r.File + ":" + strconv.Itoa(r.Line)
		if !strings.HasSuffix(got, "/"+want) {
			t.Errorf("%s places the error at %s, ratelab at %s:\n%s", server, got, want, r.Output)
		}
	}
}

// Testdata is the file name of the test's package's testdata/ folder.
func Testdata(name string) string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(data)
}

// CheckCases checks each of cases as p's, a subtest each.
func CheckCases(t *testing.T, p *products.Info, cases []Case) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { c.Check(t, p) })
	}
}

// MustRead reads data, named name, as p's (told by its content when named is
// false), and stops t at an error.
func MustRead(t *testing.T, p *products.Info, name, data string, named bool) *products.Config {
	t.Helper()
	o := products.Options{}
	if named {
		o.Product = p
	}
	c, err := Read(p, name, []byte(data), o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
