package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/internal/printable"
	"ratelab/scenarios"
	"ratelab/session"
	"ratelab/ui"
)

const tuiUsage = `
Usage: ratelab [tui] [--scenario NAME] [--file F] [--lanes a,b] [--seed N]
                     [--redis URL] [--export-dir DIR]
       ratelab tui --trace FILE [--format …] [--key …] [trace flags as for tune]
                   [--config FILE [--config-format PRODUCT]]

Opens the terminal UI on the embedded scenarios (or the file given): every lane
graphed live, the comparison, the lesson. Press ? inside for every key. With
--trace it first sweeps the log as ratelab tune does, then replays it through the
recommended policy and its neighbours in the grid, a lane each; --config adds a
lane per context that limits in a product's configuration file (see
--config-format), named after where it is, and prints on standard error, as
file:line notes, what the file does that the lanes do not model.`

func runTUI(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("tui", tuiUsage, stderr)
	var o runOptions
	var tr traceOptions
	exportDir := "."
	o.scenarioFlags(fs, "the scenario to open on, by `NAME` (see ratelab list); the first if empty")
	fs.StringVar(&exportDir, "export-dir", ".", "the folder `DIR` where e writes the CSV files and P the charts")
	tr.flags(fs, false, true)
	tr.configFlags(fs)
	tr.goalFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "scenario", "file", "lanes", "redis", "export-dir", "config"); err != nil {
		return err
	}
	lanes, err := o.laneNames()
	if err != nil {
		return err
	}
	// e and P write into it later: a folder that is not there is said now
	if info, err := os.Stat(exportDir); err != nil || !info.IsDir() {
		return usagef("tui: --export-dir %s is not a folder; create it, or give an existing folder", exportDir)
	}
	// SIGHUP (the terminal closed) and SIGTERM end the program as q does: while
	// the scenarios (or a trace) are read, at once; once the UI runs, the run
	// shown stops at once, even in a frame waiting on Redis, Close stops an
	// export under way, and the runs' keys and temporary files are removed
	ctx, stop := interrupts()
	defer stop()
	var c *scenarios.Catalogue
	if tr.file != "" {
		if o.file != "" || o.scenario != "" {
			return usagef("tui: --trace opens its own scenario; drop --file and --scenario")
		}
		if o.seed != nil {
			tr.seed = *o.seed
		}
		tr.strict = o.strict
		var notes []string
		if c, o.scenario, notes, err = traceCatalogue(ctx, "tui", tr, stderr); err != nil {
			return err
		}
		// the configuration's notes stay on the terminal behind the UI, and
		// are there when it ends
		for _, n := range notes {
			fmt.Fprintln(stderr, printable.String(n))
		}
		// the sweep's requests are garbage now: give their memory back, so the
		// UI holds what the replay needs (the keys, one reorder window)
		debug.FreeOSMemory()
	} else if tr.config != "" {
		return usagef("tui: --config adds lanes to the scenario --trace replays; for a scenario file, write a lane with product = \"…\" and config_file = \"…\" (docs/scenarios.md)")
	} else if c, err = loadCatalogue(o.file); err != nil {
		return err
	}
	startWork()
	opts := ui.Options{Catalogue: c, Scenario: o.scenario, Seed: o.seed, Lanes: lanes, ExportDir: exportDir, WholeIn: traceWholeIn(tr),
		Redis: o.redis != "", Strict: o.strict, Session: session.Options{RedisURL: o.redis, Context: ctx}}
	m, err := ui.New(opts)
	if err != nil {
		return usageError{err}
	}
	defer func() {
		if cerr := m.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	_, err = tea.NewProgram(m, append(ui.ProgramOptions(), tea.WithContext(ctx))...).Run()
	if c := m.Crash(); c != nil {
		return crashReport(c)
	}
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	if err != nil {
		return fmt.Errorf("the terminal UI failed: %w", err)
	}
	return nil
}

// traceWholeIn is how long the UI takes to show a trace whole at the speed it
// starts at: about a minute (an 83-hour log at 1× would show empty panels for
// most of an hour); 0, the usual 1×, for scenarios.
func traceWholeIn(tr traceOptions) time.Duration {
	if tr.file == "" {
		return 0
	}
	return time.Minute
}

// crashReport writes the report of a UI that stopped on a bug and returns the error
// that tells the user what happened and what to send.
func crashReport(c *ui.Crash) error {
	path, err := c.WriteReport(os.TempDir())
	if err != nil {
		return fmt.Errorf("the terminal UI stopped on a bug (%v); the terminal is restored, but its report could not be written (%v): please report the bug with the scenario %q, seed %d, the terminal size %d×%d and what you pressed", c.Value, err, c.Scenario, c.Seed, c.Width, c.Height)
	}
	return fmt.Errorf("the terminal UI stopped on a bug (%v); the terminal is restored and no file you exported is affected.\nPlease report the bug to the ratelab maintainers and attach %s: it holds the scenario, seed, policy changes, terminal size and the last keys pressed, which replay it", c.Value, path)
}
