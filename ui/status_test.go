package ui

import (
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/scenarios"
)

// A message wider than the terminal is shown whole on two lines, not cut at the
// width: at 80 columns "saved the session: ratelab run --file
// boundary-burst-session.toml --scenario boundary-burst-session" lost the
// scenario name, the one word the command needs, and an export lost the series
// file's name. The screen keeps its size, panels or zoom.
func TestLongStatusWrapsAt80Columns(t *testing.T) {
	c := catalogue(t)
	t.Chdir(t.TempDir()) // the export folder ".", as by default: names, not paths
	m, err := New(Options{Catalogue: c, Scenario: "boundary-burst", ExportDir: ".", ManualFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
		press(m, "S")
		want := "saved the session: ratelab run --file boundary-burst-session.toml --scenario boundary-burst-session"
		checkStatusShown(t, m, size.w, size.h, want, "")
		press(m, "enter") // zoom
		checkStatusShown(t, m, size.w, size.h, want, "zoomed")
		press(m, "esc")

		m.export.busy = false
		m.Update(m.export.start(m.runner.cfgWithInputs(), m.runner.now(), false, m.runner.session)())
		if m.statusBad {
			t.Fatalf("export: %s", m.status)
		}
		checkStatusShown(t, m, size.w, size.h, "boundary-burst-seed1-requests.csv and boundary-burst-seed1-series.csv", "after e")
		if _, err := os.Stat("boundary-burst-seed1-series.csv"); err != nil {
			t.Fatal(err)
		}
	}
	// what was saved runs
	if _, err := scenarios.Load("boundary-burst-session.toml"); err != nil {
		t.Fatalf("the saved session does not load: %v", err)
	}
}

// checkStatusShown fails unless the screen is w×h at most and its lines, joined,
// hold want.
func checkStatusShown(t *testing.T, m *Model, w, h int, want, when string) {
	t.Helper()
	s := screen(m)
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("%d×%d %s: the screen has %d lines", w, h, when, len(lines))
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("%d×%d %s: line %d is %d wide", w, h, when, i+1, ansi.StringWidth(l))
		}
	}
	if !strings.Contains(strings.Join(lines, " "), want) {
		t.Errorf("%d×%d %s: the screen does not show %q:\n%s", w, h, when, want, s)
	}
}

// The hint under a zoomed lane says how to leave it: enter, which zoomed, now
// goes back (it toggles), as esc does.
func TestZoomHint(t *testing.T) {
	m := newModel(t, "boundary-burst")
	if s := screen(m); !strings.Contains(s, "focus fixed-window: tab to change, enter to zoom") {
		t.Errorf("unzoomed, the hint is not shown:\n%s", s)
	}
	press(m, "enter")
	s := screen(m)
	if !strings.Contains(s, "zoomed on fixed-window: tab for the next lane, enter or esc back") || strings.Contains(s, "enter to zoom") {
		t.Errorf("zoomed, the hint does not say how to leave:\n%s", s)
	}
	press(m, "tab")
	if s := screen(m); !m.zoom || !strings.Contains(s, "zoomed on sliding-log") {
		t.Errorf("tab in the zoom: zoom %v, screen:\n%s", m.zoom, s)
	}
	press(m, "enter")
	if m.zoom {
		t.Error("enter in the zoom did not go back")
	}
}
