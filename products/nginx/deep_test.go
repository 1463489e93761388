package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"ratelab/internal/check"
	"ratelab/internal/producttest"
	"ratelab/products"
	"ratelab/products/internal/configtest"
)

// nestedLocations is an nginx.conf whose server holds n locations nested in
// each other, one a line, with a limit_req in http that every one of them
// inherits; the innermost location opens at line 6+n-1.
func nestedLocations(n int) string {
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n    limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;\n    limit_req zone=one;\n    server {\n")
	for range n {
		b.WriteString("location / {\n")
	}
	b.WriteString(strings.Repeat("}", n))
	b.WriteString("\n    }\n}\n")
	return b.String()
}

// A million blocks nested in a 13 MB file (under the 16 MiB a file may hold)
// ran the process out of stack (fatal error: stack overflow, which no recover
// catches) after 15 to 45 s and 1.1 GB. The depth is bounded before any
// parser recurses: the file is refused at the line of the block that nests
// one too deep, with the fix, and a file at the bound is read.
func TestNginxNestingIsBounded(t *testing.T) {
	deep := nestedLocations(1_000_000)
	if len(deep) > products.MaxFileSize {
		t.Fatalf("the file is %d bytes, over MaxFileSize: it tests the size limit, not the nesting", len(deep))
	}
	start := time.Now()
	_, err := configtest.Read(Info, "nginx.conf", []byte(deep), products.Options{Product: Info})
	// http and server are two levels: the location opening level
	// maxNesting+1 is the (maxNesting-1)th, at line 5+maxNesting-1
	want := fmt.Sprintf("nginx.conf:%d: ", 5+maxNesting-1)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d deep", maxNesting)) || !strings.Contains(err.Error(), "close") {
		t.Fatalf("configtest.Read(Info, a million nested locations) = %v; want %s… more than %d deep, and the fix", err, want, maxNesting)
	}
	t.Logf("refused in %v: %v", time.Since(start), err)

	// at the bound: read, every location a lane's context
	cfg, err := configtest.Read(Info, "nginx.conf", []byte(nestedLocations(maxNesting-2)), products.Options{Product: Info})
	if err != nil {
		t.Fatalf("%d nested locations (%d levels with http and server): %v", maxNesting-2, maxNesting, err)
	}
	if len(cfg.Lanes) != 1 || len(cfg.Lanes[0].Applies) != maxNesting-2 {
		t.Fatalf("%d nested locations: %d lanes; want 1 holding every location", maxNesting-2, len(cfg.Lanes))
	}
}

// An included file nests within the block that includes it: its blocks count
// from the include's depth, and the file is refused at its own line.
func TestNginxNestingCountsThroughIncludes(t *testing.T) {
	inner := strings.Repeat("location / {\n", maxNesting-3) + strings.Repeat("}", maxNesting-3) + "\n"
	files := map[string]string{"deep.conf": inner}
	o := products.Options{Product: Info, Dir: ".", ReadFile: func(name string) ([]byte, error) { return []byte(files[name]), nil }}
	ok := "events {}\nhttp {\n    server {\n        include deep.conf;\n    }\n}\n"
	if _, err := configtest.Read(Info, "nginx.conf", []byte(ok), o); err != nil {
		t.Fatalf("an include at depth 2 of %d levels: %v", maxNesting-3, err)
	}
	tooDeep := "events {}\nhttp {\n    server {\n        location / {\n            location / {\n                include deep.conf;\n            }\n        }\n    }\n}\n"
	_, err := configtest.Read(Info, "nginx.conf", []byte(tooDeep), o)
	if want := fmt.Sprintf("deep.conf:%d: ", maxNesting-3); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("an include at depth 4 of %d levels = %v; want an error at %s", maxNesting-3, err, want)
	}
}

// Reading nested locations costs memory and time in proportion to the file:
// each context's name is made when a lane or a note needs it, and a name
// nested deeper than a real configuration elides its middle (each context's
// name had copied all its parents': 8,000 nested locations, a 120 KB file,
// took 440–675 MB and up to 21 s). Twice the locations allocate about twice
// the bytes (quadratic names: four times).
func TestNginxNestingCostIsLinear(t *testing.T) {
	const n = 2000
	bytesFor := func(n int) uint64 {
		data := []byte(nestedLocations(n))
		var best uint64
		for range 3 { // the least of three: a collection mid-read counts nothing extra, but be sure
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			cfg, err := configtest.Read(Info, "nginx.conf", data, products.Options{Product: Info})
			runtime.ReadMemStats(&after)
			if err != nil || len(cfg.Lanes) != 1 {
				t.Fatalf("%d nested locations: %v", n, err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; best == 0 || got < best {
				best = got
			}
		}
		return best
	}
	one, two := bytesFor(n), bytesFor(2*n)
	ratio := float64(two) / float64(one)
	t.Logf("%d nested locations: %.1f MB; %d: %.1f MB (×%.2f)", n, float64(one)/1e6, 2*n, float64(two)/1e6, ratio)
	if ratio > 2.6 {
		t.Errorf("twice the nested locations allocate %.2f times the bytes (%d → %d); want about 2 (linear)", ratio, one, two)
	}
	// and the names real configurations have are whole
	cfg, err := configtest.Read(Info, "nginx.conf", []byte(nestedLocations(6)), products.Options{Product: Info})
	if err != nil {
		t.Fatal(err)
	}
	if want := "server #1" + strings.Repeat(" location /", 6); cfg.Lanes[0].Applies[5] != want {
		t.Errorf("the innermost of 6 nested locations is named %q, want %q", cfg.Lanes[0].Applies[5], want)
	}
}

// An include whose pattern matches more files than a configuration may read
// is refused at the include's own line, saying how many it matched and the
// fix (it named the 1,025th file, with no line).
func TestNginxIncludeLimitsNameTheInclude(t *testing.T) {
	var names []string
	for i := range 1100 {
		names = append(names, fmt.Sprintf("conf.d/%04d.conf", i))
	}
	o := products.Options{Product: Info, Dir: ".",
		ReadFile: func(string) ([]byte, error) { return []byte("# a site\n"), nil },
		Glob:     func(string) ([]string, error) { return names, nil }}
	_, err := configtest.Read(Info, "nginx.conf", []byte("events {}\nhttp {\n    include conf.d/*.conf;\n}\n"), o)
	if err == nil || !strings.HasPrefix(err.Error(), `nginx.conf:3: include "conf.d/*.conf" matches 1100 files`) || !strings.Contains(err.Error(), fmt.Sprint(maxFiles)) {
		t.Errorf("an include of 1100 files = %v; want nginx.conf:3: include \"conf.d/*.conf\" matches 1100 files, and the limit", err)
	}
	// a pattern under the limit, with the files read before it, over it
	o.Glob = func(string) ([]string, error) { return names[:600], nil }
	_, err = configtest.Read(Info, "nginx.conf", []byte("events {}\nhttp {\n    include a/*.conf;\n    include b/*.conf;\n}\n"), o)
	if err == nil || !strings.HasPrefix(err.Error(), `nginx.conf:4: include "b/*.conf" matches 600 files`) {
		t.Errorf("two includes of 600 files = %v; want the second's line, nginx.conf:4", err)
	}
	// includes nested deeper than the limit: the include that goes one too deep
	files := map[string]string{}
	for i := range maxIncludeDepth + 5 {
		files[fmt.Sprintf("%d.conf", i)] = fmt.Sprintf("# file %d\ninclude %d.conf;\n", i, i+1)
	}
	o = products.Options{Product: Info, Dir: ".", ReadFile: func(name string) ([]byte, error) { return []byte(files[name]), nil }}
	_, err = configtest.Read(Info, "nginx.conf", []byte("events {}\nhttp {\n    include 0.conf;\n}\n"), o)
	if want := fmt.Sprintf("%d.conf:2: include %q", maxIncludeDepth-2, fmt.Sprintf("%d.conf", maxIncludeDepth-1)); err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "nest more than") {
		t.Errorf("includes nested %d deep = %v; want %s… nest more than %d", maxIncludeDepth+5, err, want, maxIncludeDepth)
	}
}

// The real nginx has no nesting limit of its own but its stack: nginx -t reads
// 8,000 nested locations; ratelab does too, within the bound.
func TestNginxNestedLocationsAsNginxReadsThem(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nginx -t on a deep file")
	}
	c := configtest.Case{Name: "8000 nested locations", Main: "nginx.conf", Files: map[string]string{"nginx.conf": strings.Replace(nestedLocations(8000), "server {\n", "server {\n        listen 127.0.0.1:8080;\n", 1)}}
	_, main := c.Write(t)
	if _, err := configtest.ReadFile(Info, main, products.Options{Product: Info}); err != nil {
		t.Fatalf("ratelab refuses what nginx reads: %v", err)
	}
	c.CheckServer(t, main, "nginx -t", producttest.NginxTest)
}

// A file larger than a configuration can be is refused at the include that
// reads it: /dev/zero never ends, and read whole it ran the process out of
// memory.
func TestAnIncludeOfDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	main := filepath.Join(t.TempDir(), "nginx.conf")
	check.Setup(t, os.WriteFile(main, []byte("events {}\nhttp {\n    include /dev/zero;\n}\n"), 0o644))
	if _, err := configtest.ReadFile(Info, main, products.Options{Product: Info}); err == nil || !strings.Contains(err.Error(), "nginx.conf:3") || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("an include of /dev/zero: %v, want nginx.conf:3 … larger than 16 MiB", err)
	}
}
