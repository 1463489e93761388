package scenarios

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"ratelab/internal/suggest"
	"ratelab/sim"
)

// Source is where a catalogue was read from: its name, for messages, and how to open
// a file named in it (a trace), relative to it.
type Source struct {
	Name string
	Open func(name string) (io.ReadCloser, error)
	// Path is where a file named in the catalogue is on disk; nil when the
	// catalogue is not on disk (the embedded one).
	Path func(name string) string
	// Generated says ratelab wrote the scenario text (run --trace's): its
	// errors name the source, not a line and column of text the user never saw.
	Generated bool
}

// FileSource is the source for a scenario file on disk: paths inside it are
// relative to the file's folder.
func FileSource(file string) Source {
	dir := filepath.Dir(file)
	path := func(name string) string {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return name
	}
	return Source{Name: file, Path: path, Open: func(name string) (io.ReadCloser, error) {
		return os.Open(path(name))
	}}
}

// FSSource is the source for a file inside fsys (the embedded catalogue).
func FSSource(fsys fs.FS, file string) Source {
	dir := path.Dir(file)
	return Source{Name: file, Open: func(name string) (io.ReadCloser, error) {
		return fsys.Open(path.Join(dir, name))
	}}
}

// Catalogue is a scenario file, decoded and checked: every scenario in it compiles.
type Catalogue struct {
	Source    Source
	Scenarios []Scenario
	pos       *positions
}

// Parse decodes data, read from src, strictly, and compiles every scenario once so
// that a problem anywhere in the file is reported now, with its place.
func Parse(src Source, data []byte) (*Catalogue, error) {
	data, err := utf8Text(src.Name, data)
	if err != nil {
		return nil, err
	}
	pos := index(data)
	f, err := decode(src.Name, data, pos)
	if err != nil {
		return nil, err
	}
	c := &Catalogue{Source: src, Scenarios: f.Scenarios, pos: pos}
	if len(c.Scenarios) == 0 {
		return nil, fmt.Errorf("%s: no scenarios; add a [[scenario]] table", src.Name)
	}
	seen := map[string]bool{}
	for i := range c.Scenarios {
		s := &c.Scenarios[i]
		if seen[s.Name] {
			return nil, fmt.Errorf("%s: two scenarios are named %q; names must be unique", c.pos.place(src.Name, i, "name"), s.Name)
		}
		seen[s.Name] = true
		if _, err := compile(src, c.pos, i, s, Overrides{}); err != nil {
			return nil, err
		}
		if s.Exercise != nil {
			if _, _, err := compileExercise(src, c.pos, i, s, Overrides{}, false); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// Load reads and parses the scenario file at path.
func Load(file string) (*Catalogue, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("scenario file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("scenario file: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: more than %d MiB, too large for a scenario file (the catalogue is a few dozen KiB); is it the right file? A request log is named by a client's file = \"…\"", file, MaxFileSize>>20)
	}
	return Parse(FileSource(file), data)
}

// MaxFileSize is the most a scenario file may hold, in bytes: Load reads no
// further, so a device that never ends (/dev/zero) or a log given by mistake is
// refused rather than read into memory whole.
const MaxFileSize = 16 << 20

// LoadFS reads and parses the scenario file at name in fsys.
func LoadFS(fsys fs.FS, name string) (*Catalogue, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("scenario file: %w", err)
	}
	return Parse(FSSource(fsys, name), data)
}

// Names lists the scenarios in file order.
func (c *Catalogue) Names() []string {
	names := make([]string, len(c.Scenarios))
	for i, s := range c.Scenarios {
		names[i] = s.Name
	}
	return names
}

// Index returns the position of the scenario called name, or an error that
// suggests the nearest name when one is close (a typo) and lists the names
// there are.
func (c *Catalogue) Index(name string) (int, error) {
	for i, s := range c.Scenarios {
		if s.Name == name {
			return i, nil
		}
	}
	if near := suggest.Nearest(name, c.Names()); near != "" {
		return -1, fmt.Errorf("unknown scenario %q in %s; did you mean %q? (ratelab list shows them all)", name, c.Source.Name, near)
	}
	return -1, fmt.Errorf("unknown scenario %q in %s; known: %s (see ratelab list)", name, c.Source.Name, strings.Join(c.Names(), ", "))
}

// Compile builds the run configuration of the scenario called name with o applied.
func (c *Catalogue) Compile(name string, o Overrides) (*sim.Config, error) {
	i, err := c.Index(name)
	if err != nil {
		return nil, err
	}
	return compile(c.Source, c.pos, i, &c.Scenarios[i], o)
}
