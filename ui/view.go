package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/internal/format"
	"ratelab/present"
	"ratelab/session"
	"ratelab/sim"
)

// The smallest terminal the UI draws in; below it, it says how big it needs.
const (
	minWidth  = 80
	minHeight = 24
)

// View is the only view of the program. Every part of the screen is laid out to
// fit the size; clip is the last guard that no line can be wider or the screen
// taller than the terminal whatever a widget does. Bubble Tea asks for the view
// after every message; when the last one changed nothing it shows (see
// Model.same), the screen drawn last is given again.
func (m *Model) View() tea.View {
	if m.same && m.drawn != nil {
		return *m.drawn
	}
	v := m.draw()
	m.drawn = &v
	return v
}

// draw draws the screen.
func (m *Model) draw() (v tea.View) {
	defer func() {
		if p := recover(); p != nil {
			m.crashed(p)
		}
		if m.crash != nil {
			v = tea.NewView(clip(m.crashScreen(), m.width, m.height))
		}
		v.AltScreen = true
	}()
	if m.crash != nil {
		return v
	}
	v = tea.NewView(clip(m.render(), m.width, m.height))
	v.WindowTitle = "ratelab — " + m.name()
	return v
}

// tooSmall says the terminal is smaller than minWidth×minHeight: the screen
// shows only a notice (and no size known yet is not too small).
func (m *Model) tooSmall() bool {
	return m.width > 0 && (m.width < minWidth || m.height < minHeight)
}

// render draws the whole screen at the size the last WindowSizeMsg gave.
func (m *Model) render() string {
	switch {
	case m.width == 0:
		return "" // no size yet
	case m.tooSmall():
		msg := fmt.Sprintf("ratelab needs a terminal of at least %d×%d; this one is %d×%d. Make it larger, or press q to quit.", minWidth, minHeight, m.width, m.height)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, m.styles.Warn.Render(wrap(msg, m.width)))
	case m.quiz.open && m.runner.cfg != nil:
		return m.renderHeader() + "\n" + m.renderQuiz(m.width, m.height-3) + "\n" + m.quizHelp()
	case m.picker.open:
		return m.renderHeader() + "\n" + m.picker.view()
	case m.help.open:
		return m.renderHeader() + "\n" + m.help.render(m.styles, m.keys, present.ColumnsFor(m.runner.cfg), m.width, m.pageHeight())
	case m.lessonPage.open && m.runner.cfg != nil:
		return m.renderHeader() + "\n" + m.renderLesson(m.width, m.pageHeight())
	case m.runner.snap == nil:
		return m.renderHeader() + "\n\n" + m.styles.Error.Render(wrap(m.runner.problem, m.width)) + "\n\n" + m.styles.Subtle.Render("n/p or s for another scenario, r to try again, q to quit")
	}

	header := m.renderHeader()
	status := m.renderStatus()
	helpBar := fit(m.bar.ShortHelpView(m.keys.ShortHelp()), m.width)
	if m.zoom {
		rest := m.height - lipgloss.Height(header) - 2 - m.statusLines()
		return strings.Join([]string{header, m.renderZoom(rest - 1), m.renderHeaders(), m.renderControls(), status, helpBar}, "\n")
	}

	ms := m.runner.snap.Metrics
	n := len(ms)
	avail := m.lanesRoom()
	cols := m.panelColumns()
	rows := (n + cols - 1) / cols
	var grid []string
	if avail-rows*minPanelHeight >= 0 {
		extras := m.fitExtras(ms, avail-rows*minPanelHeight)
		panelHeight := min((avail-lineCount(extras))/rows, 18)
		panelWidth := m.width / cols
		for r := 0; r < rows; r++ {
			var row []string
			for c := 0; c < cols && r*cols+c < n; c++ {
				row = append(row, m.renderPanel(r*cols+c, ms[r*cols+c], panelWidth, panelHeight))
			}
			grid = append(grid, lipgloss.JoinHorizontal(lipgloss.Top, row...))
		}
		grid = append(grid, extras...)
	} else {
		// too short for panels: a line per lane
		for i := range n {
			grid = append(grid, m.renderCompactLane(i, ms[i], m.width))
		}
		grid = append(grid, m.fitExtras(ms, avail-n)...)
	}
	parts := append([]string{header}, grid...)
	parts = append(parts, m.renderHeaders(), m.renderControls(), status, helpBar)
	return strings.Join(parts, "\n")
}

// panelColumns is how many panels go side by side. As many as fit at
// minPanelWidth; more, down to narrowPanelWidth, when that is what lets the
// comparison table (which the lessons cite) fit under the panels with the
// focused lane's verdict and the claims line: at 120×40, seven lanes in three
// columns left no room for the table, in four they do.
func (m *Model) panelColumns() int {
	avail := m.lanesRoom()
	n := len(m.runner.cfg.Lanes)
	wide := max(1, min(n, m.width/minPanelWidth))
	under := n + 2 + 2 // the table (a row per lane, header, rule), a verdict, the claims line
	for cols := wide; cols <= n && m.width/cols >= narrowPanelWidth; cols++ {
		if rows := (n + cols - 1) / cols; rows*minPanelHeight+under <= avail {
			return cols
		}
	}
	return wide
}

// lanesRoom is the lines for the lanes and what goes under them: the screen
// less the header (two lines, see renderHeader) and the lines at the bottom
// (headers, controls, the status's one or two, help).
func (m *Model) lanesRoom() int { return m.height - 2 - 3 - m.statusLines() }

// statusLines is how many lines the status takes: two when it shows a message
// wider than the terminal (what e wrote, the command that replays what S saved,
// an error: at 80 columns they lose the very file or scenario name they are for),
// one otherwise.
func (m *Model) statusLines() int {
	if m.message() && lipgloss.Width(m.status) > m.width {
		return 2
	}
	return 1
}

// message is whether the status line shows m.status (rather than the go-to
// prompt, a problem, a replay, a running export or the focus hint).
func (m *Model) message() bool {
	return !m.jump.open && m.runner.problem == "" && !m.runner.seeking && !m.export.busy && m.status != ""
}

// fitExtras returns what fits in room lines besides the lanes, in order of
// importance: the comparison table, a verdict per lane (or the focused lane's
// alone), and as much of the lesson as fits.
func (m *Model) fitExtras(ms []sim.Metrics, room int) []string {
	var extras []string
	if table := renderTable(m.styles, present.ColumnsFor(m.runner.cfg), ms, m.runner.cfg.Lanes, m.width, m.focus, citedMetrics(m.runner.cfg)); room >= lipgloss.Height(table) {
		extras, room = append(extras, table), room-lipgloss.Height(table)
	}
	// the claims line, and the notice of a question to come, before every
	// lane's verdict: the focused lane's verdict gives way to neither
	results := m.runner.snap.Claims
	_, pending := m.pendingQuestion()
	keep := 0
	if len(results) > 0 {
		keep++
	}
	if pending {
		keep++
	}
	verdicts := m.renderVerdicts(m.runner.snap.verdicts)
	if room-keep >= len(verdicts) {
		extras, room = append(extras, verdicts...), room-len(verdicts)
	} else if room >= 1 {
		extras, room = append(extras, verdicts[m.focus]), room-1
	}
	if room >= 1 && len(results) > 0 {
		extras, room = append(extras, m.styles.Subtle.Render(fit(colourMarks(m.styles, claimsSummary(m.runner.cfg, m.runner.now(), m.runner.snap.Decisions, results, m.runner.limit > 0 || m.runner.burst > 0)), m.width))), room-1
	}
	if q, pending := m.pendingQuestion(); pending && room >= 1 {
		// the notice, in the lines the lesson would have taken, so the screen
		// keeps its size
		lines := firstLines(strings.Split(wrap(hiddenLesson(q), max(m.width, 1)), "\n"), room, m.width)
		for i := range lines {
			lines[i] = m.styles.Subtle.Render(lines[i])
		}
		for len(lines) < min(room, 8) {
			lines = append(lines, "")
		}
		extras = append(extras, strings.Join(lines, "\n"))
	} else if room >= 2 {
		lesson := strings.Split(m.lessonWrap.of(markCitations(m.runner.cfg.Lesson, m.runner.cfg, m.runner.now(), m.runner.snap.Decisions, results, func(s string) string { return s }), max(m.width, 1)), "\n")
		shown := firstLines(lesson, min(room, 8), m.width)
		for i := range shown {
			shown[i] = colourMarks(m.styles, m.styles.Lesson.Render(shown[i]))
		}
		extras = append(extras, strings.Join(shown, "\n"))
	}
	return extras
}

func lineCount(parts []string) int {
	n := 0
	for _, p := range parts {
		n += lipgloss.Height(p)
	}
	return n
}

// renderHeader is two lines: the scenario, then virtual time, speed, state,
// backend and policy.
func (m *Model) renderHeader() string {
	st, r := m.styles, &m.runner
	title := m.name()
	if r.cfg != nil && r.cfg.Title != "" {
		title += " — " + m.shownTitle()
	}
	line1 := st.Title.Render(truncate(title, m.width))
	if r.cfg == nil || r.snap == nil {
		return line1 + "\n" + st.Error.Render("● stopped")
	}
	state := st.Running.Render("● running")
	switch {
	case r.done():
		state = st.Finished.Render("■ finished")
	case r.stalled > 0:
		state = st.Warn.Render(fmt.Sprintf("%s (%ds)", m.waitingFor(), int(r.stalled/time.Second)))
	case r.paused:
		state = st.Paused.Render("❚❚ paused")
	}
	policy := r.cfg.Tiers[0].Policy.String()
	if r.limit > 0 || r.burst > 0 {
		policy = st.Warn.Render(policy + " (adjusted)")
	}
	// the policy before the backend: at 80 columns it is what [ ] { } change
	at := "t " + clockOf(r.now(), r.cfg.Duration) + " / " + format.Duration(r.cfg.Duration)
	seed := fmt.Sprintf("seed %d", r.cfg.Seed)
	backend := m.backend()
	// the widest that fits: the parts labelled and three spaces apart, then two,
	// then without the labels their values explain, then without whole parts
	// (never a value cut): the backend when it is memory, the seed, then a
	// Redis address (the state says when the run waits for Redis)
	labelled := []string{at, "speed " + speedName(r.speed), state, "policy " + policy, seed, "backend " + backend}
	plain := []string{at, speedName(r.speed), state, policy, seed, backend}
	fewer := plain[:5] // without the backend, memory
	if backend != "memory" {
		fewer = slices.Concat(plain[:4], []string{backend})
	}
	lines := []string{strings.Join(labelled, "   "), strings.Join(labelled, "  "), strings.Join(plain, "   "),
		strings.Join(plain, "  "), strings.Join(fewer, "  "), strings.Join(plain[:4], "  ")}
	for _, line := range lines {
		if lipgloss.Width(line) <= m.width {
			return line1 + "\n" + line
		}
	}
	return line1 + "\n" + truncate(lines[len(lines)-1], m.width)
}

// firstLines is a copy of the first n of lines (n ≥ 1), the last of them
// ending in " …" (cut to width) when lines go on past them.
func firstLines(lines []string, n, width int) []string {
	shown := append([]string(nil), lines[:min(len(lines), n)]...)
	if len(shown) < len(lines) {
		shown[len(shown)-1] = truncate(shown[len(shown)-1]+" …", width)
	}
	return shown
}

// clockOf is the run's time now as the header shows it: in the unit of its
// length when that is in seconds ("0.000s", not "0" or "2µs", of "600.000s"),
// else as format.Duration.
func clockOf(now, length time.Duration) string {
	if length >= time.Second && length < time.Hour {
		return fmt.Sprintf("%.3fs", now.Seconds())
	}
	return format.Duration(now)
}

// waitingFor says what a frame out too long waits for: Redis when a lane is on
// it (each call waits up to its deadline before it counts as an error), else
// the run's own work.
func (m *Model) waitingFor() string {
	for _, l := range m.runner.cfg.Lanes {
		if l.Backend == sim.OnRedis {
			return "● waiting for Redis"
		}
	}
	return "● working"
}

// backend names where the lanes keep their state: memory, or the Redis address.
func (m *Model) backend() string {
	for _, l := range m.runner.cfg.Lanes {
		if l.Backend == sim.OnRedis {
			return "redis " + session.RedisHost(session.RedisURL(m.opts.Session.RedisURL))
		}
	}
	return "memory"
}

// renderControls is the line of the live traffic controls.
func (m *Model) renderControls() string {
	all, later := m.runner.inputCounts()
	return m.styles.Subtle.Render(truncate(m.ctl.line(m.runner.cfg, m.runner.settings(), all, later, m.width), m.width))
}

// renderStatus is the status line: the last export, an error, or a hint.
func (m *Model) renderStatus() string {
	switch {
	case m.jump.open:
		return fit(m.jump.input.View(), m.width)
	case m.watch.open:
		return fit(m.watch.input.View(), m.width)
	case m.runner.problem != "":
		return m.styles.Error.Render(truncate(m.runner.problem, m.width))
	case m.runner.seeking:
		return m.styles.Status.Render(truncate(fmt.Sprintf("replaying to %s…", format.Duration(m.runner.target)), m.width))
	case m.export.busy:
		return m.styles.Subtle.Render(m.export.doing + "…")
	case m.status == "" && m.zoom:
		return m.styles.Subtle.Render(truncate("zoomed on "+m.runner.cfg.Lanes[m.focus].Name+": tab for the next lane, enter or esc back", m.width))
	case m.status == "" && m.runner.done():
		hint := "finished"
		if name, part, ok := m.nextLesson(); ok {
			hint += " · n: the next lesson, " + name
			if part != "" {
				hint += " (" + part + ")"
			}
		}
		return m.styles.Subtle.Render(truncate(hint+" · focus "+m.runner.cfg.Lanes[m.focus].Name+": tab, enter to zoom", m.width))
	case m.status == "":
		return m.styles.Subtle.Render(truncate("focus "+m.runner.cfg.Lanes[m.focus].Name+": tab to change, enter to zoom", m.width))
	}
	style := m.styles.Status
	if m.statusBad {
		style = m.styles.Error
	}
	if m.statusLines() == 1 {
		return style.Render(truncate(m.status, m.width))
	}
	lines := strings.Split(wrap(m.status, max(m.width, 1)), "\n")
	if len(lines) > 2 {
		lines = []string{lines[0], strings.Join(lines[1:], " ")} // the rest cut at the width
	}
	for i, l := range lines {
		lines[i] = style.Render(truncate(l, m.width))
	}
	return strings.Join(lines, "\n")
}

// fit cuts a styled line to width cells, escape sequences kept intact.
func fit(s string, width int) string { return ansi.Truncate(s, max(width, 0), "…") }

// clip cuts screen to at most height lines of at most width cells.
func clip(screen string, width, height int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	lines := strings.Split(screen, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = fit(l, width)
		}
	}
	return strings.Join(lines, "\n")
}

// wrap breaks text into lines of at most width cells, at spaces. Each word's
// width is measured once and a line's kept as it grows (measuring the line
// again at every word made a lesson's wrap a quarter of a screen's drawing).
// wrapMemo is wrap of the text and width last asked: the lesson under the table
// is the same text frame after frame until a claim's mark changes.
type wrapMemo struct {
	text, out string
	width     int
}

// of is wrap(text, width), from the memo when it is the last one asked.
func (w *wrapMemo) of(text string, width int) string {
	if text != w.text || width != w.width || w.out == "" {
		w.text, w.width, w.out = text, width, wrap(text, width)
	}
	return w.out
}

func wrap(text string, width int) string {
	var lines []string
	for _, para := range strings.Split(text, "\n\n") {
		line, lineWidth := "", 0
		for _, word := range strings.Fields(para) {
			w := lipgloss.Width(word)
			switch {
			case line == "":
				line, lineWidth = word, w
			case lineWidth+1+w > width:
				lines = append(lines, line)
				line, lineWidth = word, w
			default:
				line += " " + word
				lineWidth += 1 + w
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}
