package algorithms

import (
	"fmt"
	"math"
	"time"
)

// Header is one HTTP response header, name and value.
type Header struct{ Name, Value string }

// Headers renders d as the headers a server enforcing p under the policy name would
// send, in the order a person reads them:
//
//   - RateLimit-Policy: "name";q=<limit>;w=<period in seconds>, as in
//     draft-ietf-httpapi-ratelimit-headers (draft 11). w is whole seconds; a period
//     that is not is rounded up, and the quota with it, to the same rate.
//   - RateLimit: "name";r=<remaining, whole units, at least 0>;t=<seconds until
//     reset, rounded up>.
//   - Retry-After: <seconds, rounded up> (RFC 9110), on a denial only, and not when
//     the request could never be accepted.
func Headers(name string, p Policy, d Decision) []Header {
	p = p.WithDefaults()
	window := int64(math.Ceil(p.Period.Seconds()))
	quota := p.Limit
	if time.Duration(window)*time.Second != p.Period {
		quota = int64(math.Ceil(float64(p.Limit) * float64(window) / p.Period.Seconds()))
	}
	h := []Header{
		{"RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=%d", name, quota, window)},
		{"RateLimit", fmt.Sprintf("%q;r=%d;t=%d", name, int64(max(0, math.Floor(d.Remaining))), ceilSeconds(d.ResetAfter))},
	}
	if !d.Allowed && d.RetryAfter != Forever {
		h = append(h, Header{"Retry-After", fmt.Sprint(ceilSeconds(d.RetryAfter))})
	}
	return h
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 { return ceilDiv(int64(d), int64(time.Second)) }
