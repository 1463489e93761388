// Package envoy reads Envoy's two rate limits into lanes: the local rate
// limit filter (envoy.filters.http.local_ratelimit), from Envoy's YAML — its
// LocalRateLimit typed_config wherever it is, its token buckets in the order
// Envoy takes them — and the rate limit service Envoy's global filter asks
// (envoyproxy/ratelimit), from the service's YAML — its domain and nested
// descriptors, each rate_limit a lane. They share Envoy's protobuf YAML
// (durations, fractions) and its descriptors.
//
// A field the product does not have, or a value it refuses, is a
// *products.Error at its line with the fix; what the lanes do not model
// (which requests carry a descriptor, filter_enabled below 100%, a bucket per
// connection) is a Warning at its line. The other way, a limit is written as
// the filter's or the service's YAML, for ratelab tune --target envoy-local
// and envoy-global.
package envoy

import (
	"math"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/products"
)

// Local is Envoy's local rate limit filter
// (envoy.filters.http.local_ratelimit), read from Envoy's YAML: its
// LocalRateLimit typed_config wherever it is (a listener's http_filters, a
// route's typed_per_filter_config, or the typed_config alone).
var Local = &products.Info{Syncs: localSyncs, Name: algorithms.EnvoyLocalName, File: "Envoy's YAML", Limiting: "LocalRateLimit with a token_bucket or descriptors and filter_enabled above 0%",
	Detect: detectLocal, Shows: "a LocalRateLimit typed_config", Read: readLocal, Lanes: localLanes,
	Target: &products.Target{Writable: "a fill_interval of 50ms or more, in whole milliseconds",
		Period:   func(d time.Duration) bool { return d >= 50*time.Millisecond && d%time.Millisecond == 0 },
		MaxLimit: math.MaxUint32, MaxBurst: math.MaxUint32, Write: writeLocal}}

// Global is envoyproxy/ratelimit, the rate limit service Envoy's global
// filter asks, read from the service's YAML (domain, descriptors).
var Global = &products.Info{Syncs: globalSyncs, Name: algorithms.EnvoyGlobalName, File: "the rate limit service's YAML", Limiting: "descriptor with a rate_limit of requests_per_unit above 0",
	Detect: detectGlobal, Shows: "domain and descriptors", Read: readGlobal, Lanes: globalLanes,
	Target: &products.Target{Writable: "unit second, minute, hour or day (1s, 1m, 1h, 24h)",
		Period: products.OneOf(time.Second, time.Minute, time.Hour, 24*time.Hour), MaxLimit: math.MaxUint32, Write: writeGlobal}}

// reader reads Envoy's and the rate limit service's YAML.
type reader struct{ products.Reader }

// localSyncs: each Envoy's local rate limit is its own, or, with
// local_cluster_rate_limit, a request costs it the hosts of the local cluster
// it last saw in tokens (source/extensions/filters/common/local_ratelimit/
// local_ratelimit_impl.cc at 0419ded4: share_factor = 1 / hosts).
func localSyncs(algorithms.Options) []deploy.Protocol {
	return []deploy.Protocol{deploy.Local, deploy.Share}
}

// globalSyncs: every Envoy asks the one rate limit service, whose counters
// are in one Redis.
func globalSyncs(algorithms.Options) []deploy.Protocol { return []deploy.Protocol{deploy.Central} }
