// Package apigateway reads Amazon API Gateway's throttling into lanes, from
// the JSON the API (and aws apigateway get-usage-plan, get-usage-plans,
// get-stage) writes: a usage plan's throttle (rateLimit, burstLimit) and
// quota, its apiStages' per-method throttles, and a stage's methodSettings,
// each throttle a lane of the token bucket API Gateway keeps, a usage plan's
// per API key and a stage's for every client together.
//
// A field the API does not have, or a value it refuses, is a
// *products.Error at its line with the fix; what the lanes do not model (a
// method held to its own and its plan's throttles) is a Warning at its line.
// The other way, a limit is written as a usage plan's JSON, for ratelab tune
// --target api-gateway.
package apigateway

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// Info is Amazon API Gateway's throttling, read from the JSON of a usage
// plan (throttle, quota, apiStages) or a stage (methodSettings).
var Info = &products.Info{Name: algorithms.APIGatewayName, File: "an API Gateway usage plan's or stage's JSON", Limiting: "throttle with a rateLimit",
	Detect: detect, Shows: "throttle, rateLimit, burstLimit", Read: read, Lanes: lanes,
	Target: &products.Target{Periods: []time.Duration{time.Second}, Writable: "rateLimit, requests a second (1s)", Period: products.OneOf(time.Second),
		MaxLimit: 1e9, MaxBurst: math.MaxInt32, Write: write}}

// Limit is a throttle of API Gateway (rateLimit requests a second,
// burstLimit the bucket) and a usage plan's quota.
type Limit struct {
	Scope string // "usage plan NAME", "stage NAME", "method /path/GET"
	// RateMilli is rateLimit in thousandths of a request a second.
	RateMilli   int64
	Burst       int64
	QuotaLimit  int64
	QuotaPeriod string // DAY, WEEK or MONTH; "" without a quota
	QuotaOffset int64
}

// String is l as a lane's description: "rate=10r/s burst=20 quota=5000/MONTH offset=0".
func (l *Limit) String() string {
	s := fmt.Sprintf("rate=%gr/s burst=%d", float64(l.RateMilli)/1000, l.Burst)
	if l.QuotaPeriod != "" {
		s += fmt.Sprintf(" quota=%d/%s offset=%d", l.QuotaLimit, l.QuotaPeriod, l.QuotaOffset)
	}
	return s
}

// detect finds a JSON document with a usage plan's throttle,
// rateLimit or burstLimit, or a stage's throttlingRateLimit or
// methodSettings.
func detect(data []byte) products.Sign {
	if !products.OpensJSON(data) {
		return products.Sign{}
	}
	for _, field := range []string{`"throttle"`, `"rateLimit"`, `"burstLimit"`, `"throttlingRateLimit"`, `"methodSettings"`} {
		if bytes.Contains(data, []byte(field)) {
			return products.Sign{Mark: products.StrongMark}
		}
	}
	return products.Sign{}
}

// reader reads the JSON.
type reader struct{ products.Reader }
