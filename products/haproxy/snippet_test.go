package haproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/internal/producttest"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// What configLines writes, in a minimal configuration, haproxy -c accepts,
// and Read reads back to the same parameters.
func TestHAProxyLinesReadBack(t *testing.T) {
	for i, c := range []struct {
		lim   Limit
		trace string
	}{
		{Limit{Table: "ratelab", Period: 10 * time.Second, Expire: 20 * time.Second, Op: "gt", Threshold: 100, Counted: true, Status: 429}, "ip"},
		{Limit{Table: "ratelab_1m", Period: time.Minute, Op: "ge", Threshold: 600, Status: 403}, "ip"},
		{Limit{Table: "per_path", Period: 1500 * time.Millisecond, Expire: time.Hour, Op: "gt", Threshold: 5, Counted: false, Status: 503}, "path"},
		{Limit{Table: "per_user", Period: time.Hour, Expire: 2 * time.Hour, Op: "gt", Threshold: 1000, Counted: true, Status: 429}, "user"},
	} {
		key, ok := keyFor(c.trace)
		if !ok {
			t.Fatalf("case %d: no HAProxy key for %q", i, c.trace)
		}
		backend, frontend := configLines(c.lim, key, tableSize(5000))
		conf := "defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n    timeout connect 1s\n" + strings.Join(backend, "\n") +
			"\nfrontend fe\n    bind 127.0.0.1:8080\n" + strings.Join(frontend, "\n") + "\n    default_backend be\nbackend be\n    server s1 127.0.0.1:8081\n"
		path := filepath.Join(t.TempDir(), "haproxy.cfg")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := configtest.ReadFile(Info, path, products.Options{})
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, conf)
		}
		if len(got.Lanes) != 1 || len(got.Lanes[0].Limits) != 1 {
			t.Fatalf("case %d: read %s\n%s", i, configtest.Describe(got), conf)
		}
		m := got.Lanes[0].Limits[0]
		back := *m.Params.(*Limit)
		want := c.lim
		want.TablePlace, want.TableType, want.TableSize, want.Fetch, want.Cond, want.Track, want.Counter, want.Action = back.TablePlace, back.TableType, back.TableSize, back.Fetch, back.Cond, back.Track, back.Counter, "deny"
		if back != want || m.Key.Trace != c.trace {
			t.Errorf("case %d: read back %+v key %s, want %+v key %s\n%s", i, back, m.Key.Trace, want, c.trace, conf)
		}
		if r := producttest.HAProxyCheck(t, path); !r.OK {
			t.Errorf("case %d: haproxy -c refuses it:\n%s\n%s", i, r.Output, conf)
		}
	}
}
