// Package nginx reads an nginx.conf's limit_req (ngx_http_limit_req_module)
// into lanes: its zones (limit_req_zone), and every server and location that
// limits, with nginx's inheritance (a context without limit_req of its own
// takes its parent's; status, dry run and log level one by one), each limit
// in nginx's terms (rate, burst, nodelay, delay, dry run, status) and what
// identifies a client in a request log for it (its key). The file is parsed
// with gonginx and its includes are followed, each directive placed at the
// line nginx -t names.
//
// What nginx -t refuses is a *products.Error at its file:line, with the fix;
// what the file does that changes limiting and that ratelab does not model
// (limit_conn or limit_rate, a key set by a map, a return before the limits
// run, a subrequest) is a Warning at its file:line. The other way, a limit is
// written as nginx directives, for ratelab tune --target nginx.
package nginx

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// Info is nginx's ngx_http_limit_req_module, read from an nginx.conf.
var Info = &products.Info{Name: algorithms.NginxName, File: "an nginx.conf with its includes", Limiting: "limit_req in a server or location", SharedState: "zone",
	Detect: detect, Shows: "directives ending in ; and blocks in { }", Read: read, ByteOrderMark: markRefused, Lanes: lanes, KeyWarnings: keyWarnings,
	Target: &products.Target{Variants: []products.Variant{{Nodelay: true}, {}, {DelayHalf: true}}, Periods: []time.Duration{time.Second, time.Minute},
		Writable: "rate=Nr/s or rate=Nr/m (1s, 1m)", Period: products.OneOf(time.Second, time.Minute),
		MaxLimit: math.MaxInt64, MaxBurst: math.MaxInt64, Delays: true, Write: write}}

// markRefused is what nginx says of a file that begins with a byte-order
// mark: it reads the mark as part of the first directive's name
// (src/core/ngx_conf_file.c has no case for it; nginx 1.22 -t says unknown
// directive "\ufeffevents").
const markRefused = "unknown directive, the mark taken as part of the first directive's name"

// Limit is one limit_req directive with its zone, in nginx's terms, as
// ngx_http_limit_req_module.c (nginx 1.22; ngx_http_limit_req_zone,
// ngx_http_limit_req, ngx_http_limit_req_merge_conf) reads them:
//
//	limit_req_zone $binary_remote_addr zone=one:10m rate=30r/m;
//	limit_req zone=one burst=5 delay=2;   # or nodelay
//	limit_req_status 429; limit_req_dry_run on; limit_req_log_level warn;
type Limit struct {
	// Zone is the zone's name, ZonePlace its limit_req_zone line, ZoneSize
	// its shared memory in bytes.
	Zone      string
	ZonePlace products.Place
	ZoneSize  int64
	// Rate requests per Per: rate=Nr/s (Per a second) or rate=Nr/m (a
	// minute). nginx keeps Rate*1000/seconds(Per) milli-requests a second,
	// rounded down (RateMilli): 1r/m drains one request in 62.5 s.
	Rate int64
	Per  time.Duration
	// Burst is burst= (0 when not set): how many requests beyond the rate a
	// key may have in excess before it is refused.
	Burst int64
	// NoDelay is nodelay: no request within the burst waits. Delay is delay=N
	// (0 when not set): the first N excess requests pass at once, the rest of
	// the burst waits. Without either, every excess request waits. The last of
	// nodelay and delay= written wins, as nginx reads them.
	NoDelay bool
	Delay   int64
	// DryRun is limit_req_dry_run on: requests are counted as usual but none
	// is refused or delayed.
	DryRun bool
	// Status is limit_req_status (503 unless set): the refusal's status.
	Status int
	// LogLevel is limit_req_log_level (error unless set); delays are logged
	// one level lower. Informational: it decides nothing.
	LogLevel string
	// Sync is the zone's "sync" (NGINX Plus): the zone's state is shared
	// across a cluster. ratelab models one nginx; a Warning says so.
	Sync bool
}

// RateMilli is the rate as nginx keeps it: milli-requests a second, rounded
// down (ctx->rate = rate * 1000 / scale).
func (l Limit) RateMilli() int64 {
	return l.Rate * 1000 / int64(l.Per/time.Second)
}

// RateString is the rate as the file writes it: "30r/m".
func (l Limit) RateString() string {
	if l.Per == time.Minute {
		return fmt.Sprintf("%dr/m", l.Rate)
	}
	return fmt.Sprintf("%dr/s", l.Rate)
}

// String is l as a lane's description: "zone=one rate=30r/m burst=5 delay=2
// status=429".
func (l *Limit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "zone=%s rate=%s", l.Zone, l.RateString())
	if l.Burst > 0 {
		fmt.Fprintf(&b, " burst=%d", l.Burst)
	}
	if l.NoDelay {
		b.WriteString(" nodelay")
	}
	if l.Delay > 0 {
		fmt.Fprintf(&b, " delay=%d", l.Delay)
	}
	if l.DryRun {
		b.WriteString(" dry_run")
	}
	fmt.Fprintf(&b, " status=%d", l.Status)
	if l.LogLevel != "error" {
		fmt.Fprintf(&b, " log=%s", l.LogLevel)
	}
	if l.Sync {
		b.WriteString(" sync")
	}
	return b.String()
}

// ZoneCapacity estimates how many keys of keyBytes bytes the zone holds: each
// key takes a node of 80 bytes plus the key (ngx_rbtree_node_t up to color and
// ngx_http_limit_req_node_t up to data, on a 64-bit build), rounded up to the
// slab allocator's power of two, on pages of 4 KiB that each cost a 24-byte
// descriptor. That gives about 8,000 states in a megabyte for
// $binary_remote_addr, as the module's documentation says ("about 8 thousand
// 128-byte states"). When more keys than this are active at once, nginx frees
// the least recently used key to make room (ngx_http_limit_req_expire(ctx,
// 0)): the evicted key starts again from no excess, so it is let through as a
// new one; if even that fails the request is refused with the limit's status.
func (l Limit) ZoneCapacity(keyBytes int) int64 {
	const page, pageDesc = 4096, 24
	node := int64(80 + max(keyBytes, 1))
	chunk := int64(8)
	for chunk < node {
		chunk *= 2
	}
	pages := (l.ZoneSize - 2*page) / (page + pageDesc)
	if chunk > page/2 {
		return max(pages*page/chunk, 0) // a key this long takes whole pages
	}
	return max(pages*(page/chunk), 0)
}

// zoneMinSize is the smallest zone nginx accepts: eight pages of 4 KiB.
const zoneMinSize = 8 * 4096
