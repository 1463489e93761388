package nginx

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

// What directives writes, in a minimal configuration, nginx -t accepts,
// and Read reads back to the same parameters.
func TestNginxDirectivesReadBack(t *testing.T) {
	for i, c := range []struct {
		lim   Limit
		trace string
	}{
		{Limit{Zone: "ratelab", Rate: 10, Per: time.Second, Burst: 20, NoDelay: true, Status: 429}, "ip"},
		{Limit{Zone: "ratelab_1m", Rate: 30, Per: time.Minute, Burst: 12, Delay: 8, Status: 503}, "user"},
		{Limit{Zone: "z", Rate: 1, Per: time.Second, Status: 503, DryRun: true}, "ip+path"},
		{Limit{Zone: "m", Rate: 5, Per: time.Second, Burst: 4, Status: 503}, "method"},
	} {
		key, ok := keyFor(c.trace)
		if !ok {
			t.Fatalf("case %d: no nginx key for %q", i, c.trace)
		}
		size := zoneSize(100_000, 4)
		zone, lines := directives(c.lim, key, size)
		conf := "events {}\nhttp {\n" + zone + "\nserver {\nlisten 8080;\nlocation / {\n" + strings.Join(lines, "\n") + "\n}\n}\n}\n"
		path := filepath.Join(t.TempDir(), "nginx.conf")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := configtest.ReadFile(Info, path, products.Options{})
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, conf)
		}
		if len(got.Lanes) != 1 || len(got.Lanes[0].Limits) != 1 {
			t.Fatalf("case %d: read %s", i, configtest.Describe(got))
		}
		m := got.Lanes[0].Limits[0]
		back := *m.Params.(*Limit)
		back.ZonePlace, back.ZoneSize, back.LogLevel = products.Place{}, 0, ""
		if back != c.lim || m.Key.Trace != c.trace {
			t.Errorf("case %d: read back %+v key %s, want %+v key %s\n%s", i, back, m.Key.Trace, c.lim, c.trace, conf)
		}
		if r := producttest.NginxTest(t, path); !r.OK {
			t.Errorf("case %d: nginx -t refuses it:\n%s\n%s", i, r.Output, conf)
		}
	}
}
