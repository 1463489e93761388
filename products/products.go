// Package products reads the configuration files of the products whose rate
// limiters ratelab emulates into lanes: every context of the file that limits
// requests, with its limits in the product's own terms, and what identifies a
// client in a request log for each (its key). A product is a package of its
// own (products/nginx, products/haproxy, products/envoy, products/cloudflare,
// products/apigateway, products/spring, products/traefik, products/kong) that
// declares its Info — its name, its file, how the file is told, its reader,
// how its limits become lanes, what ratelab tune --target writes for it — and
// products/all lists them once; docs/adding-a-product.md says how to add one.
// The limiters that decide as the products do are the algorithms package's.
//
// A file is checked as the product checks it: what the product refuses is an
// *Error at its file:line, with the fix. What the file does that changes
// limiting and that ratelab does not model (nginx's limit_conn, a key set by a
// map; HAProxy's other counters; which requests carry an Envoy descriptor) is
// a Warning at its file:line: never silently left out.
//
// This package holds what every product shares: the Config a reader makes
// (its Lanes, each Limit with the product's own Params and its Key), places,
// errors and warnings; reading with the product named or told by its content
// (List: Read, Detect); the mapping of a product's lanes to ratelab's
// (Config.Ratelab, Mapping); one node tree for the YAML, JSON and TOML
// products, each value at its line (Node, from go.yaml.in/yaml/v3's nodes,
// encoding/json's tokens or go-toml's parser, read field by field with
// Reader); and what tune --target needs of a product (Target, Snippet).
package products

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"ratelab/algorithms"
	"ratelab/internal/printable"
)

// Place is a line of a configuration file.
type Place struct {
	File string
	Line int // from 1; 0 when the whole file is meant
}

// String is file:line (only file when Line is 0), the file's name made
// printable (an included file's name is the configuration's text).
func (p Place) String() string {
	if p.Line <= 0 {
		return printable.String(p.File)
	}
	return fmt.Sprintf("%s:%d", printable.String(p.File), p.Line)
}

// Warning is something a configuration does that changes which requests are
// limited, or how, and that ratelab does not model; or a fact about the file a
// reader should know (a zone no limit uses). It is shown, never an error.
type Warning struct {
	Place Place
	Text  string
}

// String is "file:line: text".
func (w Warning) String() string { return w.Place.String() + ": " + w.Text }

// Warningf makes a Warning at place. Its text quotes the configuration, which
// may hold what a terminal acts on (escape sequences, bidi controls): it is
// made printable here, where every reader's notes are made.
func Warningf(place Place, format string, args ...any) Warning {
	return Warning{Place: place, Text: printable.String(fmt.Sprintf(format, args...))}
}

// Error is a configuration the product itself would refuse (nginx -t, haproxy
// -c), or one ratelab cannot read: its place, what is wrong and the fix.
type Error struct {
	Place Place
	Text  string
}

func (e *Error) Error() string { return e.Place.String() + ": " + e.Text }

// Errorf makes an *Error at place, its text made printable (it quotes the
// configuration, as a Warning does).
func Errorf(place Place, format string, args ...any) *Error {
	return &Error{Place: place, Text: printable.String(fmt.Sprintf(format, args...))}
}

// Config is what a product's configuration says about limiting requests.
type Config struct {
	Product *Info
	File    string
	// Lanes are the contexts that limit requests, in the file's order.
	Lanes []Lane
	// Warnings are what the file does that ratelab does not model, in the
	// file's order (included files where they are included).
	Warnings []Warning
}

// Lane is one context that limits requests — an nginx server or location, a
// HAProxy frontend, listen or backend section — and the limits a request there
// is held to, in the order the product applies them.
type Lane struct {
	// Name says where it is: "server example.com location /api/",
	// "frontend fe". Names are unique within a Config.
	Name string
	// Place is where the context opens.
	Place Place
	// Applies lists the contexts whose requests these limits hold (nginx: the
	// servers and locations that inherit them, this one first when it handles
	// requests itself); empty for HAProxy, where it is the section itself.
	Applies []string
	Limits  []Limit
}

// Limit is one limit of a lane: where it is written, what identifies a client
// for it, and its parameters in the product's terms.
type Limit struct {
	Place Place
	Key   Key
	// Params are the limit's parameters in its product's terms: the
	// product's own type (*nginx.Limit, *haproxy.Limit…), which only the
	// product's code asserts.
	Params Params
}

// Params are a limit's parameters in its product's terms. String writes them
// as the product's file says them ("zone=perip rate=10r/s burst=20 nodelay
// status=429"), to describe a lane.
type Params interface {
	String() string
}

// Key is what identifies a client for a limit: the product's expression, and
// the request log's fields that stand for it.
type Key struct {
	// Expr is the product's key as written: "$binary_remote_addr", "src",
	// "req.hdr(x-api-key)".
	Expr string
	// Trace names the fields of a request log that identify the same client,
	// in ratelab's trace key syntax (traces.Options.Key): "ip", "user",
	// "path", "method", or several joined by "+". Empty when every request
	// shares one key (Shared) or when no field stands for the expression
	// (Mapped false).
	Trace string
	// Shared says every request has the same key: the limit holds all of them
	// together ($server_name, a constant).
	Shared bool
	// Mapped says Trace or Shared stands for Expr. When false, a Warning at
	// the key's place says so, and a lane keeps the trace's own key.
	Mapped bool
	// Note says how the log's fields differ from the product's key, when they
	// do (a header the log does not have, the query string); empty when they
	// are the same.
	Note string
}

// Options say how to read a configuration file.
type Options struct {
	// Product is the file's product; nil tells it from the content.
	Product *Info
	// Dir is the directory relative include paths are read from (nginx reads
	// them from the main file's directory); empty: the main file's.
	Dir string
	// ReadFile reads an included file; nil reads the file system.
	ReadFile func(name string) ([]byte, error)
	// Glob lists the files an include pattern matches; nil globs the file
	// system.
	Glob func(pattern string) ([]string, error)
}

// ReadInclude reads an included file: with o.ReadFile, or from the file
// system (ReadLimited).
func (o Options) ReadInclude(name string) ([]byte, error) {
	if o.ReadFile != nil {
		return o.ReadFile(name)
	}
	return ReadLimited(name)
}

// ReadLimited reads the file at path, refusing one larger than MaxFileSize
// after reading at most one byte more: /dev/zero, or a log named by mistake,
// is an error at once, not a read until memory runs out.
func ReadLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB, more than a configuration holds; is it the right file?", path, MaxFileSize>>20)
	}
	return data, nil
}

// GlobInclude lists the files an include pattern matches: with o.Glob, or
// the file system's.
func (o Options) GlobInclude(pattern string) ([]string, error) {
	if o.Glob != nil {
		return o.Glob(pattern)
	}
	return filepath.Glob(pattern)
}

// MaxFileSize is the most a configuration file, or one it includes, may hold.
const MaxFileSize = 16 << 20

// TrimBOM is data without the UTF-8 byte-order mark (U+FEFF) some editors
// write first (Notepad, Excel), and whether it had one: every reader reads a
// file as the same file without it (List.Read, List.Detect and nginx's
// includes call this, the one place that takes it off). A YAML, JSON or TOML
// reader takes the mark as a mark; nginx and HAProxy do not
// (Info.ByteOrderMark).
func TrimBOM(data []byte) ([]byte, bool) {
	if rest, ok := bytes.CutPrefix(data, []byte("\uFEFF")); ok {
		return rest, true
	}
	return data, false
}

// ByteOrderMarkWarning is the note for a file of product that began with a
// byte-order mark, which product refuses, saying so (refusal): nginx and
// HAProxy read the mark as part of the file's first word. ratelab reads the
// file without it, as the file was surely meant.
func ByteOrderMarkWarning(file string, product algorithms.Name, refusal string) Warning {
	return Warningf(Place{File: file, Line: 1}, "the file begins with a UTF-8 byte-order mark, which %s refuses (%s); ratelab reads the file without it: save it as UTF-8 without a byte-order mark", product, refusal)
}

// AddLanes reads each item into a lane with read and adds it to c, in order: an
// item that limits nothing (nil, a Warning says why) adds none, and a name
// already taken gets the lane's line ("… line 12"). The first error stops it.
func AddLanes[T any](c *Config, items []T, read func(int, T) (*Lane, error)) error {
	names := map[string]bool{}
	for _, l := range c.Lanes {
		names[l.Name] = true
	}
	for i, item := range items {
		lane, err := read(i, item)
		if err != nil {
			return err
		}
		if lane == nil {
			continue
		}
		if names[lane.Name] {
			lane.Name = fmt.Sprintf("%s line %d", lane.Name, lane.Place.Line)
		}
		names[lane.Name] = true
		c.Lanes = append(c.Lanes, *lane)
	}
	return nil
}
