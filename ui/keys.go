package ui

import "charm.land/bubbles/v2/key"

// KeyMap is every key the UI answers to, with its help text; the help bar and the
// full help (?) are built from it.
type KeyMap struct {
	Pause, Step, Faster, Slower, Max     key.Binding
	Restart, Next, Prev, Pick            key.Binding
	Focus, FocusBack, Zoom, Unzoom       key.Binding
	BurstDown, BurstUp, RateDown, RateUp key.Binding
	Export, Plot, Help, Quit             key.Binding
	Back, GoTo, Whole, Lesson, Reveal    key.Binding
	Watch                                key.Binding
	// live traffic controls (controls.go)
	Send, Send10, NextKey, Client          key.Binding
	ClientFaster, ClientSlower, Retry, Fix key.Binding
	Glitch, Save                           key.Binding
	// on a lesson's question (question.go)
	Answer, Skip, Choose key.Binding
	// on the help screen and the lesson page (scroll.go)
	HelpPage, ScrollUp, ScrollDown key.Binding
	PageUp, PageDown, Top, Bottom  key.Binding
	// in the picker, where letters filter and only ctrl+c quits
	PickOpen, PickBack, ForceQuit key.Binding
}

// DefaultKeyMap is the key map described in docs/ui.md.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Pause:        key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause/resume")),
		Step:         key.NewBinding(key.WithKeys(".", "right"), key.WithHelp(". →", "one graph column forward (pauses)")),
		Back:         key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "one graph column back (replays from the start)")),
		GoTo:         key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "go to a virtual time")),
		Watch:        key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "the key graphed: heaviest, typical, or any by name")),
		Whole:        key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "graphs: whole run / last stretch")),
		Lesson:       key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "the lesson and its claims")),
		Reveal:       key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "show the lesson a question hides (it gives the answer away)")),
		Send:         key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "send a request by hand (hold to keep sending)")),
		Send10:       key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "send ten at once")),
		NextKey:      key.NewBinding(key.WithKeys("k"), key.WithHelp("k", "the next key to send for")),
		Client:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "the next client to control")),
		ClientFaster: key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "the client's rate ×1.5")),
		ClientSlower: key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "the client's rate ÷1.5 (0 below 1/s)")),
		Retry:        key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "the client's retry policy: none, immediate, exponential, Retry-After")),
		Fix:          key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "the clock-skew fix: as configured, on, off")),
		Glitch:       key.NewBinding(key.WithKeys("G"), key.WithHelp("G", "a backend glitch on/off (4× slower)")),
		Save:         key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "save the session as a scenario file")),
		Faster:       key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower:       key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
		Max:          key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "max speed")),
		Restart:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "restart")),
		Next:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next scenario")),
		Prev:         key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "previous scenario")),
		Pick:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "pick a scenario")),
		Focus:        key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus next lane")),
		FocusBack:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "focus previous lane")),
		Zoom:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "zoom the focused lane")),
		Unzoom:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		BurstDown:    key.NewBinding(key.WithKeys("["), key.WithHelp("[", "burst down")),
		BurstUp:      key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "burst up")),
		RateDown:     key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "rate down")),
		RateUp:       key.NewBinding(key.WithKeys("}"), key.WithHelp("}", "rate up")),
		Export:       key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export CSV")),
		Plot:         key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "charts of the run so far (SVG, PNG)")),
		Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "all keys")),
		Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Answer:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "question: answer it; then enter zooms the answer, any other key goes on")),
		Skip:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "question: skip it")),
		Choose:       key.NewBinding(key.WithKeys("a", "b", "c", "d", "e", "f", "g", "h", "i", "up", "down"), key.WithHelp("a–i", "question: pick a choice (or ↑ ↓)")),
		HelpPage:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "help: next page")),
		ScrollUp:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "help, lesson: scroll up")),
		ScrollDown:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "help, lesson: scroll down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "help, lesson: a page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "help, lesson: a page down")),
		Top:          key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "help, lesson: the top")),
		Bottom:       key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "help, lesson: the end")),
		PickOpen:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "picker: open the scenario")),
		PickBack:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "picker: back")),
		ForceQuit:    key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit, anywhere")),
	}
}

// ShortHelp is the help bar: the keys a person needs first.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Pause, k.Lesson, k.Faster, k.Slower, k.Pick, k.Focus, k.Zoom, k.Back, k.Export, k.Help, k.Quit}
}

// FullHelp is every key, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pause, k.Step, k.Back, k.GoTo, k.Whole, k.Watch, k.Faster, k.Slower, k.Max},
		{k.Lesson, k.Reveal},
		{k.Send, k.Send10, k.NextKey, k.Client, k.ClientFaster, k.ClientSlower, k.Retry, k.Fix, k.Glitch, k.Save},
		{k.Restart, k.Next, k.Prev, k.Pick},
		{k.Focus, k.FocusBack, k.Zoom, k.Unzoom},
		{k.BurstDown, k.BurstUp, k.RateDown, k.RateUp},
		{k.Export, k.Plot, k.Help, k.Quit},
		{k.Answer, k.Choose, k.Skip},
		{k.HelpPage, k.ScrollUp, k.ScrollDown, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.PickOpen, k.PickBack, k.ForceQuit},
	}
}
