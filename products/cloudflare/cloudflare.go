// Package cloudflare reads Cloudflare's rate limiting rules into lanes, from
// the JSON of the Rulesets API (a response, a ruleset, a list of rules or one
// rule of the http_ratelimit phase): each enabled rule with a ratelimit, its
// requests_per_period per period, mitigation_timeout, action and status, and
// what identifies a client in a request log for it (its characteristics).
//
// A field the Rulesets API does not have, or a value Cloudflare refuses, is a
// *products.Error at its line with the fix; what the lane does not model (the
// rule's expression and counting_expression, a challenge, requests_to_origin)
// is a Warning at its line. The other way, a limit is written as a rule's
// JSON, for ratelab tune --target cloudflare.
package cloudflare

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// Info is Cloudflare's rate limiting rules, read from the JSON of the
// Rulesets API (a ruleset, its rules, or one rule).
var Info = &products.Info{Name: algorithms.CloudflareName, File: "a Cloudflare rule's JSON", Limiting: "rule with a ratelimit",
	Detect: detect, Shows: "requests_per_period", Read: read, Lanes: lanes,
	Target: &products.Target{Variants: []products.Variant{{}, {MitigationPeriods: 1}}, Periods: []time.Duration{10 * time.Second, time.Minute, 10 * time.Minute, time.Hour},
		Writable: "a period of 10s, 15s, 20s, 30s, 40s, 45s, 1m, 90s, 2m, 3m, 4m, 5m, 8m, 10m, 15m, 20m, 30m, 40m, 1h, 65535s or 24h (which ones depends on the plan: Free 10s only, Pro up to 1m, Business up to 10m)",
		Period:   writesPeriod, MaxLimit: math.MaxInt32, Write: write}}

// writesPeriod says a rule can count over d, as Cloudflare takes a period.
func writesPeriod(d time.Duration) bool {
	return algorithms.CheckCloudflarePolicy(algorithms.Policy{Limit: 1, Period: d}, algorithms.Options{}) == nil
}

// Limit is one rate limiting rule: requests_per_period per period
// for each value of its characteristics, the action and the mitigation
// timeout.
type Limit struct {
	Rule              string // its description, ref or id
	Period            time.Duration
	RequestsPerPeriod int64
	MitigationTimeout time.Duration
	Action            string
	Status            int // response.status_code; 429 by default
	Characteristics   []string
}

// String is l as a lane's description: "10/1m0s timeout=1m0s block 429 by=cf.colo.id,ip.src".
func (l *Limit) String() string {
	return fmt.Sprintf("%d/%s timeout=%s %s %d by=%s", l.RequestsPerPeriod, l.Period, l.MitigationTimeout, l.Action, l.Status, strings.Join(l.Characteristics, ","))
}

// detect finds a JSON document with a rule's requests_per_period or
// mitigation_timeout.
func detect(data []byte) products.Sign {
	if products.OpensJSON(data) && (bytes.Contains(data, []byte(`"requests_per_period"`)) || bytes.Contains(data, []byte(`"mitigation_timeout"`))) {
		return products.Sign{Mark: products.StrongMark}
	}
	return products.Sign{}
}

// reader reads the JSON.
type reader struct{ products.Reader }
