package plots

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Render is the figure as "svg" or "png", at Width × Height.
func (f Figure) Render(format string) ([]byte, error) {
	w, err := f.plot.WriterTo(Width, Height, format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("drawing %s as %s: %w", f.Name, format, err)
	}
	return b.Bytes(), nil
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
	w, h := Width.Points(), Height.Points()
	head = strings.Replace(head, fmt.Sprintf(`width="%gpt"`, w), fmt.Sprintf(`viewBox="0 0 %g %g" role="img"`, w, h), 1)
	head = strings.Replace(head, fmt.Sprintf(` height="%gpt"`, h), "", 1)
	return head + s[end:], nil
}

// WriteFiles writes every figure into dir as NAME.svg and NAME.png.
func WriteFiles(dir string, figs []Figure) error {
	for _, f := range figs {
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
