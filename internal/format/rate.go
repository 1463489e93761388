package format

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// A rate is shown per the unit that makes its number readable — 12/s, 1.5/min,
// 5.8/h, 0.3/day — never as 0.00/s for a key that sent 482 requests in 83 hours.
// JSON and CSV keep the exact value per second; these are for people.

// Day is a day of 24 hours, the longest unit a rate is shown in.
const Day = 24 * time.Hour

// rateUnits are the units a rate may be shown in, shortest first.
var rateUnits = []time.Duration{time.Second, time.Minute, time.Hour, Day}

// RateUnit is the unit Rate shows perSecond in: the shortest of a second, a
// minute, an hour and a day in which it is at least 1 (the day below that, and
// the second for 0).
func RateUnit(perSecond float64) time.Duration {
	if !(perSecond > 0) {
		return time.Second
	}
	for _, u := range rateUnits {
		if perSecond*u.Seconds() >= 0.995 { // what readable rounds to 1
			return u
		}
	}
	return Day
}

// Rate renders a rate given per second in the unit that makes it readable (see
// RateUnit), with two significant digits below 10 and none from 10 on: 12/s,
// 5.8/h, 1.5/min, 0.3/day, 0/s.
func Rate(perSecond float64) string { return RateIn(perSecond, RateUnit(perSecond)) }

// RateIn renders a rate given per second per unit u (which need not be one of
// Rate's): RateIn(0.1, time.Minute) is "6/min". Showing two rates in the unit of
// the larger keeps them comparable: "0.3 of 5.8/h".
func RateIn(perSecond float64, u time.Duration) string {
	return readable(max(perSecond, 0)*u.Seconds()) + "/" + Unit(u)
}

// Count renders a count per unit without the unit, as RateIn does: 5.8, 0.34, 12.
func Count(perSecond float64, u time.Duration) string {
	return readable(max(perSecond, 0) * u.Seconds())
}

// LimitRate is a limit per its period as a person writes it: 5/s, 300/h, 1/min,
// 20/10s.
func LimitRate(limit int64, period time.Duration) string {
	return strconv.FormatInt(limit, 10) + "/" + Unit(period)
}

// Unit is the word for one period after a slash: s, min, h, day, or the period
// itself for another (10s, 1m30s).
func Unit(p time.Duration) string {
	switch p {
	case time.Second:
		return "s"
	case time.Minute:
		return "min"
	case time.Hour:
		return "h"
	case Day:
		return "day"
	}
	return Period(p)
}

// Period is a period as written in a flag: 1s, 1m, 1h, 10m30s, 250ms — without
// Duration.String's zero tails (1m0s, 1h0m0s).
func Period(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// readable is v with two significant digits below 10, a whole number from 10 on,
// and no trailing zero: 5.8, 0.34, 12, 1200; 0 is 0.
func readable(v float64) string {
	switch {
	case v >= 9.95:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case v >= 0.995:
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
