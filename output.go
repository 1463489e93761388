package main

import (
	"io"

	"ratelab/internal/atomicfile"
)

// output is a destination for a CSV: standard output ("-"), or a file that appears
// only once complete (see atomicfile), so a failed run never leaves a half-written
// file.
type output struct {
	w    io.Writer
	file *atomicfile.File
}

// openOutput prepares path for writing; a path that cannot be written is a usage
// error, reported before anything runs.
func openOutput(flagName, path string, stdout io.Writer) (*output, error) {
	if path == "-" {
		return &output{w: stdout}, nil
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, usagef("--%s %v", flagName, err)
	}
	return &output{w: f, file: f}, nil
}

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
