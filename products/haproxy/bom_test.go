package haproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/internal/producttest"
	"ratelab/products/internal/configtest"
)

// hapSite is a haproxy.cfg with one rule that refuses by rate.
var hapSite = configtest.Testdata("haproxy.cfg")

// A file that begins with a UTF-8 byte-order mark (Notepad and Excel write
// one) reads as the same file without it, told by its content or named: the
// same lanes and the same notes. HAProxy refuses such a file itself (held on
// the real server below), so a note at the file's first line says so.
func TestByteOrderMark(t *testing.T) {
	configtest.CheckByteOrderMark(t, Info, "haproxy.cfg", hapSite, true, false)
}

// HAProxy refuses a file that begins with a byte-order mark, as the note
// says: the mark is part of its first word (HAProxy 2.6: unknown keyword
// '\ufeffglobal' out of section); without the mark it reads the file.
func TestTheServerRefusesAByteOrderMark(t *testing.T) {
	hap := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(hap, []byte(configtest.BOM+hapSite), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := producttest.HAProxyCheck(t, hap); r.OK || !strings.Contains(r.Output, "unknown keyword") || r.Line != 1 {
		t.Errorf("haproxy -c on a file with a byte-order mark: ok %v at line %d:\n%s\nwant unknown keyword at line 1", r.OK, r.Line, r.Output)
	}
	if err := os.WriteFile(hap, []byte(hapSite), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := producttest.HAProxyCheck(t, hap); !r.OK {
		t.Errorf("haproxy -c refuses the file without the mark:\n%s", r.Output)
	}
}
