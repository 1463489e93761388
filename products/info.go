package products

import (
	"fmt"
	"strings"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/internal/printable"
)

// Info is what ratelab knows about one product whose configuration it reads:
// its name, how its file is told and read, how its limits become lanes. It is
// the one place these facts are written: each product declares its Info in
// its own package, products/all lists them once, and the command line, the
// scenario compiler and ratelab tune read the list.
// docs/adding-a-product.md says how to add one.
type Info struct {
	// Name is the product's name as --config-format and a scenario's product
	// write it: its lane's algorithm (algorithms.NginxName), whose limiter
	// decides as the product does.
	Name algorithms.Name
	// File says what its configuration file is, for --config's help and the
	// message about a file no product's: "a haproxy.cfg".
	File string
	// Limiting says what in the file limits requests, for the message about
	// a file that limits none: "limit_req in a server or location".
	Limiting string
	// SharedState, for a product whose limit's name (RatelabLimit.Name) is
	// state every context that uses it shares, is the product's word for it
	// ("zone", "stick table"): one count for every location that names it.
	// "" when each context's limit keeps its own.
	SharedState string
	// Detect says what of the product's configuration data (without a
	// byte-order mark) shows, for telling a file's product by its content
	// (List.Detect); Shows says in words what it looks for, for the message
	// when no product's shows.
	Detect func(data []byte) Sign
	Shows  string
	// Read reads a configuration of the product, named name, from data
	// (without a byte-order mark): its contexts that limit as Lanes, each
	// Limit's Params of the product's own type, and what the file does that
	// the lanes do not model as Warnings. A file the product would refuse is
	// an *Error at its file:line, with the fix. List.Read sets the Config's
	// Product.
	Read func(name string, data []byte, o Options) (*Config, error)
	// ByteOrderMark is what the product says of a file that begins with a
	// UTF-8 byte-order mark, when it refuses one (nginx: an unknown
	// directive); "" when its format takes the mark as one (YAML, JSON,
	// TOML).
	ByteOrderMark string
	// Lanes maps one of its lanes to ratelab's (Config.Ratelab): a lane of
	// its limits together, or a lane each; m keys them and takes the notes.
	Lanes func(l Lane, m *Mapping) []RatelabLane
	// KeyWarnings say, for each zone or table that holds fewer keys than a
	// trace has, what the product does when it is full (Config.KeyWarnings);
	// nil for a product whose state ratelab keeps as it does.
	KeyWarnings func(c *Config, keys int64, keyBytes int) []Warning
	// Target is what ratelab tune --target writes for the product; nil: it
	// writes none.
	Target *Target
	// Syncs are the sync protocols (package deploy) by which the product's
	// instances share a limit of a lane of its with options o, as its own
	// source has them; nil: none (each instance alone, deploy.Local).
	Syncs func(o algorithms.Options) []deploy.Protocol
}

// GenericSyncs are the protocols a lane of an algorithm that is no product's
// can be deployed with: each instance alone, a share of the membership, one
// store.
var GenericSyncs = []deploy.Protocol{deploy.Local, deploy.Share, deploy.Central, deploy.ReplicaReads}

// SyncsOf are the protocols a lane of algorithm alg with options o can be
// deployed with: its product's (Info.Syncs), or GenericSyncs for an algorithm
// that is no product's; the product, nil for none.
func (l List) SyncsOf(alg algorithms.Name, o algorithms.Options) ([]deploy.Protocol, *Info) {
	for _, p := range l {
		if p.Name != alg {
			continue
		}
		if p.Syncs == nil {
			return []deploy.Protocol{deploy.Local}, p
		}
		return p.Syncs(o), p
	}
	return GenericSyncs, nil
}

// String is the product's name.
func (p *Info) String() string { return string(p.Name) }

// List is products in the order they are shown: products/all.Products, every
// product ratelab reads.
type List []*Info

// Names are the products' names, in order.
func (l List) Names() []string {
	names := make([]string, len(l))
	for i, p := range l {
		names[i] = p.String()
	}
	return names
}

// Lookup is the product named name, in any case, or an error naming those
// there are.
func (l List) Lookup(name string) (*Info, error) {
	for _, p := range l {
		if strings.EqualFold(name, p.String()) {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown product %q; use %s", name, strings.Join(l.Names(), " or "))
}

// ReadFile reads the configuration at path (see Read).
func (l List) ReadFile(path string, o Options) (*Config, error) {
	data, err := ReadLimited(path)
	if err != nil {
		return nil, err
	}
	return l.Read(path, data, o)
}

// Read reads a product's configuration, named name, from data: of the
// product o.Product names, or of the one the content tells (Detect). A file
// the product would refuse is an *Error naming file:line and the fix.
func (l List) Read(name string, data []byte, o Options) (*Config, error) {
	if len(data) > MaxFileSize {
		return nil, Errorf(Place{File: name}, "the file is %d bytes; ratelab reads configurations up to %d", len(data), MaxFileSize)
	}
	data, marked := TrimBOM(data)
	p := o.Product
	if p == nil {
		var ok bool
		if p, ok = l.Detect(data); !ok {
			return nil, Errorf(Place{File: name}, "%s; say which with the product (%s)", l.NotDetected(), strings.Join(l.Names(), " or "))
		}
	}
	cfg, err := p.Read(name, data, o)
	if err != nil {
		return nil, err
	}
	cfg.Product = p
	if marked && p.ByteOrderMark != "" {
		cfg.Warnings = append([]Warning{ByteOrderMarkWarning(name, p.Name, p.ByteOrderMark)}, cfg.Warnings...)
	}
	// a lane's name is the configuration's text (a server_name, a section's,
	// a route's id): made printable here, for every reader (its notes and
	// errors are, where they are made)
	for i, ln := range cfg.Lanes {
		cfg.Lanes[i].Name = printable.String(ln.Name)
		for j, a := range ln.Applies {
			ln.Applies[j] = printable.String(a)
		}
	}
	return cfg, nil
}
