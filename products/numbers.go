package products

import (
	"strconv"
	"strings"
)

// ParseDigits reads a non-negative decimal number as nginx's ngx_atoi does
// (digits only, at most 18), as nginx and HAProxy write counts and sizes.
func ParseDigits(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// ParseSize reads a size as nginx's ngx_parse_size and HAProxy's parse_size
// do: ParseDigits' digits, then one of units' letters (k, m, g: 2^10, 2^20,
// 2^30, in either case) or none; false for another, or above most.
func ParseSize(s, units string, most int64) (int64, bool) {
	if s == "" {
		return 0, false
	}
	scale := int64(1)
	if i := strings.IndexByte("kmg", s[len(s)-1]|0x20); i >= 0 && strings.IndexByte(units, "kmg"[i]) >= 0 {
		scale, s = 1<<(10*(i+1)), s[:len(s)-1]
	}
	n, ok := ParseDigits(s)
	if !ok || n > most/scale {
		return 0, false
	}
	return n * scale, true
}
