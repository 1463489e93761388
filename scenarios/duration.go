package scenarios

import (
	"time"

	"github.com/pelletier/go-toml/v2/unstable"
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
