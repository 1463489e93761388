// Package ui is ratelab's terminal UI (Bubble Tea v2): every lane of a scenario
// graphed live, a table of the lanes' metrics, the scenario's lesson with a verdict
// per lane, the HTTP headers the focused lane would send, and keys to explore.
//
// The root Model is the only model that returns a tea.View. It owns sub-models,
// each with its own state and update: the runner (the simulation and how virtual
// time moves, runner.go), the picker, the zoom, the exporter, the help screen and
// the lesson's questions (question.go); size flows down from the root's
// WindowSizeMsg.
//
// Update never waits on the run: starting, advancing, seeking and making inputs
// are jobs on the run's engine (engine.go), each a tea.Cmd whose typed result
// (jobDone) carries the run's new snapshot — its metrics, from sums kept as the
// run goes, the claims judged on them, each lane's latest decision, series and
// verdict. View draws the latest snapshot and nothing else: its cost follows the
// screen (and the series shown, at most sim.MaxSeriesPoints a lane), not the
// run's keys, and a Redis that stops answering holds up the picture, never a key.
package ui

import (
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ratelab/scenarios"
	"ratelab/session"
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
	// Redis moves the lanes onto Redis (see scenarios.Overrides); Session says
	// which Redis (--redis).
	Redis bool
	// Strict makes a trace line that cannot be read an error (--strict).
	Strict  bool
	Session session.Options
	// WholeIn, when above 0, starts the first run at the speed that shows it whole
	// in about that much wall time (at least 1×): a trace of days in a minute.
	WholeIn time.Duration
	// ManualFrames: the caller sends FrameMsg itself (the tests drive time this
	// way); otherwise a frame comes every Frame.
	ManualFrames bool
}

// Model is the root model.
type Model struct {
	opts   Options
	keys   KeyMap
	styles Styles
	isDark bool
	bar    help.Model // the help bar at the bottom

	runner runner
	start  tea.Cmd // the first run's start, for Init
	picker picker
	zoom   bool
	whole  bool // graphs show the whole run so far, not the last stretch

	lessonWrap wrapMemo // the lesson under the table, wrapped
	export     exporter
	help       helpView
	jump       gotoPrompt
	watch      watchPrompt
	ctl        controls
	quiz       quiz // the lesson's question being asked (question.go)
	// revealed says L showed the lesson a pending question hides, for the
	// rest of this scenario's run (spoiler.go).
	revealed bool
	// answered are the questions of this scenario answered (by index in
	// cfg.Questions): they hide nothing any more (spoiler.go); answeredIn
	// keeps each scenario's (by index in the catalogue) for when it is opened
	// again, and for the picker.
	answered   map[int]bool
	answeredIn map[int]map[int]bool
	// lessonPage is the lesson page's state (it scrolls like the help).
	lessonPage struct {
		open   bool
		offset int
	}

	width, height int
	focus         int    // the focused lane
	laidOut       [2]int // the size the picker and the help bar were last given
	status        string
	statusBad     bool
	seekStatus    string // the "going to" status of a seek under way, replaced when it ends

	// drawn is the screen View drew last; same says the message Update took
	// last changed nothing on it (a frame's tick, which only submits the run's
	// advance, whose result comes as its own message; a check of a frame out
	// that changed nothing shown), so View gives drawn again rather than
	// drawing the same screen: at 1× that was two screens of three.
	drawn *tea.View
	same  bool

	recentKeys []string // for a crash report
	crash      *Crash   // the panic the UI stopped on
}

// New returns the UI on opts.Scenario; an unknown scenario or one that does not
// compile is an error, before any screen is drawn.
func New(opts Options) (*Model, error) {
	if opts.ExportDir == "" {
		opts.ExportDir = "."
	}
	m := &Model{opts: opts, keys: DefaultKeyMap(), bar: help.New(), isDark: true, export: exporter{dir: opts.ExportDir}}
	m.runner = runner{catalogue: opts.Catalogue, seed: opts.Seed, lanes: opts.Lanes, redis: opts.Redis, strict: opts.Strict,
		session: opts.Session, manual: opts.ManualFrames, speed: speedOne}
	if opts.Scenario != "" {
		i, err := opts.Catalogue.Index(opts.Scenario)
		if err != nil {
			return nil, err
		}
		m.runner.index = i
	}
	cfg, err := m.runner.compile()
	if err != nil {
		return nil, err
	}
	if opts.WholeIn > 0 {
		m.runner.speed = speedToShow(cfg.Duration, opts.WholeIn)
	}
	m.setStyles(true)
	m.picker = newPicker(opts.Catalogue, m.isDark)
	m.jump = newGotoPrompt()
	m.watch = newWatchPrompt()
	m.quiz = newQuiz()
	m.start = m.runner.open(cfg)
	m.ctl.reset(cfg)
	m.relayout()
	return m, nil
}

func (m *Model) name() string { return m.runner.name() }

// view is the stretch of virtual time graphs of n columns show now.
func (m *Model) view(n int) timeView {
	return viewOf(m.runner.cfg, m.seriesStep(), m.runner.now(), n, m.whole)
}

// seriesStep is the resolution of the run's series (every lane's is the same).
func (m *Model) seriesStep() time.Duration {
	if s := m.runner.snap; s != nil && len(s.Lanes) > 0 {
		return s.Lanes[0].SeriesStep
	}
	return m.runner.cfg.Tick
}

// Close stops an export under way and waits until it has cleaned up, and closes
// every run (the one shown and those still closing) and waits for their Redis
// keys to be removed; the program calls it when it ends, however it ends. The
// error says which runs' keys could not be removed (they expire by themselves).
func (m *Model) Close() error {
	m.export.stop()
	m.runner.release()
	return m.runner.failed
}

// Init asks the terminal for its background colour and starts the frames.
func (m *Model) Init() tea.Cmd {
	start := m.start
	m.start = nil
	return tea.Batch(tea.RequestBackgroundColor, start, m.runner.nextFrame())
}

// setStyles rebuilds the styles for the background.
func (m *Model) setStyles(isDark bool) {
	m.isDark = isDark
	m.styles = newStyles(isDark)
	m.bar.Styles = help.DefaultStyles(isDark)
}

// relayout recomputes what depends on the size and the scenario: the focus (within
// the lanes), the picker's and the help bar's size.
func (m *Model) relayout() {
	if cfg := m.runner.cfg; cfg != nil {
		m.focus = max(0, min(m.focus, len(cfg.Lanes)-1))
	}
	if m.laidOut != [2]int{m.width, m.height} {
		m.laidOut = [2]int{m.width, m.height}
		m.picker.setSize(m.width, m.height-2)
		m.bar.SetWidth(m.width)
		m.jump.fitTo(m.width)
	}
}

// Update handles a message. A panic in the UI's own code does not take the
// terminal down with it: it is recorded (see Crash) and the program quits at the
// next message, restoring the terminal.
func (m *Model) Update(msg tea.Msg) (model tea.Model, cmd tea.Cmd) {
	m.same = false
	if m.crash != nil {
		return m, tea.Quit
	}
	defer func() {
		if p := recover(); p != nil {
			m.crashed(p)
			model, cmd = m, tea.Quit
		}
	}()
	cmd = m.update(msg)
	m.relayout()
	return m, cmd
}

// update handles a message.
func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return nil
	case tea.BackgroundColorMsg:
		m.setStyles(msg.IsDark())
		m.picker.restyle(m.isDark)
		return nil
	case FrameMsg:
		m.same = true // the run's advance is a job: its result changes the screen
		return m.runner.frame(msg)
	case stallMsg:
		shown := m.runner.stalledShown()
		cmd := m.runner.checkStall(msg)
		m.same = m.runner.stalledShown() == shown
		return cmd
	case jobDone:
		cmd := m.runner.apply(msg)
		m.seekArrived()
		m.askDue()
		return cmd
	case closedMsg:
		m.runner.closed(msg)
		return nil
	case exportedMsg:
		m.export.finished()
		m.status, m.statusBad = msg.text, msg.err
		return nil
	case tea.KeyPressMsg:
		m.remember(msg.String())
		if k := os.Getenv(debugPanicEnv); k != "" && msg.String() == k {
			panic("a panic asked for with " + debugPanicEnv)
		}
		if key.Matches(msg, m.keys.ForceQuit) {
			return m.quit()
		}
		if m.tooSmall() { // the screen shows only its notice: q quits, nothing else acts unseen
			if key.Matches(msg, m.keys.Quit) {
				return m.quit()
			}
			return nil
		}
		switch {
		case m.quiz.open:
			return m.quizKey(msg)
		case m.picker.open:
			return m.pick(msg)
		case m.jump.open:
			return m.jumpKey(msg)
		case m.watch.open:
			return m.watchKey(msg)
		case m.help.open && !key.Matches(msg, m.keys.Quit):
			m.help.update(msg, m.keys, m.helpLineCount(), pageRoom(m.pageHeight()))
			return nil
		case m.lessonPage.open && key.Matches(msg, m.keys.Pause):
			m.lessonPage.open = false // the page says: play on to the question
			return m.runner.pause()
		case m.lessonPage.open && !key.Matches(msg, m.keys.Quit):
			m.lessonKey(msg)
			return nil
		}
		return m.key(msg)
	}
	if _, pasted := msg.(tea.PasteMsg); pasted && m.tooSmall() {
		return nil // typed into the picker's filter unseen, as a key would be
	}
	if m.picker.open {
		return m.pick(msg)
	}
	return nil
}

// columnSpan is the virtual time one column of the panels' graphs covers now.
func (m *Model) columnSpan() time.Duration {
	if m.runner.snap == nil {
		return m.runner.cfg.Tick
	}
	// the span at the time shown, the seek's end while seeking: a whole-run
	// view's span, and one since the lesson's event, grow with it
	v := viewOf(m.runner.cfg, m.seriesStep(), m.runner.position(), graphColumns(m.width/m.panelColumns()), m.whole)
	return v.span
}

// pick passes a message to the open picker and opens the scenario it chose.
func (m *Model) pick(msg tea.Msg) tea.Cmd {
	chosen, cmd := m.picker.update(msg, m.keys)
	if chosen >= 0 {
		return m.switchTo(chosen)
	}
	if !m.picker.open {
		m.askDue() // a question the run reached while the picker was open
	}
	return cmd
}

// quit ends the program at once; Close, when it has ended, closes the runs.
func (m *Model) quit() tea.Cmd { return tea.Quit }

// key handles a key press on the main screen.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k, r := m.keys, &m.runner
	lanes := 0
	if r.cfg != nil {
		lanes = len(r.cfg.Lanes)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.help = helpView{open: true}
	case key.Matches(msg, k.Pause):
		if r.paused && strings.HasPrefix(m.status, seeItStatus) {
			m.status = "" // it points at the paused instant, which the run leaves
		}
		return r.pause()
	case key.Matches(msg, k.Step) && r.snap != nil:
		return m.stepTo(r.position() + m.columnSpan())
	case key.Matches(msg, k.Back) && r.snap != nil:
		return m.seekTo(r.position() - m.columnSpan())
	case key.Matches(msg, k.GoTo):
		m.jump.show()
	case key.Matches(msg, k.Watch) && r.cfg != nil:
		m.openWatch()
	case key.Matches(msg, k.Whole):
		m.whole = !m.whole
		m.status, m.statusBad = "graphs show the last stretch of the run (w for the whole run)", false
		if m.whole {
			m.status = "graphs show the whole run so far (w for the last stretch)"
		}
	case key.Matches(msg, k.Lesson):
		m.lessonPage.open, m.lessonPage.offset = true, 0
	case key.Matches(msg, k.Reveal):
		m.reveal()
	case key.Matches(msg, k.Faster):
		r.faster()
	case key.Matches(msg, k.Slower):
		r.slower()
	case key.Matches(msg, k.Max):
		r.max()
	case key.Matches(msg, k.Restart):
		var cmd tea.Cmd
		if r.cfg != nil {
			cmd = r.restart()
		} else {
			cmd = r.load()
		}
		return tea.Batch(cmd, r.nextFrame())
	case key.Matches(msg, k.Next):
		return m.switchTo((r.index + 1) % len(r.catalogue.Scenarios))
	case key.Matches(msg, k.Prev):
		n := len(r.catalogue.Scenarios)
		return m.switchTo((r.index + n - 1) % n)
	case key.Matches(msg, k.Pick):
		m.picker.show(r.index)
	case key.Matches(msg, k.Focus) && lanes > 0:
		m.focus = (m.focus + 1) % lanes
	case key.Matches(msg, k.FocusBack) && lanes > 0:
		m.focus = (m.focus + lanes - 1) % lanes
	case key.Matches(msg, k.Zoom):
		m.zoom = !m.zoom
	case key.Matches(msg, k.Unzoom):
		m.zoom = false
	case key.Matches(msg, k.BurstDown, k.BurstUp, k.RateDown, k.RateUp):
		return m.adjust(msg)
	case key.Matches(msg, k.Send, k.Send10, k.NextKey, k.Client, k.ClientFaster, k.ClientSlower, k.Retry, k.Fix, k.Glitch, k.Save) && r.snap != nil:
		return m.control(msg)
	case key.Matches(msg, k.Export, k.Plot) && r.snap != nil && m.export.busy:
		m.status, m.statusBad = "one at a time: "+m.export.doing+" under way; press again when it is done", true
	case key.Matches(msg, k.Export):
		if r.snap != nil {
			return m.export.start(r.cfgWithInputs(), r.now(), r.limit > 0 || r.burst > 0, r.session)
		}
	case key.Matches(msg, k.Plot):
		if r.snap != nil {
			return m.export.startCharts(r.cfgWithInputs(), r.now(), r.limit > 0 || r.burst > 0, r.session)
		}
	}
	return nil
}

// switchTo opens scenario i from its start, with no adjustments and nothing
// recorded, at 1×, as the program opens one: a speed chosen for another run's
// length would race through this one (100× for a 40-second storm plays a
// 10-minute sandbox in six seconds), and max would open it finished.
func (m *Model) switchTo(i int) tea.Cmd {
	m.focus, m.zoom, m.status, m.revealed, m.answered = 0, false, "", false, m.answeredIn[i]
	m.runner.speed = speedOne
	cmd := m.runner.switchTo(i)
	m.ctl.reset(m.runner.cfg)
	return cmd
}

// adjust applies one of the [ ] { } keys, and says on the status line what the
// policy is now, or why the step was refused.
func (m *Model) adjust(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	rate := key.Matches(msg, k.RateDown, k.RateUp)
	dir := +1
	if key.Matches(msg, k.BurstDown, k.RateDown) {
		dir = -1
	}
	cmd, err := m.runner.adjust(rate, dir)
	if err != nil {
		m.status, m.statusBad = "cannot adjust: "+err.Error(), true
		return nil
	}
	if m.runner.cfg != nil {
		own := ""
		if m.runner.limit == 0 && m.runner.burst == 0 {
			own = ", the scenario's own"
		}
		m.status, m.statusBad = fmt.Sprintf("policy now %s%s; restarted", m.runner.cfg.Tiers[0].Policy, own), false
	}
	return tea.Batch(cmd, m.runner.nextFrame())
}
