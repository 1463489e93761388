// Package outpath keeps a command's outputs off its inputs and off each other,
// before anything runs: an output over an input would destroy it, two outputs
// to one file would lose one of them, and a folder written whole (a report, a
// folder of charts, which replaces what was at its path) would delete every
// file inside it — an input kept there, or another output.
//
// Paths are compared as files: os.SameFile for those that exist (through
// symlinks and hard links), the absolute path with symlinks followed for those
// that do not yet; a path is inside a folder when its absolute path, symlinks
// followed, is under the folder's. Standard output (-) is not a file here.
package outpath

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Path is a file or folder a command reads or writes, and how the user named it
// (--csv, the trace of client "logs"), for messages.
type Path struct {
	What, Path string
	// Output says the command writes it; Folder that it writes it as a folder,
	// replaced whole.
	Output, Folder bool
}

// Input is a file the command reads.
func Input(what, path string) Path { return Path{What: what, Path: path} }

// File is a file the command writes.
func File(what, path string) Path { return Path{What: what, Path: path, Output: true} }

// Folder is a folder the command writes whole.
func Folder(what, path string) Path { return Path{What: what, Path: path, Output: true, Folder: true} }

// Distinct refuses paths that would harm each other (see the package comment),
// naming both and the fix.
func Distinct(paths []Path) error {
	for i, a := range paths {
		for _, b := range paths[:i] {
			if err := apart(b, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// apart says why a and b cannot both be used, or nil.
func apart(a, b Path) error {
	if !(a.Output || b.Output) {
		return nil
	}
	// a folder written whole and what is at or inside it
	for _, pair := range [][2]Path{{a, b}, {b, a}} {
		folder, other := pair[0], pair[1]
		if !folder.Folder || !Inside(folder.Path, other.Path) {
			continue
		}
		switch {
		case !other.Output && sameFile(folder.Path, other.Path):
			return fmt.Errorf("%s %s is %s, which this run reads; the folder written there would replace it: give another folder", folder.What, folder.Path, other.What)
		case !other.Output:
			return fmt.Errorf("%s %s holds %s, %s, which this run reads; writing the folder replaces it whole and would delete it: give another folder", folder.What, folder.Path, other.What, other.Path)
		case other.Folder && sameFile(folder.Path, other.Path):
			return fmt.Errorf("%s and %s are the same folder (%s); give each its own", pair[1].What, pair[0].What, folder.Path)
		default:
			return fmt.Errorf("%s %s is inside %s %s, which is written whole and would delete it: give paths apart", other.What, other.Path, folder.What, folder.Path)
		}
	}
	if a.Folder || b.Folder || !sameFile(a.Path, b.Path) {
		return nil
	}
	if a.Output && b.Output {
		return fmt.Errorf("%s and %s are the same file (%s); give each its own path", a.What, b.What, b.Path)
	}
	in, out := a, b
	if a.Output {
		in, out = b, a
	}
	return fmt.Errorf("%s %s is %s, which this run reads; writing it would destroy it, so give another path", out.What, out.Path, in.What)
}

// Inside says path is folder or inside it, comparing the two with symlinks
// followed (see resolved); a folder that is a file, or the same file by
// another name, counts as itself.
func Inside(folder, path string) bool {
	if sameFile(folder, path) {
		return true
	}
	f, p := Resolved(folder), Resolved(path)
	return strings.HasPrefix(p, f+string(filepath.Separator)) || f == string(filepath.Separator) && p != f
}

// sameFile says a and b name the same file.
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	return Resolved(a) == Resolved(b)
}

// Resolved is path made absolute with its symlinks followed, as far as they go:
// the folder it is in (which exists, or the path cannot be written), and the
// path itself if it is a symlink to a file not there yet.
func Resolved(path string) string {
	path = filepath.Clean(path) // "R/" is R, not R/R
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
