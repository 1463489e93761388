package ui

import (
	"strings"
	"testing"

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
