package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/internal/check"
)

// P writes the charts of the run so far, in the background, into a folder of the
// export folder; a second P replaces the folder it wrote; a folder that cannot be
// written is a message, not a crash.
func TestChartsWriteTheRunSoFar(t *testing.T) {
	m := newModel(t, "boundary-burst")
	seekTo(m, 1250*time.Millisecond) // past the burst at 1.000 s (and its question)
	want := filepath.Join(m.opts.ExportDir, "boundary-burst-seed1-charts")
	for range 2 {
		cmd := press(m, "P")
		if cmd == nil {
			t.Fatal("P did not start writing the charts")
		}
		m.Update(cmd())
		if m.statusBad || !strings.Contains(m.status, "of 1.250s of the run to "+want) {
			t.Fatalf("status after P: %q", m.status)
		}
	}
	for _, name := range []string{"comparison-zoom.svg", "comparison-zoom.png", "lane1-fixed-window-level.png", ".ratelab"} {
		if _, err := os.Stat(filepath.Join(want, name)); err != nil {
			t.Error(err)
		}
	}
	m.export.dir = filepath.Join(m.opts.ExportDir, "missing")
	m.Update(press(m, "P")())
	if !m.statusBad || !strings.Contains(m.status, "does not exist; create it first") {
		t.Errorf("charts to a missing folder: status %q", m.status)
	}
}

// Neither P nor e writes over a file the run reads, or replaces a folder
// holding one: the charts' folder and the CSVs are checked against the
// scenario's files (sim.Config.Files) first, and the file is left as it was.
func TestExportsKeepOffTheRunsInputs(t *testing.T) {
	m := newModel(t, "boundary-burst")
	seekTo(m, 100*time.Millisecond)
	charts := filepath.Join(m.opts.ExportDir, "boundary-burst-seed1-charts")
	input := filepath.Join(charts, "mine.toml")
	check.Setup(t, os.MkdirAll(charts, 0o755))
	check.Setup(t, os.WriteFile(input, []byte("kept"), 0o644))
	check.Setup(t, os.WriteFile(filepath.Join(charts, ".ratelab"), nil, 0o644)) // a folder ratelab would replace
	m.runner.cfg.Files = []string{input}
	m.Update(press(m, "P")())
	if !m.statusBad || !strings.Contains(m.status, "holds a file of scenario \"boundary-burst\", "+input) {
		t.Errorf("charts over the folder holding an input: status %q", m.status)
	}
	requests := filepath.Join(m.opts.ExportDir, "boundary-burst-seed1-requests.csv")
	check.Setup(t, os.WriteFile(requests, []byte("kept"), 0o644))
	m.runner.cfg.Files = []string{requests}
	m.Update(press(m, "e")())
	if !m.statusBad || !strings.Contains(m.status, "is a file of scenario \"boundary-burst\", which this run reads") {
		t.Errorf("an export over an input: status %q", m.status)
	}
	for _, f := range []string{input, requests} {
		if got, _ := os.ReadFile(f); string(got) != "kept" {
			t.Errorf("%s holds %q", f, got)
		}
	}
}
