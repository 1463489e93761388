package main

import (
	"os"
	"path/filepath"
	"ratelab/internal/check"
	"strings"
	"testing"
)

// A note that is not an error is not written as one: run --plot says what it did
// not draw without the "ratelab:" that starts an error, and exits 0.
func TestPlotNoteIsNotAnError(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "s.toml")
	check.Setup(t, os.WriteFile(file, []byte(`[[scenario]]
name = "s"
duration = "2s"
[scenario.policy]
limit = 10
[[scenario.lane]]
name = "no limit"
algorithm = "none"
[[scenario.lane]]
algorithm = "token-bucket"
[[scenario.client]]
name = "c"
pattern = "constant"
rate = 20
`), 0o644))
	dir := filepath.Join(tmp, "charts")
	code, _, errOut := ratelab("run", "--file", file, "--scenario", "s", "--plot", dir)
	want := "charts in " + dir + `: lane "no limit" has no level`
	if code != 0 || !strings.Contains(errOut, want) || strings.Contains(errOut, "ratelab:") {
		t.Errorf("run --plot: exit %d, stderr %q; want exit 0 and %q, without ratelab:", code, errOut, want)
	}
}
