package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/internal/atomicfile"
	"ratelab/internal/format"
	"ratelab/internal/outpath"
	"ratelab/outputs"
	"ratelab/session"
	"ratelab/sim"
)

// exporter writes the run so far as the two CSV files of the contract, in the
// background; one export at a time. An export under way when the UI ends is
// stopped, and its temporary files and Redis keys removed (see stop).
type exporter struct {
	dir   string
	busy  bool
	doing string // what is under way while busy, for the status line

	cancel context.CancelFunc // stops the export under way
	done   chan struct{}      // closed when it has returned, cleaned up
}

// stopWait is how long Close waits for a stopped export to clean up: its Redis
// keys take at most 2 s.
const stopWait = 5 * time.Second

// finished marks the export done (its message arrived).
func (e *exporter) finished() {
	e.busy = false
	if e.cancel != nil {
		e.cancel()
		e.cancel = nil
	}
}

// stop stops the export under way, if any, and waits (at most stopWait) until it
// has removed its temporary files and its Redis keys.
func (e *exporter) stop() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	select {
	case <-e.done:
	case <-time.After(stopWait):
	}
	e.cancel = nil
}

// exportedMsg reports an export: the paths written, or what went wrong.
type exportedMsg struct {
	text string
	err  bool
}

// start exports cfg's run up to upTo, named after the scenario and seed (and the
// policy, when adjusted), in the export folder. The run is deterministic, so
// replaying the same configuration up to upTo reproduces exactly the decisions
// shown, without stopping the UI. Each file is written under a temporary name and
// renamed only when complete.
func (e *exporter) start(cfg *sim.Config, upTo time.Duration, adjusted bool, so session.Options) tea.Cmd {
	if e.busy {
		return nil
	}
	e.busy, e.doing = true, "exporting the CSVs"
	parent := so.Context // the program's: a signal stops the export too
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	e.cancel, e.done = cancel, done
	so.Context = ctx
	base := exportBase(cfg, adjusted)
	dir := e.dir
	return guard(func() tea.Msg {
		defer close(done)
		requests := filepath.Join(dir, base+"-requests.csv")
		series := filepath.Join(dir, base+"-series.csv")
		if err := exportRun(cfg, upTo, so, requests, series); err != nil {
			return exportedMsg{text: "export failed: " + err.Error(), err: true}
		}
		return exportedMsg{text: fmt.Sprintf("exported %s of the run to %s and %s", format.Duration(upTo), requests, series)}
	}, func(p any) tea.Msg {
		return exportedMsg{text: fmt.Sprintf("export failed on a bug (%v); please report it", p), err: true}
	})
}

// apartFromInputs refuses outputs that would write over a file the run reads
// (sim.Config.Files), or inside a folder written whole (package outpath).
func apartFromInputs(cfg *sim.Config, outs ...outpath.Path) error {
	var paths []outpath.Path
	for _, f := range cfg.Files {
		paths = append(paths, outpath.Input(fmt.Sprintf("a file of scenario %q", cfg.Name), f))
	}
	return outpath.Distinct(append(paths, outs...))
}

// exportBase names an export's files: the scenario and seed, and the policy when
// adjusted.
func exportBase(cfg *sim.Config, adjusted bool) string {
	base := fmt.Sprintf("%s-seed%d", cfg.Name, cfg.Seed)
	if adjusted {
		p := cfg.Tiers[0].Policy
		base += fmt.Sprintf("-limit%d-burst%d", p.Limit, p.Burst)
	}
	return base
}

// exportRun replays cfg to upTo (session.Drive), writing every decision to
// requests and the series to seriesPath; nothing is left behind on failure, or
// when so.Context stops it.
func exportRun(cfg *sim.Config, upTo time.Duration, so session.Options, requests, seriesPath string) (err error) {
	if err := apartFromInputs(cfg, outpath.File("the request CSV", requests), outpath.File("the series CSV", seriesPath)); err != nil {
		return err
	}
	reqFile, err := atomicfile.Create(requests)
	if err != nil {
		return err
	}
	defer reqFile.Abort()
	serFile, err := atomicfile.Create(seriesPath)
	if err != nil {
		return err
	}
	defer serFile.Abort()
	r, err := session.Start(cfg, so)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	// the rows of attempts still in flight at upTo go as they stand
	_, err = outputs.Write(contextOf(so), r.Run, upTo, outputs.Outputs{Requests: reqFile, Series: serFile})
	return err
}

// contextOf is so's context, or the background for none.
func contextOf(so session.Options) context.Context {
	if so.Context != nil {
		return so.Context
	}
	return context.Background()
}
