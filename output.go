package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// output is a destination for a CSV: standard output ("-"), or a file written under
// a temporary name beside it and renamed into place only once complete, so a failed
// run never leaves a half-written file.
type output struct {
	path string
	tmp  *os.File
	w    io.Writer
}

// openOutput prepares path for writing; a path that cannot be written is a usage
// error, reported before anything runs.
func openOutput(flagName, path string, stdout io.Writer) (*output, error) {
	if path == "-" {
		return &output{path: path, w: stdout}, nil
	}
	dir := filepath.Dir(path)
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return nil, usagef("--%s %s is a directory; give a file name", flagName, path)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, usagef("--%s %s cannot be written: %v", flagName, path, unwrapPath(err))
	}
	return &output{path: path, tmp: tmp, w: tmp}, nil
}

// commit closes the temporary file and moves it into place.
func (o *output) commit() error {
	if o == nil || o.tmp == nil {
		return nil
	}
	if err := o.tmp.Close(); err != nil {
		os.Remove(o.tmp.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		os.Remove(o.tmp.Name())
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

// abort removes the temporary file.
func (o *output) abort() {
	if o != nil && o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}
}

// unwrapPath drops the temporary name from a *PathError, keeping the reason.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
