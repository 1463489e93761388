package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"charm.land/bubbles/v2/progress"
	"github.com/charmbracelet/x/term"
)

// progressBar shows a long job's progress and the time left on standard error,
// redrawn in place, when standard error is a terminal; otherwise it shows
// nothing, so logs and pipes get only the results.
type progressBar struct {
	w     io.Writer
	on    bool
	bar   progress.Model
	what  string
	start time.Time
	drawn time.Time
}

func newProgressBar(w io.Writer, what string) *progressBar {
	f, ok := w.(*os.File)
	p := &progressBar{w: w, on: ok && term.IsTerminal(f.Fd()), what: what, start: time.Now()}
	if p.on {
		p.bar = progress.New(progress.WithWidth(30), progress.WithDefaultBlend())
	}
	return p
}

// update shows done of total, at most ten times a second.
func (p *progressBar) update(done, total int) {
	if !p.on || total == 0 {
		return
	}
	now := time.Now()
	if now.Sub(p.drawn) < 100*time.Millisecond && done < total {
		return
	}
	p.drawn = now
	elapsed := now.Sub(p.start)
	left := "…"
	if done > 0 {
		left = (elapsed * time.Duration(total-done) / time.Duration(done)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r%s %d/%d %s, %s left ", p.bar.ViewAs(float64(done)/float64(total)), done, total, p.what, left)
}

// done clears the bar; again, it does nothing.
func (p *progressBar) done() {
	if p.on && !p.drawn.IsZero() {
		fmt.Fprint(p.w, "\r\x1b[2K")
		p.drawn = time.Time{}
	}
}
