package products

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// runLane sends n requests from one key, a millisecond apart, through a lane
// Ratelab made, and counts those allowed.
func runLane(t *testing.T, l RatelabLane, n int) int {
	t.Helper()
	var lims []algorithms.Limiter
	for _, m := range l.Limits {
		lim, err := algorithms.New(m.Algorithm, m.Policy, m.Options)
		if err != nil {
			t.Fatalf("lane %s: %v", l.Name, err)
		}
		lims = append(lims, lim)
	}
	allowed := 0
	for i := range n {
		now := time.Duration(i) * time.Millisecond
		ok := true
		for _, lim := range lims {
			if d := lim.Allow("127.0.0.1", now, 1); !d.Allowed {
				ok = false
			}
		}
		if ok {
			allowed++
		}
	}
	return allowed
}

// The lanes a configuration maps to let through what the real servers let
// through: six requests from one client, back to back, against each context
// (measured on nginx 1.22.1 and HAProxy 2.6.12 on loopback with these
// configurations: nginx /own 3 of 6 on a fresh zone, 1r/m burst=2 nodelay;
// HAProxy gt 2 with the track before the deny 2 of 6, looked up before the
// track 3 of 6, sc_http_req_rate(0) before any track 6 of 6).
func TestRatelabLanesDecideAsTheServers(t *testing.T) {
	hap, err := Read("haproxy.cfg", []byte(`defaults
    mode http
backend st
    stick-table type ip size 1k expire 30s store http_req_rate(10s)
frontend before
    bind 127.0.0.1:18091
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 2 }
    http-request track-sc0 src table st
frontend after
    bind 127.0.0.1:18092
    http-request track-sc0 src table st
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 2 }
frontend lookup
    bind 127.0.0.1:18093
    http-request deny deny_status 429 if { src_http_req_rate(st) gt 2 }
    http-request track-sc0 src table st
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	lanes, notes := hap.Ratelab("ip")
	if len(notes) != 0 {
		t.Errorf("notes %v, want none", notes)
	}
	want := map[string]int{
		"frontend after":  2,
		"frontend lookup": 3,
	}
	for _, l := range lanes {
		w, ok := want[l.Name]
		if !ok {
			t.Errorf("lane %q, want none such (the deny before any track never refuses: no lane)", l.Name)
			continue
		}
		delete(want, l.Name)
		if got := runLane(t, l, 6); got != w {
			t.Errorf("lane %q: %d of 6 allowed, want %d", l.Name, got, w)
		}
	}
	for name := range want {
		t.Errorf("no lane %q", name)
	}
}

// The policy and options of a mapped lane are the product's parameters in the
// lane's terms: nginx's burst is the policy's less one, a delay beyond the
// burst is nodelay, limit_req_status 503 the default; HAProxy's threshold
// becomes the limit the lane compares by where the track sits.
func TestRatelabMapping(t *testing.T) {
	for i, c := range []struct {
		lim   Limit
		want  RatelabLimit
		note  string
		noRun bool
	}{
		{lim: Limit{Key: Key{Expr: "src", Trace: "ip", Mapped: true}, Params: &HAProxyLimit{Table: "st", Period: 10 * time.Second, Expire: 30 * time.Second, Op: "ge", Threshold: 100, Counted: true, Status: 429}},
			want: RatelabLimit{Name: "st", Algorithm: algorithms.HAProxyName, Key: "{key}", Policy: algorithms.Policy{Limit: 99, Period: 10 * time.Second}, Options: algorithms.Options{TrackSC: algorithms.TrackBeforeDeny, Expire: 30 * time.Second, DenyStatus: 429}}},
		{lim: Limit{Key: Key{Expr: "src", Trace: "ip", Mapped: true}, Params: &HAProxyLimit{Table: "st", Period: time.Minute, Op: "gt", Threshold: 100, Status: 418, Action: "return"}},
			want: RatelabLimit{Name: "st", Algorithm: algorithms.HAProxyName, Key: "{key}", Policy: algorithms.Policy{Limit: 101, Period: time.Minute}, Options: algorithms.Options{TrackSC: algorithms.TrackAfterDeny}},
			note: "the lane answers a refusal with 403 (the status 418 is not one http-request deny sends)"},
		{lim: Limit{Key: Key{Expr: "src", Trace: "ip", Mapped: true}, Params: &HAProxyLimit{Table: "st", Period: time.Minute, Op: "ge", Threshold: 1, Counted: true, Cond: "if { sc0_http_req_rate ge 1 }", Status: 403}},
			note: "if { sc0_http_req_rate ge 1 } refuses every request", noRun: true},
	} {
		cfg := &Config{Product: HAProxy, Lanes: []Lane{{Name: "l", Limits: []Limit{c.lim}}}}
		lanes, notes := cfg.Ratelab("ip")
		switch {
		case c.noRun && len(lanes) != 0:
			t.Errorf("case %d: lanes %+v, want none", i, lanes)
		case !c.noRun && (len(lanes) != 1 || len(lanes[0].Limits) != 1):
			t.Errorf("case %d: lanes %+v, want one of one limit", i, lanes)
		case !c.noRun && lanes[0].Limits[0] != c.want:
			t.Errorf("case %d: %+v, want %+v", i, lanes[0].Limits[0], c.want)
		}
		switch {
		case c.note == "" && len(notes) > 0:
			t.Errorf("case %d: notes %v, want none", i, notes)
		case c.note != "" && (len(notes) != 1 || !strings.Contains(notes[0].Text, c.note)):
			t.Errorf("case %d: notes %v, want %q", i, notes, c.note)
		}
	}
}
