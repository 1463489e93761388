package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"ratelab/internal/format"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// gotoPrompt asks for a virtual time to jump to (g): "1.001s", "1001ms", "2m", or a
// number of seconds.
type gotoPrompt struct {
	open  bool
	input textinput.Model
}

// gotoPrompts are the prompt's words, the first that leaves the time typed its
// room (see fitTo).
var gotoPrompts = []string{
	"go to virtual time (like 1.001s, 1500ms, 2m; enter goes, esc cancels): ",
	"go to (1.001s, 1500ms, 2m; enter goes, esc cancels): ",
	"go to (1.001s, 1500ms, 2m): ",
}

func newGotoPrompt() gotoPrompt {
	in := textinput.New()
	in.Prompt = gotoPrompts[0]
	in.Placeholder = "type a time" // not a time itself, which would look like a default
	in.CharLimit = 24
	in.SetWidth(24)
	return gotoPrompt{input: in}
}

// show opens the prompt, empty.
func (g *gotoPrompt) show() {
	g.open = true
	g.input.SetValue("")
	g.input.Focus()
}

// fitTo picks the longest prompt that leaves the time typed its room in width
// columns.
func (g *gotoPrompt) fitTo(width int) {
	for _, p := range gotoPrompts {
		if g.input.Prompt = p; len([]rune(p))+g.input.CharLimit <= width {
			return
		}
	}
}

// hide closes the prompt.
func (g *gotoPrompt) hide() {
	g.open = false
	g.input.Blur()
}

// parseVirtualTime reads a time typed at the prompt: a Go duration, or a number of
// seconds.
func parseVirtualTime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || v < 0 || v > 1e9 {
			return 0, fmt.Errorf("%q is out of range; give a time within the run", s)
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a time; write it like 1.001s, 1001ms or 2m", s)
	}
	return d, nil
}

// jumpKey handles a key while the go-to prompt is open: enter seeks, esc cancels,
// anything else edits the time typed.
func (m *Model) jumpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.PickBack):
		m.jump.hide()
		return nil
	case key.Matches(msg, m.keys.PickOpen):
		m.jump.hide()
		t, err := parseVirtualTime(m.jump.input.Value())
		if err != nil {
			m.status, m.statusBad = "go to: "+err.Error(), true
			return nil
		}
		return m.seekTo(t)
	}
	var cmd tea.Cmd
	m.jump.input, cmd = m.jump.input.Update(msg)
	return cmd
}

// seekTo seeks to t (within the run), saying so until it is there. The
// lesson's questions on the way are passed, not asked.
func (m *Model) seekTo(t time.Duration) tea.Cmd {
	to := max(0, min(t, m.runner.cfg.Duration))
	m.announceSeek(to)
	if t > to { // said, not only done: the run ends first
		m.announce(fmt.Sprintf("going to %s, the run's end (%s is past it)", format.Duration(to), format.Duration(t)))
	}
	return m.runner.seek(to)
}

// stepTo steps forward to t as playing would: stopping at a question on the
// way, to ask it.
func (m *Model) stepTo(t time.Duration) tea.Cmd {
	t = max(0, min(t, m.runner.cfg.Duration))
	cmd := m.runner.step(t)
	m.announceSeek(m.runner.position())
	return cmd
}

// announceSeek says a seek to t is under way, until it is there.
func (m *Model) announceSeek(t time.Duration) {
	m.announce(fmt.Sprintf("going to %s (replayed from the start when it is earlier)", format.Duration(t)))
}

// announce says s until the seek under way is there.
func (m *Model) announce(s string) {
	m.status, m.statusBad = s, false
	m.seekStatus = m.status
}

// seekArrived replaces the "going to" status once the seek it announced is over.
func (m *Model) seekArrived() {
	if m.seekStatus != "" && !m.runner.seeking {
		if m.status == m.seekStatus && m.runner.live() {
			m.status = fmt.Sprintf("at %s, paused: . a column forward, ← back, space to go on", format.Duration(m.runner.now()))
			if !m.runner.paused {
				m.status = fmt.Sprintf("at %s", format.Duration(m.runner.now()))
			}
			if _, later := m.runner.inputCounts(); later == 1 {
				m.status += "; the input recorded later replays as the run plays on (a new input discards it)"
			} else if later > 1 {
				m.status += fmt.Sprintf("; the %d inputs recorded later replay as the run plays on (a new input discards them)", later)
			}
		}
		m.seekStatus = ""
	}
}
