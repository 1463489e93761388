package nginx

import (
	"fmt"
	"strings"

	"ratelab/products"
)

// keyFor is the limit_req_zone key for a trace's key ("ip", "user",
// "path", "method", or several joined by "+"), and false for a field nginx has
// no variable for.
func keyFor(trace string) (string, bool) {
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

// zoneSize is a zone size, in nginx's syntax (1m, 10m…), that holds keys
// keys of keyBytes bytes, with room to spare: twice the keys, at least 1m.
func zoneSize(keys int64, keyBytes int) string {
	for m := int64(1); ; m *= 2 {
		if (Limit{ZoneSize: m << 20}).ZoneCapacity(keyBytes) >= 2*keys || m >= 1<<14 {
			return fmt.Sprintf("%dm", m)
		}
	}
}

// directives writes l as nginx directives: the limit_req_zone line (for
// the http block), and the lines for the context that limits (limit_req,
// and limit_req_status and limit_req_dry_run when they are not nginx's
// defaults). key is the zone's key expression; size its size, as nginx writes
// it (10m).
func directives(l Limit, key, size string) (zone string, context []string) {
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

// write writes the recommendation: nginx's burst= is the policy's burst less
// one (the request served is not part of nginx's excess); the zone holds twice
// the log's keys.
func write(b *strings.Builder, s products.Snippet) {
	p, res := s.Product, s.Policy
	key, ok := keyFor(s.TraceKey)
	keyBytes := 32
	if !ok {
		key = "$KEY"
	} else if key == "$binary_remote_addr" {
		keyBytes = 4
	}
	lim := Limit{Zone: "ratelab", Rate: res.Limit, Per: res.Period, Burst: res.Burst - 1,
		NoDelay: s.Options.Nodelay, Delay: s.Options.Delay, Status: 429}
	zone, ctx := directives(lim, key, zoneSize(s.Keys, keyBytes))
	fmt.Fprintf(b, "%s, %s, as %s writes it (limit_req_status 429 for Too Many Requests; %s answers 503 unless told). In http { }:\n\n    %s\n\nand in the server or location that limits:\n\n",
		s.Lead, s.Words, p, p, zone)
	products.Lines(b, ctx)
	if !ok {
		fmt.Fprintf(b, "\n(%s has no variable for the log's %s: write for $KEY the variable that carries it.)\n", p, s.TraceKey)
	}
}
