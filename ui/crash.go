package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"ratelab/internal/format"

	tea "charm.land/bubbletea/v2"
)

// Crash is a panic the UI caught in its own code, with what is needed to replay
// it: the scenario and its source, the seed, the policy adjustments, the lanes, the
// terminal's size, where the run was, and the last keys pressed. The UI stops
// cleanly after one (the terminal is restored by the normal quit), and the command
// writes the report to a file and says where.
type Crash struct {
	Value         any
	Stack         string
	Scenario      string
	Source        string // the scenario file, or the embedded catalogue
	Seed          uint64
	Limit, Burst  int64 // the [ ] { } adjustments; 0 is the scenario's own
	Lanes         []string
	Width, Height int
	At            time.Duration // the virtual time the run had reached
	Speed         string
	Keys          []string // the last keys pressed, oldest first
}

// keysKept is how many of the last keys a crash report lists.
const keysKept = 200

// debugPanicEnv names an environment variable that makes the key it holds panic,
// so the crash path (terminal restored, report written) can be tried for real.
const debugPanicEnv = "RATELAB_DEBUG_PANIC_KEY"

// Crash returns the panic the UI stopped on, or nil.
func (m *Model) Crash() *Crash { return m.crash }

// crashed records a panic with the UI's state.
func (m *Model) crashed(p any) {
	if m.crash != nil {
		return
	}
	// the state may be what broke: read only what cannot panic
	c := &Crash{
		Value: p, Stack: string(debug.Stack()),
		Limit: m.runner.limit, Burst: m.runner.burst, Lanes: m.opts.Lanes, Width: m.width, Height: m.height,
		Speed: speedName(m.runner.speed), Keys: append([]string(nil), m.recentKeys...),
	}
	if m.runner.cfg != nil {
		c.Scenario, c.Seed = m.runner.cfg.Name, m.runner.cfg.Seed
	}
	if m.opts.Catalogue != nil {
		c.Source = m.opts.Catalogue.Source.Name
	}
	c.At = m.runner.now()
	m.crash = c // the program quits at the next message; Close closes the runs
}

// remember keeps a key for a crash report.
func (m *Model) remember(k string) {
	if len(m.recentKeys) == keysKept {
		m.recentKeys = append(m.recentKeys[:0], m.recentKeys[1:]...)
	}
	m.recentKeys = append(m.recentKeys, k)
}

// guard runs cmd (in the runtime's goroutine), turning a panic in it into the
// message onPanic makes, so a bug in background work is reported, not fatal.
func guard(cmd tea.Cmd, onPanic func(p any) tea.Msg) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if p := recover(); p != nil {
				msg = onPanic(p)
			}
		}()
		return cmd()
	}
}

// crashScreen is what the screen says once the UI has crashed.
func (m *Model) crashScreen() string {
	msg := fmt.Sprintf("ratelab hit a bug and must stop (%v). Press any key: the terminal is restored and the report's location is printed.", m.crash.Value)
	return m.styles.Error.Render(wrap(msg, max(20, m.width)))
}

// Report is the crash as text, for the file the user is asked to send.
func (c *Crash) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ratelab crash report\n\n")
	fmt.Fprintf(&b, "panic: %v\n\n", c.Value)
	fmt.Fprintf(&b, "To replay: ratelab tui --scenario %s", c.Scenario)
	if c.Source != "" && c.Source != "scenarios.toml" {
		fmt.Fprintf(&b, " --file %s", c.Source)
	}
	fmt.Fprintf(&b, " --seed %d", c.Seed)
	if len(c.Lanes) > 0 {
		fmt.Fprintf(&b, " --lanes %s", strings.Join(c.Lanes, ","))
	}
	fmt.Fprintf(&b, "\nin a terminal of %d×%d, then the keys below.\n\n", c.Width, c.Height)
	fmt.Fprintf(&b, "scenario:   %s (from %s)\nseed:       %d\n", c.Scenario, c.Source, c.Seed)
	fmt.Fprintf(&b, "adjusted:   limit %d, burst %d (0: the scenario's own)\n", c.Limit, c.Burst)
	fmt.Fprintf(&b, "size:       %d×%d\nvirtual:    %s\nspeed:      %s\n", c.Width, c.Height, format.Duration(c.At), c.Speed)
	fmt.Fprintf(&b, "last keys:  %s\n\n", strings.Join(c.Keys, " "))
	fmt.Fprintf(&b, "stack:\n%s", c.Stack)
	return b.String()
}

// WriteReport writes the report to a new file in dir and returns its path.
func (c *Crash) WriteReport(dir string) (string, error) {
	f, err := os.CreateTemp(dir, "ratelab-crash-*.txt")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(c.Report())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return filepath.Abs(f.Name())
}
