package algorithms

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every family, with one policy and with several: the draft carries a member per
// policy in both fields; the legacy trio and the X- family carry the one closest
// to being reached; Retry-After comes on a denial only, and never for a request
// that could never pass.
func TestHeaderFamilies(t *testing.T) {
	rpm := Quota{Name: "requests", Policy: Policy{Limit: 60, Period: time.Minute},
		Decision: Decision{Allowed: true, Remaining: 41, ResetAfter: 19 * time.Second}}
	tpm := Quota{Name: "tokens", Policy: Policy{Limit: 100000, Period: time.Minute, Burst: 20000},
		Decision: Decision{Remaining: 1500.5, RetryAfter: 1200 * time.Millisecond, ResetAfter: 11*time.Second + time.Microsecond}}
	denied := Decision{RetryAfter: 1200 * time.Millisecond}
	allowed := Decision{Allowed: true}
	at := 90*time.Second + 500*time.Millisecond
	origin := HeaderOrigin.Unix() // 2026-01-01T00:00:00Z
	for _, tc := range []struct {
		name   string
		family HeaderFamily
		d      Decision
		quotas []Quota
		want   []string
	}{
		{"draft, one", HeadersDraft, allowed, []Quota{rpm},
			[]string{`RateLimit-Policy: "requests";q=60;w=60`, `RateLimit: "requests";r=41;t=19`}},
		{"draft, several", HeadersDraft, denied, []Quota{rpm, tpm},
			[]string{`RateLimit-Policy: "requests";q=60;w=60, "tokens";q=100000;w=60`, `RateLimit: "requests";r=41;t=19, "tokens";r=1500;t=12`, "Retry-After: 2"}},
		{"legacy, the closest", HeadersLegacy, denied, []Quota{rpm, tpm},
			[]string{"RateLimit-Limit: 100000", "RateLimit-Remaining: 1500", "RateLimit-Reset: 12", "Retry-After: 2"}},
		{"x-ratelimit, the closest", HeadersX, denied, []Quota{rpm, tpm},
			[]string{"X-RateLimit-Limit: 100000", "X-RateLimit-Remaining: 1500", "X-RateLimit-Reset: " + itoa(origin+91+12), "X-RateLimit-Used: 98500", "X-RateLimit-Resource: tokens", "Retry-After: 2"}},
		{"x-ratelimit, one", HeadersX, allowed, []Quota{rpm},
			[]string{"X-RateLimit-Limit: 60", "X-RateLimit-Remaining: 41", "X-RateLimit-Reset: " + itoa(origin+91+19), "X-RateLimit-Used: 19", "X-RateLimit-Resource: requests"}},
		{"spring: every response, no Retry-After", HeadersSpring, denied, []Quota{rpm},
			[]string{"X-RateLimit-Remaining: 41", "X-RateLimit-Replenish-Rate: 1", "X-RateLimit-Burst-Capacity: 60", "X-RateLimit-Requested-Tokens: 1"}},
		{"spring: 1 a minute is 60 tokens a request", HeadersSpring, allowed, []Quota{{Name: "slow", Policy: Policy{Limit: 1, Period: time.Minute}, Decision: Decision{Allowed: true, Remaining: 0.5}}},
			[]string{"X-RateLimit-Remaining: 30", "X-RateLimit-Replenish-Rate: 1", "X-RateLimit-Burst-Capacity: 60", "X-RateLimit-Requested-Tokens: 60"}},
		{"spring: Redis failed, let through", HeadersSpring, allowed, []Quota{{Name: "r", Policy: rpm.Policy, Decision: Decision{Allowed: true, OnError: true}}},
			[]string{"X-RateLimit-Remaining: -1", "X-RateLimit-Replenish-Rate: 1", "X-RateLimit-Burst-Capacity: 60", "X-RateLimit-Requested-Tokens: 1"}},
		{"never passes: no Retry-After", HeadersLegacy, Decision{RetryAfter: Forever}, []Quota{rpm},
			[]string{"RateLimit-Limit: 60", "RateLimit-Remaining: 41", "RateLimit-Reset: 19"}},
	} {
		var got []string
		for _, h := range tc.family.Render(at, tc.d, tc.quotas) {
			got = append(got, h.Name+": "+h.Value)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	for _, name := range HeaderFamilies {
		if f, ok := ParseHeaderFamily(name); !ok || f.String() != name {
			t.Errorf("ParseHeaderFamily(%q) = %v, %v", name, f, ok)
		}
	}
	if _, ok := ParseHeaderFamily("x-rate-limit"); ok {
		t.Error("an unknown family parsed")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
