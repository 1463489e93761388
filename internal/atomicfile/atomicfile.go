// Package atomicfile writes an output so that it never harms what is at its path.
//
//   - Nothing there, or a regular file: the content goes to a temporary file in
//     the same folder, which Commit renames over the path, so the file appears
//     whole or not at all. A symlink is followed: its target is the file written
//     (atomically, beside it), and the symlink stays a symlink.
//   - Anything else — a device such as /dev/null or /dev/full, a FIFO, a
//     terminal — is opened and written through, which is what writing to it
//     means; nothing is renamed over it, and a write error (ENOSPC on /dev/full)
//     is the caller's error.
//   - A directory is an error.
//
// Every temporary file not yet committed is known to the package, so that a
// process about to exit on a signal removes them all (RemoveTemporary). Both
// ratelab run --csv and the UI's export write this way.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// File is an output being written: under a temporary name, or through to a
// device or FIFO.
type File struct {
	path    string // as given, for messages
	target  string // the file Commit renames over (path with symlinks followed)
	mode    fs.FileMode
	tmp     *os.File // the temporary file, or the device opened for writing
	direct  bool     // tmp is the target itself (not a regular file)
	done    bool
	removed bool // by RemoveTemporary: the process is exiting
}

// Mode is the permissions of a file written where there was none, before the
// umask; a file replaced keeps its own. The temporary file starts private.
const Mode = 0o644

// maxLinks is how many symlinks in a row Create follows.
const maxLinks = 40

// Create starts writing path (see the package comment). The error says why it
// cannot be written, without the temporary name.
func Create(path string) (*File, error) {
	f := &File{path: path, target: path, mode: Mode}
	info, err := os.Stat(path) // follows symlinks
	switch {
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("%s is a directory; give a file name", path)
	case err == nil && !info.Mode().IsRegular():
		out, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("%s cannot be written: %w", path, unwrapPath(err))
		}
		f.tmp, f.direct = out, true
		return f, nil
	case err == nil:
		if f.target, err = filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("%s cannot be written: %w", path, unwrapPath(err))
		}
		f.mode = info.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		if f.target, err = danglingTarget(path); err != nil {
			return nil, fmt.Errorf("%s cannot be written: %w", path, err)
		}
	default:
		return nil, fmt.Errorf("%s cannot be written: %w", path, unwrapPath(err))
	}
	live.Lock()
	defer live.Unlock()
	tmp, err := os.CreateTemp(filepath.Dir(f.target), "."+filepath.Base(f.target)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("%s cannot be written: %w", path, unwrapPath(err))
	}
	f.tmp = tmp
	live.files[f] = struct{}{}
	return f, nil
}

// danglingTarget follows path's symlinks by hand (filepath.EvalSymlinks fails on a
// link to a file that does not exist yet) to the path a new file is to be created
// at; a path that is not a symlink is its own target.
func danglingTarget(path string) (string, error) {
	for range maxLinks {
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", unwrapPath(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", errors.New("too many levels of symbolic links")
}

// unwrapPath drops the operation and path of an *fs.PathError, which would name
// the temporary file or repeat the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Direct says the file is written through (a device, a FIFO): what is written
// is there at once, and Abort cannot take it back.
func (f *File) Direct() bool { return f.direct }

// Write writes to the temporary file, or to the device.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Commit puts the file in place: closes the temporary file and renames it over
// the target, or closes the device written through.
func (f *File) Commit() error {
	if f.direct {
		if f.done {
			return nil
		}
		f.done = true
		if err := f.tmp.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, unwrapPath(err))
		}
		return nil
	}
	live.Lock()
	defer live.Unlock()
	if f.removed {
		return fmt.Errorf("writing %s: stopped; the temporary file is removed", f.path)
	}
	if f.done {
		return nil
	}
	f.done = true
	delete(live.files, f)
	fail := func(err error) error {
		f.tmp.Close()
		os.Remove(f.tmp.Name())
		return fmt.Errorf("writing %s: %w", f.path, unwrapPath(err))
	}
	if err := f.tmp.Chmod(f.mode); err != nil {
		return fail(err)
	}
	if err := f.tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(f.tmp.Name(), f.target); err != nil {
		return fail(err)
	}
	live.committed = true
	return nil
}

// Abort removes the temporary file, unless committed, or closes the device
// written through (what was written to it is written). Safe to defer.
func (f *File) Abort() {
	if f.direct {
		if !f.done {
			f.done = true
			f.tmp.Close()
		}
		return
	}
	live.Lock()
	defer live.Unlock()
	if !f.done {
		f.done = true
		delete(live.files, f)
		f.tmp.Close()
		os.Remove(f.tmp.Name())
	}
}

// live are the temporary files not yet committed or aborted; committed says
// a file was put in place (Committed).
var live = struct {
	sync.Mutex
	files     map[*File]struct{}
	committed bool
}{files: map[*File]struct{}{}}

// Committed says a file was renamed into place by this process. After
// RemoveTemporary it is final: no file is committed after that.
func Committed() bool {
	live.Lock()
	defer live.Unlock()
	return live.committed
}

// RemoveTemporary removes every temporary file not yet committed or aborted, for
// a process about to exit without returning through its deferred Aborts (a
// signal it could not wait on). A Commit under way finishes first; no file is
// committed after.
func RemoveTemporary() {
	live.Lock()
	defer live.Unlock()
	for f := range live.files {
		f.done, f.removed = true, true
		os.Remove(f.tmp.Name())
		delete(live.files, f)
	}
}

// Temporary is how many temporary files are being written now.
func Temporary() int {
	live.Lock()
	defer live.Unlock()
	return len(live.files)
}
