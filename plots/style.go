package plots

import (
	"image/color"
	"strings"
	"unicode"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Lanes are told apart three ways at once, so that each alone is enough: colour
// (the Okabe–Ito palette, which colour-blind readers tell apart), dashes and
// marker shape (which survive greyscale printing).
var (
	laneColors = []color.Color{
		color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
		color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermillion
		color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
		color.RGBA{0x00, 0x9e, 0x73, 0xff}, // bluish green
		color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
		color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
		color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	}
	laneDashes = [][]vg.Length{
		nil,
		{vg.Points(6), vg.Points(3)},
		{vg.Points(2), vg.Points(2)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
		{vg.Points(12), vg.Points(4)},
		{vg.Points(1), vg.Points(3)},
		{vg.Points(4), vg.Points(2), vg.Points(1), vg.Points(2), vg.Points(1), vg.Points(2)},
	}
	laneGlyphs = []draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
		draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.PlusGlyph{},
	}

	// acceptedFill and deniedFill are dark and light: stacked, they read apart
	// in greyscale too.
	acceptedFill = color.RGBA{0x1f, 0x3a, 0x5f, 0xff}
	deniedFill   = color.RGBA{0xf4, 0xa5, 0x82, 0xff}
	markColor    = color.Gray{0x60}
)

// laneStyle is lane i's line and marker.
func laneStyle(i int) (draw.LineStyle, draw.GlyphStyle) {
	c := laneColors[i%len(laneColors)]
	line := draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: laneDashes[i%len(laneDashes)]}
	glyph := draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: laneGlyphs[i%len(laneGlyphs)]}
	return line, glyph
}

// boundaryStyle marks a window boundary: thin, grey, dotted.
var boundaryStyle = draw.LineStyle{Color: markColor, Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}

// capacityStyle marks a capacity or a limit: grey, long dashes.
var capacityStyle = draw.LineStyle{Color: markColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(8), vg.Points(4)}}

// slug is name as a file name: lower case letters and digits, other runs as one
// dash ("fixed-window (jitter)" → "fixed-window-jitter").
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "lane"
	}
	return b.String()
}
