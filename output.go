package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"ratelab/internal/atomicfile"
)

// output is a destination for a CSV: standard output ("-"), or a path written by
// atomicfile: a file that appears only once complete (through a symlink too), or
// a device or FIFO written through. A failed run never leaves a half-written
// file, nor harms what was at the path.
type output struct {
	w    io.Writer // its errors name the destination
	name string
	file *atomicfile.File
}

// openOutput prepares path for writing; a path that cannot be written is a usage
// error, reported before anything runs.
func openOutput(flagName, path string, stdout io.Writer) (*output, error) {
	if path == "-" {
		if c, ok := stdout.(*checked); ok {
			return &output{w: c, name: "standard output"}, nil // its errors say so already
		}
		return &output{w: named{stdout, "standard output"}, name: "standard output"}, nil
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, usagef("--%s %v", flagName, err)
	}
	return &output{w: named{f, path}, name: path, file: f}, nil
}

// through says what is written goes out at once (standard output, a device, a
// FIFO): a run that stops cannot take it back.
func (o *output) through() bool { return o != nil && (o.file == nil || o.file.Direct()) }

// commit puts a file in place; standard output needs nothing.
func (o *output) commit() error {
	if o == nil || o.file == nil {
		return nil
	}
	return o.file.Commit()
}

// abort removes an uncommitted file. Safe to defer.
func (o *output) abort() {
	if o != nil && o.file != nil {
		o.file.Abort()
	}
}

// named is a writer whose errors say what was being written: "writing /dev/full:
// no space left on device".
type named struct {
	w    io.Writer
	name string
}

func (n named) Write(p []byte) (int, error) {
	written, err := n.w.Write(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		err = fmt.Errorf("writing %s: %w", n.name, err)
	}
	return written, err
}
