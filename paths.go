package main

import (
	"io/fs"
	"os"
	"path/filepath"
)

// namedPath is a file a command reads or writes, and how the user named it
// (--csv, the trace of client "logs"), for messages.
type namedPath struct {
	what, path string
	output     bool
}

// distinct refuses a file given twice among a command's outputs and the files it
// reads, before anything runs: two outputs to one file would lose one of them,
// and an output over an input would destroy it. Paths are compared as files:
// os.SameFile for those that exist (through symlinks and hard links), the
// absolute path with symlinks followed for those that do not yet. Standard
// output (-) is not a file here.
func distinct(paths []namedPath) error {
	for i, a := range paths {
		for _, b := range paths[:i] {
			if !(a.output || b.output) || !sameFile(a.path, b.path) {
				continue
			}
			if a.output && b.output {
				return usagef("%s and %s are the same file (%s); give each its own path", b.what, a.what, a.path)
			}
			in, out := a, b
			if a.output {
				in, out = b, a
			}
			return usagef("%s %s is %s, which this run reads; writing it would destroy it, so give another path", out.what, out.path, in.what)
		}
	}
	return nil
}

// sameFile says a and b name the same file.
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	return resolved(a) == resolved(b)
}

// resolved is path made absolute with its symlinks followed, as far as they go:
// the folder it is in (which exists, or the path cannot be written), and the
// path itself if it is a symlink to a file not there yet.
func resolved(path string) string {
	for range 40 {
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			break
		}
		link, err := os.Readlink(path)
		if err != nil {
			break
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		dir = filepath.Dir(path)
	}
	abs, err := filepath.Abs(filepath.Join(dir, filepath.Base(path)))
	if err != nil {
		return filepath.Clean(path)
	}
	return abs
}
