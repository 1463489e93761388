package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half a file"))
	f.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Abort left %v", entries)
	}
	f, _ = Create(path)
	f.Write([]byte("whole\n"))
	if _, err := os.Stat(path); err == nil {
		t.Error("the file appeared before Commit")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing to undo
	if got, _ := os.ReadFile(path); string(got) != "whole\n" {
		t.Errorf("committed %q", got)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != Mode {
		t.Errorf("committed with mode %v, want %v", info.Mode().Perm(), os.FileMode(Mode))
	}
	if _, err := Create(filepath.Join(dir, "no", "such", "x.csv")); err == nil || !strings.Contains(err.Error(), "cannot be written: no such file or directory") {
		t.Errorf("an unwritable folder: %v", err)
	}
	if _, err := Create(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}
