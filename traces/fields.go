package traces

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The time, key and cost of the formats with named fields (JSON Lines, CSV).

// appendKeyValue appends the i-th value of a key to key, joined to those
// before by a space. escape (a key of several values, more than one of which
// may hold a space) escapes the value's "\" and " " with a "\" ("x y" and "z"
// make `x\ y z`, "x" and "y z" make `x y\ z`), so two rows are one client only
// when every value is the same. Without it the value goes as read: a key of
// one value, or of several of which one at most may hold a space, is one to
// one joined plainly (the space is then where that one's value is).
func appendKeyValue[V string | []byte](key []byte, i int, escape bool, v V) []byte {
	if i > 0 {
		key = append(key, ' ')
	}
	if !escape {
		return append(key, v...)
	}
	for j := 0; j < len(v); j++ {
		if v[j] == '\\' || v[j] == ' ' {
			key = append(key, '\\')
		}
		key = append(key, v[j])
	}
	return key
}

// fieldNames are the names of the fields a named-field format reads, resolved
// from Options with their defaults.
type fieldNames struct {
	time, cost string
	costSet    bool // the cost field was named, so a row must have it
	noCost     bool // no cost is read: every request costs 1 (NoCost)
	key        []string
	timeFormat TimeFormat
}

func namedFields(o Options, timeDefault string) fieldNames {
	f := fieldNames{time: o.TimeField, cost: o.CostField, costSet: o.CostField != "", noCost: o.CostField == NoCost, key: o.keyParts(), timeFormat: o.TimeFormat}
	if f.time == "" {
		f.time = timeDefault
	}
	if f.cost == "" {
		f.cost = "cost"
	}
	if f.timeFormat == TimeAuto && f.time == "time_ms" {
		f.timeFormat = TimeOffsetMS
	}
	return f
}

// parseTime reads a time field's value, text or a number (a JSON string is
// unquoted first). It
// returns µs (from the epoch, or from the start for TimeOffsetMS) and the
// timestamp's resolution in µs (1s for whole seconds, 1ms for whole
// milliseconds, finer with decimals), or why it could not.
func parseTime(v string, f TimeFormat, field string) (at, res int64, why string) {
	v = strings.TrimSpace(v)
	if f == TimeAuto {
		n, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil:
			f = TimeRFC3339
		case math.Abs(n) >= 1e11:
			f = TimeUnixMS
		default:
			f = TimeUnix
		}
	}
	switch f {
	case TimeRFC3339:
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return 0, 0, fmt.Sprintf("%s %q is not an RFC 3339 time like 2000-10-10T13:55:36Z (set time_format if it is another)", field, v)
		}
		res := int64(1e6)
		if dot := strings.IndexByte(v, '.'); dot > 0 {
			n := 0
			for _, c := range v[dot+1:] {
				if c < '0' || c > '9' {
					break
				}
				n++
			}
			res = pow10res(1e6, n)
		}
		return t.UnixMicro(), res, ""
	case TimeUnix, TimeUnixMS, TimeOffsetMS:
		unit := int64(1e6)
		if f != TimeUnix {
			unit = 1e3
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, 0, fmt.Sprintf("%s %q is not a number of %s", field, v, unitName(f))
		}
		us := n * float64(unit)
		if us < 0 || us > float64(math.MaxInt64/int64(time.Microsecond)) {
			return 0, 0, fmt.Sprintf("%s %s is out of range; want %s, >= 0", field, v, unitName(f))
		}
		decimals := 0
		if dot := strings.IndexByte(v, '.'); dot >= 0 && !strings.ContainsAny(v, "eE") {
			decimals = len(v) - dot - 1
		} else if strings.ContainsAny(v, "eE") {
			decimals = 6
		}
		return int64(math.Round(us)), pow10res(unit, decimals), ""
	}
	return 0, 0, "unknown time format"
}

func unitName(f TimeFormat) string {
	switch f {
	case TimeUnix:
		return "seconds since 1970 (Unix time)"
	case TimeUnixMS:
		return "milliseconds since 1970 (Unix time)"
	}
	return "milliseconds from the start of the trace"
}

// pow10res divides unit µs by 10^decimals, down to 1 µs.
func pow10res(unit int64, decimals int) int64 {
	for ; decimals > 0 && unit > 1; decimals-- {
		unit /= 10
	}
	return max(unit, 1)
}

// parseCost reads a cost: a whole number >= 1.
func parseCost(v string, field string) (int64, string) {
	c, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || c < 1 {
		return 0, fmt.Sprintf("%s %q is not a whole number >= 1", field, v)
	}
	return c, ""
}
