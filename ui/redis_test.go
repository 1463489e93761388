package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/internal/redistest"
	"ratelab/session"
)

// Redis not there at start: the UI opens, and shows the lanes as unavailable and
// their decisions made by on_error.
func TestRedisNotThere(t *testing.T) {
	srv := redistest.Start(t)
	url := srv.URL()
	srv.Stop() // a port where nothing answers
	m, err := New(Options{Catalogue: catalogue(t), Scenario: "boundary-burst", Redis: true, Session: session.Options{RedisURL: url}, ManualFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	for i := 0; i < 25; i++ {
		m.Update(FrameMsg{Generation: 1})
	}
	screen := ansi.Strip(m.View().Content)
	if !strings.Contains(screen, "redis unavailable") || !strings.Contains(screen, "backend redis "+srv.Addr()) || !strings.Contains(screen, "decisions made without Redis") {
		t.Errorf("the UI with Redis down:\n%s", screen)
	}
}

// Quitting during an export stops it and waits for it: its temporary files and
// its Redis keys (and the shown run's) are removed before Close returns, on a
// three-master cluster too. The old UI quit at once and left keys in 2 of 3
// runs, and hidden partial CSV files.
func TestQuittingMidExportLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a three-node cluster takes a few seconds to form")
	}
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) (string, func(string) []string)
	}{
		{"server", func(t *testing.T) (string, func(string) []string) { s := redistest.Start(t); return s.URL(), s.Keys }},
		{"cluster", func(t *testing.T) (string, func(string) []string) {
			c := redistest.StartCluster(t)
			return c.URL(), c.Keys
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, keys := tc.url(t)
			dir := t.TempDir()
			m, err := New(Options{Catalogue: catalogue(t), Scenario: "retry-storm", Redis: true, Session: session.Options{RedisURL: url}, ManualFrames: true, ExportDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
			for i := 0; i < 40; i++ { // 2 s of the storm, which the export replays
				frame(m)
			}
			if m.runner.run.Now() < 2*time.Second {
				t.Fatalf("the run reached only %v", m.runner.run.Now())
			}
			cmd := press(m, "e")
			if cmd == nil {
				t.Fatal("e did not start an export")
			}
			exported := make(chan tea.Msg, 1)
			go func() { exported <- cmd() }()
			waitFor(t, "the export to write", func() bool {
				tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
				return len(tmp) > 0
			})
			press(m, "q")
			m.Close()
			if left := keys("{ratelab:*"); len(left) != 0 {
				t.Errorf("%d keys left after quitting mid-export, such as %s", len(left), left[0])
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the export folder holds %v after quitting mid-export", entries)
			}
			select {
			case msg := <-exported:
				if e, ok := msg.(exportedMsg); !ok || !e.err {
					t.Errorf("the stopped export reported %+v", msg)
				}
			case <-time.After(time.Second):
				t.Error("Close returned before the export did")
			}
		})
	}
}

// waitFor polls ok for up to 20 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
