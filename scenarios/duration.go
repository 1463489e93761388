package scenarios

import (
	"fmt"
	"time"
)

// Duration is a time.Duration written in a scenario file as a string such as
// "250ms", "1.5s", "1m30s" or "-300ms".
type Duration struct{ time.Duration }

// UnmarshalText reads the string form.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration; write a number with a unit, like \"250ms\", \"1.5s\" or \"2m\"", b)
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

// UnmarshalText reads a duration, or the words none and uniform.
func (s *Spread) UnmarshalText(b []byte) error {
	switch string(b) {
	case "none", "uniform":
		s.Mode = string(b)
		return nil
	}
	if err := s.Duration.UnmarshalText(b); err != nil {
		return fmt.Errorf("%q is neither a duration (closed-loop: \"2s\") nor none or uniform (trace)", b)
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
