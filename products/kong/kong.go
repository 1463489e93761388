// Package kong reads Kong's rate-limiting plugin into lanes, from a
// declarative configuration (kong.yml): every plugin named rate-limiting, at
// the top or under a service, route or consumer, its limits per window
// (second to year, enforced together), its policy (local, cluster, redis),
// error_code and limit_by, each enabled plugin a lane of the shortest of its
// second, minute, hour and day limits, the others its kong_windows.
//
// A field the plugin's schema does not have, or a value it refuses (a window
// lower than a shorter one's), is a *products.Error at its line with the fix;
// what the lane does not model (a plugin on one service or route, limit_by a
// header, sync_rate's batches) is a Warning at its line. The other way, a
// limit is written as the plugin's YAML, for ratelab tune --target kong.
package kong

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/products"
)

// Info is Kong's rate-limiting plugin, read from a declarative configuration
// (kong.yml).
var Info = &products.Info{Syncs: syncs, Name: algorithms.KongName, File: "Kong's declarative kong.yml", Limiting: "rate-limiting plugin with a second, minute, hour or day limit",
	Detect: detect, Shows: "_format_version", Read: read, Lanes: lanes,
	Target: &products.Target{Writable: "second, minute, hour or day windows (1s, 1m, 1h, 24h)",
		Period: func(d time.Duration) bool { _, ok := algorithms.KongWindowOf(d); return ok }, MaxLimit: math.MaxInt64, Write: write}}

// Limit is a rate-limiting plugin: its limits per window (second to
// year; 0 unset), its policy and error_code.
type Limit struct {
	Plugin  string
	Windows [6]int64
	Policy  string // local, cluster or redis
	Status  int    // error_code; 429 by default
	// HideClientHeaders is hide_client_headers: no rate-limit header sent.
	HideClientHeaders bool
}

// String is l as a lane's description: "minute=6 policy=local status=429".
func (l *Limit) String() string {
	var b strings.Builder
	for w, n := range l.Windows {
		if n > 0 {
			fmt.Fprintf(&b, "%s=%d ", algorithms.KongWindowNames[w], n)
		}
	}
	fmt.Fprintf(&b, "policy=%s status=%d", l.Policy, l.Status)
	return b.String()
}

// detect finds a declarative configuration's _format_version, or a
// plugin named rate-limiting.
func detect(data []byte) products.Sign {
	if bytes.Contains(data, []byte("_format_version")) || bytes.Contains(data, []byte("name: rate-limiting")) {
		return products.Sign{Mark: products.StrongMark}
	}
	return products.Sign{}
}

// reader reads a declarative configuration.
type reader struct{ products.Reader }

// syncs are how Kong's nodes share a policy's counters
// (kong/plugins/rate-limiting/policies/init.lua at 22246ef2): local, each
// node's own shared dict; cluster, one database row every node reads and
// increments; redis with sync_rate −1, one Redis counter; redis with
// sync_rate > 0, each worker's cached count and deltas pushed every
// sync_rate (schema.lua allows sync_rate with redis only).
func syncs(o algorithms.Options) []deploy.Protocol {
	switch o.KongPolicy {
	case algorithms.KongCluster:
		return []deploy.Protocol{deploy.Central}
	case algorithms.KongRedis:
		return []deploy.Protocol{deploy.Central, deploy.KongSync, deploy.KongSyncPre11859}
	}
	return []deploy.Protocol{deploy.Local}
}
