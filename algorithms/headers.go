package algorithms

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Header is one HTTP response header, name and value.
type Header struct{ Name, Value string }

// HeaderFamily is the set of response fields a server uses to tell a client about
// its rate limits. Each family reports the same decision; they differ in names,
// in units, and in how many policies one response can carry.
type HeaderFamily int

const (
	// HeadersDraft: RateLimit-Policy and RateLimit, as in
	// draft-ietf-httpapi-ratelimit-headers (draft 11). Both are structured-field
	// lists with a member per policy, so a response carries every limit it was
	// held to: RateLimit-Policy: "name";q=<quota>;w=<window in seconds>, and
	// RateLimit: "name";r=<remaining>;t=<seconds until reset>.
	HeadersDraft HeaderFamily = iota
	// HeadersLegacy: RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset
	// (delta seconds), as in the drafts up to 06: one limit per response, the one
	// closest to being reached.
	HeadersLegacy
	// HeadersX: the X-RateLimit-* family many APIs still send, as GitHub does:
	// X-RateLimit-Limit, -Remaining, -Reset (the reset as epoch seconds), -Used
	// (limit − remaining) and -Resource (the policy's name); one limit per
	// response, the one closest to being reached.
	HeadersX
	// HeadersEnvoy: what Envoy's ratelimit filter sends with
	// enable_x_ratelimit_headers: DRAFT_VERSION_03 (source/extensions/filters/
	// http/ratelimit/ratelimit_headers.cc at 9339410b, XRateLimitHeaderUtils::
	// create): x-ratelimit-limit, the requests_per_unit of the policy with the
	// least remaining then, per policy, ", <limit>;w=<unit in seconds>" and
	// ";name=\"<its name>\"" when it has one (a unit Envoy does not convert, a
	// week or any period not a second, minute, hour, day, 30-day month or
	// 365-day year, gives no member); x-ratelimit-remaining and
	// x-ratelimit-reset (seconds) of that policy. No Retry-After.
	HeadersEnvoy
	// HeadersSpring: what Spring Cloud Gateway's RedisRateLimiter sends on every
	// response, allowed or not (RedisRateLimiter.getHeaders): X-RateLimit-Remaining
	// (the tokens its script returned; −1 when Redis failed and it let the request
	// through), X-RateLimit-Replenish-Rate, X-RateLimit-Burst-Capacity and
	// X-RateLimit-Requested-Tokens, the policy as SpringConfigOf states it; no
	// Retry-After.
	HeadersSpring
	// HeadersTraefik: what Traefik's rateLimit middleware sends, on a 429 only
	// (serveDelayError): X-Retry-In, the wait as a Go duration, and Retry-After,
	// the wait rounded up to the second. No header tells a client its remaining.
	HeadersTraefik
	// HeadersKong: what Kong's rate-limiting plugin sends on every response
	// (kong/plugins/rate-limiting/handler.lua at 22246ef2, access), unless
	// config.hide_client_headers: per window it enforces,
	// X-RateLimit-Limit-<Window> and X-RateLimit-Remaining-<Window> (Second,
	// Minute, Hour, Day, Month, Year: the quota's period, a month 30 days, a
	// year 365; a quota of any other period gives no pair); then
	// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset of the window
	// with the least remaining (ties to the longer window), and on a refusal
	// Retry-After, that Reset. A kong lane's decisions carry each window's
	// remaining (Decision.Windows); another lane's quotas are its policies.
	HeadersKong
)

// HeaderFamilies are the families' names in scenario files.
var HeaderFamilies = []string{"draft", "legacy", "x-ratelimit", "envoy", "spring", "traefik", "kong"}

// String is the family's name.
func (f HeaderFamily) String() string { return HeaderFamilies[f] }

// Paces says the family tells a client both what remains of its quota and
// when the quota resets, what a client that honours the RateLimit field paces
// by: every family but Spring's (no reset) and Traefik's (no remaining).
func (f HeaderFamily) Paces() bool { return f != HeadersSpring && f != HeadersTraefik }

// RemainingOf is the remaining a response's fields write: whole units, never
// below 0 (RateLimit's r).
func RemainingOf(d Decision) int64 { return remainingOf(d) }

// ParseHeaderFamily reads a family's name.
func ParseHeaderFamily(name string) (HeaderFamily, bool) {
	for i, n := range HeaderFamilies {
		if n == name {
			return HeaderFamily(i), true
		}
	}
	return 0, false
}

// Names are the fields family f sends, in order, Retry-After last.
func (f HeaderFamily) Names() []string {
	names := [][]string{
		HeadersDraft:   {"RateLimit-Policy", "RateLimit"},
		HeadersLegacy:  {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"},
		HeadersX:       {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Used", "X-RateLimit-Resource"},
		HeadersEnvoy:   {"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"},
		HeadersSpring:  {"X-RateLimit-Remaining", "X-RateLimit-Replenish-Rate", "X-RateLimit-Burst-Capacity", "X-RateLimit-Requested-Tokens"},
		HeadersTraefik: {"X-Retry-In"},
		HeadersKong:    kongHeaderNames(),
	}[f]
	return append(append([]string(nil), names...), "Retry-After")
}

// HeaderOrigin is the wall-clock instant the run's virtual origin stands for in
// headers that carry absolute times (X-RateLimit-Reset): 2026-01-01T00:00:00Z,
// the instant the x-time-rate lane maps the origin to.
var HeaderOrigin = xOrigin

// Quota is one policy a response reports on: its name (the tier, or the limit's),
// the policy, and the decision it made for the request.
type Quota struct {
	Name     string
	Policy   Policy
	Decision Decision
}

// Headers renders d as the headers a server enforcing p under the policy name would
// send, in the draft family (see HeaderFamily.Render).
func Headers(name string, p Policy, d Decision) []Header {
	return HeadersDraft.Render(0, d, []Quota{{Name: name, Policy: p, Decision: d}})
}

// Render is the headers of a response in family f: d is the response's decision
// (allowed or not, and its retry-after), quotas every policy the request was held
// to (at least one), now when it was decided (for absolute times). In every family:
//
//   - a policy's window is its period in whole seconds; a period that is not is
//     rounded up, and the quota with it, to the same rate;
//   - remaining is whole units, at least 0; reset is seconds, rounded up;
//   - Retry-After: <seconds, rounded up> (RFC 9110) comes last, on a denial only,
//     and not when the request could never be accepted.
func (f HeaderFamily) Render(now time.Duration, d Decision, quotas []Quota) []Header {
	var h []Header
	switch f {
	case HeadersDraft:
		var policies, states []string
		for _, q := range quotas {
			quota, window := quotaOf(q.Policy)
			policies = append(policies, fmt.Sprintf("%q;q=%d;w=%d", q.Name, quota, window))
			states = append(states, fmt.Sprintf("%q;r=%d;t=%d", q.Name, remainingOf(q.Decision), ceilSeconds(q.Decision.ResetAfter)))
		}
		h = []Header{{"RateLimit-Policy", strings.Join(policies, ", ")}, {"RateLimit", strings.Join(states, ", ")}}
	case HeadersLegacy:
		q := closest(quotas)
		quota, _ := quotaOf(q.Policy)
		h = []Header{
			{"RateLimit-Limit", fmt.Sprint(quota)},
			{"RateLimit-Remaining", fmt.Sprint(remainingOf(q.Decision))},
			{"RateLimit-Reset", fmt.Sprint(ceilSeconds(q.Decision.ResetAfter))},
		}
	case HeadersX:
		q := closest(quotas)
		quota, _ := quotaOf(q.Policy)
		left := remainingOf(q.Decision)
		reset := HeaderOrigin.Add(now).Add(time.Duration(ceilSeconds(q.Decision.ResetAfter)) * time.Second)
		h = []Header{
			{"X-RateLimit-Limit", fmt.Sprint(quota)},
			{"X-RateLimit-Remaining", fmt.Sprint(left)},
			{"X-RateLimit-Reset", fmt.Sprint(ceilDiv(reset.UnixNano(), int64(time.Second)))},
			{"X-RateLimit-Used", fmt.Sprint(max(0, quota-left))},
			{"X-RateLimit-Resource", q.Name},
		}
	case HeadersEnvoy:
		return envoyHeaders(quotas)
	case HeadersTraefik:
		if !d.Allowed && d.RetryAfter != Forever {
			h = []Header{{"X-Retry-In", d.RetryAfter.String()}}
		}
	case HeadersKong:
		h = kongHeaders(quotas)
	case HeadersSpring:
		q := closest(quotas)
		c := SpringConfigOf(q.Policy)
		left := springTokens(q.Decision, c)
		return []Header{
			{"X-RateLimit-Remaining", fmt.Sprint(left)},
			{"X-RateLimit-Replenish-Rate", fmt.Sprint(c.ReplenishRate)},
			{"X-RateLimit-Burst-Capacity", fmt.Sprint(c.BurstCapacity)},
			{"X-RateLimit-Requested-Tokens", fmt.Sprint(c.RequestedTokens)},
		}
	}
	if !d.Allowed && d.RetryAfter != Forever {
		h = append(h, Header{"Retry-After", fmt.Sprint(ceilSeconds(d.RetryAfter))})
	}
	return h
}

// quotaOf is p as a quota over a window of whole seconds.
func quotaOf(p Policy) (quota, window int64) {
	p = p.WithDefaults()
	window = int64(math.Ceil(p.Period.Seconds()))
	quota = p.Limit
	if time.Duration(window)*time.Second != p.Period {
		quota = int64(math.Ceil(float64(p.Limit) * float64(window) / p.Period.Seconds()))
	}
	return quota, window
}

// remainingOf is a decision's remaining in whole units, at least 0.
func remainingOf(d Decision) int64 { return int64(max(0, math.Floor(d.Remaining))) }

// closest is the quota closest to being reached: the least remaining as a share of
// its quota (the first on a tie).
func closest(quotas []Quota) Quota {
	best, share := 0, math.Inf(1)
	for i, q := range quotas {
		quota, _ := quotaOf(q.Policy)
		if s := float64(remainingOf(q.Decision)) / float64(quota); s < share {
			best, share = i, s
		}
	}
	return quotas[best]
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 { return ceilDiv(int64(d), int64(time.Second)) }

// CeilSeconds is d in whole seconds, rounded up, as the headers write a wait
// (RateLimit's t, Retry-After).
func CeilSeconds(d time.Duration) int64 { return ceilSeconds(d) }

// springTokens is the tokens a decision leaves in Spring's count (Remaining is
// in units of cost, tokens / requestedTokens): whole tokens, rounded down for a
// lane that counts fractions; −1 when the store failed, as Spring reports its
// fail-open.
func springTokens(d Decision, c SpringConfig) int64 {
	if d.OnError {
		return -1
	}
	tokens := d.Remaining * float64(c.RequestedTokens)
	if whole := math.Round(tokens); math.Abs(tokens-whole) < 1e-6 {
		return int64(whole)
	}
	return int64(math.Floor(tokens))
}

// envoyHeaders are Envoy's DRAFT_VERSION_03 headers for quotas (HeadersEnvoy).
func envoyHeaders(quotas []Quota) []Header {
	least, policies := 0, ""
	for i, q := range quotas {
		if remainingOf(q.Decision) < remainingOf(quotas[least].Decision) {
			least = i
		}
		p := q.Policy.WithDefaults()
		window := int64(0) // XRateLimitHeaderUtils::convertRateLimitUnit
		for _, u := range envoyGlobalUnits {
			if u.name != "week" && p.Period == time.Duration(u.seconds)*time.Second {
				window = u.seconds
			}
		}
		if window == 0 {
			continue
		}
		policies += fmt.Sprintf(", %d;w=%d", p.Limit, window)
		if q.Name != "" {
			policies += fmt.Sprintf(";name=\"%s\"", q.Name)
		}
	}
	q := quotas[least]
	return []Header{
		{"x-ratelimit-limit", fmt.Sprint(q.Policy.Limit) + policies},
		{"x-ratelimit-remaining", fmt.Sprint(remainingOf(q.Decision))},
		{"x-ratelimit-reset", fmt.Sprint(ceilSeconds(q.Decision.ResetAfter))},
	}
}

// kongHeaderNames are HeadersKong's fields: each window's limit and
// remaining, then the RateLimit trio.
func kongHeaderNames() []string {
	var names []string
	for _, w := range KongWindowNames {
		names = append(names, "X-RateLimit-Limit-"+kongTitle(w), "X-RateLimit-Remaining-"+kongTitle(w))
	}
	return append(names, "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")
}

// kongTitle is a window's name as Kong's headers spell it ("Minute").
func kongTitle(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// kongHeaders are Kong's headers for quotas (HeadersKong), Retry-After
// aside: each quota's remaining is what the plugin shows (the request taken
// off, at least 0), its reset whole seconds, at least 1.
func kongHeaders(quotas []Quota) []Header {
	var h []Header
	chosen, period := -1, time.Duration(0)
	for i, q := range quotas {
		p := q.Policy.WithDefaults()
		r := remainingOf(q.Decision)
		if w := slices.IndexFunc(kongExpiration[:], func(s int64) bool { return p.Period == time.Duration(s)*time.Second }); w >= 0 {
			h = append(h, Header{"X-RateLimit-Limit-" + kongTitle(KongWindowNames[w]), fmt.Sprint(p.Limit)},
				Header{"X-RateLimit-Remaining-" + kongTitle(KongWindowNames[w]), fmt.Sprint(r)})
		}
		if c := chosen; c < 0 || r < remainingOf(quotas[c].Decision) || (r == remainingOf(quotas[c].Decision) && p.Period > period) {
			chosen, period = i, p.Period
		}
	}
	q := quotas[chosen]
	return append(h,
		Header{"RateLimit-Limit", fmt.Sprint(q.Policy.WithDefaults().Limit)},
		Header{"RateLimit-Remaining", fmt.Sprint(remainingOf(q.Decision))},
		Header{"RateLimit-Reset", fmt.Sprint(max(1, ceilSeconds(q.Decision.ResetAfter)))})
}
