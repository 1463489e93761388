package scenarios

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/all"
	"ratelab/sim"
	"ratelab/traces"
)

// A lane may be a product's own configuration (product = "nginx" with config =
// '''…''' or config_file = "nginx.conf"): package products reads it as the
// product does, and the lane becomes one lane per context that limits, each
// holding that context's limits in the product's lane (several nginx
// limit_req: all or nothing). What the product would refuse is an error at its
// line — in the scenario file, for a config written in it — and what the lanes
// do not model is a note of the run (sim.Config.Notes).

// isProductLane says spec reads a product's configuration.
func isProductLane(spec LaneSpec) bool {
	return spec.Product.Set() || spec.Config != "" || spec.ConfigFile != ""
}

// productOther is the first key spec writes beside a product's configuration
// (all but name, product, config and config_file): the configuration says what
// they would; "" when it writes none. Every field of the schema is looked at,
// so a key added to lanes later is refused here until a product lane takes it.
func productOther(spec LaneSpec) string {
	var first func(v reflect.Value) string
	first = func(v reflect.Value) string {
		t := v.Type()
		for i := range t.NumField() {
			f, fv := t.Field(i), v.Field(i)
			if f.Anonymous {
				if k := first(fv); k != "" {
					return k
				}
				continue
			}
			key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			switch key {
			case "", "name", "product", "config", "config_file":
				continue
			}
			if !fv.IsZero() {
				return key
			}
		}
		return ""
	}
	return first(reflect.ValueOf(spec))
}

// productLanes compiles lane i, which reads a product's configuration, into
// the lanes it describes.
func (c *compiler) productLanes(i int, spec LaneSpec) ([]sim.LaneConfig, error) {
	label := fmt.Sprintf("%d", i+1)
	if spec.Name != "" {
		label = fmt.Sprintf("%q", spec.Name)
	}
	bad := func(key, format string, args ...any) error {
		return c.fail([]any{"lane", i, key}, "lane %s: %s", label, fmt.Sprintf(format, args...))
	}
	names := strings.Join(all.Products.Names(), " or ")
	switch {
	case !spec.Product.Set():
		key := "config"
		if spec.Config == "" {
			key = "config_file"
		}
		return nil, bad(key, "a product's configuration needs its product: add product = %q (%s)", all.Products.Names()[0], names)
	case spec.Config == "" && spec.ConfigFile == "":
		return nil, bad("product", "a %s lane reads its configuration: give config = '''…''' (the file's text) or config_file = \"…\" (its path, relative to %s)", spec.Product, c.src.Name)
	case spec.Config != "" && spec.ConfigFile != "":
		return nil, bad("config_file", "give the configuration once: config or config_file, not both")
	}
	if key := productOther(spec); key != "" {
		return nil, bad("product", "a %s lane takes its limits, and everything else about them, from its configuration: remove %s", spec.Product, key)
	}
	// read it
	o := products.Options{Product: spec.Product.Value()}
	name, data := c.src.Name, []byte(spec.Config)
	if c.src.Path != nil {
		// includes are read from the scenario file's folder, as products
		// reads them, and recorded
		o.Dir = c.src.Path(".")
		o.ReadFile = func(name string) ([]byte, error) {
			data, err := products.ReadLimited(name)
			if err == nil && !slices.Contains(c.cfg.Files, name) {
				c.cfg.Files = append(c.cfg.Files, name)
			}
			return data, err
		}
	} else {
		o.Dir = "."
		o.ReadFile = func(name string) ([]byte, error) { return c.readSource(name) }
		o.Glob = func(string) ([]string, error) { return nil, nil }
	}
	if spec.ConfigFile != "" {
		name, o.Dir = spec.ConfigFile, filepath.Dir(spec.ConfigFile) // nginx reads includes from the main file's folder
		if c.src.Path != nil {
			name, o.Dir = c.src.Path(spec.ConfigFile), ""
		}
		var err error
		if data, err = c.readSource(spec.ConfigFile); err != nil {
			return nil, bad("config_file", "%v (the path is relative to %s)", err, c.src.Name)
		}
	}
	cfg, err := all.Products.Read(name, data, o)
	if err != nil {
		var e *products.Error
		if errors.As(err, &e) {
			return nil, &problem{fmt.Sprintf("%s: scenario %q: lane %s: %s", c.configPlace(i, spec, e.Place), c.s.Name, label, e.Text)}
		}
		return nil, bad("config", "%v", err)
	}
	lanes, notes := cfg.Ratelab(c.traceKey())
	// a zone or table that holds fewer keys than the scenario's clients have
	// (the keys compiled before the lanes: a trace's every key)
	longest := 0
	for _, k := range c.cfg.Keys {
		longest = max(longest, len(k.Name))
	}
	notes = append(notes, cfg.KeyWarnings(int64(len(c.cfg.Keys)), longest)...)
	for _, w := range append(cfg.Warnings, notes...) {
		c.cfg.Notes = append(c.cfg.Notes, c.configPlace(i, spec, w.Place)+": "+w.Text)
	}
	if len(lanes) == 0 {
		var why []string
		for _, w := range append(notes, cfg.Warnings...) { // why a limit could not be run first
			why = append(why, c.configPlace(i, spec, w.Place)+": "+w.Text)
		}
		if len(why) > 3 {
			why = why[:3]
		}
		key := "config"
		if spec.ConfigFile != "" {
			key = "config_file"
		}
		msg := fmt.Sprintf("its %s configuration limits no request (it has no %s)", spec.Product, spec.Product.Value().Limiting)
		if len(cfg.Lanes) > 0 {
			msg = fmt.Sprintf("ratelab can run none of the limits of its %s configuration", spec.Product)
		}
		if len(why) > 0 {
			msg += ": " + strings.Join(why, "; ")
		}
		return nil, bad(key, "%s", msg)
	}
	var out []sim.LaneConfig
	for _, rl := range lanes {
		lane := sim.LaneConfig{Name: rl.Name, Algorithm: rl.Limits[0].Algorithm, Options: rl.Limits[0].Options, WatchRetries: 20}
		lane.Headers = algorithms.MustLookup(lane.Algorithm).Headers // the product's own
		switch {
		case spec.Name != "" && len(lanes) == 1:
			lane.Name = spec.Name
		case spec.Name != "":
			lane.Name = spec.Name + ": " + rl.Name
		default:
			lane.Name = spec.Product.String() + ": " + rl.Name
		}
		if len(rl.Limits) > 1 {
			lane.Combine = rl.Combine
		}
		// one limit on the request's key, in a scenario of one tier, is a
		// lane of its own policy; else a lane of limits (which hold every
		// tier, and may share a key)
		plain := len(rl.Limits) == 1 && rl.Limits[0].Key == "{key}" && len(c.cfg.Tiers) == 1
		for _, m := range rl.Limits {
			fail := func(err error) error {
				return &problem{fmt.Sprintf("%s: scenario %q: lane %q: %s", c.configPlace(i, spec, m.Place), c.s.Name, lane.Name, err)}
			}
			if err := m.Policy.Validate(1); err != nil {
				return nil, fail(err)
			}
			if _, err := algorithms.New(m.Algorithm, m.Policy, m.Options); err != nil {
				return nil, fail(err)
			}
			tmpl, err := algorithms.ParseKeyTemplate(m.Key)
			if err != nil {
				return nil, fail(err)
			}
			rule := m.RuleAt(c.configPlace(i, spec, m.Place))
			if plain {
				lane.Policy, lane.Rule = m.Policy.WithDefaults(), rule
				break
			}
			lane.Limits = append(lane.Limits, sim.LimitConfig{Name: m.Name, Rule: rule, Algorithm: m.Algorithm, Options: m.Options, Policy: m.Policy.WithDefaults(), Template: tmpl})
		}
		out = append(out, lane)
	}
	return out, nil
}

// readSource reads a file named in the scenario file, relative to it, up to
// products.MaxFileSize.
func (c *compiler) readSource(name string) ([]byte, error) {
	rc, err := c.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, products.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > products.MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, products.MaxFileSize)
	}
	return data, nil
}

// configPlace writes a place of lane i's configuration: a line of a config
// written in the scenario file is that line of the file (exact in a literal
// string, ”'…”'); a line of a config_file, or of a file a config includes,
// is its own.
func (c *compiler) configPlace(i int, spec LaneSpec, p products.Place) string {
	if spec.Config == "" || p.File != c.src.Name {
		return p.String()
	}
	if line, ok := c.pos.textLine(c.index, "lane", i, "config"); ok && p.Line > 0 {
		return fmt.Sprintf("%s:%d", c.src.Name, line+p.Line-1)
	}
	return c.pos.place(c.src.Name, c.index, "lane", i, "config")
}

// traceKey is what identifies a client in the scenario's first trace client:
// its key, or ip for a Common/Combined Log that names none; "" when no client
// replays a log (a product's key then stands for the scenario's keys).
func (c *compiler) traceKey() string {
	for ci, spec := range c.s.Clients {
		if spec.Pattern.Value() != patternTrace {
			continue
		}
		if spec.Key != "" {
			return spec.Key
		}
		if ci < len(c.cfg.Clients) {
			if t, ok := c.cfg.Clients[ci].Pattern.(sim.Trace); ok && t.Report.Format == traces.FormatCLF.String() {
				return "ip"
			}
		}
		if strings.EqualFold(filepath.Ext(spec.File), ".log") {
			return "ip"
		}
		return ""
	}
	return ""
}
