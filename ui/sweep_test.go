package ui

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/scenarios"
)

// The UI must survive any terminal size, any order of resizes and any key sequence:
// these tests drive the model through Update and View as the runtime would, and a
// panic anywhere fails with the scenario, the size and the keys that led to it.

// sweepKeys is every key the UI answers to, by the names press takes, plus a few
// it does not (they must do nothing).
var sweepKeys = []string{
	"space", ".", "right", "+", "-", "m", "r", "n", "p", "s", "/", "tab", "shift+tab",
	"enter", "esc", "up", "down", "left", "[", "]", "{", "}", "e", "?", "q", "h", "z", "1",
	"g", "w", "l", "x", "X", "k", "c", ">", "<", "R", "F", "G", "S", "P",
	"a", "b", "0", "2", "backspace", // a question's choices and numbers
}

// driver runs a model and remembers what was done to it, for the failure message.
type driver struct {
	t        testing.TB
	m        *Model
	scenario string
	did      []string
}

func newDriver(t testing.TB, c *scenarios.Catalogue, scenario string) *driver {
	t.Helper()
	m, err := New(Options{Catalogue: c, Scenario: scenario, ExportDir: t.TempDir(), ManualFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	return &driver{t: t, m: m, scenario: scenario}
}

// do runs one step, turning a panic into a failure that says how to reproduce it.
func (d *driver) do(what string, step func()) {
	d.t.Helper()
	d.did = append(d.did, what)
	defer func() {
		if p := recover(); p != nil {
			d.t.Fatalf("scenario %s panicked: %v\nafter: %s\n%s", d.scenario, p, strings.Join(d.did, " "), debug.Stack())
		}
	}()
	step()
}

func (d *driver) size(w, h int) {
	d.do(fmt.Sprintf("size %dx%d", w, h), func() { d.m.Update(tea.WindowSizeMsg{Width: w, Height: h}) })
}

func (d *driver) frame() { d.do("frame", func() { frame(d.m) }) }

// view draws the screen and checks it fits the terminal.
func (d *driver) view() {
	d.t.Helper()
	var s string
	d.do("view", func() {
		raw := d.m.render() // the layout itself must fit, before View clips it
		clip(raw, d.m.width, d.m.height)
		s = ansi.Strip(raw)
	})
	if d.m.width == 0 {
		return
	}
	lines := strings.Split(s, "\n")
	state := fmt.Sprintf("picking %v, help %v, zoom %v, problem %q", d.m.picker.open, d.m.help.open, d.m.zoom, d.m.runner.problem)
	if len(lines) > d.m.height && d.m.height >= minHeight {
		d.t.Fatalf("scenario %s at %dx%d (%s): %d lines:\n%s\nafter: %s", d.scenario, d.m.width, d.m.height, state, len(lines), s, strings.Join(d.did, " "))
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > d.m.width && d.m.width >= minWidth {
			d.t.Fatalf("scenario %s at %dx%d (%s): a line of %d cells: %q\nafter: %s", d.scenario, d.m.width, d.m.height, state, w, l, strings.Join(d.did, " "))
		}
	}
}

// key presses a key; commands are dropped but for the picker's, whose filter runs
// in one (settle feeds its answer back).
func (d *driver) key(name string) {
	d.do("key "+name, func() {
		cmd := press(d.m, name)
		if d.m.picker.open {
			settle(d.m, cmd)
		}
	})
}

// sweepSizes are the sizes every scenario is drawn at: every width at a few
// heights, and every height at a few widths.
func sweepSizes() [][2]int {
	var sizes [][2]int
	for _, h := range []int{5, 24, 40, 80} {
		for w := 20; w <= 260; w++ {
			sizes = append(sizes, [2]int{w, h})
		}
	}
	for _, w := range []int{20, 80, 120, 260} {
		for h := 5; h <= 80; h++ {
			sizes = append(sizes, [2]int{w, h})
		}
	}
	return sizes
}

// TestEverySizeEveryScenario draws every shipped scenario at every size of the
// sweep, a few frames into the run and again with every lane's table full.
func TestEverySizeEveryScenario(t *testing.T) {
	c := catalogue(t)
	sizes := sweepSizes()
	if testing.Short() {
		sizes = sizes[:0:0]
		for w := 20; w <= 260; w += 7 {
			sizes = append(sizes, [2]int{w, 24}, [2]int{w, 40})
		}
	}
	for _, name := range c.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDriver(t, c, name)
			for i, sz := range sizes {
				d.did = d.did[:0]
				d.size(sz[0], sz[1])
				if i%50 == 0 {
					d.frame()
					d.frame()
				}
				d.view()
			}
		})
	}
}

// TestResizeSequences resizes at every frame: grow, shrink, below the minimum and
// back, with the view drawn after each.
func TestResizeSequences(t *testing.T) {
	c := catalogue(t)
	sequence := [][2]int{{160, 48}, {120, 40}, {100, 30}, {80, 24}, {60, 20}, {20, 5}, {99, 30}, {140, 40}, {79, 23}, {80, 24}, {260, 80}, {120, 40}, {1, 1}, {121, 41}}
	for _, name := range c.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDriver(t, c, name)
			d.key("m") // fill the tables fast
			for round := 0; round < 3; round++ {
				for _, sz := range sequence {
					d.size(sz[0], sz[1])
					d.frame()
					d.view()
				}
			}
		})
	}
}

// TestRandomKeys presses random keys from the key map, with frames and resizes in
// between, on every scenario: every key, the policy keys at both ends of their
// ladders, n and p past both ends of the catalogue, speed at both limits.
func TestRandomKeys(t *testing.T) {
	c := catalogue(t)
	steps := 400
	if testing.Short() {
		steps = 80
	}
	for i, name := range c.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			d := newDriver(t, c, name)
			d.size(120, 40)
			for step := 0; step < steps; step++ {
				switch n := r.IntN(20); {
				case n == 0:
					d.size(20+r.IntN(241), 5+r.IntN(76))
				case n < 4:
					d.frame()
				default:
					d.key(sweepKeys[r.IntN(len(sweepKeys))])
				}
				d.view()
			}
			// every key in a row, then the ends of every ladder
			for _, k := range sweepKeys {
				d.key(k)
				d.view()
				d.key("esc")
			}
			for _, k := range []string{"+", "-", "[", "]", "{", "}", "n", "p"} {
				for j := 0; j < 15; j++ { // past both ends of every ladder and the catalogue
					d.key(k)
				}
				d.frame()
				d.view()
			}
		})
	}
}

// FuzzUI drives a scenario at a size with a sequence of keys, frames and resizes
// taken from the input: it must never panic and always fit the screen.
func FuzzUI(f *testing.F) {
	f.Add(uint8(2), uint16(120), uint16(40), []byte("mmm\x01\x02\x03"))
	f.Add(uint8(4), uint16(100), uint16(30), []byte("]]]]}}}}{{[[\x05"))
	f.Add(uint8(0), uint16(80), uint16(24), []byte("s/h\x10\x10e?"))
	c := catalogue(f)
	f.Fuzz(func(t *testing.T, scenario uint8, w, h uint16, script []byte) {
		if len(script) > 200 {
			script = script[:200]
		}
		names := c.Names()
		d := newDriver(t, c, names[int(scenario)%len(names)])
		d.size(int(w%300), int(h%100))
		for i, b := range script {
			switch {
			case b < 8:
				d.frame()
			case b < 16 && i+1 < len(script):
				d.size(int(b)*20+int(script[i+1]%20), 5+int(script[i+1]%80))
			default:
				d.key(sweepKeys[int(b)%len(sweepKeys)])
			}
			d.view()
		}
	})
}

// A panic in the UI's own code stops the program cleanly: the screen says so, the
// next message quits (so the runtime restores the terminal), and the crash keeps
// what replays it. The panics here are provoked by corrupting the model's state.
func TestPanicsAreCaughtAndReported(t *testing.T) {
	m := newModel(t, "thundering-herd")
	press(m, "tab")
	m.focus = 99 // the view indexes the lanes with it
	if s := screen(m); !strings.Contains(s, "ratelab hit a bug and must stop") {
		t.Fatalf("a panic in View shows:\n%s", s)
	}
	if _, cmd := m.Update(FrameMsg{Generation: m.runner.generation}); cmd == nil || cmd() != tea.Quit() {
		t.Error("the message after a crash does not quit")
	}
	c := m.Crash()
	if c == nil || c.Scenario != "thundering-herd" || c.Width != 160 || c.Height != 48 || strings.Join(c.Keys, " ") != "tab" {
		t.Fatalf("crash: %+v", c)
	}
	report := c.Report()
	for _, want := range []string{"index out of range", "ratelab tui --scenario thundering-herd --seed 1", "160×48", "last keys:  tab", "stack:"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}

	m = newModel(t, "boundary-burst")
	m.runner.catalogue = nil // the next scenario is looked up in it
	if cmd := press(m, "n"); cmd == nil || cmd() != tea.Quit() || m.Crash() == nil || m.Crash().Scenario != "boundary-burst" {
		t.Errorf("a panic in Update: crash %v", m.Crash())
	}
	path, err := m.Crash().WriteReport(t.TempDir())
	if err != nil || !strings.HasSuffix(path, ".txt") {
		t.Errorf("WriteReport: %q, %v", path, err)
	}
}
