package ui

import (
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/scenarios"
)

// BenchmarkView draws the full screen at 160×48 with seven lanes, at the end of
// boundary-burst (every panel, the table, verdicts, lesson and headers).
func BenchmarkView(b *testing.B) {
	m := newModel(b, "boundary-burst")
	press(m, "m")
	playToEnd(m)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/view")
}

// BenchmarkFrame is one frame at 100× on retry-storm: 5 s of virtual time through
// six lanes (the engine's share: the job's advance and its snapshot), then the
// view; the run restarts when it ends (not timed). A frame must stay well under
// the 50 ms between frames.
func BenchmarkFrame(b *testing.B) {
	m := newModel(b, "retry-storm")
	for m.runner.speed < 9 { // 100×
		press(m, "+")
	}
	benchmarkFrames(b, m)
}

// BenchmarkFrameManyKeys is one frame at 1× (50 ms of virtual time) of a run
// over 100,000 keys — the scale of ratelab tui --trace on a real log — with
// every algorithm's lane: 20,000 requests a second spread over the keys, so a
// frame makes 1,000 decisions a lane. A snapshot's metrics come from the sums
// its lanes keep as the run goes, so a frame's cost follows the decisions it
// makes and the screen it draws, not the keys: the goal is under 10 ms a frame
// (a view that walked every key of every lane took 78 ms).
func BenchmarkFrameManyKeys(b *testing.B) {
	c, err := scenarios.Parse(scenarios.Source{Name: "many-keys.toml"}, []byte(`
[[scenario]]
name = "many-keys"
duration = "60s"
tick = "10ms"
[scenario.policy]
limit = 1
period = "1s"
burst = 2
[[scenario.client]]
name = "users"
pattern = "poisson"
rate = 20000
keys = 100000
`))
	if err != nil {
		b.Fatal(err)
	}
	m, err := New(Options{Catalogue: c, ExportDir: b.TempDir(), ManualFrames: true})
	if err != nil {
		b.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	for range 40 { // 2 s: most keys seen
		frame(m)
	}
	benchmarkFrames(b, m)
}

// benchmarkFrames times frames of m, each applied and drawn, reporting the wall
// time a frame takes (ms/frame) and the process's CPU time (cpu-ms/frame: every
// lane's goroutine counted, which a busy shared machine does not blur as it does
// wall time); the run restarts when it ends (not timed).
func benchmarkFrames(b *testing.B, m *Model) {
	b.ReportAllocs()
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m.runner.done() || m.quiz.open {
			// a lesson's question pauses the run until answered: skip it, or
			// every later frame would draw a paused screen (not timed)
			b.StopTimer()
			if m.quiz.open {
				press(m, "esc")
			} else {
				press(m, "r")
			}
			b.StartTimer()
		}
		start := cpuTime()
		frame(m)
		_ = m.View()
		cpu += cpuTime() - start
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/frame")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/1000, "cpu-ms/frame")
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
