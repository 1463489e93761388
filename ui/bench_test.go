package ui

import (
	"testing"
)

// BenchmarkView draws the full screen at 160×48 with seven lanes, half-way through
// boundary-burst (every panel, the table, verdicts, lesson and headers).
func BenchmarkView(b *testing.B) {
	m := newModel(b, "boundary-burst")
	press(m, "m")
	for !m.runner.run.Done() {
		frame(m)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/view")
}

// BenchmarkFrame is one frame at 100× on retry-storm: 5 s of virtual time through
// six lanes (the engine's share), then the view; the run restarts when it ends
// (not timed). A frame must stay well under the 50 ms between frames.
func BenchmarkFrame(b *testing.B) {
	m := newModel(b, "retry-storm")
	for m.runner.speed < 9 { // 100×
		press(m, "+")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m.runner.run.Done() {
			b.StopTimer()
			press(m, "r")
			b.StartTimer()
		}
		frame(m)
		_ = m.View()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/frame")
}
