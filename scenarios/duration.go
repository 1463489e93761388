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
