package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"ratelab/internal/check"
	"strings"
	"syscall"
	"testing"
	"time"
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

// A symlink is followed: its target is replaced whole, the link stays a link; a
// link to a file not there yet creates it. A file replaced keeps its mode.
func TestSymlinksAreFollowed(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "real.csv"), filepath.Join(dir, "link.csv")
	check.Setup(t, os.WriteFile(target, []byte("old\n"), 0o600))
	check.Setup(t, os.Symlink("real.csv", link)) // relative, as people write them
	write(t, link, "new\n")
	if info, _ := os.Lstat(link); info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a %v", info.Mode())
	}
	if got, _ := os.ReadFile(target); string(got) != "new\n" {
		t.Errorf("the target holds %q", got)
	}
	if info, _ := os.Stat(target); info.Mode().Perm() != 0o600 {
		t.Errorf("the replaced file's mode is %v, want its own 0600", info.Mode().Perm())
	}

	dangling := filepath.Join(dir, "to-be.csv")
	check.Setup(t, os.Symlink(filepath.Join(dir, "sub", "later.csv"), dangling))
	check.Setup(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	write(t, dangling, "created\n")
	if info, _ := os.Lstat(dangling); info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the dangling symlink was replaced by a %v", info.Mode())
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sub", "later.csv")); string(got) != "created\n" {
		t.Errorf("the link's target holds %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("the folder holds %v; want the file, two links and sub (no temporary)", entries)
	}
}

// A FIFO is written through: its reader gets the whole content, and it is still
// a FIFO after. The old Create renamed a regular file over it, and its reader got
// nothing.
func TestAFIFOIsWrittenThrough(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string)
	go func() {
		data, _ := os.ReadFile(fifo)
		got <- string(data)
	}()
	write(t, fifo, "through the pipe\n")
	select {
	case s := <-got:
		if s != "through the pipe\n" {
			t.Errorf("the reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader got nothing")
	}
	if info, _ := os.Lstat(fifo); info.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now a %v", info.Mode())
	}
}

// A device is written through and stays a device: /dev/null takes everything,
// /dev/full's write error is the caller's. The old Create, run as root, replaced
// both with regular files. Nothing here needs restoring, because nothing is harmed.
func TestDevicesAreWrittenThrough(t *testing.T) {
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		before, err := os.Stat(dev)
		if err != nil {
			t.Skipf("%s: %v", dev, err)
		}
		f, err := Create(dev)
		if err != nil {
			t.Fatalf("Create(%s): %v", dev, err)
		}
		_, werr := f.Write([]byte("rows\n"))
		cerr := f.Commit()
		if dev == "/dev/full" && (werr == nil || !strings.Contains(werr.Error(), "no space left on device")) {
			t.Errorf("writing /dev/full: %v, want no space left on device", werr)
		}
		if dev == "/dev/null" && (werr != nil || cerr != nil) {
			t.Errorf("writing /dev/null: %v, %v", werr, cerr)
		}
		after, err := os.Stat(dev)
		if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
			t.Errorf("%s was %v, is now %v (%v)", dev, before.Mode(), after.Mode(), err)
		}
	}
}

// RemoveTemporary removes what a process about to exit has not committed; a
// Commit after it fails rather than put a file in place.
func TestRemoveTemporary(t *testing.T) {
	dir := t.TempDir()
	a, _ := Create(filepath.Join(dir, "a.csv"))
	b, _ := Create(filepath.Join(dir, "b.csv"))
	a.Write([]byte("half"))
	if n := Temporary(); n != 2 {
		t.Errorf("%d temporary files, want 2", n)
	}
	RemoveTemporary()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
	if err := a.Commit(); err == nil {
		t.Error("a Commit after RemoveTemporary succeeded")
	}
	b.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || Temporary() != 0 {
		t.Errorf("left %v, %d temporary", entries, Temporary())
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}
