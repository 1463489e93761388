package tune

import (
	"fmt"
	"strings"
	"time"

	"ratelab/internal/format"
)

// A period is the time a limit's rate is per, and the timescale over which keys
// are compared: a key can be heavy over seconds (a scraper's bursts) and not over
// hours, or over hours (a crawler, a feed reader polling all day) and not over
// seconds. tune sweeps several and says which one separates the heavy keys from
// the others.

const day = format.Day

// StandardPeriods are the periods tune measures every key over and sweeps by
// default: a second, a minute, an hour and a day.
var StandardPeriods = []time.Duration{time.Second, time.Minute, time.Hour, day}

// daysForDaily is how long a trace must be for the day to be swept by default:
// a few days, so that a day is one of several.
const daysForDaily = 3 * day

// DefaultPeriods are the periods swept for a trace spanning span: the second,
// the minute and the hour always (over a trace shorter than an hour, an hourly
// limit is a budget for the whole trace), the day when it covers more than
// three days; left are the standard periods not swept.
func DefaultPeriods(span time.Duration) (swept, left []time.Duration) {
	for _, p := range StandardPeriods {
		if p <= time.Hour || span > daysForDaily {
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

// maxKinds is the most kind rules a tally counts apart (len(Rules), tested).
const maxKinds = 12

func sortDurations(ds []time.Duration) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j] < ds[j-1]; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
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
	return format.Period(p) + " windows"
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
	return "per " + format.Period(p)
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
	return "in " + format.Period(p)
}

// adjective is "per-second", "per-minute", "per-hour", "per-day", "per-10s":
// the period before a noun.
func adjective(p time.Duration) string {
	return strings.Replace(perWord(p), " ", "-", 1)
}
