package products

import (
	"os"
	"strings"
	"testing"
)

// A file larger than a configuration can be is refused after reading just past
// MaxFileSize, whatever it is: /dev/zero never ends, and read whole it ran the
// process out of memory (--config /dev/zero, an include of it: nginx's test).
func TestReadLimitedStopsAtTheLimit(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	if _, err := ReadLimited("/dev/zero"); err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("ReadLimited(/dev/zero) = %v, want larger than 16 MiB", err)
	}
}
