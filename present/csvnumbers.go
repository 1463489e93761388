package present

// Numbers as the CSVs write them, fast and exact: times in milliseconds to the
// µs or the ns, whole numbers two digits at a time, and a decimal of six places
// as strconv's 'f' would write it.

import (
	"math"
	"math/bits"
	"strconv"
	"time"
)

// appendMillis appends d in milliseconds with exactly three decimals.
func appendMillis(b []byte, d time.Duration) []byte {
	us := int64(d / time.Microsecond)
	if us < 0 {
		b = append(b, '-')
		us = -us
	}
	b = appendWhole(b, uint64(us/1000))
	frac := us % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// appendExactMillis appends d in milliseconds with exactly six decimals: to the
// nanosecond.
func appendExactMillis(b []byte, d time.Duration) []byte {
	ns := int64(d)
	if ns < 0 {
		b = append(b, '-')
		ns = -ns // no time here is near the most negative Duration
	}
	b = appendWhole(b, uint64(ns/1e6))
	frac := ns % 1e6
	hi, mid, lo := frac/10000, frac/100%100, frac%100
	return append(b, '.', twoDigits[2*hi], twoDigits[2*hi+1], twoDigits[2*mid], twoDigits[2*mid+1], twoDigits[2*lo], twoDigits[2*lo+1])
}

// twoDigits is "00" to "99", each number's two digits at twice its place.
const twoDigits = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// appendWhole appends n in decimal, two digits at a time.
func appendWhole(b []byte, n uint64) []byte {
	var buf [20]byte
	i := len(buf)
	for n >= 100 {
		d := n % 100
		n /= 100
		i -= 2
		buf[i], buf[i+1] = twoDigits[2*d], twoDigits[2*d+1]
	}
	if n >= 10 {
		i -= 2
		buf[i], buf[i+1] = twoDigits[2*n], twoDigits[2*n+1]
	} else {
		i--
		buf[i] = byte('0' + n)
	}
	return append(b, buf[i:]...)
}

// appendDecimal appends v with up to six decimals, trailing zeros trimmed. A
// whole number (the windows' remaining) is written as an integer, as the
// trimmed six decimals would have it ("-0" as "0"). The six decimals are
// strconv's 'f' with precision 6 — v rounded to the nearest millionth, exactly,
// ties to even — computed in integers where v is below 2^33 and not below 2^-64:
// a double is mant·2^e, so v·10^6 is mant·10^6 (under 2^73) shifted right by −e,
// and the bits shifted out say how to round.
func appendDecimal(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return appendInt(b, int64(v))
	}
	bits64 := math.Float64bits(v)
	neg := bits64>>63 == 1
	exp := int(bits64>>52) & 0x7ff
	shift := 1075 - exp // v = mant · 2^-shift
	if exp == 0 || exp == 0x7ff || shift <= 19 || shift > 116 {
		return appendDecimalSlow(b, v) // subnormal, not finite, 2^33 or more, under 2^-64
	}
	mant := bits64&(1<<52-1) | 1<<52
	hi, lo := bits.Mul64(mant, 1e6)
	// q = (hi:lo) >> shift, rest the bits shifted out, half their midpoint
	var q, rest, half, restHi, halfHi uint64
	switch {
	case shift < 64:
		q = hi<<(64-shift) | lo>>shift
		rest, half = lo&(1<<shift-1), 1<<(shift-1)
	case shift == 64:
		q, rest, half = hi, lo, 1<<63
	default:
		q = hi >> (shift - 64)
		restHi, rest, halfHi = hi&(1<<(shift-64)-1), lo, 1<<(shift-65)
	}
	above := restHi > halfHi || restHi == halfHi && rest > half
	tie := restHi == halfHi && rest == half
	if above || tie && q&1 == 1 {
		q++
	}
	if q == 0 {
		return append(b, '0')
	}
	if neg {
		b = append(b, '-')
	}
	b = appendWhole(b, q/1e6)
	frac := q % 1e6
	if frac == 0 {
		return b
	}
	hi, mid, lo := frac/10000, frac/100%100, frac%100
	digits := [7]byte{'.', twoDigits[2*hi], twoDigits[2*hi+1], twoDigits[2*mid], twoDigits[2*mid+1], twoDigits[2*lo], twoDigits[2*lo+1]}
	n := 7
	for digits[n-1] == '0' {
		n--
	}
	return append(b, digits[:n]...)
}

// appendInt appends n in decimal, as strconv.AppendInt(b, n, 10) would; small
// numbers (attempts, most costs) take one byte.
func appendInt(b []byte, n int64) []byte {
	switch {
	case 0 <= n && n < 10:
		return append(b, byte('0'+n))
	case n > 0:
		return appendWhole(b, uint64(n))
	}
	return strconv.AppendInt(b, n, 10)
}

// appendDecimalSlow is appendDecimal through strconv, for any v.
func appendDecimalSlow(b []byte, v float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, v, 'f', 6, 64)
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}
