package configtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"ratelab/algorithms"
	"ratelab/internal/printable"
	"ratelab/products"
)

// noFiles reads no included file: a fuzzed configuration stays in memory.
var noFiles = products.Options{
	ReadFile: func(string) ([]byte, error) { return nil, os.ErrNotExist },
	Glob:     func(string) ([]string, error) { return nil, nil },
}

// checkRead holds what every read must give, whatever the input: an
// *products.Error placed in the file, or a Config whose lanes have unique
// names, places and limits, and whose warnings are placed. params says what is
// wrong with a limit's parameters ("" when nothing is: they are the product's,
// with values it takes).
func checkRead(t *testing.T, c *products.Config, err error, params func(products.Params) string) {
	t.Helper()
	if err != nil {
		var e *products.Error
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
			if m.Place.Line <= 0 {
				t.Fatalf("limit %+v of lane %s: want a place", m, l.Name)
			}
			if bad := params(m.Params); bad != "" {
				t.Fatalf("limit %+v of lane %s: %s", m, l.Name, bad)
			}
		}
	}
	for _, w := range c.Warnings {
		if w.Place.File == "" || w.Text == "" {
			t.Fatalf("warning %+v: want a place and a text", w)
		}
	}
}

// BOM is the UTF-8 byte-order mark.
const BOM = "\uFEFF"

// checkByteOrderMark holds that text, a configuration of p's named name,
// reads the same when its file begins with a byte-order mark — or, with
// included, when the file it includes (conf.d/a.conf, which declares a zone)
// does — told by its content or named: the same lanes and the same notes, and
// where p refuses the mark (refused: Info.ByteOrderMark) one note more, at the
// marked file's first line, saying so.
func checkByteOrderMark(t *testing.T, p *products.Info, name, text string, included bool) {
	t.Helper()
	refused := p.ByteOrderMark != ""
	include := "limit_req_zone $binary_remote_addr zone=inc:1m rate=1r/s;\n"
	read := func(main string, named, incBOM bool) (*products.Config, error) {
		files := map[string]string{"conf.d/a.conf": include}
		if incBOM {
			files["conf.d/a.conf"] = BOM + include
		}
		o := products.Options{Dir: ".",
			ReadFile: func(name string) ([]byte, error) { return []byte(files[name]), nil },
			Glob: func(pattern string) ([]string, error) {
				if m, _ := filepath.Match(pattern, "conf.d/a.conf"); m {
					return []string{"conf.d/a.conf"}, nil
				}
				return nil, nil
			}}
		if named {
			o.Product = p
		}
		return products.List{p}.Read(name, []byte(main), o)
	}
	plain, err := read(text, true, false)
	if err != nil {
		t.Fatalf("%s without a mark: %v", name, err)
	}
	for _, named := range []bool{true, false} {
		marked, main := name, BOM+text
		if included {
			marked, main = "conf.d/a.conf", text
		}
		got, err := read(main, named, included)
		if err != nil {
			t.Errorf("%s with a mark (named %v, included file %v): %v", name, named, included, err)
			continue
		}
		if Describe(got) != Describe(plain) {
			t.Errorf("%s with a mark (named %v, included file %v): lanes\n%s\nwant\n%s", name, named, included, Describe(got), Describe(plain))
		}
		var want, notes []string
		for _, w := range plain.Warnings {
			want = append(want, w.String())
		}
		for _, w := range got.Warnings {
			if strings.Contains(w.Text, "byte-order mark") {
				if !refused || w.Place != (products.Place{File: marked, Line: 1}) || !strings.Contains(w.Text, "refuses") {
					t.Errorf("%s: a note %q; want one only where the product refuses the mark, at %s:1", name, w, marked)
				}
				continue
			}
			notes = append(notes, w.String())
		}
		if !slices.Equal(notes, want) {
			t.Errorf("%s with a mark: notes\n%s\nwant\n%s", name, strings.Join(notes, "\n"), strings.Join(want, "\n"))
		}
		if refused && len(got.Warnings) != len(plain.Warnings)+1 {
			t.Errorf("%s with a mark: %d notes, want the %d without it and one saying %v refuses the mark", name, len(got.Warnings), len(plain.Warnings), p)
		}
	}
}

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

// Raw puts hostile, raw, for each P of s (an nginx.conf, a haproxy.cfg);
// YAML, JSON and TOML for each "P", in the format's escapes.
func Raw(s string) string  { return strings.ReplaceAll(s, "P", hostileRaw) }
func YAML(s string) string { return strings.ReplaceAll(s, `"P"`, hostileYAML) }
func JSON(s string) string { return strings.ReplaceAll(s, `"P"`, hostileJSON) }
func TOML(s string) string { return strings.ReplaceAll(s, `"P"`, hostileTOML) }

// Escapes is a configuration whose text holds hostile where its file puts
// names and values, and where that text must land (so it is looked for, not
// assumed away): in the lanes' names, in a note, in the error, in a limit's
// name.
type Escapes struct {
	Name                                 string
	Text                                 string
	InLane, InNote, InError, InLimitName bool
}

// Check reads e as p's (an included file and a glob's match named with
// hostile too), maps it to lanes, and holds that whatever reaches the
// terminal — a lane's name, a note, an error — shows hostile as escapes
// (internal/printable), never raw.
func (e Escapes) Check(t *testing.T, p *products.Info) {
	t.Run(e.Name, func(t *testing.T) {
		cfg, err := products.List{p}.Read("conf", []byte(e.Text), products.Options{Product: p, ReadFile: func(string) ([]byte, error) {
			return nil, products.Errorf(products.Place{}, "no such file: %s", "/nowhere"+hostileRaw)
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
		if (err != nil) != e.InError {
			t.Fatalf("error %v; want one: %v", err, e.InError)
		}
		for _, s := range shown {
			if !printable.Safe(s.text) {
				t.Errorf("a %s reaches the terminal raw: %q", s.where, s.text)
			}
		}
		for where, want := range map[string]bool{"lane": e.InLane, "note": e.InNote, "error": e.InError, "limit": e.InLimitName} {
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

// Written is what a product's snippet writer wrote: its lines, and whether
// it had a key for the log's field.
type Written struct {
	Lines []string
	Keyed bool
}

// Wrote is a writer's answer as a Written.
func Wrote(lines []string, keyed bool) Written { return Written{lines, keyed} }

// ReadBack is what one of a product's snippet writers wrote, and what reading
// it back, as --config reads it, gives: one lane of one limit whose
// parameters are Want, keyed by the log's Trace ("" when the product's key
// stands for no field), run as Policy.
type ReadBack struct {
	Wrote  Written
	Want   products.Params
	Policy algorithms.Policy
	Trace  string
}

// Check reads c's snippet back as p's (its product told by its content,
// among p alone) and compares.
func (c ReadBack) Check(t *testing.T, p *products.Info) {
	t.Helper()
	if !c.Wrote.Keyed {
		t.Fatalf("the writer has no key for the log's field")
	}
	data := strings.Join(c.Wrote.Lines, "\n") + "\n"
	cfg, err := products.List{p}.Read("snippet", []byte(data), products.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if cfg.Product != p || len(cfg.Lanes) != 1 || len(cfg.Lanes[0].Limits) != 1 {
		t.Fatalf("read as %s: %s\n%s", cfg.Product, Describe(cfg), data)
	}
	m := cfg.Lanes[0].Limits[0]
	if !reflect.DeepEqual(m.Params, c.Want) {
		t.Errorf("read back %s", diff(reflect.ValueOf(m.Params).Elem().Interface(), reflect.ValueOf(c.Want).Elem().Interface()))
	}
	if trace := map[bool]string{true: m.Key.Trace}[m.Key.Mapped]; trace != c.Trace || m.Key.Shared {
		t.Errorf("keyed by %+v, want the log's %q", m.Key, c.Trace)
	}
	lanes, _ := cfg.Ratelab("ip")
	if len(lanes) != 1 || len(lanes[0].Limits) != 1 || lanes[0].Limits[0].Policy != c.Policy || lanes[0].Limits[0].Algorithm != p.Name {
		t.Errorf("runs as %+v, want %s %+v", lanes, p, c.Policy)
	}
}

// Checks are what every product's reader is held to, with the product's own
// cases: configuration text that a terminal would act on shown as escapes
// (Escapes), its samples read the same when they begin with a byte-order mark
// (Marked, by file name: with a note when the product refuses the mark, and
// in a file an nginx.conf includes with Included), and its snippet writers'
// lines read back to what they wrote (ReadBack).
type Checks struct {
	Escapes  []Escapes
	Marked   map[string]string
	Included bool
	ReadBack []ReadBack
}

// Run runs c's checks on p's reader.
func (c Checks) Run(t *testing.T, p *products.Info) {
	for _, e := range c.Escapes {
		e.Check(t, p)
	}
	for name, text := range c.Marked {
		checkByteOrderMark(t, p, name, text, false)
		if c.Included {
			checkByteOrderMark(t, p, name, text, true)
		}
	}
	for i, r := range c.ReadBack {
		t.Run(fmt.Sprintf("snippet %d", i), func(t *testing.T) { r.Check(t, p) })
	}
}

// Is says what is wrong with parameters that are not a T, for Fuzz: "" when
// they are one.
func Is[T products.Params](p products.Params) string {
	if _, ok := p.(T); !ok {
		return fmt.Sprintf("%T, want %T", p, *new(T))
	}
	return ""
}

// Fuzz holds, for every input the fuzzer makes from seeds read as p's
// (included files read as none), what checkRead holds, and that
// Config.Ratelab maps what is read: no input makes p's reader panic, hang or
// answer without a place.
func Fuzz(f *testing.F, p *products.Info, seeds []string, params func(products.Params) string) {
	for _, seed := range seeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, conf string) {
		o := noFiles
		o.Product = p
		c, err := Read(p, "conf", []byte(conf), o)
		checkRead(t, c, err, params)
		if err == nil {
			c.Ratelab("ip")
		}
	})
}
