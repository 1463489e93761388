package algorithms

import (
	"testing"
	"time"
)

// MaxExactLimit is the edge Validate holds a limit to, for requests of cost 1.
func TestMaxExactLimitIsValidatesEdge(t *testing.T) {
	for _, period := range []time.Duration{time.Microsecond, time.Second, time.Minute, time.Hour, 24 * time.Hour} {
		most := MaxExactLimit(period)
		if err := (Policy{Limit: most, Period: period, Burst: 1}).Validate(1); err != nil {
			t.Errorf("%s: limit %d refused: %v", period, most, err)
		}
		if err := (Policy{Limit: most + 1, Period: period, Burst: 1}).Validate(1); err == nil {
			t.Errorf("%s: limit %d taken, one past MaxExactLimit", period, most+1)
		}
	}
}
