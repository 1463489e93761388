package present

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The request CSV's number cells, written by hand for speed, must be the bytes
// the plain formatting gives: six decimals trimmed for remaining, exactly six
// for the fate's milliseconds, three for the others.
func TestNumberCellsAsStrconv(t *testing.T) {
	decimal := func(v float64) string { // the trimmed six decimals, as the CSV always had it
		s := strings.TrimRight(strconv.FormatFloat(v, 'f', 6, 64), "0")
		s = strings.TrimSuffix(s, ".")
		if s == "-0" {
			s = "0"
		}
		return s
	}
	exact := func(d time.Duration) string {
		ns := int64(d)
		sign := ""
		if ns < 0 {
			sign, ns = "-", -ns
		}
		return sign + strconv.FormatInt(ns/1e6, 10) + "." + strconv.FormatInt(ns%1e6+1e6, 10)[1:]
	}
	millis := func(d time.Duration) string { // three decimals, the µs truncated
		us := int64(d / time.Microsecond)
		sign := ""
		if us < 0 {
			sign, us = "-", -us
		}
		return sign + strconv.FormatInt(us/1000, 10) + "." + strconv.FormatInt(us%1000+1000, 10)[1:]
	}
	r := rand.New(rand.NewPCG(1, 2))
	values := []float64{0, math.Copysign(0, -1), 1, -1, 20, -3, 0.5, 1e-7, -1e-7, 4.9999995, 1 << 52, 1<<53 - 1, 1 << 53, 1e18, -1e18, 123456.000001}
	for range 100_000 {
		values = append(values, float64(r.IntN(1000)), r.Float64()*100-50, math.Round(r.Float64()*1e6)/1e6, r.NormFloat64()*1e9,
			math.Ldexp(r.Float64(), r.IntN(200)-140), math.Float64frombits(r.Uint64()))
	}
	// exactly halfway between two millionths (k/128 = m + ½ millionths): ties to even
	for k := 1; k < 20_000; k += 2 {
		values = append(values, float64(k)/128, -float64(k)/128, float64(k)/(1<<20)+float64(k))
	}
	// the edges of the integer path: 2^33 and 2^-64, and their neighbours
	for _, edge := range []float64{1 << 33, math.Ldexp(1, -64), math.Ldexp(1, -20), 0.5e-6, 1.5e-6} {
		for _, v := range []float64{edge, math.Nextafter(edge, 0), math.Nextafter(edge, math.Inf(1))} {
			values = append(values, v, -v, v+0.25)
		}
	}
	for _, v := range values {
		if got, want := string(appendDecimal(nil, v)), decimal(v); got != want {
			t.Fatalf("appendDecimal(%v) = %q, want %q", v, got, want)
		}
	}
	durations := []time.Duration{0, 1, -1, 999_999, 1_000_000, -1_000_001, time.Hour + 7, math.MaxInt64}
	for range 100_000 {
		durations = append(durations, time.Duration(r.Int64N(1e15)-5e14))
	}
	for _, d := range durations {
		if got, want := string(appendExactMillis(nil, d)), exact(d); got != want {
			t.Fatalf("appendExactMillis(%d) = %q, want %q", d, got, want)
		}
		if got, want := string(appendMillis(nil, d)), millis(d); got != want {
			t.Fatalf("appendMillis(%d) = %q, want %q", d, got, want)
		}
		if got, want := string(appendInt(nil, int64(d))), strconv.FormatInt(int64(d), 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", int64(d), got, want)
		}
	}
	for _, n := range []int64{0, 9, 10, -9, -10, 99, 100, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		if got, want := string(appendInt(nil, n)), strconv.FormatInt(n, 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", n, got, want)
		}
	}
}
