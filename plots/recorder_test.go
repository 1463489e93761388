package plots

import (
	"reflect"
	"testing"
	"time"

	"ratelab/sim"
)

// The zoom the Recorder fills is the decisions of the zoom's stretch counted row
// by row, whether it kept them in memory or spilled most of them to its file,
// and on a run written only so far (the UI's charts) as on a whole one.
func TestRecorderFillsTheZoomFromTheDecisions(t *testing.T) {
	defer func(m int) { recorderMemory = m }(recorderMemory)
	for _, tc := range []struct {
		scenario string
		upTo     time.Duration // 0: the whole run
	}{{"boundary-burst", 0}, {"boundary-burst", 1200 * time.Millisecond}, {"rollover", 0}} {
		cfg := compile(t, tc.scenario)
		upTo := cmpOr(tc.upTo, cfg.Duration)
		var rows []sim.Row
		var zooms []*Zoom
		for _, memory := range []int{1 << 17, 7} {
			recorderMemory = memory
			r, err := sim.NewRun(cfg, sim.Memory)
			if err != nil {
				t.Fatal(err)
			}
			rec := NewRecorder()
			rows = rows[:0]
			r.OnRows(func(batch []sim.Row) error {
				rows = append(rows, batch...)
				return rec.Rows(batch)
			})
			if err := r.AdvanceTo(upTo); err != nil {
				t.Fatal(err)
			}
			if err := r.FinishRows(); err != nil {
				t.Fatal(err)
			}
			if spilled := rec.file != nil; spilled != (memory < 1000) {
				t.Errorf("%s: with %d decisions in memory, spilled to a file: %v", tc.scenario, memory, spilled)
			}
			d, err := From(r, rec)
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			rec.Close()
			if d.Zoom == nil {
				t.Fatalf("%s to %v: no zoom", tc.scenario, upTo)
			}
			want := ZoomOn(d)
			for _, row := range rows {
				want.count(row.At, row.Lane, row.Allowed)
			}
			if !reflect.DeepEqual(d.Zoom, want) {
				t.Errorf("%s to %v (%d in memory): the recorder's zoom differs from the rows counted one by one:\n%+v\n%+v", tc.scenario, upTo, memory, d.Zoom, want)
			}
			var n int64
			for _, lane := range d.Zoom.Accepted {
				for _, c := range lane {
					n += c
				}
			}
			if n == 0 {
				t.Errorf("%s: the zoom counts nothing accepted", tc.scenario)
			}
			zooms = append(zooms, d.Zoom)
		}
		if !reflect.DeepEqual(zooms[0], zooms[1]) {
			t.Errorf("%s: the zoom differs when the recorder spills to its file", tc.scenario)
		}
	}
}

func cmpOr(a, b time.Duration) time.Duration {
	if a != 0 {
		return a
	}
	return b
}
