// Package atomicdir writes a folder of outputs (charts, a report) so that it
// appears whole or not at all, and never harms a folder ratelab did not write.
//
// Create makes a fresh temporary folder beside the destination, in the same
// parent (so the final rename stays on one file system); the caller writes every
// file into it; Commit renames it to the destination. Nothing is ever written
// into the destination itself, so a failure (a full disk, a signal) leaves what
// was there before, and Abort removes the temporary folder.
//
// What may be at the destination:
//   - nothing: the folder appears on Commit;
//   - an empty folder: it is replaced;
//   - a folder holding Marker, the file ratelab leaves in every folder it
//     writes: it is replaced, whatever else is in it (it is an earlier output
//     of ratelab, written again);
//   - anything else (a folder with other files and no Marker, a file): refused,
//     before anything runs, with a message that says so.
//
// A replaced folder is first renamed aside, then the new one renamed in, then
// the old one removed: the destination is missing only between two renames.
package atomicdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"ratelab/internal/printable"
)

// Marker is the file ratelab writes into every folder it makes, which tells a
// later run that it may replace the folder.
const Marker = ".ratelab"

const markerText = "This folder was written by ratelab; ratelab replaces it when asked to write here again.\n"

// Dir is a folder being written under a temporary name.
type Dir struct {
	path string // the destination, as given
	tmp  string
	done bool
}

// live are the temporary folders not yet committed or aborted (see
// RemoveTemporary); committed says a folder was put in place (Committed).
var live = struct {
	sync.Mutex
	dirs      map[*Dir]bool
	committed bool
}{dirs: map[*Dir]bool{}}

// Committed says a folder was put in place by this process. After
// RemoveTemporary it is final: no folder is committed after that.
func Committed() bool {
	live.Lock()
	defer live.Unlock()
	return live.committed
}

// Create checks that path may be written (see the package comment) and makes the
// temporary folder the caller fills (Path). Its errors name the folder and the fix.
func Create(path string) (*Dir, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	name := printable.Name(path) // for messages, on one line
	parent := filepath.Dir(filepath.Clean(path))
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(path))+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("%s cannot be written: %w; choose a folder you can write to", name, unwrapPath(err))
	}
	// MkdirTemp makes it private; the folder written is as readable as any other
	// (the umask still applies to the files in it)
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("%s cannot be written: %w", name, unwrapPath(err))
	}
	if err := os.WriteFile(filepath.Join(tmp, Marker), []byte(markerText), 0o644); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("%s cannot be written: %w", name, unwrapPath(err))
	}
	d := &Dir{path: path, tmp: tmp}
	live.Lock()
	live.dirs[d] = true
	live.Unlock()
	return d, nil
}

// Check says whether path may be written as a folder, without writing anything.
func Check(path string) error {
	clean := filepath.Clean(path)
	parent := filepath.Dir(clean)
	name := printable.Name(path) // for messages, on one line
	if info, err := os.Stat(parent); err != nil {
		return fmt.Errorf("%s cannot be written: the folder %s it goes in does not exist; create it first", name, printable.Name(parent))
	} else if !info.IsDir() {
		return fmt.Errorf("%s cannot be written: %s is a file, not a folder; give a path in a folder", name, printable.Name(parent))
	}
	info, err := os.Lstat(clean)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s cannot be written: %w", name, unwrapPath(err))
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link; give the folder it leads to (written here, the folder would replace the link, not fill the folder), or a new path", name)
	case !info.IsDir():
		return fmt.Errorf("%s is not a folder; give the path of a new or empty folder", name)
	}
	entries, err := os.ReadDir(clean)
	if err != nil {
		return fmt.Errorf("%s cannot be read to check it is ratelab's: %w", name, unwrapPath(err))
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(clean, Marker)); err == nil {
		return nil
	}
	return fmt.Errorf("%s is not empty and ratelab did not write it (it has no %s file); give a new or empty folder, or remove this one", name, Marker)
}

// Path is the temporary folder to write into.
func (d *Dir) Path() string { return d.tmp }

// Commit puts the folder in place of the destination (see the package comment),
// checking again that what is there may be replaced. A nil Dir (no folder asked
// for) commits nothing.
func (d *Dir) Commit() error {
	if d == nil {
		return nil
	}
	live.Lock()
	defer live.Unlock()
	name := printable.Name(d.path) // for messages, on one line
	if d.done {
		return fmt.Errorf("%s: already committed or aborted", name)
	}
	if err := Check(d.path); err != nil {
		return err
	}
	clean := filepath.Clean(d.path)
	var old string
	if _, err := os.Lstat(clean); err == nil {
		old = d.tmp + "-old"
		if err := os.Rename(clean, old); err != nil {
			return fmt.Errorf("%s cannot be replaced: %w", name, unwrapPath(err))
		}
	}
	if err := os.Rename(d.tmp, clean); err != nil {
		if old != "" {
			os.Rename(old, clean) // put back what was there
		}
		return fmt.Errorf("%s cannot be written: %w", name, unwrapPath(err))
	}
	d.done, live.committed = true, true
	delete(live.dirs, d)
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("%s is written, but the folder it replaced, moved aside to %s, cannot be removed: %w; remove it", name, printable.Name(old), unwrapPath(err))
		}
	}
	return nil
}

// Abort removes the temporary folder of a Dir not committed. Safe to defer.
func (d *Dir) Abort() {
	if d == nil {
		return
	}
	live.Lock()
	defer live.Unlock()
	if d.done {
		return
	}
	d.done = true
	delete(live.dirs, d)
	os.RemoveAll(d.tmp)
}

// RemoveTemporary removes every temporary folder not yet committed or aborted,
// for a process about to exit on a signal without running its deferred Aborts.
func RemoveTemporary() {
	live.Lock()
	defer live.Unlock()
	for d := range live.dirs {
		d.done = true
		os.RemoveAll(d.tmp)
		delete(live.dirs, d)
	}
}

// unwrapPath drops the path an *fs.PathError repeats (with the temporary name).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
