package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// At 80×24 each lane is a line, its name in 18 cells: a longer name shows its
// short form, as a narrow panel does, so that lanes stay apart. Cut as it was,
// clock-skew's "token-bucket (fix off)" and "token-bucket (fix on)" both read
// "token-bucket (fix…".
func TestCompactLinesKeepLanesApart(t *testing.T) {
	m := newModel(t, "clock-skew")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	lines := strings.Split(screen(m), "\n")
	seen := map[string]int{}
	for _, l := range lines[2 : 2+len(m.runner.cfg.Lanes)] {
		name := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(l, "▸ "), "  "))
		name, _, _ = strings.Cut(name, " acc ")
		seen[strings.TrimSpace(name)]++
	}
	for _, want := range []string{"tb·fix off", "tb·fix on", "gcra", "x-time-rate", "sliding-log"} {
		if seen[want] != 1 {
			t.Errorf("the compact lines do not name %q once: %v\n%s", want, seen, strings.Join(lines, "\n"))
		}
	}
}

// The header's second line fits the width by dropping labels, then whole
// parts, never by cutting a value: at 80 columns a long seed shows whole, and
// a longer one still shows once the backend (memory) has gone. The table calls a
// lane whose name is cut by its short name, so clock-skew's two token buckets
// stay apart there too.
func TestHeaderAndTableAtNarrowWidths(t *testing.T) {
	for _, tc := range []struct {
		width      int
		seed       uint64
		want, lose []string
	}{
		{160, 123456789, []string{"speed 1×", "policy 100 per 1s, burst 100", "seed 123456789", "backend memory"}, nil},
		{80, 123456789, []string{"1×", "100 per 1s, burst 100", "seed 123456789", "memory"}, []string{"speed", "policy", "…"}},
		{80, 1234567890123, []string{"100 per 1s, burst 100", "seed 1234567890123"}, []string{"memory", "…"}},
	} {
		m, err := New(Options{Catalogue: catalogue(t), Scenario: "noisy-tenant", Seed: &tc.seed, ExportDir: t.TempDir(), ManualFrames: true})
		if err != nil {
			t.Fatal(err)
		}
		m.Update(tea.WindowSizeMsg{Width: tc.width, Height: 24})
		header := strings.Split(screen(m), "\n")[1]
		for _, w := range tc.want {
			if !strings.Contains(header, w) {
				t.Errorf("at %d columns the header lacks %q: %q", tc.width, w, header)
			}
		}
		for _, l := range tc.lose {
			if strings.Contains(header, l) {
				t.Errorf("at %d columns the header has %q: %q", tc.width, l, header)
			}
		}
	}

	m := newModel(t, "clock-skew")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	s := screen(m)
	for _, want := range []string{" tb·fix off ", " tb·fix on "} {
		if strings.Count(s, want) < 2 { // its compact line and its table row
			t.Errorf("at 80 columns %q is not both a lane's line and its table row:\n%s", want, s)
		}
	}
}
