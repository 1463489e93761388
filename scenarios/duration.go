package scenarios

import (
	"time"

	"github.com/pelletier/go-toml/v2/unstable"

	"ratelab/traces"
)

// Duration is a time.Duration written in a scenario file as a string such as
// "250ms", "1.5s", "1m30s" or "-300ms".
type Duration struct{ time.Duration }

// UnmarshalText reads the string form. go-toml also hands it a bare number
// (duration = 5) as text; the error is then a parser error highlighting b, which
// is where the number sits in the document, so the decoder reports its line and
// column as it does for its own errors.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return unstable.NewParserError(b, "%q is not a duration; write a number with a unit, in quotes, like \"250ms\", \"1.5s\" or \"2m\"", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the string form.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Spread is a client's spread: for a closed loop a duration (the workers start
// evenly over it), for a trace "none" or "uniform" (see traces.Spread).
type Spread struct {
	Duration
	Mode string // "none" or "uniform", when written as a word
}

// UnmarshalText reads a duration, or a word traces.ParseSpread reads.
func (s *Spread) UnmarshalText(b []byte) error {
	if _, err := traces.ParseSpread(string(b)); err == nil && len(b) > 0 {
		s.Mode = string(b)
		return nil
	}
	if err := s.Duration.UnmarshalText(b); err != nil {
		// a parser error highlighting b, as Duration's, so a bare number has its line
		return unstable.NewParserError(b, "%q is neither a duration (closed-loop: \"2s\") nor none or uniform (trace)", b)
	}
	return nil
}

// MarshalText writes the word or the duration.
func (s Spread) MarshalText() ([]byte, error) {
	if s.Mode != "" {
		return []byte(s.Mode), nil
	}
	return s.Duration.MarshalText()
}

// String is how the spread was written.
func (s Spread) String() string {
	if s.Mode != "" {
		return s.Mode
	}
	return s.Duration.String()
}
