package tune

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"ratelab/internal/format"
	"ratelab/internal/outpath"
	"ratelab/internal/printable"
)

// A log's parts may be named by a pattern ('parts/*/*.csv'), expanded as a
// shell expands it: *, ? and [...] (negated with [!...] or [^...]) within one
// name, and a wildcard never matching a name that starts with a dot (a hidden
// file or folder: split's .ratelab marker, an interrupted split's .DIR.tmp
// folder) unless the pattern's own name starts with one. A path that names a
// file is that file, even when its name holds those characters
// (access[1].log).

// IsPattern says path is a pattern of files: it holds *, ? or [ and names
// nothing itself. A log whose name holds them (access[1].log) is that file.
func IsPattern(path string) bool {
	if !strings.ContainsAny(path, "*?[") {
		return false
	}
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// globParts is the files pattern names (see above), or an error that says
// what to give instead.
func globParts(pattern string) ([]string, error) {
	names, err := filepath.Glob(goPattern(pattern))
	if err != nil {
		return nil, fmt.Errorf("%s: no such file, and not a pattern of files either (%v: a [ opens a class of characters, closed by ])", printable.Name(pattern), err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no file matches the pattern", printable.Name(pattern))
	}
	if names = slices.DeleteFunc(names, func(n string) bool { return hidden(pattern, n) }); len(names) == 0 {
		return nil, fmt.Errorf("%s: no file matches the pattern but hidden ones, which a wildcard does not match (start the pattern's name with a dot to read them)", printable.Name(pattern))
	}
	return names, nil
}

// goPattern is a shell pattern as filepath.Match reads it: a class a shell
// negates with [! negated with [^.
func goPattern(pattern string) string {
	b := []byte(pattern)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\\':
			i++ // an escaped character is itself
		case b[i] == '[' && i+1 < len(b) && b[i+1] == '!':
			b[i+1] = '^'
		}
	}
	return string(b)
}

// hidden says a wildcard of pattern matched a name of path that starts with a
// dot, which a shell would not expand to: the names from the pattern's first
// wildcard on are compared with path's last as many.
func hidden(pattern, path string) bool {
	pat := strings.Split(filepath.ToSlash(filepath.Clean(pattern)), "/")
	got := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	first := slices.IndexFunc(pat, func(p string) bool { return strings.ContainsAny(p, "*?[") })
	if first < 0 || len(got) < len(pat)-first {
		return false
	}
	got = got[len(got)-(len(pat)-first):]
	for i, p := range pat[first:] {
		if strings.ContainsAny(p, "*?[") && !strings.HasPrefix(p, ".") && strings.HasPrefix(got[i], ".") {
			return true
		}
	}
	return false
}

// isPart checks that name, one of the files of the log at path (a folder or
// a pattern), is a file (a symlink to one too): a folder or a device among
// them would be a part left out, or a read that never ends. names are all of
// them, whose extension the fix it suggests takes.
func isPart(name, path string, names []string) error {
	info, err := os.Stat(name)
	if err != nil {
		if _, lerr := os.Lstat(name); lerr == nil {
			return fmt.Errorf("%s, among the parts of %s, is a symlink to nothing: remove it, or give a pattern that leaves it out", printable.Name(name), printable.Name(path))
		}
		return err
	}
	if info.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch t := info.Mode().Type(); {
	case info.IsDir():
		what = "a folder"
	case t&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	case t&fs.ModeDevice != 0:
		what = "a device"
	}
	fix := "give a pattern that matches only the files"
	if !IsPattern(path) { // a folder: the pattern of its files, unless that matches name too
		pattern := filepath.Join(path, "*"+cmp.Or(partsExt(names), ".log"))
		if matched, _ := filepath.Match(pattern, name); matched {
			fix = "move it out of the folder, or " + fix
		} else {
			fix += ", such as --trace " + format.ShellQuote(pattern)
		}
	}
	return fmt.Errorf("%s is %s: the parts of a log are files; %s", printable.Name(name), what, fix)
}

// partsExt is the extension of the first regular file among names ("" when
// none has one).
func partsExt(names []string) string {
	for _, n := range names {
		if info, err := os.Stat(n); err == nil && info.Mode().IsRegular() && filepath.Ext(n) != "" {
			return filepath.Ext(n)
		}
	}
	return ""
}

// Among says path would be read as one of the files of the log at log (a
// folder, or a pattern): inside the folder, or matched by the pattern, as
// given or with both resolved through symlinks (the pattern's folders up to
// its first wildcard, and path), so that a link to the folder does not hide
// it. A file log has no other files.
func Among(log, path string) bool {
	if info, err := os.Stat(log); err == nil && info.IsDir() {
		return outpath.Inside(log, path)
	}
	if !IsPattern(log) {
		return false
	}
	p := goPattern(log)
	for _, pair := range [][2]string{{p, path}, {abs(p), abs(path)}, {resolvedPattern(p), outpath.Resolved(path)}} {
		if ok, _ := filepath.Match(pair[0], pair[1]); ok && !hidden(pair[0], pair[1]) {
			return true
		}
	}
	return false
}

func abs(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// resolvedPattern is pattern, absolute, its folders up to its first wildcard
// resolved through symlinks.
func resolvedPattern(pattern string) string {
	els := strings.Split(abs(pattern), string(filepath.Separator))
	first := slices.IndexFunc(els, func(p string) bool { return strings.ContainsAny(p, "*?[") })
	if first <= 0 {
		return abs(pattern)
	}
	prefix := string(filepath.Separator) + filepath.Join(els[:first]...)
	if real, err := filepath.EvalSymlinks(prefix); err == nil {
		return filepath.Join(append([]string{real}, els[first:]...)...)
	}
	return abs(pattern)
}
