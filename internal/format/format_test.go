package format

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

func TestFormat(t *testing.T) {
	if Forever != algorithms.Forever {
		t.Fatalf("format.Forever is %d, algorithms.Forever %d", Forever, algorithms.Forever)
	}
	for _, tc := range []struct{ got, want string }{
		{Duration(0), "0"},
		{Duration(850 * time.Microsecond), "850µs"},
		{Duration(12500 * time.Microsecond), "12.5ms"},
		{Duration(1250 * time.Millisecond), "1.250s"},
		{Duration(26*time.Hour + 5*time.Second + 400*time.Millisecond), "26h0m5s"},
		{Duration(Forever), "never"},
		{Span(0), "an instant"},
		{Span(2 * time.Millisecond), "2.0ms"},
		{Bytes(1023), "1023B"},
		{Bytes(1536), "1.5KiB"},
		{Bytes(3 << 20), "3.0MiB"},
		{Number(2), "2"},
		{Number(0.5), "0.5"},
		{Number(1.0 / 3), "0.3333"},
		{Number(-0.00001), "0"},
		{Ratio(1.04), "1.04"},
		{Ratio(2), "2.00"},
		{RatioPast(1.0033, 1), "1.003"},
		{RatioPast(1.000004, 1), "1.000004"},
		{RatioPast(1.0000001, 1), "1.000000"}, // six decimals at most
		{RatioPast(1.2, 1), "1.20"},
		{RatioPast(1, 1), "1.00"},
		{Number(RoundTo(12.345, 0.1)), "12.3"},
		{Number(RoundTo(-2.5, 1)), "-3"},
		{Number(RoundTo(7, 0)), "7"},
		{Number(Millis(1500 * time.Microsecond)), "1.5"},
		{Percent(0), "0%"},
		{Percent(0.56), "56%"},
		{Percent(0.035), "3.5%"},
		{Percent(0.0002), "0.02%"},
		{Percent(0.000012), "0.0012%"},
		{Percent(0.9996), "99.9%"},
		{Percent(0.996), "99.6%"},
		{Percent(1), "100%"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// Rates are shown in the unit that makes them readable; the public Apache log's
// heaviest key, 482 requests in 83 hours, is 5.8/h, not 0.00/s.
func TestRate(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Rate(12), "12/s"},
		{Rate(1), "1/s"},
		{Rate(0.999), "1/s"},
		{Rate(0.5), "30/min"},
		{Rate(482.0 / (83 * 3600)), "5.8/h"},
		{Rate(0.3 / 86400), "0.3/day"},
		{Rate(1.5 / 60), "1.5/min"},
		{Rate(0), "0/s"},
		{Rate(-1), "0/s"},
		{Rate(12345.6), "12346/s"},
		{RateIn(0.1, time.Minute), "6/min"},
		{RateIn(0.001, 10*time.Second), "0.01/10s"},
		{Count(0.3/3600, time.Hour), "0.3"},
		{LimitRate(300, time.Hour), "300/h"},
		{LimitRate(20, 10*time.Second), "20/10s"},
		{LimitRate(1, Day), "1/day"},
		{Period(time.Minute), "1m"},
		{Period(time.Hour), "1h"},
		{Period(90 * time.Second), "1m30s"},
		{Period(250 * time.Millisecond), "250ms"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
