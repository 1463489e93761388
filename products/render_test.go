package products

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/internal/producttest"
)

// What NginxDirectives writes, in a minimal configuration, nginx -t accepts,
// and Read reads back to the same parameters.
func TestNginxDirectivesReadBack(t *testing.T) {
	for i, c := range []struct {
		lim   NginxLimit
		trace string
	}{
		{NginxLimit{Zone: "ratelab", Rate: 10, Per: time.Second, Burst: 20, NoDelay: true, Status: 429}, "ip"},
		{NginxLimit{Zone: "ratelab_1m", Rate: 30, Per: time.Minute, Burst: 12, Delay: 8, Status: 503}, "user"},
		{NginxLimit{Zone: "z", Rate: 1, Per: time.Second, Status: 503, DryRun: true}, "ip+path"},
		{NginxLimit{Zone: "m", Rate: 5, Per: time.Second, Burst: 4, Status: 503}, "method"},
	} {
		key, ok := NginxKeyFor(c.trace)
		if !ok {
			t.Fatalf("case %d: no nginx key for %q", i, c.trace)
		}
		size := NginxZoneSize(100_000, 4)
		zone, lines := NginxDirectives(c.lim, key, size)
		conf := "events {}\nhttp {\n" + zone + "\nserver {\nlisten 8080;\nlocation / {\n" + strings.Join(lines, "\n") + "\n}\n}\n}\n"
		path := filepath.Join(t.TempDir(), "nginx.conf")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path, Options{})
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, conf)
		}
		if len(got.Lanes) != 1 || len(got.Lanes[0].Limits) != 1 {
			t.Fatalf("case %d: read %s", i, describe(got))
		}
		m := got.Lanes[0].Limits[0]
		back := *m.Nginx
		back.ZonePlace, back.ZoneSize, back.LogLevel = Place{}, 0, ""
		if back != c.lim || m.Key.Trace != c.trace {
			t.Errorf("case %d: read back %+v key %s, want %+v key %s\n%s", i, back, m.Key.Trace, c.lim, c.trace, conf)
		}
		if r := producttest.NginxTest(t, path); !r.OK {
			t.Errorf("case %d: nginx -t refuses it:\n%s\n%s", i, r.Output, conf)
		}
	}
}

// What HAProxyLines writes, in a minimal configuration, haproxy -c accepts,
// and Read reads back to the same parameters.
func TestHAProxyLinesReadBack(t *testing.T) {
	for i, c := range []struct {
		lim   HAProxyLimit
		trace string
	}{
		{HAProxyLimit{Table: "ratelab", Period: 10 * time.Second, Expire: 20 * time.Second, Op: "gt", Threshold: 100, Counted: true, Status: 429}, "ip"},
		{HAProxyLimit{Table: "ratelab_1m", Period: time.Minute, Op: "ge", Threshold: 600, Status: 403}, "ip"},
		{HAProxyLimit{Table: "per_path", Period: 1500 * time.Millisecond, Expire: time.Hour, Op: "gt", Threshold: 5, Counted: false, Status: 503}, "path"},
		{HAProxyLimit{Table: "per_user", Period: time.Hour, Expire: 2 * time.Hour, Op: "gt", Threshold: 1000, Counted: true, Status: 429}, "user"},
	} {
		key, ok := HAProxyKeyFor(c.trace)
		if !ok {
			t.Fatalf("case %d: no HAProxy key for %q", i, c.trace)
		}
		backend, frontend := HAProxyLines(c.lim, key, HAProxyTableSize(5000))
		conf := "defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n    timeout connect 1s\n" + strings.Join(backend, "\n") +
			"\nfrontend fe\n    bind 127.0.0.1:8080\n" + strings.Join(frontend, "\n") + "\n    default_backend be\nbackend be\n    server s1 127.0.0.1:8081\n"
		path := filepath.Join(t.TempDir(), "haproxy.cfg")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path, Options{})
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, conf)
		}
		if len(got.Lanes) != 1 || len(got.Lanes[0].Limits) != 1 {
			t.Fatalf("case %d: read %s\n%s", i, describe(got), conf)
		}
		m := got.Lanes[0].Limits[0]
		back := *m.HAProxy
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
