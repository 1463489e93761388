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
	return fileOutput(f, path), nil
}

// fileOutput is f as an output, its errors naming it as name.
func fileOutput(f *atomicfile.File, name string) *output {
	return &output{w: named{f, name}, name: name, file: f}
}

// Through says what is written goes out at once (standard output, a device, a
// FIFO): a run that stops cannot take it back.
func (o *output) Through() bool { return o != nil && (o.file == nil || o.file.Direct()) }

// Write writes p, its errors naming the destination.
func (o *output) Write(p []byte) (int, error) { return o.w.Write(p) }

// Commit puts a file in place; standard output needs nothing.
func (o *output) Commit() error {
	if o == nil || o.file == nil {
		return nil
	}
	return o.file.Commit()
}

// Abort removes an uncommitted file. Safe to defer.
func (o *output) Abort() {
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
