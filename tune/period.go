package tune

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// A period is the time a limit's rate is per, and the timescale over which keys
// are compared: a key can be heavy over seconds (a scraper's bursts) and not over
// hours, or over hours (a crawler, a feed reader polling all day) and not over
// seconds. tune sweeps several and says which one separates the heavy keys from
// the others.

const day = 24 * time.Hour

// StandardPeriods are the periods tune measures every key over and sweeps by
// default: a second, a minute, an hour and a day.
var StandardPeriods = []time.Duration{time.Second, time.Minute, time.Hour, day}

// daysForDaily is how long a trace must be for the day to be swept by default:
// a few days, so that a day is one of several.
const daysForDaily = 3 * day

// DefaultPeriods are the periods swept for a trace spanning span: the second and
// the minute always, the hour when the trace covers one, the day when it covers
// more than three; left are the standard periods not swept.
func DefaultPeriods(span time.Duration) (swept, left []time.Duration) {
	for _, p := range StandardPeriods {
		if p <= time.Minute || (p == time.Hour && span >= time.Hour) || (p == day && span > daysForDaily) {
			swept = append(swept, p)
		} else {
			left = append(left, p)
		}
	}
	return swept, left
}

// ParsePeriods reads a comma-separated list of periods ("1s,1h"), each a positive
// whole number of microseconds, in increasing order after sorting, no repeats.
func ParsePeriods(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d <= 0 || d%time.Microsecond != 0 {
			return nil, fmt.Errorf("%q is not a positive duration in whole microseconds, like 1s, 1m or 1h", f)
		}
		for _, o := range out {
			if o == d {
				return nil, fmt.Errorf("%s is named twice", f)
			}
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no period; name at least one, like 1s or 1s,1m,1h")
	}
	if len(out) > maxPeriods {
		return nil, fmt.Errorf("%d periods; at most %d", len(out), maxPeriods)
	}
	sortDurations(out)
	return out, nil
}

// maxPeriods is the most periods one sweep compares keys over (a key's classes
// are bits of a byte, with one bit left for the scout).
const maxPeriods = 6

func sortDurations(ds []time.Duration) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j] < ds[j-1]; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

// unit is the word for one period in a rate: "s" for 1s, "min", "h", "day", or
// the period itself ("10s") for another.
func unit(p time.Duration) string {
	switch p {
	case time.Second:
		return "s"
	case time.Minute:
		return "min"
	case time.Hour:
		return "h"
	case day:
		return "day"
	}
	return shortPeriod(p)
}

// Over names a timescale in a sentence: "seconds", "minutes", "hours", "days", or
// "10s windows".
func Over(p time.Duration) string {
	switch p {
	case time.Second:
		return "seconds"
	case time.Minute:
		return "minutes"
	case time.Hour:
		return "hours"
	case day:
		return "days"
	}
	return shortPeriod(p) + " windows"
}

// perWord is "per second", "per minute", "per hour", "per day" or "per 10s".
func perWord(p time.Duration) string {
	switch p {
	case time.Second:
		return "per second"
	case time.Minute:
		return "per minute"
	case time.Hour:
		return "per hour"
	case day:
		return "per day"
	}
	return "per " + shortPeriod(p)
}

// in is "in a second", "in a minute", "in an hour", "in a day", "in 10s".
func in(p time.Duration) string {
	switch p {
	case time.Second:
		return "in a second"
	case time.Minute:
		return "in a minute"
	case time.Hour:
		return "in an hour"
	case day:
		return "in a day"
	}
	return "in " + shortPeriod(p)
}

// shortPeriod is 1s, 1m, 1h, 10m30s… without the zero tails of Duration.String.
func shortPeriod(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// LimitRate is a policy's limit per its period as written: 5/s, 300/h, 1/min,
// 20/10s.
func LimitRate(limit int64, period time.Duration) string {
	return strconv.FormatInt(limit, 10) + "/" + unit(period)
}

// Rate renders n requests over d in the unit that makes the number readable:
// the largest of per second, per minute, per hour and per day in which it is at
// least 1 (per day below that), with two significant digits below 10 and none
// from 10 on: 12/s, 5.8/h, 1.5/min, 0.3/day. Nothing over no time is "0/s".
func Rate(n float64, d time.Duration) string {
	if n <= 0 || d <= 0 {
		return "0/s"
	}
	perSecond := n / d.Seconds()
	for _, u := range StandardPeriods {
		v := perSecond * u.Seconds()
		if v >= 1 || u == day {
			return readable(v) + "/" + unit(u)
		}
	}
	return "" // not reached
}

// readable is v with two significant digits below 10, a whole number from 10 on,
// and no trailing zero: 5.8, 0.34, 12, 1200.
func readable(v float64) string {
	switch {
	case v >= 9.95:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case v >= 0.995:
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
