package algorithms

// The kong lane's settings: its options, where its counters live
// (config.policy), its windows (config.second … config.year) and the schema's
// checks on them.

import (
	"fmt"
	"net/http"
	"time"
)

// kongOptions are the Kong lane's scenario keys.
var kongOptions = []Option{
	{Key: "kong_policy", Doc: `config.policy: "local" (default; counters in each node's shared dict, refusals not counted), "cluster" (in the database), "redis" (3.4+, sync_rate -1: every request counted in every window, refusals too)`,
		set: func(o Options) string { return setIf(o.KongPolicy != KongLocal, "kong_policy") }},
	{Key: "kong_windows", Doc: "more of the plugin's limits enforced with the policy's: { second, minute, hour, day, month, year = limit }; month and year are calendar windows (UTC); default none",
		set: func(o Options) string { return setIf(o.KongWindows != (KongWindows{}), "kong_windows") }},
	{Key: "kong_increment_delay", Doc: `local and cluster: how long after its decision a request's increment lands (ngx.timer.at), so requests in between read the count without it; default 0 (it lands before the next request)`,
		set: func(o Options) string { return setIf(o.KongIncrementDelay != 0, "kong_increment_delay") }},
	{Key: "hide_client_headers", Doc: "config.hide_client_headers: the responses carry none of the plugin's headers (X-RateLimit-*, RateLimit-*, Retry-After); default false",
		set: func(o Options) string { return setIf(o.HideClientHeaders, "hide_client_headers") }},
	{Key: "deny_status", Doc: "the HTTP status of a refusal, config.error_code (400 to 599, what kong.response.error takes); default 429",
		set: func(o Options) string { return setIf(o.DenyStatus != 0, "deny_status") }},
}

// KongPolicy is where the Kong lane's counters live and when they count
// (config.policy).
type KongPolicy int

const (
	// KongLocal: each node's shared dict (ngx.shared), incremented by a timer
	// after an allowed request; refusals are not counted.
	KongLocal KongPolicy = iota
	// KongCluster: rows in the database, as local for the decisions; a row
	// expires its window's expiration.lua seconds after its insert (a month's
	// 30 days), never renewed, and is deleted by the next clean-up.
	KongCluster
	// KongRedis: Redis with sync_rate −1 (Kong 3.4+): reading the usage is an
	// INCR of every window, so every request counts, refusals too.
	KongRedis
)

// KongPolicies are the policies' names in scenario files.
var KongPolicies = []string{"local", "cluster", "redis"}

// String is the policy's name in scenario files.
func (k KongPolicy) String() string { return KongPolicies[k] }

// A Kong window, in the plugin's order (timestamp.lua: timestamp_table_fields).
const (
	KongSecond = iota
	KongMinute
	KongHour
	KongDay
	KongMonth
	KongYear
)

// KongWindows are limits per window (KongSecond…KongYear); 0: not set.
type KongWindows [6]int64

// KongWindowNames are the windows' names, as the plugin's config and headers
// spell them, in its order (schema.lua): the one list of them.
var KongWindowNames = [6]string{"second", "minute", "hour", "day", "month", "year"}

// kongExpiration is expiration.lua: each window's counter's lifetime in
// seconds, and the window length Reset counts from (a month is 30 days).
var kongExpiration = [6]int64{1, 60, 3600, 86400, 2592000, 31536000}

// kongStatus is the plugin's answer: the request goes on, or
// kong.response.error(error_code, error_message): config.error_code
// (deny_status, default 429) and the default error_message, "API rate limit
// exceeded".
func kongStatus(d Decision, o Options) (int, string) {
	if d.Allowed {
		return http.StatusOK, "forwarded"
	}
	if o.DenyStatus != 0 {
		return o.DenyStatus, "API rate limit exceeded"
	}
	return http.StatusTooManyRequests, "API rate limit exceeded"
}

// KongWindowOf is the plugin window a policy's period is: a second, a minute,
// an hour or a day; false for any other period (a month and a year are the
// calendar's, which a lane holds as kong_windows only).
func KongWindowOf(period time.Duration) (int, bool) {
	for w, s := range kongExpiration[:KongMonth] {
		if period == time.Duration(s)*time.Second {
			return w, true
		}
	}
	return 0, false
}

// KongWindowPeriod is window w's length when a policy's period can be it (a
// second, a minute, an hour or a day), else 0.
func KongWindowPeriod(w int) time.Duration {
	if w < KongMonth {
		return time.Duration(kongExpiration[w]) * time.Second
	}
	return 0
}

// kongLimits are every window's limit: the policy's and the options'.
func kongLimits(p Policy, o Options) (KongWindows, error) {
	p = p.WithDefaults()
	w, ok := KongWindowOf(p.Period)
	if !ok {
		return KongWindows{}, fmt.Errorf("period %s is not one of Kong's windows: the rate-limiting plugin counts per second, minute, hour and day (period \"1s\", \"1m\", \"1h\", \"24h\"), and per calendar month and year (kong_windows = { month = … })", p.Period)
	}
	limits := o.KongWindows
	if limits[w] != 0 {
		return limits, &OptionError{"kong_windows", fmt.Errorf("kong_windows sets %s, which the policy's period (%s) already is; set the limit there", KongWindowNames[w], p.Period)}
	}
	limits[w] = p.Limit
	return limits, nil
}

// checkKongPolicy is the plugin's schema: the policy's period a window of its
// own, and no longer window's limit below a shorter one's
// (validate_periods_order); and an error_code kong.response.error can send
// (kong/pdk/response.lua: 400 to 599; the schema takes any number above 0,
// and any other fails the access phase with a 500). An *OptionError when
// kong_windows or deny_status is at fault.
func checkKongPolicy(p Policy, o Options) error {
	if s := o.DenyStatus; s != 0 && (s < 400 || s > 599) {
		return &OptionError{"deny_status", fmt.Errorf("deny_status (config.error_code) must be from 400 to 599: Kong's schema takes any number above 0, but kong.response.error refuses one outside 400 to 599 and the request fails with a 500 (got %d)", s)}
	}
	limits, err := kongLimits(p, o)
	if err != nil {
		return err
	}
	for i, lower := range limits {
		for j := i + 1; j < len(limits) && lower != 0; j++ {
			if upper := limits[j]; upper != 0 && upper < lower {
				return &OptionError{"kong_windows", fmt.Errorf("the limit for %s(%d) cannot be lower than the limit for %s(%d), as Kong's schema has it", KongWindowNames[j], upper, KongWindowNames[i], lower)}
			}
		}
	}
	return nil
}
