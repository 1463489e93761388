package nginx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/internal/producttest"
	"ratelab/products/internal/configtest"
)

// A file that begins with a UTF-8 byte-order mark (Notepad and Excel write
// one) reads as the same file without it, told by its content or named, and
// so does a file an nginx.conf includes: the same lanes and the same notes.
// nginx refuses such a file itself (held on the real server below), so a note
// at the file's first line says so.
func TestByteOrderMark(t *testing.T) {
	configtest.CheckByteOrderMark(t, Info, "nginx.conf", ngxSite, true, false)
	configtest.CheckByteOrderMark(t, Info, "nginx.conf", ngxSite, true, true)
}

// nginx refuses a file that begins with a byte-order mark, as the note says:
// the mark is part of its first word (nginx 1.22: unknown directive
// "\ufeffevents").
func TestTheServerRefusesAByteOrderMark(t *testing.T) {
	ngx := filepath.Join(t.TempDir(), "nginx.conf")
	if err := os.WriteFile(ngx, []byte(configtest.BOM+"events {}\nhttp {\n    limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n    server { listen 127.0.0.1:8080; location / { limit_req zone=one; } }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := producttest.NginxTest(t, ngx); r.OK || !strings.Contains(r.Output, "unknown directive") || r.Line != 1 {
		t.Errorf("nginx -t on a file with a byte-order mark: ok %v at line %d:\n%s\nwant unknown directive at line 1", r.OK, r.Line, r.Output)
	}
}
