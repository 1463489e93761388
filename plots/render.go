package plots

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg/draw"
)

// Render is the figure as "svg" or "png", at its Size.
func (f Figure) Render(format string) ([]byte, error) {
	w, h := f.Size()
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	f.draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("drawing %s as %s: %w", f.Name, format, err)
	}
	return b.Bytes(), nil
}

// draw draws the figure on c: its plot, and the panel above it if there is one,
// their data areas aligned on the left so that one time reads at one x in both.
func (f Figure) draw(c draw.Canvas) {
	if f.above == nil {
		f.plot.Draw(c)
		return
	}
	upper := draw.Crop(c, 0, 0, c.Size().Y-f.aboveHeight, 0)
	lower := draw.Crop(c, 0, 0, 0, -f.aboveHeight)
	inUpper := f.above.DataCanvas(upper).Min.X - upper.Min.X
	inLower := f.plot.DataCanvas(lower).Min.X - lower.Min.X
	left := max(inUpper, inLower)
	f.above.Draw(draw.Crop(upper, left-inUpper, 0, 0, 0))
	f.plot.Draw(draw.Crop(lower, left-inLower, 0, 0, 0))
}

// InlineSVG is the figure's SVG as an element to put in an HTML page: without
// the XML declaration and comments that start the file, and scaled to the width
// of its container (the viewBox keeps its proportions).
func (f Figure) InlineSVG() (string, error) {
	b, err := f.Render("svg")
	if err != nil {
		return "", err
	}
	s := string(b)
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("drawing %s: no <svg> element in the SVG", f.Name)
	}
	s = s[i:]
	// the root's fixed size (in points) becomes a viewBox, so the page sizes it
	end := strings.IndexByte(s, '>')
	head := s[:end]
	fw, fh := f.Size()
	w, h := fw.Points(), fh.Points()
	head = strings.Replace(head, fmt.Sprintf(`width="%gpt"`, w), fmt.Sprintf(`viewBox="0 0 %g %g" role="img"`, w, h), 1)
	head = strings.Replace(head, fmt.Sprintf(` height="%gpt"`, h), "", 1)
	return head + s[end:], nil
}

// WriteFiles writes every figure into dir as NAME.svg and NAME.png; it stops
// before the next figure once ctx (if not nil) is done, returning its cause.
func WriteFiles(ctx context.Context, dir string, figs []Figure) error {
	for _, f := range figs {
		if ctx != nil && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		for _, format := range []string{"svg", "png"} {
			b, err := f.Render(format)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, f.Name+"."+format), b, 0o644); err != nil {
				return fmt.Errorf("writing %s.%s: %w", f.Name, format, err)
			}
		}
	}
	return nil
}
