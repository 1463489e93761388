package ui

// The speed of play: the multiples of real time the + and - keys step through,
// and the speed a run opens at.

import (
	"fmt"
	"time"
)

// speeds are the multiples of real time + and - step through; one past the last is
// "max": as much virtual time as FrameBudget allows per frame.
var speeds = []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000}

// speedOne is the index of 1× in speeds.
const speedOne = 3

// speedToShow is the index of the slowest speed, at least 1×, that shows a run
// of duration d in about wall (one past the last, max, when none is that fast).
func speedToShow(d, wall time.Duration) int {
	want := float64(d) / float64(wall)
	for i := speedOne; i < len(speeds); i++ {
		if speeds[i] >= want*0.8 { // about: within a fifth
			return i
		}
	}
	return len(speeds)
}

// speedName renders the speed for the header.
func speedName(i int) string {
	if i >= len(speeds) {
		return "max"
	}
	return fmt.Sprintf("%g×", speeds[i])
}

func (r *runner) faster() { r.speed = min(r.speed+1, len(speeds)) }
func (r *runner) slower() { r.speed = max(r.speed-1, 0) }
func (r *runner) max()    { r.speed = len(speeds) }
