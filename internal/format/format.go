// Package format renders ratelab's quantities as text, the same way wherever
// they are shown — the comparison table, verdicts, claims, the UI, charts, tune's
// report and error messages: durations compactly (12.5ms, 1.250s), sizes in
// binary units, numbers with the decimals they need and ratios with two, so
// 1.04 is never shown as 1.0. It depends on nothing of ratelab's.
package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Forever is the duration a limiter reports for a wait that never ends (a
// request costing more than the bucket can ever hold): shown as "never". It is
// algorithms.Forever, repeated here so this package stays a leaf (a test checks
// the two agree).
const Forever = time.Duration(math.MaxInt64)

// Duration renders d compactly for tables: 0, 850µs, 12.5ms, 1.250s, 26h0m5s,
// and never for Forever. Under a second it keeps one decimal of milliseconds;
// from a second to an hour, three decimals of seconds; from an hour, whole seconds.
func Duration(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d == Forever:
		return "never"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d/time.Microsecond)
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d >= time.Hour:
		return d.Round(time.Second).String() // a long trace's times: 168h0m0s
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// Span renders a stretch of time for a sentence: as Duration, or "an instant"
// when it is not positive.
func Span(d time.Duration) string {
	if d <= 0 {
		return "an instant"
	}
	return Duration(d)
}

// Bytes renders n as B, KiB or MiB.
func Bytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
}

// Number renders v with as many decimals as it needs, up to four: 2, 0.5,
// 0.3333; never "-0".
func Number(v float64) string {
	s := fmt.Sprintf("%.4f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// Ratio renders a ratio with two decimals, so 1.04 is never shown as 1.0.
func Ratio(x float64) string { return fmt.Sprintf("%.2f", x) }

// RatioPast renders a ratio x above mark with two decimals, or as many more (up
// to six) as it takes not to read as mark: 1.0033 past 1 is "1.003", not "1.00".
func RatioPast(x, mark float64) string {
	for decimals := 2; ; decimals++ {
		s := fmt.Sprintf("%.*f", decimals, x)
		if shown, _ := strconv.ParseFloat(s, 64); decimals == 6 || x <= mark || shown != mark {
			return s
		}
	}
}

// RoundTo rounds x to the nearest multiple of step (halves away from zero); x
// itself when step is not positive.
func RoundTo(x, step float64) float64 {
	if step <= 0 {
		return x
	}
	n := x / step
	if n < 0 {
		return -RoundTo(-x, step)
	}
	return float64(int64(n+0.5)) * step
}

// Millis is d in milliseconds, as JSON and claims give durations.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Percent renders a share (0 to 1) as a percentage with as many decimals as it
// needs to show its size, as ratelab tune's report does: 12%, 3.5%, 0.35%,
// 0.0012%; a share short of the whole never reads "100%" (99.9%).
func Percent(f float64) string {
	p := 100 * f
	switch {
	case p == 0:
		return "0%"
	case p >= 99.5 && p < 100:
		return fmt.Sprintf("%.1f%%", math.Floor(p*10)/10)
	case p >= 10:
		return fmt.Sprintf("%.0f%%", p)
	case p >= 1:
		return fmt.Sprintf("%.1f%%", p)
	case p >= 0.01:
		return fmt.Sprintf("%.2f%%", p)
	}
	return fmt.Sprintf("%.4f%%", p)
}

// Grouped is a whole number with its thousands grouped by commas: 1,234,567.
func Grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}
