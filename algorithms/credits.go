package algorithms

// credits is a Policy in integer form, shared by the bucket-shaped algorithms (token
// bucket, GCRA, leaky bucket).
//
// One unit of cost is worth unit credits, and a bucket gains (a queue drains)
// perMicro credits every microsecond. With g = gcd(period in µs, limit),
// unit = period/g and perMicro = limit/g, so perMicro/unit is exactly limit/period:
// "tokens ≥ cost" becomes an integer comparison with no rounding anywhere, and the
// numbers stay small (100 per 1s is unit 10,000 and perMicro 1).
type credits struct {
	unit     int64 // credits in one unit of cost
	perMicro int64 // credits gained (or drained) per microsecond
	capacity int64 // Burst × unit
	periodUS int64 // the period in microseconds
	// fillUS is a time after which any balance down to the lowest one (see
	// withFloor) has refilled to full, or any level has drained: refill and drain
	// need no division, and elapsed × perMicro below it cannot overflow.
	fillUS int64
}

func newCredits(p Policy) credits {
	p = p.WithDefaults()
	periodUS := int64(p.Period / Resolution)
	g := gcd(periodUS, p.Limit)
	c := credits{
		unit:     periodUS / g,
		perMicro: p.Limit / g,
		capacity: p.Burst * (periodUS / g),
		periodUS: periodUS,
	}
	return c.withFloor(0)
}

// withFloor sets the lowest balance the credits will hold (−reservations).
func (c credits) withFloor(floor int64) credits {
	c.fillUS = (c.capacity-floor)/c.perMicro + 1
	return c
}

// refill returns balance after elapsedUS microseconds of refill, capped at capacity.
// It never multiplies past fillUS, so it cannot overflow however long the idle.
func (c credits) refill(balance, elapsedUS int64) int64 {
	if elapsedUS <= 0 || balance >= c.capacity {
		return balance
	}
	if elapsedUS >= c.fillUS {
		return c.capacity
	}
	return min(c.capacity, balance+elapsedUS*c.perMicro)
}

// drain returns level after elapsedUS microseconds of leaking, floored at zero.
func (c credits) drain(level, elapsedUS int64) int64 {
	if elapsedUS <= 0 || level <= 0 {
		return level
	}
	if elapsedUS >= c.fillUS {
		return 0
	}
	return max(0, level-elapsedUS*c.perMicro)
}

// wait is the time, in whole microseconds rounded up, until deficit credits have
// been refilled (or drained): ceil(deficit / rate).
func (c credits) wait(deficit int64) int64 {
	switch {
	case deficit <= 0:
		return 0
	case c.perMicro == 1: // the common case: limits that divide the period
		return deficit
	}
	return (deficit + c.perMicro - 1) / c.perMicro
}

// units converts credits to units of cost (fractional tokens): the quotient
// cr / unit rounded once to the nearest double. Its floor is exactly the whole
// units the credits hold, floorDiv(cr, unit), so a header showing whole units
// shows the integer state. Proof, for 0 <= cr < 2^53 (Policy.Validate keeps
// every balance below it): if k <= cr/unit < k + 1 with k >= 2^(m−1), the
// quotient is at least 1/unit below k + 1, and unit <= cr/k < 2^(54−m), so it is
// more than half the spacing of doubles there (2^(m−54)) below k + 1 and cannot
// round up to it. Multiplying by a rounded 1/unit can: 7,000,000 credits of
// 7,000,000 each came out 0.9999999999999999.
func (c credits) units(cr int64) float64 { return float64(cr) / float64(c.unit) }
