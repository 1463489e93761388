package ui

import (
	"testing"
	"time"
)

// A trace opens at the speed that shows it whole in about a minute: an 83-hour
// log at 5000×, not 1× (45 minutes of empty panels), never slower than 1×, and at
// max when no speed is that fast.
func TestSpeedToShowAWholeRun(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{83 * time.Hour, "5000×"},
		{10 * time.Minute, "10×"},
		{30 * time.Minute, "25×"},
		{30 * time.Second, "1×"},
		{time.Minute, "1×"},
		{5000 * 24 * time.Hour, "max"},
	} {
		if got := speedName(speedToShow(tc.d, time.Minute)); got != tc.want {
			t.Errorf("a run of %s: %s, want %s", tc.d, got, tc.want)
		}
	}
}
