package tune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartsOfNamesWithPatternCharacters: a log whose name holds *, ? or [ is
// that file, read as one; a pattern that names no file matches its files; a
// pattern that matches nothing says so.
func TestPartsOfNamesWithPatternCharacters(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"access[1].log", "what?.log", "star*.log", "other.log"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"access[1].log", "what?.log", "star*.log"} {
		path := filepath.Join(dir, name)
		if IsPattern(path) {
			t.Errorf("IsPattern(%q) = true for a file that exists", name)
		}
		src, err := PartsOf(path)
		if err != nil {
			t.Fatalf("PartsOf(%q): %v", name, err)
		}
		if len(src.Files) != 1 || src.Files[0].Name != path {
			t.Errorf("PartsOf(%q) = %+v, want the one file", name, src.Files)
		}
	}
	pattern := filepath.Join(dir, "*.log")
	if !IsPattern(pattern) {
		t.Fatalf("IsPattern(%q) = false", pattern)
	}
	src, err := PartsOf(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Files) != 4 {
		t.Errorf("the pattern matched %d files, want 4", len(src.Files))
	}
	if _, err := PartsOf(filepath.Join(dir, "none-*.log")); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("a pattern that matches nothing: %v", err)
	}
}
