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
	for i := 0; i < 20; i++ { // 1 s: past the burst at 0.999 s, before the question at 1.002 s
		frame(m)
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
			if m.runner.now() < 2*time.Second {
				t.Fatalf("the run reached only %v", m.runner.now())
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

// A Redis that stops answering never delays a key press. With the server
// stopped (SIGSTOP), a frame's advance blocks on its calls in the engine; all
// the while, every key is answered — Update returns — within 100 ms, and the
// screen shows what the key did: View draws the snapshot and never waits either
// (it is given a second, which drawing 160×48 under the race detector on a busy
// machine takes well within, and a wait on Redis, 3 s a call, would not). When
// the server goes on, the frame's result lands.
func TestStoppedRedisNeverDelaysAKey(t *testing.T) {
	srv := redistest.Start(t)
	m, err := New(Options{Catalogue: catalogue(t), Scenario: "boundary-burst", Redis: true, Session: session.Options{RedisURL: srv.URL()}, ManualFrames: true, ExportDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	frame(m) // the run started on Redis, and one frame decided there
	if now := m.runner.now(); now != Frame {
		t.Fatalf("one frame reached %v", now)
	}
	srv.Pause()
	_, cmd := m.Update(FrameMsg{Generation: m.runner.generation})
	blocked := m.runner.eng.jobs[len(m.runner.eng.jobs)-1]
	time.Sleep(300 * time.Millisecond) // long past a frame's work with Redis answering
	for _, k := range []string{"tab", "tab", "space", "?", "esc", "w", "+", "l", "esc"} {
		select {
		case <-blocked.finished:
			t.Fatal("the frame finished while Redis was stopped: nothing was blocked")
		default:
		}
		// the key is answered and the screen drawn while Redis stays stopped:
		// an Update or a View that waited on Redis would wait until it resumes,
		// after this loop (10 s is a bound no busy machine reaches otherwise)
		var s string
		answered := make(chan struct{})
		go func() {
			m.Update(keyPress(k))
			s = ansi.Strip(m.View().Content)
			close(answered)
		}()
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Fatalf("key %s: no answer in 10 s with Redis stopped: the UI waits on Redis", k)
		}
		if k == "space" && !strings.Contains(s, "❚❚ paused") {
			t.Errorf("space with Redis stopped: the screen does not say paused:\n%s", s)
		}
	}
	if m.focus != 2 || !m.whole || m.runner.speed != speedOne+1 {
		t.Errorf("the keys did not all take effect: focus %d, whole %v, speed %s", m.focus, m.whole, speedName(m.runner.speed))
	}
	srv.Resume()
	m.Update(cmd())
	if now := m.runner.now(); now != 2*Frame {
		t.Errorf("after Redis went on, the frame's result brought the run to %v, want %v", now, 2*Frame)
	}
}

// A frame out longer than stallAfter because Redis stopped answering is said on
// the header — waiting for Redis, and for how long — instead of a frozen clock
// under "● running"; when the frame lands, the header says running again.
func TestStoppedRedisIsSaid(t *testing.T) {
	srv := redistest.Start(t)
	m, err := New(Options{Catalogue: catalogue(t), Scenario: "boundary-burst", Redis: true, Session: session.Options{RedisURL: srv.URL()}, ManualFrames: true, ExportDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	frame(m)
	srv.Pause()
	_, cmd := m.Update(FrameMsg{Generation: m.runner.generation})
	check := stallMsg{frame: m.runner.frames}
	time.Sleep(stallAfter + 100*time.Millisecond)
	m.Update(check) // what the wall-clock tick sends
	if s := ansi.Strip(m.View().Content); !strings.Contains(s, "● waiting for Redis (1s)") {
		t.Errorf("with Redis stopped for over a second, the header:\n%s", strings.SplitN(s, "\n", 3)[1])
	}
	srv.Resume()
	m.Update(cmd())
	if s := ansi.Strip(m.View().Content); strings.Contains(s, "waiting for Redis") || !strings.Contains(s, "● running") {
		t.Errorf("after Redis went on and the frame landed, the header:\n%s", strings.SplitN(s, "\n", 3)[1])
	}
	m.Update(check) // a check of a frame that landed changes nothing
	if m.runner.stalled != 0 {
		t.Errorf("a check after the frame landed set stalled to %v", m.runner.stalled)
	}
}
