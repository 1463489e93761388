package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
