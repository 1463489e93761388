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
}

func newCredits(p Policy) credits {
	p = p.WithDefaults()
	periodUS := int64(p.Period / Resolution)
	g := gcd(periodUS, p.Limit)
	return credits{
		unit:     periodUS / g,
		perMicro: p.Limit / g,
		capacity: p.Burst * (periodUS / g),
		periodUS: periodUS,
	}
}

// refill returns balance after elapsedUS microseconds of refill, capped at capacity.
// It never multiplies past capacity, so it cannot overflow however long the idle.
func (c credits) refill(balance, elapsedUS int64) int64 {
	if elapsedUS <= 0 || balance >= c.capacity {
		return balance
	}
	if elapsedUS >= ceilDiv(c.capacity-balance, c.perMicro) {
		return c.capacity
	}
	return balance + elapsedUS*c.perMicro
}

// drain returns level after elapsedUS microseconds of leaking, floored at zero.
func (c credits) drain(level, elapsedUS int64) int64 {
	if elapsedUS <= 0 || level <= 0 {
		return level
	}
	if elapsedUS >= ceilDiv(level, c.perMicro) {
		return 0
	}
	return level - elapsedUS*c.perMicro
}

// wait is the time, in whole microseconds rounded up, until deficit credits have
// been refilled (or drained): ceil(deficit / rate).
func (c credits) wait(deficit int64) int64 {
	if deficit <= 0 {
		return 0
	}
	return ceilDiv(deficit, c.perMicro)
}

// units converts credits to units of cost, for display (fractional tokens).
func (c credits) units(cr int64) float64 { return float64(cr) / float64(c.unit) }
