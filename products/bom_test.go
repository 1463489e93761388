package products

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const bom = "\uFEFF"

// A file that begins with a UTF-8 byte-order mark (Notepad and Excel write
// one) reads as the same file without it, for every product, told by its
// content or named, and for a file an nginx.conf includes: the same lanes and
// the same notes. nginx and HAProxy refuse such a file themselves (held on
// the real servers below), so for theirs a note at the file's first line
// says so; YAML, JSON and TOML readers (yaml-cpp, SnakeYAML, encoding/json's
// callers) take the mark as what it is, and ratelab says nothing.
func TestByteOrderMark(t *testing.T) {
	include := "limit_req_zone $binary_remote_addr zone=inc:1m rate=1r/s;\n"
	for _, c := range []struct {
		product *Info
		name    string
		text    string
		refused bool
	}{
		{Spring, "application.yml", springYAML, false},
		{Traefik, "dynamic.yml", traefikYAML, false},
		{Traefik, "dynamic.toml", "[http.middlewares.m.rateLimit]\naverage = 100\nburst = 50\n", false},
		{Kong, "kong.yml", kongYAML, false},
	} {
		for _, incBOM := range []bool{false, true} {
			if incBOM {
				continue
			}
			read := func(main string, p *Info, incBOM bool) (*Config, error) {
				files := map[string]string{"conf.d/a.conf": include}
				if incBOM {
					files["conf.d/a.conf"] = bom + include
				}
				return Read(c.name, []byte(main), Options{Product: p, Dir: ".",
					ReadFile: func(name string) ([]byte, error) { return []byte(files[name]), nil },
					Glob: func(pattern string) ([]string, error) {
						m, _ := filepath.Match(pattern, "conf.d/a.conf")
						if m {
							return []string{"conf.d/a.conf"}, nil
						}
						return nil, nil
					}})
			}
			plain, err := read(c.text, c.product, false)
			if err != nil {
				t.Fatalf("%s without a mark: %v", c.name, err)
			}
			for _, p := range []*Info{c.product, nil} {
				text := bom + c.text
				if incBOM {
					text = c.text
				}
				got, err := read(text, p, incBOM)
				if err != nil {
					t.Errorf("%s with a mark (product %v, included file %v): %v", c.name, p, incBOM, err)
					continue
				}
				if describe(got) != describe(plain) {
					t.Errorf("%s with a mark (product %v, included file %v): lanes\n%s\nwant\n%s", c.name, p, incBOM, describe(got), describe(plain))
				}
				var want, notes []string
				for _, w := range plain.Warnings {
					want = append(want, w.String())
				}
				marked := c.name
				if incBOM {
					marked = "conf.d/a.conf"
				}
				for _, w := range got.Warnings {
					if strings.Contains(w.Text, "byte-order mark") {
						if !c.refused || w.Place != (Place{File: marked, Line: 1}) || !strings.Contains(w.Text, "refuses") {
							t.Errorf("%s: a note %q; want one only where the product refuses the mark, at %s:1", c.name, w, marked)
						}
						continue
					}
					notes = append(notes, w.String())
				}
				if !slices.Equal(notes, want) {
					t.Errorf("%s with a mark: notes\n%s\nwant\n%s", c.name, strings.Join(notes, "\n"), strings.Join(want, "\n"))
				}
				if c.refused && len(got.Warnings) != len(plain.Warnings)+1 {
					t.Errorf("%s with a mark: %d notes, want the %d without it and one saying %v refuses the mark", c.name, len(got.Warnings), len(plain.Warnings), c.product)
				}
			}
		}
	}
}
