// Package ui is ratelab's terminal UI (Bubble Tea v2): every lane of a scenario
// graphed live, a table of the lanes' metrics, the scenario's lesson with a verdict
// per lane, the HTTP headers the focused lane would send, and keys to explore.
//
// The root Model owns the engine (a sim.Run) and is the only model that returns a
// tea.View; the panels, the table and the picker are rendered by it at the size
// its WindowSizeMsg gave. Virtual time advances on frame ticks (about 20 a second)
// by frame × speed, inside Update; a frame does at most FrameBudget decisions, so
// at speeds the engine cannot keep up with the virtual clock slows instead of the
// keyboard. Frame ticks carry a generation, and a tick from an older generation
// (before a pause, a restart or a new scenario) is dropped. Paused means idle: no
// tick is scheduled.
package ui

import (
	"fmt"
	"os"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"

	"ratelab/scenarios"
	"ratelab/sim"
)

// Options configure the UI.
type Options struct {
	Catalogue *scenarios.Catalogue
	// Scenario is the scenario to open on; the catalogue's first if empty.
	Scenario string
	// Seed and Lanes are the command line's overrides.
	Seed  *uint64
	Lanes []string
	// ExportDir is where e writes the run's CSV files.
	ExportDir string
	// Start builds a run of cfg and returns what closes it; nil means sim.NewRun.
	// The Redis mode supplies one that connects its lanes.
	Start func(cfg *sim.Config) (*sim.Run, func(), error)
	// Redis runs the lanes on Redis (see scenarios.Overrides), at RedisAddr
	// (host and port, for the header; never the password).
	Redis     bool
	RedisAddr string
	// Frame is the wall time between frames. Zero means the caller sends
	// FrameMsg itself (the tests drive time this way).
	Frame time.Duration
}

// FrameBudget is the most decisions one frame may make.
const FrameBudget = 150_000

// FrameMsg asks for one frame: advance virtual time, redraw. Generation must match
// the model's, or the frame is stale and dropped.
type FrameMsg struct{ Generation int }

// Model is the root model.
type Model struct {
	opts   Options
	keys   KeyMap
	styles Styles
	isDark bool
	help   help.Model
	picker list.Model

	lesson struct {
		width int
		text  string
		lines []string
	} // the lesson wrapped to the width, kept while neither changes

	index        int   // the scenario, in the catalogue
	limit, burst int64 // the [ ] { } adjustments; 0 is the scenario's own
	cfg          *sim.Config
	run          *sim.Run
	stop         func()
	problem      string // why there is no run, shown in its place

	speed      int // index into speeds
	paused     bool
	generation int

	width, height int
	focus         int
	zoom          bool
	picking       bool
	helpScreen    helpView

	status    string
	statusBad bool
	exporting bool

	recentKeys []string // for a crash report
	crash      *Crash   // the panic the UI stopped on
}

// New returns the UI on opts.Scenario; an unknown scenario or one that does not
// compile is an error, before any screen is drawn.
func New(opts Options) (*Model, error) {
	if opts.ExportDir == "" {
		opts.ExportDir = "."
	}
	m := &Model{opts: opts, keys: DefaultKeyMap(), help: help.New(), speed: speedOne, isDark: true}
	if opts.Scenario != "" {
		i, err := opts.Catalogue.Index(opts.Scenario)
		if err != nil {
			return nil, err
		}
		m.index = i
	}
	if _, err := opts.Catalogue.Compile(m.name(), m.overrides()); err != nil {
		return nil, err
	}
	m.setStyles(true)
	m.picker = newPicker(opts.Catalogue, m.styles, m.isDark)
	m.load()
	return m, nil
}

func (m *Model) name() string { return m.opts.Catalogue.Scenarios[m.index].Name }

func (m *Model) overrides() scenarios.Overrides {
	return scenarios.Overrides{Seed: m.opts.Seed, Lanes: m.opts.Lanes, Limit: m.limit, Burst: m.burst, Redis: m.opts.Redis}
}

// load compiles the current scenario with the adjustments and starts a run of it
// from time zero. A problem (a Redis that is not there) is kept and shown.
func (m *Model) load() {
	m.closeRun()
	m.problem = ""
	cfg, err := m.opts.Catalogue.Compile(m.name(), m.overrides())
	if err != nil {
		m.problem = err.Error()
		return
	}
	m.cfg = cfg
	m.focus = min(m.focus, len(cfg.Lanes)-1)
	m.restart()
}

// restart starts the current configuration over, and invalidates pending frames.
func (m *Model) restart() {
	m.closeRun()
	m.problem = ""
	start := m.opts.Start
	if start == nil {
		start = func(cfg *sim.Config) (*sim.Run, func(), error) {
			r, err := sim.NewRun(cfg)
			return r, func() {}, err
		}
	}
	r, stop, err := start(m.cfg)
	if err != nil {
		m.problem = err.Error()
		return
	}
	m.run, m.stop = r, stop
	m.generation++
}

// closeRun releases what the current run holds and drops it.
func (m *Model) closeRun() {
	m.release()
	m.run = nil
}

// release releases what the current run holds (Redis connections) but keeps the
// run, so what it showed can still be drawn.
func (m *Model) release() {
	if m.stop != nil {
		m.stop()
	}
	m.stop = nil
}

// Close releases what the current run holds; the program calls it when it ends.
func (m *Model) Close() { m.release() }

// Init asks the terminal for its background colour and starts the frames.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, m.nextFrame())
}

// setStyles rebuilds the styles for the background.
func (m *Model) setStyles(isDark bool) {
	m.isDark = isDark
	m.styles = newStyles(isDark)
	m.help.Styles = help.DefaultStyles(isDark)
}

// Update handles a message. A panic in the UI's own code does not take the
// terminal down with it: it is recorded (see Crash) and the program quits at the
// next message, restoring the terminal.
func (m *Model) Update(msg tea.Msg) (model tea.Model, cmd tea.Cmd) {
	if m.crash != nil {
		return m, tea.Quit
	}
	defer func() {
		if p := recover(); p != nil {
			m.crashed(p)
			model, cmd = m, tea.Quit
		}
	}()
	return m.update(msg)
}

// update handles a message.
func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.picker.SetSize(msg.Width, msg.Height-2)
		m.help.SetWidth(msg.Width)
		return m, nil
	case tea.BackgroundColorMsg:
		m.setStyles(msg.IsDark())
		m.picker = restylePicker(m.picker, m.isDark)
		return m, nil
	case FrameMsg:
		return m, m.frame(msg)
	case exportedMsg:
		m.exporting = false
		m.status, m.statusBad = msg.text, msg.err
		return m, nil
	case tea.KeyPressMsg:
		m.remember(msg.String())
		if k := os.Getenv(debugPanicEnv); k != "" && msg.String() == k {
			panic("a panic asked for with " + debugPanicEnv)
		}
		if m.picking {
			return m, m.updatePicker(msg)
		}
		return m, m.key(msg)
	}
	if m.picking {
		var cmd tea.Cmd
		m.picker, cmd = m.picker.Update(msg)
		return m, cmd
	}
	return m, nil
}

// key handles a key press outside the picker.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.helpScreen.open && !key.Matches(msg, k.Quit) {
		m.helpKey(msg)
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		m.release()
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.helpScreen = helpView{open: true}
	case key.Matches(msg, k.Pause):
		m.paused = !m.paused
		m.generation++
		if !m.paused {
			return m.nextFrame()
		}
	case key.Matches(msg, k.Step):
		if m.paused && m.run != nil {
			m.advance(m.run.Now() + m.cfg.Tick)
		}
	case key.Matches(msg, k.Faster):
		m.speed = min(m.speed+1, len(speeds))
	case key.Matches(msg, k.Slower):
		m.speed = max(m.speed-1, 0)
	case key.Matches(msg, k.Max):
		m.speed = len(speeds)
	case key.Matches(msg, k.Restart):
		if m.cfg != nil {
			m.restart()
		} else {
			m.load()
		}
		return m.nextFrame()
	case key.Matches(msg, k.Next):
		return m.switchTo((m.index + 1) % len(m.opts.Catalogue.Scenarios))
	case key.Matches(msg, k.Prev):
		n := len(m.opts.Catalogue.Scenarios)
		return m.switchTo((m.index + n - 1) % n)
	case key.Matches(msg, k.Pick):
		m.picking = true
		m.picker.ResetFilter()
		m.picker.Select(m.index)
	case key.Matches(msg, k.Focus):
		if m.cfg != nil {
			m.focus = (m.focus + 1) % len(m.cfg.Lanes)
		}
	case key.Matches(msg, k.FocusBack):
		if m.cfg != nil {
			m.focus = (m.focus + len(m.cfg.Lanes) - 1) % len(m.cfg.Lanes)
		}
	case key.Matches(msg, k.Zoom):
		m.zoom = !m.zoom
	case key.Matches(msg, k.Unzoom):
		m.zoom = false
	case key.Matches(msg, k.BurstDown, k.BurstUp, k.RateDown, k.RateUp):
		return m.adjust(msg)
	case key.Matches(msg, k.Export):
		return m.export()
	}
	return nil
}

// helpKey handles a key on the help screen: another page, scrolling, or back.
func (m *Model) helpKey(msg tea.KeyPressMsg) {
	h := &m.helpScreen
	switch k := m.keys; {
	case key.Matches(msg, k.Help, k.Unzoom):
		h.open = false
	case key.Matches(msg, k.HelpPage):
		h.page, h.offset = (h.page+1)%helpPageCount, 0
	case key.Matches(msg, k.ScrollDown):
		h.offset = min(h.offset+1, len(helpLines(m.styles, m.keys, h.page, m.width))-1)
	case key.Matches(msg, k.ScrollUp):
		h.offset = max(h.offset-1, 0)
	}
}

// switchTo opens scenario i from its start, with no adjustments.
func (m *Model) switchTo(i int) tea.Cmd {
	m.index, m.limit, m.burst, m.focus, m.zoom = i, 0, 0, 0, false
	m.status = ""
	m.load()
	return m.nextFrame()
}

// adjust moves the default policy's burst or rate one step along a ladder of round
// numbers and restarts the run with it; a step the scenario cannot take (a burst
// below a request's cost) is refused with the reason on the status line.
func (m *Model) adjust(msg tea.KeyPressMsg) tea.Cmd {
	if m.cfg == nil {
		return nil
	}
	p := m.cfg.Tiers[0].Policy
	oldLimit, oldBurst := m.limit, m.burst
	switch {
	case key.Matches(msg, m.keys.BurstDown):
		m.burst = ladderStep(p.Burst, -1)
	case key.Matches(msg, m.keys.BurstUp):
		m.burst = ladderStep(p.Burst, +1)
	case key.Matches(msg, m.keys.RateDown):
		m.limit = ladderStep(p.Limit, -1)
	case key.Matches(msg, m.keys.RateUp):
		m.limit = ladderStep(p.Limit, +1)
	}
	if _, err := m.opts.Catalogue.Compile(m.name(), m.overrides()); err != nil {
		m.limit, m.burst = oldLimit, oldBurst
		m.status, m.statusBad = "cannot adjust: "+err.Error(), true
		return nil
	}
	m.load()
	p = m.cfg.Tiers[0].Policy
	m.status, m.statusBad = fmt.Sprintf("policy now %s; restarted", p), false
	return m.nextFrame()
}

// ladder is the round numbers [ ] { } step through: 1, 2, 3, 5, 8 and 10, 15, 20,
// 25, 30, 40, 50, 60, 75 times each power of ten.
var ladder = []int64{1, 2, 3, 5, 8}

var decade = []int64{10, 15, 20, 25, 30, 40, 50, 60, 75}

// ladderStep returns the next round number above (dir > 0) or below v, at least 1.
func ladderStep(v int64, dir int) int64 {
	var steps []int64
	steps = append(steps, ladder...)
	for scale := int64(1); scale <= 1e12; scale *= 10 {
		for _, d := range decade {
			steps = append(steps, d*scale)
		}
	}
	if dir > 0 {
		for _, s := range steps {
			if s > v {
				return s
			}
		}
		return v
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i] < v {
			return steps[i]
		}
	}
	return 1
}

// updatePicker handles a key while the picker is open.
func (m *Model) updatePicker(msg tea.KeyPressMsg) tea.Cmd {
	filtering := m.picker.FilterState() == list.Filtering
	switch {
	case msg.String() == "ctrl+c":
		m.release()
		return tea.Quit
	case msg.String() == "esc" && !filtering && m.picker.FilterState() != list.FilterApplied:
		m.picking = false
		return nil
	case msg.String() == "enter" && !filtering:
		if it, ok := m.picker.SelectedItem().(scenarioItem); ok {
			m.picking = false
			return m.switchTo(it.index)
		}
	}
	var cmd tea.Cmd
	m.picker, cmd = m.picker.Update(msg)
	return cmd
}
