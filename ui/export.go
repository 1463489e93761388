package ui

import (
	"fmt"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/atomicfile"
	"ratelab/sim"
)

// exportedMsg reports an export: the paths written, or what went wrong.
type exportedMsg struct {
	text string
	err  bool
}

// export writes the run so far as the two CSV files of the contract, named after
// the scenario and seed (and the policy, when adjusted), in the export folder. It
// runs in the background: the run is deterministic, so replaying the same
// configuration up to the current virtual time reproduces exactly the decisions
// shown, without stopping the UI. Each file is written under a temporary name and
// renamed only when complete.
func (m *Model) export() tea.Cmd {
	if m.run == nil || m.exporting {
		return nil
	}
	m.exporting = true
	cfg, upTo, start := m.cfg, m.run.Now(), m.opts.Start
	base := fmt.Sprintf("%s-seed%d", cfg.Name, cfg.Seed)
	if m.limit > 0 || m.burst > 0 {
		p := cfg.Tiers[0].Policy
		base += fmt.Sprintf("-limit%d-burst%d", p.Limit, p.Burst)
	}
	dir := m.opts.ExportDir
	return guard(func() tea.Msg {
		requests := filepath.Join(dir, base+"-requests.csv")
		series := filepath.Join(dir, base+"-series.csv")
		if err := exportRun(cfg, upTo, start, requests, series); err != nil {
			return exportedMsg{text: "export failed: " + err.Error(), err: true}
		}
		return exportedMsg{text: fmt.Sprintf("exported %s of the run to %s and %s", sim.FormatDuration(upTo), requests, series)}
	}, func(p any) tea.Msg {
		return exportedMsg{text: fmt.Sprintf("export failed on a bug (%v); please report it", p), err: true}
	})
}

// exportRun replays cfg to upTo, writing every decision to requests and the
// series to seriesPath; nothing is left behind on failure.
func exportRun(cfg *sim.Config, upTo time.Duration, start func(*sim.Config) (*sim.Run, func(), error), requests, seriesPath string) error {
	if start == nil {
		start = func(c *sim.Config) (*sim.Run, func(), error) {
			r, err := sim.NewRun(c)
			return r, func() {}, err
		}
	}
	r, stop, err := start(cfg)
	if err != nil {
		return err
	}
	defer stop()
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
	w, err := sim.NewRequestWriter(reqFile, cfg)
	if err != nil {
		return err
	}
	r.OnRows(w.Write)
	if err := r.AdvanceTo(upTo); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := sim.WriteSeries(serFile, r); err != nil {
		return err
	}
	if err := reqFile.Commit(); err != nil {
		return err
	}
	return serFile.Commit()
}
