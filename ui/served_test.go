package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/serve"
)

// The live view of ratelab serve shows each lane's counts, its latest refusal
// (the rule's words first, its key escaped, its newlines too) and fits the terminal, at 80×24 and
// 120×40; q quits.
func TestServedViewShowsEachLane(t *testing.T) {
	key, _ := serve.ParseKey("ip")
	lanes := []serve.Lane{
		{Name: "api", Key: key, Limits: []serve.Limit{{Algorithm: algorithms.TokenBucketName}}},
		{Name: "login", Key: key, Limits: []serve.Limit{{Algorithm: algorithms.NginxName}}},
	}
	v := NewServed("127.0.0.1:8080", lanes)
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	v.now = func() time.Time { return now }
	for i := range 7 {
		v.Add(serve.Arrival{Lane: 0, Key: "10.0.0.1", Decision: serve.Decision{Decision: algorithms.Decision{Allowed: true}, Decisive: -1}})
		if i%2 == 0 {
			v.Add(serve.Arrival{Lane: 1, Key: "10.0.0.\x1b[2J9\n\nFAKE: all clear", Rule: "nginx.conf:14 limit_req zone=login",
				Decision: serve.Decision{Decisive: 0, Status: 503, Word: "REJECTED"}})
		}
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		v.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		screen := v.View().Content
		lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
		if len(lines) > size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: a line %d wide: %q", size[0], size[1], w, l)
			}
		}
		plain := ansi.Strip(screen)
		for _, want := range []string{"api  at /api/", "accepted 7  refused 0", "login  at /login/", "accepted 0  refused 4", "latest refusal: 503 REJECTED by limit_req zone=login (nginx.conf:14)"} {
			if !strings.Contains(plain, want) {
				t.Errorf("%dx%d: the screen lacks %q:\n%s", size[0], size[1], want, plain)
			}
		}
		if strings.Contains(screen, "\x1b[2J") {
			t.Errorf("%dx%d: a key's escape reached the screen", size[0], size[1])
		}
		// a key's newlines stay in its line, escaped: no line of the key's own
		if strings.Contains(plain, "\nFAKE") || size[0] >= 120 && !strings.Contains(plain, `9\n\nFAKE: all clear`) {
			t.Errorf("%dx%d: a key's newlines were not escaped in its line:\n%s", size[0], size[1], plain)
		}
	}
	if _, cmd := v.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); cmd == nil {
		t.Error("q does nothing")
	} else if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Error("q does not quit")
	}
}
