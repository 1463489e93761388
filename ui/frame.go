package ui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// frameWall is the frame's nominal length; at speed 1× it is also the virtual time
// a frame covers.
const frameWall = 50 * time.Millisecond

// speeds are the multiples of real time + and - step through; one past the last is
// "max": as much virtual time as FrameBudget allows per frame.
var speeds = []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000}

// speedOne is the index of 1× in speeds.
const speedOne = 3

// speedName renders the speed for the header.
func speedName(i int) string {
	if i >= len(speeds) {
		return "max"
	}
	return fmt.Sprintf("%g×", speeds[i])
}

// nextFrame schedules the next frame of the current generation, unless paused,
// finished or driven by the caller.
func (m *Model) nextFrame() tea.Cmd {
	if m.paused || m.run == nil || m.run.Done() || m.opts.Frame == 0 {
		return nil
	}
	gen := m.generation
	return tea.Tick(m.opts.Frame, func(time.Time) tea.Msg { return FrameMsg{Generation: gen} })
}

// frame advances virtual time by one frame at the current speed and schedules the
// next; a stale frame (an older generation) or one arriving while paused does
// nothing.
func (m *Model) frame(f FrameMsg) tea.Cmd {
	if f.Generation != m.generation || m.paused || m.run == nil {
		return nil
	}
	target := m.run.Config.Duration
	if m.speed < len(speeds) {
		target = m.run.Now() + time.Duration(float64(frameWall)*speeds[m.speed])
	}
	m.advance(target)
	return m.nextFrame()
}

// advance runs the engine towards target a tick at a time, stopping early when the
// frame's budget of decisions is spent: the virtual clock then falls behind, the
// keyboard does not. A run that fails stops, with the reason shown.
func (m *Model) advance(target time.Duration) {
	if m.run == nil {
		return
	}
	start := m.run.Decisions()
	for m.run.Now() < target && !m.run.Done() && m.run.Decisions()-start < FrameBudget {
		step := min(target, m.run.Now()+m.cfg.Tick)
		if err := m.run.AdvanceTo(step); err != nil {
			m.problem = err.Error()
			m.closeRun()
			return
		}
	}
}
