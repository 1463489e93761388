package haproxy

import (
	"fmt"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
)

// keyFor is the track-sc key for a trace's key, and false for one
// HAProxy has no fetch for: ip is src, path is path, method is method; user
// is the header the user arrives in, which HAProxy reads as req.hdr(x-user)
// (name the one the application uses).
func keyFor(trace string) (string, bool) {
	switch strings.TrimSpace(trace) {
	case "ip", "host":
		return "src", true
	case "path":
		return "path", true
	case "method":
		return "method", true
	case "user":
		return "req.hdr(x-user)", true
	}
	return "", false
}

// tableType is the stick-table type for a track-sc key: ip for src,
// string for the others.
func tableType(key string) string {
	if key == "src" {
		return "ipv6" // holds IPv4 addresses too, mapped
	}
	return "string len 64"
}

// configLines writes l as haproxy.cfg lines: the backend that holds its
// stick table, and the frontend's rules (track-sc0, then the deny when
// l.Counted, else the deny reading src_http_req_rate first and the track
// after). key is the track-sc key; size the table's entries, as HAProxy writes
// it (1m, 100k).
func configLines(l Limit, key, size string) (backend, frontend []string) {
	backend = []string{"backend " + l.Table,
		fmt.Sprintf("    stick-table type %s size %s%s store http_req_rate(%s)", tableType(key), size, expireOption(l.Expire), formatTime(l.Period))}
	status := ""
	if l.Status != 0 && l.Status != 403 {
		status = fmt.Sprintf(" deny_status %d", l.Status)
	}
	track := fmt.Sprintf("    http-request track-sc0 %s table %s", key, l.Table)
	if l.Counted {
		return backend, []string{track, fmt.Sprintf("    http-request deny%s if { sc_http_req_rate(0) %s %d }", status, l.Op, l.Threshold)}
	}
	read := "src_http_req_rate(" + l.Table + ")"
	if key != "src" {
		read = key + ",table_http_req_rate(" + l.Table + ")"
	}
	return backend, []string{fmt.Sprintf("    http-request deny%s if { %s %s %d }", status, read, l.Op, l.Threshold), track}
}

// expireOption is a stick table's expire option for d; "" for none.
func expireOption(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return " expire " + formatTime(d)
}

// formatTime writes a duration in HAProxy's time syntax, in the largest unit
// that writes it whole: 10s, 1m, 1500ms.
func formatTime(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if d >= u.d && d%u.d == 0 {
			return fmt.Sprintf("%d%s", d/u.d, u.name)
		}
	}
	return fmt.Sprintf("%dus", d/time.Microsecond)
}

// tableSize is a table size, in HAProxy's syntax, that holds keys keys
// with room to spare: twice the keys, in k or m, at least 100k.
func tableSize(keys int64) string {
	n := max(2*keys, 100<<10)
	if n >= 1<<20 {
		return fmt.Sprintf("%dm", (n+1<<20-1)>>20)
	}
	return fmt.Sprintf("%dk", (n+1<<10-1)>>10)
}

// write writes the recommendation: a backend for the stick table, an expire
// of three periods, and
// the frontend's two rules in the order the recommendation counts.
func write(b *strings.Builder, s products.Snippet) {
	p, res := s.Product, s.Policy
	key, ok := keyFor(s.TraceKey)
	if !ok {
		key = "KEY"
	}
	lim := Limit{Table: "ratelab_limit", Period: res.Period, Expire: 3 * res.Period, Op: "gt", Threshold: res.Limit, Counted: true, Status: 429}
	if s.Options.TrackSC == algorithms.TrackAfterDeny {
		lim.Op, lim.Counted = "ge", false
	}
	backend, frontend := configLines(lim, key, tableSize(s.Keys))
	fmt.Fprintf(b, "%s, %s, as %s writes it (an expire of three periods changes no decision: the rate reads 0 after two idle ones). A backend for the table:\n\n", s.Lead, s.Words, p)
	products.Lines(b, backend)
	fmt.Fprintf(b, "\nand in the frontend, in this order:\n\n")
	products.Lines(b, frontend)
	if !ok {
		fmt.Fprintf(b, "\n(%s has no fetch for the log's %s: write for KEY the sample that carries it.)\n", p, s.TraceKey)
	}
}
