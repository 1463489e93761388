package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A note that is not an error is not written as one: run --plot says what it did
// not draw without the "ratelab:" that starts an error, and exits 0.
func TestPlotNoteIsNotAnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "charts")
	code, _, errOut := ratelab("run", "--scenario", "boundary-burst", "--lanes", "none,token-bucket", "--plot", dir)
	want := "charts in " + dir + `: lane "none" has no level`
	if code != 0 || !strings.Contains(errOut, want) || strings.Contains(errOut, "ratelab:") {
		t.Errorf("run --plot: exit %d, stderr %q; want exit 0 and %q, without ratelab:", code, errOut, want)
	}
}
