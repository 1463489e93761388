// Package haproxy reads a haproxy.cfg's rate limits into lanes: its sections,
// its stick tables (a proxy's, a peers section's) and the http-request rules
// that refuse a request when a table's http_req_rate is above a threshold,
// with the order of track-sc and deny (whether a refused request counts),
// the table's period and expire and the refusal's status, and what identifies
// a client in a request log for each (its key), as HAProxy 2.6 reads them.
//
// What haproxy -c refuses is a *products.Error at its file:line, with the
// fix; what the file does that changes limiting and that ratelab does not
// model (HAProxy's other counters, tarpit's wait, conditions that combine
// ACLs, tables shared with peers) is a Warning at its file:line. The other
// way, a limit is written as haproxy.cfg lines, for ratelab tune --target
// haproxy.
package haproxy

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/deploy"
	"ratelab/products"
)

// Info is HAProxy's stick tables with http_req_rate, read from a haproxy.cfg.
var Info = &products.Info{Syncs: syncs, Name: algorithms.HAProxyName, File: "a haproxy.cfg", Limiting: "http-request deny on http_req_rate", SharedState: "stick table",
	Detect: detect, Shows: "sections: global, defaults, frontend, backend, listen", Read: read, ByteOrderMark: markRefused, Lanes: lanes, KeyWarnings: keyWarnings,
	Target: &products.Target{Variants: []products.Variant{{TrackSC: algorithms.TrackBeforeDeny}, {TrackSC: algorithms.TrackAfterDeny}},
		Periods: []time.Duration{time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour}, Writable: "http_req_rate(<period>) in whole milliseconds",
		Period: func(d time.Duration) bool { return d%time.Millisecond == 0 && d <= math.MaxInt32*time.Millisecond }, MaxLimit: math.MaxInt32, Write: write}}

// markRefused is what HAProxy says of a file that begins with a
// byte-order mark: it reads the mark as part of the first keyword
// (src/cfgparse.c has no case for it; HAProxy 2.6 -c says unknown keyword
// '\ufeffglobal' out of section).
const markRefused = "unknown keyword out of section, the mark taken as part of the first keyword"

// Limit is one rule that refuses a request when a stick table's
// http_req_rate is above a threshold, in HAProxy's terms, as HAProxy 2.6 reads
// it (doc/configuration.txt: stick-table, http-request track-sc0, http-request
// deny, sc_http_req_rate, src_http_req_rate; src/stick_table.c,
// src/http_act.c):
//
//	backend st_src
//	    stick-table type ip size 1m expire 30s store http_req_rate(10s)
//	frontend fe
//	    http-request track-sc0 src table st_src
//	    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 100 }
type Limit struct {
	// Table is the stick table the rate is read from: a proxy's name, or
	// peers/name for a table of a peers section. TablePlace is its
	// stick-table line.
	Table      string
	TablePlace products.Place
	// TableType is its key type (ip, ipv6, integer, string, binary) and
	// TableSize the most entries it holds; NoPurge says a full table refuses
	// new entries instead of purging the oldest; Peers names the peers
	// section it is replicated to ("" for none).
	TableType string
	TableSize int64
	NoPurge   bool
	Peers     string
	// Period is http_req_rate(<period>): the rate is requests over this long,
	// counted in fixed periods aligned to the entry's first request, the
	// previous period weighted by the share of the current one still ahead.
	Period time.Duration
	// Expire is the table's expire: an entry not refreshed by a track-sc rule
	// for this long is removed (and starts from zero). 0: never, until the
	// table is full.
	Expire time.Duration
	// Fetch is the rate as the rule reads it: sc_http_req_rate(0),
	// sc0_http_req_rate, src_http_req_rate(st_src), or a key converted by
	// table_http_req_rate(st_src).
	Fetch string
	// Op and Threshold say when the rule refuses: Op "gt" (rate > Threshold)
	// or "ge" (rate >= Threshold), with a negation or unless undone
	// (unless { … le 10 } is gt 10). Cond is the condition as written.
	Op        string
	Threshold int64
	Cond      string
	// Counted says the request is counted before the rule reads the rate (a
	// track-sc rule for this table and key runs first: an earlier
	// http-request track-sc, or any tcp-request track-sc): the rate read
	// includes the request itself, and a refused request counts, so a
	// client that keeps sending over the limit stays refused. When false the
	// rule looks the rate up without counting (src_http_req_rate with the
	// track-sc rule after it, or none): refused requests do not count.
	Counted bool
	// Track is the track-sc rule that counts this key in the table (zero
	// when none does before the rule); Counter its sticky counter (0 to 2),
	// -1 for a lookup by src_http_req_rate or table_http_req_rate.
	Track   products.Place
	Counter int
	// Action is what the rule does: deny, tarpit, reject, silent-drop or
	// return. Status is the response's status (deny's deny_status, 403
	// unless set; tarpit's 500; return's status, 200 unless set); 0 for
	// reject and silent-drop, which close the connection without one.
	Action string
	Status int
}

// Passes is the highest rate the rule lets through: Threshold for gt,
// Threshold-1 for ge.
func (l Limit) Passes() int64 {
	if l.Op == "ge" {
		return l.Threshold - 1
	}
	return l.Threshold
}

// String is l as a lane's description: "table=st period=10s gt 100 counted
// sc0 expire=30s deny 429".
func (l *Limit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "table=%s period=%s %s %d", l.Table, l.Period, l.Op, l.Threshold)
	if l.Counted {
		b.WriteString(" counted")
	} else {
		b.WriteString(" not-counted")
	}
	if l.Counter >= 0 {
		fmt.Fprintf(&b, " sc%d", l.Counter)
	}
	if l.Expire > 0 {
		fmt.Fprintf(&b, " expire=%s", l.Expire)
	}
	fmt.Fprintf(&b, " %s", l.Action)
	if l.Status > 0 {
		fmt.Fprintf(&b, " %d", l.Status)
	}
	return b.String()
}

// syncs: each HAProxy keeps its stick tables in its own memory, and a peers
// section pushes the entries it touches to the others, which overwrite theirs
// (src/peers.c at 50872daa); with one table per server, the deny rule adding
// their rates, no count is overwritten.
func syncs(algorithms.Options) []deploy.Protocol {
	return []deploy.Protocol{deploy.Local, deploy.HAProxyPeers, deploy.HAProxyPeersSum}
}
