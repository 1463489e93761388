package nginx

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// The lanes an nginx.conf maps to let through what nginx lets through: six
// requests from one client, back to back, against each context (measured on
// nginx 1.22.1 on loopback with this configuration: /own 3 of 6 on a fresh
// zone, 1r/m burst=2 nodelay).
func TestLanesDecideAsTheServer(t *testing.T) {
	cfg := configtest.MustRead(t, Info, "nginx.conf", `events {}
http {
    limit_req_zone $binary_remote_addr zone=own:1m rate=1r/m;
    limit_req_zone $binary_remote_addr zone=inh:1m rate=1r/m;
    limit_req zone=inh;
    server {
        listen 127.0.0.1:8080;
        location /ret { return 200; }
        location /inh/ { }
        location /own/ { limit_req zone=own burst=2 nodelay; }
        location /dry/ { limit_req zone=own burst=2 nodelay; limit_req_dry_run on; }
    }
}
`, false)
	configtest.CheckAllowed(t, cfg, 6, map[string]int{
		"http":                                 1, // /ret (never limited: a warning says so) and /inh/ share it
		"server 127.0.0.1:8080 location /own/": 3,
		"server 127.0.0.1:8080 location /dry/": 6,
	})
}

// The policy and options of a mapped lane are nginx's parameters in the
// lane's terms: nginx's burst is the policy's less one, a delay beyond the
// burst is nodelay, limit_req_status 503 the default.
func TestMapping(t *testing.T) {
	for _, c := range []configtest.Mapping{
		{Limit: products.Limit{Key: products.Key{Expr: "$binary_remote_addr", Trace: "ip", Mapped: true}, Params: &Limit{Zone: "z", Rate: 30, Per: time.Minute, Burst: 5, Delay: 2, Status: 503}},
			Want: products.RatelabLimit{Name: "z", Rule: "limit_req zone=z", Algorithm: algorithms.NginxName, Key: "{key}", Policy: algorithms.Policy{Limit: 30, Period: time.Minute, Burst: 6}, Options: algorithms.Options{Delay: 2}}},
		{Limit: products.Limit{Key: products.Key{Expr: "$server_name", Shared: true, Mapped: true}, Params: &Limit{Zone: "srv", Rate: 100, Per: time.Second, Burst: 3, Delay: 9, Status: 429, DryRun: true}},
			Want: products.RatelabLimit{Name: "srv", Rule: "limit_req zone=srv", Algorithm: algorithms.NginxName, Key: "shared srv", Policy: algorithms.Policy{Limit: 100, Period: time.Second, Burst: 4}, Options: algorithms.Options{Nodelay: true, DryRun: true, DenyStatus: 429}}},
		{Limit: products.Limit{Key: products.Key{Expr: "$http_x_api_key", Trace: "user", Mapped: true}, Params: &Limit{Zone: "k", Rate: 1, Per: time.Second, Status: 503}},
			Want: products.RatelabLimit{Name: "k", Rule: "limit_req zone=k", Algorithm: algorithms.NginxName, Key: "{key}", Policy: algorithms.Policy{Limit: 1, Period: time.Second, Burst: 1}},
			Note: "nginx keys this limit by $http_x_api_key (the log's user); the requests replayed are keyed by ip"},
	} {
		c.Check(t, Info)
	}
}
