// Package atomicfile writes a file so that it appears whole or not at all: the
// content goes to a temporary file beside the path, which Commit renames into
// place. A failed write, or Abort, leaves nothing behind. Both ratelab run --csv
// and the UI's export write this way.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is a file being written under a temporary name.
type File struct {
	path string
	tmp  *os.File
	done bool
}

// Create starts writing path. The error says why the folder cannot be written in,
// without the temporary name.
func Create(path string) (*File, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return nil, fmt.Errorf("%s is a directory; give a file name", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s cannot be written: %w", path, err)
	}
	return &File{path: path, tmp: tmp}, nil
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Mode is the committed file's permissions (before the umask), those of any
// file a program writes; the temporary file starts private.
const Mode = 0o644

// Commit closes the temporary file and renames it to the path.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	if err := f.tmp.Chmod(Mode); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	if err := f.tmp.Close(); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	f.done = true
	return nil
}

// Abort removes the temporary file, unless committed. Safe to defer.
func (f *File) Abort() {
	if !f.done {
		f.tmp.Close()
		os.Remove(f.tmp.Name())
		f.done = true
	}
}
