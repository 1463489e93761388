package main

import (
	"bytes"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"ratelab/internal/atomicfile"
	"ratelab/internal/outpath"
	"ratelab/scenarios"
)

const scenariosUsage = `
Usage: ratelab scenarios --write FILE [--force] [NAME…]

Writes shipped scenarios (those named, or every one) into FILE as a scenario file
of your own to start from: each exactly as written in ratelab's catalogue, its
comments included, so ratelab run --file FILE --scenario NAME replays it byte for
byte as ratelab run --scenario NAME does. A scenario that replays a request log
reads it relative to its file: the log is written beside FILE too (traces/…),
unless the same file is there already; a different one there is left alone and
refused. FILE appears whole or not at all, and an existing FILE is replaced only
with --force. --write - prints the scenarios on standard output (and writes no
log). ratelab list shows the names.`

// catalogueFile is the embedded catalogue's name in the embedded files.
const catalogueFile = "scenarios.toml"

func runScenarios(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("scenarios", scenariosUsage, stderr)
	file := fs.String("write", "", "write the scenarios into `FILE` (- for standard output)")
	force := fs.Bool("force", false, "replace FILE if it exists")
	names, err := parseFlagsAndArgs(fs, args)
	if err != nil {
		return err
	}
	if err := notEmpty(fs, "write"); err != nil {
		return err
	}
	if *file == "" {
		return usagef("scenarios: --write FILE is required (- for standard output); for the names alone, see ratelab list")
	}
	c, err := loadCatalogue("")
	if err != nil {
		return err
	}
	if len(names) == 0 {
		names = c.Names()
	}
	var chosen []string
	for _, n := range names {
		if !slices.Contains(chosen, n) {
			chosen = append(chosen, n)
		}
	}
	data, err := iofs.ReadFile(embedded, catalogueFile)
	if err != nil {
		return err
	}
	text, err := scenarios.Extract(scenarios.FSSource(embedded, catalogueFile), data, chosen)
	if err != nil {
		return usageError{err}
	}
	doc := scenariosHeader(chosen) + text

	// the files the scenarios read (trace logs), relative to the catalogue
	var logs []string
	for _, n := range chosen {
		i, _ := c.Index(n)
		for _, cl := range c.Scenarios[i].Clients {
			if cl.File != "" && !slices.Contains(logs, cl.File) {
				logs = append(logs, cl.File)
			}
		}
	}
	if *file == "-" {
		if _, err := io.WriteString(stdout, doc); err != nil {
			return err
		}
		for _, l := range logs {
			fmt.Fprintf(stderr, "a scenario above reads %s, relative to its file, which --write - does not write; --write FILE writes it beside FILE\n", l)
		}
		return nil
	}
	info, err := os.Stat(*file)
	if err == nil && info.Mode().IsRegular() && !*force {
		return usagef("scenarios: %s exists; give another name, or --force to replace it", *file)
	}
	if err == nil && !info.Mode().IsRegular() {
		// a device, a FIFO: written through, and nothing beside it (the logs
		// would land in /dev/traces/)
		for _, l := range logs {
			fmt.Fprintf(stderr, "a scenario written reads %s, relative to its file, which is not written beside %s (not a regular file); --write FILE writes it beside FILE\n", l, *file)
		}
		logs = nil
	}
	paths := []outpath.Path{outpath.File("--write", *file)}
	type logFile struct {
		name, path string
		data       []byte
	}
	var toWrite []logFile
	var kept []string
	for _, l := range logs {
		if !filepath.IsLocal(filepath.FromSlash(l)) {
			return fmt.Errorf("scenarios: the catalogue names %s, outside its folder", l)
		}
		content, err := iofs.ReadFile(embedded, path.Join(path.Dir(catalogueFile), l))
		if err != nil {
			return err
		}
		dest := filepath.Join(filepath.Dir(*file), filepath.FromSlash(l))
		if have, err := os.ReadFile(dest); err == nil {
			if !bytes.Equal(have, content) {
				return usagef("scenarios: %s is there already and is not the log the scenarios read (%s); move it, or write FILE into another folder", dest, l)
			}
			kept = append(kept, dest)
			continue
		}
		paths = append(paths, outpath.File("the log "+l, dest))
		toWrite = append(toWrite, logFile{l, dest, content})
	}
	if err := distinct(paths); err != nil {
		return err
	}
	// every file is written aside first, the scenarios before the logs (a full
	// disk stops it before any folder is made for them); the logs are put in
	// place before the scenarios that read them. On a failure, every file
	// written aside is removed, and every folder made for the logs.
	out, err := atomicfile.Create(*file)
	if err != nil {
		return usagef("scenarios: --write %v", err)
	}
	defer out.Abort()
	if _, err := io.WriteString(out, doc); err != nil {
		return fmt.Errorf("writing %s: %w", *file, err)
	}
	var logFiles []*atomicfile.File
	var made []string // folders made for the logs, outermost first
	committed := false
	defer func() {
		for _, f := range logFiles {
			f.Abort()
		}
		if !committed {
			for i := len(made) - 1; i >= 0; i-- {
				os.Remove(made[i]) // only if empty: never what another wrote there meanwhile
			}
		}
	}()
	for _, l := range toWrite {
		dirs, err := mkdirAll(filepath.Dir(l.path))
		made = append(made, dirs...)
		if err != nil {
			return fmt.Errorf("scenarios: %w", err)
		}
		f, err := atomicfile.Create(l.path)
		if err != nil {
			return usagef("scenarios: %v", err)
		}
		logFiles = append(logFiles, f)
		if _, err := f.Write(l.data); err != nil {
			return fmt.Errorf("writing %s: %w", l.path, err)
		}
	}
	for _, f := range append(logFiles, out) {
		if err := f.Commit(); err != nil {
			return err
		}
		committed = true
	}
	fmt.Fprintf(stdout, "wrote %s: %s (%s)\n", *file, count(len(chosen), "scenario", "scenarios"), strings.Join(chosen, ", "))
	for _, l := range toWrite {
		fmt.Fprintf(stdout, "  and %s, the request log a scenario replays\n", l.path)
	}
	for _, k := range kept {
		fmt.Fprintf(stdout, "  %s, the request log a scenario replays, was there already\n", k)
	}
	fmt.Fprintf(stdout, "run one with: ratelab run --file %s --scenario %s\n", *file, chosen[0])
	return nil
}

// mkdirAll makes dir and the folders above it that are missing, as os.MkdirAll
// does, and returns those it made, outermost first, even when it fails part way.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}

// scenariosHeader is the comment that starts a file of shipped scenarios: where
// they come from and how to run one.
func scenariosHeader(names []string) string {
	return fmt.Sprintf(`# %s from ratelab's catalogue (ratelab %s), written by
# ratelab scenarios --write: each exactly as shipped, comments included. Edit
# them, rename them, add your own; run one with
#   ratelab run --file THIS-FILE --scenario NAME
# ratelab's documentation ("Scenario files") describes every key.

`, count(len(names), "scenario", "scenarios"), version)
}

// count is "1 scenario" or "3 scenarios".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
