package products

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Reader reads fields of a node tree, naming each error's place and fix.
type Reader struct {
	// File is the file the tree was read from, which places name.
	File string
	// Warnings are where Warn adds a Warning: the Config's.
	Warnings *[]Warning
}

// At is n's place: its line of the file.
func (r Reader) At(n *Node) Place { return Place{File: r.File, Line: n.Line} }

// Errorf is an *Error at n's line.
func (r Reader) Errorf(n *Node, format string, args ...any) *Error {
	return Errorf(r.At(n), format, args...)
}

// Warn adds a Warning at n's line.
func (r Reader) Warn(n *Node, format string, args ...any) {
	*r.Warnings = append(*r.Warnings, Warningf(r.At(n), format, args...))
}

// Fields checks that m is a mapping whose keys are among known (what says
// what m is, for the message).
func (r Reader) Fields(m *Node, what string, known ...string) error {
	if m.Kind != MapNode {
		return r.Errorf(m, "%s must be a mapping of %s; it is %s", what, strings.Join(known, ", "), m.What())
	}
	for _, k := range m.Keys {
		if !slices.Contains(known, k.Value) {
			return r.Errorf(k, "%s has no field %q; its fields are %s", what, k.Value, strings.Join(known, ", "))
		}
	}
	return nil
}

// Text reads a string (a scalar that is not null).
func (r Reader) Text(n *Node, what string) (string, error) {
	if n.Kind != ScalarNode || n.Tag == "!!null" {
		return "", r.Errorf(n, "%s must be a string; it is %s", what, n.What())
	}
	return n.Value, nil
}

// Int reads a whole number from lo to hi (JSON writes 64-bit integers
// of protobuf as strings too).
func (r Reader) Int(n *Node, what string, lo, hi int64) (int64, error) {
	if n.Kind != ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		return 0, r.Errorf(n, "%s must be a whole number from %d to %d; it is %s", what, lo, hi, n.What())
	}
	v, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(n.Value, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			v, err = int64(f), nil
		}
	}
	if err != nil || v < lo || v > hi {
		return 0, r.Errorf(n, "%s must be a whole number from %d to %d; it is %s", what, lo, hi, n.What())
	}
	return v, nil
}

// Number reads a number from lo to hi.
func (r Reader) Number(n *Node, what string, lo, hi float64) (float64, error) {
	if n.Kind == ScalarNode && n.Tag != "!!null" && n.Tag != "!!bool" {
		if v, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64); err == nil && v >= lo && v <= hi {
			return v, nil
		}
	}
	return 0, r.Errorf(n, "%s must be a number from %g to %g; it is %s", what, lo, hi, n.What())
}

// Bool reads true or false.
func (r Reader) Bool(n *Node, what string) (bool, error) {
	if n.Kind == ScalarNode {
		switch strings.ToLower(n.Value) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, r.Errorf(n, "%s must be true or false; it is %s", what, n.What())
}

// ProtoDuration reads a google.protobuf.Duration as YAML and JSON write it:
// seconds with up to 9 decimals and an "s" ("1s", "0.5s"), or a mapping of
// seconds and nanos.
func (r Reader) ProtoDuration(n *Node, what string) (time.Duration, error) {
	bad := func() error {
		return r.Errorf(n, "%s must be a duration in seconds such as \"1s\" or \"0.25s\" (or {seconds: 1, nanos: 0}); it is %s", what, n.What())
	}
	if n.Kind == MapNode {
		if err := r.Fields(n, what, "seconds", "nanos"); err != nil {
			return 0, err
		}
		var s, ns int64
		var err error
		if v := n.Get("seconds"); v != nil {
			if s, err = r.Int(v, what+".seconds", 0, 315576000000); err != nil {
				return 0, err
			}
		}
		if v := n.Get("nanos"); v != nil {
			if ns, err = r.Int(v, what+".nanos", 0, 999999999); err != nil {
				return 0, err
			}
		}
		if s > math.MaxInt64/int64(time.Second)-1 {
			return 0, bad()
		}
		return time.Duration(s)*time.Second + time.Duration(ns), nil
	}
	if n.Kind != ScalarNode {
		return 0, bad()
	}
	num, ok := strings.CutSuffix(strings.TrimSpace(n.Value), "s")
	if !ok || num == "" || strings.HasPrefix(num, "-") || strings.HasPrefix(num, "+") {
		return 0, bad()
	}
	whole, frac, _ := strings.Cut(num, ".")
	if len(frac) > 9 || whole == "" && frac == "" {
		return 0, bad()
	}
	s, err := strconv.ParseInt(cmpOr(whole, "0"), 10, 64)
	if err != nil || s > math.MaxInt64/int64(time.Second)-1 {
		return 0, bad()
	}
	var ns int64
	if frac != "" {
		if ns, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil {
			return 0, bad()
		}
	}
	return time.Duration(s)*time.Second + time.Duration(ns), nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ReadTree reads data, a configuration named name, into its node tree with
// parse (ParseYAML, ParseJSON, ParseTOML), and makes the Config its lanes go
// in and the Reader whose warnings go there.
func ReadTree(name string, data []byte, parse func(string, []byte) (*Node, error)) (*Node, *Config, Reader, error) {
	root, err := parse(name, data)
	if err != nil {
		return nil, nil, Reader{}, err
	}
	c := &Config{File: name}
	return root, c, Reader{File: name, Warnings: &c.Warnings}, nil
}
