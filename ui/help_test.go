package ui

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestHelpKeysEndWhereTheyEnd: at 80 and 160 columns no line of the keys page
// ends in an ellipsis, as none of its bindings is wider than the screen: the
// last column's descriptions are not padded past the width.
func TestHelpKeysEndWhereTheyEnd(t *testing.T) {
	for _, width := range []int{80, 120, 160} {
		for _, line := range helpLines(newStyles(true), DefaultKeyMap(), nil, helpKeys, width) {
			if lipgloss.Width(line) > width || strings.HasSuffix(strings.TrimRight(ansi.Strip(line), " "), "…") {
				t.Errorf("at %d columns: %q", width, ansi.Strip(line))
			}
		}
	}
}
