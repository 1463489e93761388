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
