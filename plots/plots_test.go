package plots

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"

	"ratelab/scenarios"
	"ratelab/sim"
)

func compile(t *testing.T, name string) *sim.Config {
	t.Helper()
	c, err := scenarios.Load("../scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile(name, scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// recorded runs cfg in memory to upTo, its decisions kept by a Recorder, and
// returns the figures' data.
func recorded(t *testing.T, cfg *sim.Config, upTo time.Duration) *Data {
	t.Helper()
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := NewRecorder()
	defer rec.Close()
	r.OnRows(rec.Rows)
	if err := r.AdvanceTo(upTo); err != nil {
		t.Fatal(err)
	}
	if err := r.FinishRows(); err != nil {
		t.Fatal(err)
	}
	d, err := From(r, rec)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The boundary burst's zoom holds the fixed window's 100 + 100 within 2 ms of
// 1.000 s, and every other lane's 100, from the decisions themselves.
func TestZoomShowsTheBoundaryBurst(t *testing.T) {
	cfg := compile(t, "boundary-burst")
	d := recorded(t, cfg, cfg.Duration)
	z := d.Zoom
	if z == nil {
		t.Fatal("no zoom")
	}
	if d.Lanes[z.Lane].Config.Name != "fixed-window" {
		t.Fatalf("zoom on lane %q, want fixed-window", d.Lanes[z.Lane].Config.Name)
	}
	if z.From > 999*time.Millisecond || z.To < 1001*time.Millisecond+z.Bin {
		t.Fatalf("zoom %v–%v misses 0.999–1.001 s", z.From, z.To)
	}
	for i, l := range d.Lanes {
		var before, after int64 // accepted before and after the boundary at 1 s
		for j, n := range z.Accepted[i] {
			if z.From+time.Duration(j)*z.Bin < time.Second {
				before += n
			} else {
				after += n
			}
		}
		want := int64(0)
		if l.Config.Name == "fixed-window" {
			want = 100
		}
		if before != 100 || after != want {
			t.Errorf("lane %s: accepted %d before 1 s and %d after in the zoom, want 100 and %d", l.Config.Name, before, after, want)
		}
	}
}

// Every figure renders as a PNG of the stated size and as well-formed SVG with
// its title in it; the no-limit lane gets no level figure, and a note says so.
func TestFiguresRender(t *testing.T) {
	cfg := compile(t, "retry-storm")
	d := recorded(t, cfg, cfg.Duration)
	figs, notes, err := Figures(d)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range figs {
		names[f.Name] = true
	}
	for _, want := range []string{"comparison-accepted", "lane1-no-limit-decisions", "lane1-no-limit-backend", "lane2-fixed-window-level", "lane2-fixed-window-decisions"} {
		if !names[want] {
			t.Errorf("no figure %s among %v", want, names)
		}
	}
	if d.Zoom != nil || names["comparison-zoom"] {
		t.Errorf("a zoom on retry-storm, whose peaks are no bursts: %+v", d.Zoom)
	}
	if names["lane1-no-limit-level"] || len(notes) != 1 || !strings.Contains(notes[0], `"no limit" has no level`) {
		t.Errorf("the no-limit lane: level figure %v, notes %q", names["lane1-no-limit-level"], notes)
	}
	if testing.Short() {
		figs = figs[:3]
	}
	for _, f := range figs {
		b, err := f.Render("png")
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s.png: %v", f.Name, err)
		}
		// 96 pixels an inch: 768 × 432 for 8 × 4.5 inches, taller with a panel above
		w, h := f.Size()
		if got, wantX, wantY := img.Bounds().Size(), int(w/vg.Inch*96), int(h/vg.Inch*96); got.X != wantX || got.Y != wantY || got.X != 768 || got.Y < 432 {
			t.Errorf("%s.png is %v, want %d×%d", f.Name, got, wantX, wantY)
		}
		svg, err := f.InlineSVG()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "viewBox=") {
			t.Errorf("%s: inline SVG starts %.80q", f.Name, svg)
		}
		dec := xml.NewDecoder(strings.NewReader(svg))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: SVG not well-formed: %v", f.Name, err)
			}
		}
		if !strings.Contains(svg, "scenario retry-storm, seed 1") {
			t.Errorf("%s: the caption is not in the SVG", f.Name)
		}
	}
}

// A run with a deployment draws each deployed lane against its ideal, with its
// membership above, and the overshoot sweep once; a run without draws neither.
func TestDeploymentFigures(t *testing.T) {
	d := recorded(t, compile(t, "autoscale"), 60*time.Second)
	figs, _, err := Figures(d)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
		if strings.HasSuffix(f.Name, "-vs-ideal") && f.above == nil {
			t.Errorf("%s has no membership panel", f.Name)
		}
	}
	for _, want := range []string{"deployments-sweep", "lane1-whole-per-instance-vs-ideal", "lane3-share-seen-in-5s-vs-ideal"} {
		if !slices.Contains(names, want) {
			t.Errorf("no figure %s in %v", want, names)
		}
	}
	plain, _, err := Figures(recorded(t, compile(t, "boundary-burst"), time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plain {
		if f.Name == "deployments-sweep" || strings.HasSuffix(f.Name, "-vs-ideal") {
			t.Errorf("a run without a deployment draws %s", f.Name)
		}
	}
}
