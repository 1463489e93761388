package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/internal/atomicdir"
	"ratelab/internal/format"
	"ratelab/internal/outpath"
	"ratelab/outputs"
	"ratelab/session"
	"ratelab/sim"
)

// startCharts writes the charts of cfg's run up to upTo (package plots), SVG and
// PNG, into the folder <scenario>-seed<N>[-limit…]-charts of the export folder,
// in the background: the same replay as an export (the run is deterministic), and
// the same one-at-a-time rule, so e and P share the exporter. The folder appears
// whole or not at all, and replaces only one ratelab wrote (internal/atomicdir).
func (e *exporter) startCharts(cfg *sim.Config, upTo time.Duration, adjusted bool, so session.Options) tea.Cmd {
	if e.busy {
		return nil
	}
	e.busy, e.doing = true, "drawing the charts"
	parent := so.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	e.cancel, e.done = cancel, done
	so.Context = ctx
	path := filepath.Join(e.dir, exportBase(cfg, adjusted)+"-charts")
	return guard(func() tea.Msg {
		defer close(done)
		n, err := writeCharts(cfg, upTo, so, path)
		if err != nil {
			return exportedMsg{text: "charts failed: " + err.Error(), err: true}
		}
		return exportedMsg{text: fmt.Sprintf("wrote %d charts of %s of the run to %s (SVG and PNG)", n, format.Duration(upTo), path)}
	}, func(p any) tea.Msg {
		return exportedMsg{text: fmt.Sprintf("charts failed on a bug (%v); please report it", p), err: true}
	})
}

// writeCharts replays cfg to upTo (session.Drive), its decisions kept for the
// zoom (plots.Recorder), and writes its charts into the folder path; it returns
// how many.
func writeCharts(cfg *sim.Config, upTo time.Duration, so session.Options, path string) (n int, err error) {
	if err := apartFromInputs(cfg, outpath.Folder("the charts' folder", path)); err != nil {
		return 0, err
	}
	dir, err := atomicdir.Create(path)
	if err != nil {
		return 0, err
	}
	defer dir.Abort()
	r, err := session.Start(cfg, so)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := r.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	written, err := outputs.Write(contextOf(so), r.Run, upTo, outputs.Outputs{Charts: dir.Path(), ChartsName: path})
	if err != nil {
		return 0, err
	}
	return len(written.Figures), dir.Commit()
}
