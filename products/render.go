package products

import (
	"fmt"
	"strings"
	"time"
)

// The other way: a limit written in the product's own syntax, to paste into a
// configuration (ratelab tune's recommendation), which Read reads back to the
// same parameters.

// NginxKeyFor is the limit_req_zone key for a trace's key ("ip", "user",
// "path", "method", or several joined by "+"), and false for a field nginx has
// no variable for.
func NginxKeyFor(trace string) (string, bool) {
	vars := map[string]string{"ip": "$binary_remote_addr", "host": "$binary_remote_addr", "user": "$remote_user", "path": "$uri", "method": "$request_method"}
	var b strings.Builder
	for _, part := range strings.Split(trace, "+") {
		v, ok := vars[strings.TrimSpace(part)]
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// NginxZoneSize is a zone size, in nginx's syntax (1m, 10m…), that holds keys
// keys of keyBytes bytes, with room to spare: twice the keys, at least 1m.
func NginxZoneSize(keys int64, keyBytes int) string {
	for m := int64(1); ; m *= 2 {
		if (NginxLimit{ZoneSize: m << 20}).ZoneCapacity(keyBytes) >= 2*keys || m >= 1<<14 {
			return fmt.Sprintf("%dm", m)
		}
	}
}

// NginxDirectives writes l as nginx directives: the limit_req_zone line (for
// the http block), and the lines for the context that limits (limit_req,
// and limit_req_status and limit_req_dry_run when they are not nginx's
// defaults). key is the zone's key expression; size its size, as nginx writes
// it (10m).
func NginxDirectives(l NginxLimit, key, size string) (zone string, context []string) {
	zone = fmt.Sprintf("limit_req_zone %s zone=%s:%s rate=%s;", key, l.Zone, size, l.RateString())
	req := "limit_req zone=" + l.Zone
	if l.Burst > 0 {
		req += fmt.Sprintf(" burst=%d", l.Burst)
	}
	switch {
	case l.NoDelay:
		req += " nodelay"
	case l.Delay > 0:
		req += fmt.Sprintf(" delay=%d", l.Delay)
	}
	context = append(context, req+";")
	if l.Status != 0 && l.Status != 503 {
		context = append(context, fmt.Sprintf("limit_req_status %d;", l.Status))
	}
	if l.DryRun {
		context = append(context, "limit_req_dry_run on;")
	}
	return zone, context
}

// HAProxyKeyFor is the track-sc key for a trace's key, and false for one
// HAProxy has no fetch for: ip is src, path is path, method is method; user
// is the header the user arrives in, which HAProxy reads as req.hdr(x-user)
// (name the one the application uses).
func HAProxyKeyFor(trace string) (string, bool) {
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

// HAProxyTableType is the stick-table type for a track-sc key: ip for src,
// string for the others.
func HAProxyTableType(key string) string {
	if key == "src" {
		return "ipv6" // holds IPv4 addresses too, mapped
	}
	return "string len 64"
}

// HAProxyLines writes l as haproxy.cfg lines: the backend that holds its
// stick table, and the frontend's rules (track-sc0, then the deny when
// l.Counted, else the deny reading src_http_req_rate first and the track
// after). key is the track-sc key; size the table's entries, as HAProxy writes
// it (1m, 100k).
func HAProxyLines(l HAProxyLimit, key, size string) (backend, frontend []string) {
	backend = []string{"backend " + l.Table,
		fmt.Sprintf("    stick-table type %s size %s%s store http_req_rate(%s)", HAProxyTableType(key), size, haproxyExpire(l.Expire), haproxyTime(l.Period))}
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

func haproxyExpire(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return " expire " + haproxyTime(d)
}

// haproxyTime writes a duration in HAProxy's time syntax, in the largest unit
// that writes it whole: 10s, 1m, 1500ms.
func haproxyTime(d time.Duration) string {
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

// HAProxyTableSize is a table size, in HAProxy's syntax, that holds keys keys
// with room to spare: twice the keys, in k or m, at least 100k.
func HAProxyTableSize(keys int64) string {
	n := max(2*keys, 100<<10)
	if n >= 1<<20 {
		return fmt.Sprintf("%dm", (n+1<<20-1)>>20)
	}
	return fmt.Sprintf("%dk", (n+1<<10-1)>>10)
}
