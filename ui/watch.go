package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"ratelab/internal/printable"
	"ratelab/sim"
)

// watchPrompt chooses the key whose level the graphs follow (W): ↑/↓ offer the
// scenario's own watched key (a trace replay's heaviest) and, when the scenario
// names one, a typical ordinary key (a trace replay's median key by volume);
// any key may be typed by name, tab completing it. Keys come from logs, so a
// key is shown, typed and completed in its escaped form (package printable).
type watchPrompt struct {
	open   bool
	input  textinput.Model
	choice int // the offer ↑/↓ last put in the input, -1 none
	// prefix is what was typed before tab began completing, and match the key
	// tab completed to last (-1 none): tab again goes on to the next match.
	prefix string
	match  int
}

func newWatchPrompt() watchPrompt {
	in := textinput.New()
	in.Prompt = "watch key (↑↓ heaviest/typical, tab completes, esc): "
	in.CharLimit = 256
	in.SetWidth(40)
	return watchPrompt{input: in, choice: -1, match: -1}
}

// watchOffer is a key ↑/↓ put in the prompt: its index and what it is.
type watchOffer struct {
	key  int
	what string
}

// watchOffers are the keys ↑/↓ offer: the scenario's own watch_key (a trace
// replay's heaviest key), then its typical_key when it has one.
func (m *Model) watchOffers() []watchOffer {
	cfg := m.runner.cfg
	own := cfg.Clients[0].Keys[0]
	if name := m.runner.catalogue.Scenarios[m.runner.index].WatchKey; name != "" {
		if k, ok := sim.KeyIndex(cfg, name); ok {
			own = k
		}
	}
	what := "the scenario's watch_key"
	if cfg.Classes != nil {
		what = "the heaviest key"
	}
	offers := []watchOffer{{own, what}}
	if c := cfg.Classes; c != nil && c.Typical >= 0 {
		offers = append(offers, watchOffer{c.Typical, "a typical ordinary key (the median by volume)"})
	}
	return offers
}

// keyRole is what a key is in a run whose keys are classed: " (heavy)",
// " (typical)" or " (ordinary)"; "" when they are not.
func keyRole(cfg *sim.Config, k int) string {
	switch c := cfg.Classes; {
	case c == nil:
		return ""
	case c.Heavy[k]:
		return " (heavy)"
	case k == c.Typical:
		return " (typical)"
	}
	return " (ordinary)"
}

// keyNamed is the key whose escaped name (as shown) is typed, or whose name is.
func keyNamed(cfg *sim.Config, typed string) (int, bool) {
	for i, k := range cfg.Keys {
		if printable.String(k.Name) == typed || k.Name == typed {
			return i, true
		}
	}
	return 0, false
}

// watchKey handles a key while the prompt is open: ↑/↓ offer keys, tab
// completes, enter watches the key typed, esc cancels; anything else edits.
func (m *Model) watchKey(msg tea.KeyPressMsg) tea.Cmd {
	w, cfg := &m.watch, m.runner.cfg
	switch {
	case key.Matches(msg, m.keys.PickBack):
		w.open = false
		w.input.Blur()
		return nil
	case key.Matches(msg, m.keys.PickOpen):
		w.open = false
		w.input.Blur()
		typed := strings.TrimSpace(w.input.Value())
		k, ok := keyNamed(cfg, typed)
		if !ok {
			m.status, m.statusBad = fmt.Sprintf("watch: %q is not a key of this run; ↑/↓ offer some, tab completes a name", typed), true
			return nil
		}
		return m.watchIndex(k)
	case msg.String() == "up" || msg.String() == "down":
		offers := m.watchOffers()
		step := 1
		if msg.String() == "up" {
			step = len(offers) - 1
		}
		w.choice = (w.choice + step) % len(offers)
		if w.choice < 0 {
			w.choice = 0
		}
		w.input.SetValue(printable.String(cfg.Keys[offers[w.choice].key].Name))
		w.input.CursorEnd()
		m.status, m.statusBad = "watch: "+offers[w.choice].what, false
		return nil
	case msg.String() == "tab":
		if w.match < 0 {
			w.prefix = w.input.Value()
		}
		n := len(cfg.Keys)
		for i := 1; i <= n; i++ {
			k := (w.match + i + n) % n
			if w.match < 0 {
				k = i - 1
			}
			if name := printable.String(cfg.Keys[k].Name); strings.HasPrefix(name, w.prefix) {
				w.match = k
				w.input.SetValue(name)
				w.input.CursorEnd()
				return nil
			}
		}
		m.status, m.statusBad = fmt.Sprintf("watch: no key begins %q", w.prefix), true
		return nil
	}
	w.match = -1
	var cmd tea.Cmd
	w.input, cmd = w.input.Update(msg)
	return cmd
}

// openWatch opens the prompt, empty.
func (m *Model) openWatch() {
	w := &m.watch
	w.open, w.choice, w.match = true, -1, -1
	w.input.SetValue("")
	w.input.Focus()
}

// watchIndex makes key k the one the graphs follow: the run is replayed from
// its start to the time shown (the levels of a key are kept only while it is
// watched), and stays paused there, as going back does.
func (m *Model) watchIndex(k int) tea.Cmd {
	r := &m.runner
	at := r.now()
	r.watch = r.cfg.Keys[k].Name
	cfg := *r.cfg // read-only once a run starts: a copy watches another key
	cfg.WatchKey = k
	r.cfg = &cfg
	cmd := r.restart()
	m.announceSeek(at)
	m.status = fmt.Sprintf("watching %s%s; %s", printable.String(cfg.Keys[k].Name), keyRole(&cfg, k), m.status)
	m.seekStatus = m.status
	return tea.Batch(cmd, r.seek(at))
}
