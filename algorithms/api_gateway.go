package algorithms

import (
	"fmt"
	"time"
)

// APIGatewayName is Amazon API Gateway's throttling and usage-plan quota as a
// lane, in scenario files and on the command line.
const APIGatewayName Name = "api-gateway"

// apiGatewayOptions are the API Gateway lane's scenario keys.
var apiGatewayOptions = []Option{
	{Key: "quota_limit", Doc: "the usage plan's QuotaSettings limit: requests a key may make per quota period; default 0, no quota",
		set: func(o Options) string { return setIf(o.QuotaLimit != 0, "quota_limit") }},
	{Key: "quota_period", Doc: `the quota's period: "day", "week" or "month", UTC calendar periods (weeks from Monday); required with quota_limit`,
		set: func(o Options) string { return setIf(o.QuotaPeriod != QuotaNone, "quota_period") }},
	{Key: "quota_offset", Doc: "requests subtracted from the quota in the initial period (the one the run starts in); default 0",
		set: func(o Options) string { return setIf(o.QuotaOffset != 0, "quota_offset") }},
}

// QuotaPeriod is the period of a usage plan's quota (QuotaSettings.period).
type QuotaPeriod int

const (
	// QuotaNone: no quota.
	QuotaNone QuotaPeriod = iota
	// QuotaDay: UTC days.
	QuotaDay
	// QuotaWeek: UTC weeks, from Monday 00:00.
	QuotaWeek
	// QuotaMonth: UTC calendar months.
	QuotaMonth
)

// QuotaPeriods are the periods' names in scenario files (QuotaDay on).
var QuotaPeriods = []string{"day", "week", "month"}

// String is the period's name ("" for none).
func (q QuotaPeriod) String() string {
	if q == QuotaNone {
		return ""
	}
	return QuotaPeriods[q-1]
}

// apiGatewayThrottled and apiGatewayQuotaExceeded are the words API Gateway's
// access log gives a refusal ($context.error.responseType); both are answered
// 429 (Too Many Requests and Limit Exceeded).
const (
	apiGatewayThrottled     = "THROTTLED"
	apiGatewayQuotaExceeded = "QUOTA_EXCEEDED"
)

// CheckAPIGatewayPolicy refuses a usage plan API Gateway would not take: a
// quota needs a limit and a period both, and its offset is from 0 to the limit.
func CheckAPIGatewayPolicy(_ Policy, o Options) error {
	switch {
	case o.QuotaLimit < 0:
		return &OptionError{"quota_limit", fmt.Errorf("quota_limit must be >= 1 (got %d); leave it out for no quota", o.QuotaLimit)}
	case o.QuotaLimit > 0 && o.QuotaPeriod == QuotaNone:
		return &OptionError{"quota_limit", fmt.Errorf("quota_limit = %d needs quota_period = \"day\", \"week\" or \"month\"", o.QuotaLimit)}
	case o.QuotaLimit == 0 && o.QuotaPeriod != QuotaNone:
		return &OptionError{"quota_period", fmt.Errorf("quota_period = %q needs quota_limit, the requests allowed per %s", o.QuotaPeriod, o.QuotaPeriod)}
	case o.QuotaOffset < 0 || o.QuotaOffset > o.QuotaLimit:
		return &OptionError{"quota_offset", fmt.Errorf("quota_offset must be from 0 to quota_limit (%d): the requests taken off the quota in the first period (got %d)", o.QuotaLimit, o.QuotaOffset)}
	}
	return nil
}

// apiGatewayStatus is API Gateway's answer to d: a request let through goes to
// the integration (200 here) and its error type is empty; a refusal is 429,
// THROTTLED when the key's bucket had no token (Remaining < 1), QUOTA_EXCEEDED
// when it had one but the quota was spent (the lane asks the bucket first).
func apiGatewayStatus(d Decision, _ Options) (int, string) {
	switch {
	case d.Allowed:
		return 200, ""
	case d.Remaining >= 1:
		return 429, apiGatewayQuotaExceeded
	}
	return 429, apiGatewayThrottled
}

// APIGateway is Amazon API Gateway's throttling of one scope (a usage plan's
// per-API-key limits, a stage's or a method's, or the account's per Region), one
// bucket per key, with a usage plan's quota. API Gateway publishes no code; the
// lane follows its developer guide (awsdocs/amazon-api-gateway-developer-guide:
// doc_source/api-gateway-request-throttling.md, api-gateway-api-usage-plans.md,
// at 13945642) and the API reference's QuotaSettings.
//
// Throttling: "the token bucket algorithm, where a token counts for a request":
// rateLimit = Limit / Period (tokens a second), burstLimit = Burst (the bucket's
// size); a new key's bucket is full. This is ratelab's token-bucket exactly (with
// its monotonic timestamp), a request of any cost taking one token: the lane
// decides as token-bucket does on requests of cost 1. The account's default,
// 10,000 a second with a burst of 5,000, gives the guide's examples: 10,000
// requests in the first millisecond, 5,000 served; 5,000 then 5,000 more at the
// 101st millisecond (from 100 ms), 6,000.
//
// Quota (quota_limit, quota_period, quota_offset): at most quota_limit requests
// per period, quota_limit − quota_offset in the initial one. The guide does not
// say where periods start; chosen: UTC calendar days, weeks from Monday 00:00,
// and months, with the run's origin at HeaderOrigin (2026-01-01T00:00:00Z, a
// Thursday): the initial period is the one it falls in, so a weekly quota's
// first period ends 2026-01-05, a monthly one's 2026-02-01. Nor does it say
// which check comes first; chosen: the bucket, then the quota. A request either
// passes both and takes a token and a unit of quota, or is refused and takes
// nothing.
//
// Decision: Remaining is the tokens left (a fraction), Limit the burst; a
// refusal's RetryAfter is until a token is there and, when the quota is spent,
// the next period with quota has begun; ResetAfter until the bucket is full and
// the quota used in the period is given back. A cost above the burst is
// accepted (one token), so the lane has no largest cost. Not modelled: the
// order of the scopes (per method, per key, stage, account: one lane is one
// scope; a multi-limit lane holds a request to several), API Gateway's
// best-effort and distributed counting, and the burst being a count of
// concurrent requests in the guide's wording.
//
// Time going backwards: the bucket as token-bucket (the balance as of its
// stored time); a request stamped in an earlier quota period than the key's
// counts in the key's period.
type APIGateway struct {
	bucket  *TokenBucket
	quota   int64
	offset  int64
	period  QuotaPeriod
	origin  time.Time
	initial int64 // the initial quota period, by its start in Unix seconds
	keyed[APIGatewayState]
}

// APIGatewayState is one key's bucket and its quota period's use.
type APIGatewayState struct {
	Bucket TokenState
	Period int64 // the quota period, by its start in Unix seconds
	Used   int64 // requests let through in it
}

// apiGatewayStateBytes is the bucket's two numbers, and with a quota two more.
const apiGatewayStateBytes = 16

// NewAPIGateway returns API Gateway's throttle at p's rate and burst, with a
// quota of quota requests per period (none when period is QuotaNone), offset
// fewer in the initial one; origin is the instant the run's origin stands for.
func NewAPIGateway(p Policy, quota int64, period QuotaPeriod, offset int64, origin time.Time) *APIGateway {
	a := &APIGateway{bucket: NewTokenBucket(p, true, 0), quota: quota, offset: offset, period: period, origin: origin, keyed: newKeyed[APIGatewayState]()}
	if period != QuotaNone {
		a.initial = a.periodOf(0)
	}
	return a
}

func (a *APIGateway) Algorithm() Name { return APIGatewayName }
func (a *APIGateway) Policy() Policy  { return a.bucket.policy }
func (a *APIGateway) StateBytes() int64 {
	per := int64(apiGatewayStateBytes)
	if a.period != QuotaNone {
		per += 16
	}
	return a.keyBytes + int64(a.Keys())*per
}

// periodOf is the start, in Unix seconds, of the UTC quota period holding n µs
// from the origin.
func (a *APIGateway) periodOf(n int64) int64 {
	t := a.origin.Add(fromMicros(n)).UTC()
	y, m, d := t.Date()
	switch a.period {
	case QuotaWeek:
		d -= (int(t.Weekday()) + 6) % 7 // back to Monday
	case QuotaMonth:
		d = 1
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix()
}

// next is the start of the quota period after the one starting at start.
func (a *APIGateway) next(start int64) int64 {
	t := time.Unix(start, 0).UTC()
	switch a.period {
	case QuotaWeek:
		return t.AddDate(0, 0, 7).Unix()
	case QuotaMonth:
		return t.AddDate(0, 1, 0).Unix()
	}
	return t.AddDate(0, 0, 1).Unix()
}

// micros is the µs from the origin at which Unix second s begins.
func (a *APIGateway) micros(s int64) int64 { return toMicros(time.Unix(s, 0).Sub(a.origin)) }

// allowance is the quota of the period starting at start.
func (a *APIGateway) allowance(start int64) int64 {
	if start == a.initial {
		return a.quota - a.offset
	}
	return a.quota
}

// fresh is a key API Gateway has not seen.
func (a *APIGateway) fresh(n int64) APIGatewayState {
	s := APIGatewayState{Bucket: TokenState{Credits: a.bucket.c.capacity, Last: n}}
	if a.period != QuotaNone {
		s.Period = a.periodOf(n)
	}
	return s
}

// decide decides on *s and updates it in place.
func (a *APIGateway) decide(s *APIGatewayState, key string, n int64) Decision {
	now := fromMicros(n)
	d, bucket := a.bucket.Decide(s.Bucket, key, now, 1)
	if a.period == QuotaNone {
		s.Bucket = bucket
		return d
	}
	period, used := s.Period, s.Used
	if p := a.periodOf(n); p > period { // an earlier period counts in the key's
		period, used = p, 0
	}
	spent := used >= a.allowance(period)
	switch {
	case d.Allowed && !spent:
		s.Bucket, s.Period, s.Used = bucket, period, used+1
	case d.Allowed: // a token was there; the quota is spent: nothing is taken
		d = Decision{Limit: a.bucket.policy.Burst, Remaining: a.bucket.c.units(a.bucket.c.refill(s.Bucket.Credits, n-s.Bucket.Last)),
			ResetAfter: a.tokensFull(s.Bucket, n), RetryAfter: jitter(a.untilQuota(period, n), JitterFactor(key, a.bucket.policy.RetryJitter))}
	default: // throttled; the bucket stores its refill, as token-bucket does
		s.Bucket = bucket
		if spent {
			d.RetryAfter = max(d.RetryAfter, jitter(a.untilQuota(period, n), JitterFactor(key, a.bucket.policy.RetryJitter)))
		}
	}
	if d.Allowed || used > 0 { // the quota used in the period comes back at its end
		d.ResetAfter = max(d.ResetAfter, fromMicros(a.micros(a.next(period))-n))
	}
	return d
}

// untilQuota is the µs from n until a period after the one starting at period
// has quota (the initial period may have none).
func (a *APIGateway) untilQuota(period, n int64) int64 {
	next := a.next(period)
	for a.allowance(next) < 1 {
		next = a.next(next)
	}
	return a.micros(next) - n
}

// tokensFull is how long until b is full at n, from n.
func (a *APIGateway) tokensFull(b TokenState, n int64) time.Duration {
	balance := a.bucket.c.refill(b.Credits, n-b.Last)
	if balance >= a.bucket.c.capacity {
		return 0
	}
	return fromMicros(a.bucket.stampedWait(max(0, b.Last-n), a.bucket.c.capacity-balance))
}

// Allow takes a token and a unit of quota for key's request, or refuses it.
func (a *APIGateway) Allow(key string, now time.Duration, _ int64) Decision {
	n := toMicros(now)
	s, ok := a.state(key)
	if !ok {
		f := a.fresh(n)
		s = a.add(key, &f)
	}
	return a.decide(s, key, n)
}

// Check is what Allow would decide, and changes nothing.
func (a *APIGateway) Check(key string, now time.Duration, _ int64) Decision {
	n := toMicros(now)
	s := a.fresh(n)
	if st, ok := a.state(key); ok {
		s = *st
	}
	return a.decide(&s, key, n)
}

// Level is the tokens in key's bucket at now.
func (a *APIGateway) Level(key string, now time.Duration) float64 {
	n := toMicros(now)
	s, ok := a.state(key)
	if !ok {
		return float64(a.bucket.policy.Burst)
	}
	return a.bucket.c.units(a.bucket.c.refill(s.Bucket.Credits, n-s.Bucket.Last))
}

// Evict forgets keys whose bucket is full at now and whose quota period, if
// they used any of it, is over.
func (a *APIGateway) Evict(now time.Duration) int {
	n := toMicros(now)
	return a.evict(func(s *APIGatewayState) bool {
		full := s.Bucket.Last <= n && a.bucket.c.refill(s.Bucket.Credits, n-s.Bucket.Last) == a.bucket.c.capacity
		return full && (a.period == QuotaNone || s.Used == 0 || a.periodOf(n) > s.Period)
	})
}
