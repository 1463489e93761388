package tune

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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

// TestPatternsExpandAsAShellDoes: [!…] negates, a wildcard does not match a
// hidden name (an interrupted split's .DIR.tmp folder) unless the pattern's
// own name starts with a dot, a symlink to nothing among the matches is named,
// and Among sees a path through a symlink to the pattern's folder.
func TestPatternsExpandAsAShellDoes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a1.log", "a2.log", "logs/day1/p.gz", "logs/day2/p.gz", "logs/.day3.tmp-1/p.gz", "sub/x.log"} {
		write(name)
	}
	names := func(pattern string) []string {
		src, err := PartsOf(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatalf("PartsOf(%q): %v", pattern, err)
		}
		var out []string
		for _, f := range src.Files {
			rel, _ := filepath.Rel(dir, f.Name)
			out = append(out, filepath.ToSlash(rel))
		}
		return out
	}
	for pattern, want := range map[string][]string{
		"a[!1].log":    {"a2.log"},
		"a[^2].log":    {"a1.log"},
		"logs/*/p.gz":  {"logs/day1/p.gz", "logs/day2/p.gz"},
		"logs/.*/p.gz": {"logs/.day3.tmp-1/p.gz"},
	} {
		if got := names(pattern); !slices.Equal(got, want) {
			t.Errorf("%s matched %q, want %q", pattern, got, want)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		log, path string
		among     bool
	}{
		{"link/*.log", "sub/new.log", true},
		{"sub/*.log", "link/new.log", true},
		{"sub/*.log", "sub/new.csv", false},
		{"logs/*/p.gz", "logs/.x/p.gz", false},
		{"sub", "link/new.log", true},
	} {
		if got := Among(filepath.Join(dir, tc.log), filepath.Join(dir, tc.path)); got != tc.among {
			t.Errorf("Among(%s, %s) = %v, want %v", tc.log, tc.path, got, tc.among)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "a3.log")); err != nil {
		t.Fatal(err)
	}
	if _, err := PartsOf(filepath.Join(dir, "a?.log")); err == nil || !strings.Contains(err.Error(), "a3.log, among the parts of") || !strings.Contains(err.Error(), "symlink to nothing") {
		t.Errorf("a symlink to nothing among the matches: %v", err)
	}
	if _, err := PartsOf(filepath.Join(dir, "logs/*.tmp-1/p.gz")); err == nil || !strings.Contains(err.Error(), "but hidden ones") {
		t.Errorf("a pattern that matches only hidden names: %v", err)
	}
	if _, err := PartsOf(filepath.Join(dir, "b[1.log")); err == nil || !strings.Contains(err.Error(), "no such file, and not a pattern") {
		t.Errorf("a missing file with an unclosed [: %v", err)
	}
	// a folder's parts with a named pipe among them: the fix suggested is a
	// pattern that leaves the pipe out, or, when the parts' own pattern would
	// match it too, moving it
	for _, tc := range []struct{ pipe, want string }{
		{"feed", "such as --trace '" + filepath.Join(dir, "pipes", "*.gz") + "'"},
		{"feed.gz", "move it out of the folder, or give a pattern"},
	} {
		pipes := filepath.Join(dir, "pipes")
		os.RemoveAll(pipes)
		write("pipes/p1.gz")
		if err := syscall.Mkfifo(filepath.Join(pipes, tc.pipe), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := PartsOf(pipes)
		if err == nil || !strings.Contains(err.Error(), "is a named pipe") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("a named pipe %s among a folder's parts: %v, want it named and %q", tc.pipe, err, tc.want)
		}
	}
}
