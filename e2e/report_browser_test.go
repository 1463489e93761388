package e2e

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"ratelab/internal/check"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium finds headless Chromium; without it the test skips, except in CI
// (RATELAB_CI=1), where .ci/run installs it and a skip is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if inCI() {
		t.Fatal("chromium is not installed; .ci/run installs Debian's chromium")
	}
	t.Skip("chromium is not installed (apt-get install chromium); skipping the report's browser test")
	return ""
}

// browse runs headless Chromium on page with extra flags, offline, in a profile
// of its own, and returns its standard output.
func browse(t *testing.T, bin, page string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(),
	}, extra...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, errOut.String())
	}
	return out.Bytes()
}

// The reports of boundary-burst and retry-storm render in a real browser: the
// screenshot is a page of plausible size with ink on it (neither blank nor a
// solid block), the DOM Chromium built holds every chart as an SVG figure, the
// claims and the table, and the page asks for nothing outside itself. Set
// RATELAB_SCREENSHOTS=DIR to keep the screenshots there.
func TestReportRendersInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the browser test takes a while on a loaded machine")
	}
	bin := chromium(t)
	for _, tc := range []struct {
		scenario string
		want     []string // in the DOM
	}{
		{"boundary-burst", []string{`id="fig-comparison-zoom"`, `id="fig-lane1-fixed-window-level-zoom"`, `id="claim-fw-twice"`, "fixed-window window boundary"}},
		{"retry-storm", []string{`id="fig-comparison-accepted"`, `id="fig-lane1-no-limit-backend"`, "backend capacity", `has no level`}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "report")
			code, out, errOut := ratelab(t, "report", "--scenario", tc.scenario, "--out", dir)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			m := regexp.MustCompile(`\((\d+) charts\)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no chart count in %q", out)
			}
			charts, _ := strconv.Atoi(m[1])
			page := filepath.Join(dir, "index.html")
			html, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			selfContained(t, string(html))

			shot := filepath.Join(t.TempDir(), "shot.png")
			browse(t, bin, page, "--screenshot="+shot, "--window-size=1280,2400", "--hide-scrollbars")
			checkScreenshot(t, shot, 1280, 2400)
			if keep := os.Getenv("RATELAB_SCREENSHOTS"); keep != "" {
				b, _ := os.ReadFile(shot)
				check.Setup(t, os.WriteFile(filepath.Join(keep, tc.scenario+".png"), b, 0o644))
			}

			dom := string(browse(t, bin, page, "--dump-dom"))
			if got := strings.Count(dom, "<figure "); got != charts {
				t.Errorf("the DOM has %d figures, the command says %d charts", got, charts)
			}
			if got := regexp.MustCompile(`<figure [^>]*>\s*<svg`).FindAllStringIndex(dom, -1); len(got) != charts {
				t.Errorf("%d of %d figures start with an <svg> element", len(got), charts)
			}
			for _, want := range append(tc.want, "<table>", `class="claims"`, "What the columns mean", `href="requests.csv"`, `href="series.csv"`) {
				if !strings.Contains(dom, want) {
					t.Errorf("the DOM has no %s", want)
				}
			}
		})
	}
}

// selfContained fails on anything that would make the page reach outside
// itself: scripts, stylesheets or images by address, any URL but the SVG and
// XLink namespaces.
func selfContained(t *testing.T, html string) {
	t.Helper()
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url("} {
		if strings.Contains(html, bad) {
			t.Errorf("the page has %s: it must need nothing outside itself", bad)
		}
	}
	for _, u := range regexp.MustCompile(`(?:https?:)?//[^"'\s)<]+`).FindAllString(html, -1) {
		switch u {
		case "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink":
		default:
			t.Errorf("the page names %s: it must fetch nothing", u)
		}
	}
}

// checkScreenshot checks the PNG has the window's size and looks like a page:
// mostly background, with a plausible share of ink and many shades (text,
// lines, fills), not one flat colour.
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if got := img.Bounds().Size(); got != (image.Point{w, h}) {
		t.Fatalf("the screenshot is %v, want %dx%d", got, w, h)
	}
	ink, colours := 0, map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
			if r>>8 < 200 || g>>8 < 200 || bl>>8 < 200 {
				ink++
			}
		}
	}
	share := float64(ink) / float64((w/2)*(h/2))
	if share < 0.01 || share > 0.6 || len(colours) < 50 {
		t.Errorf("the screenshot does not look like a page: %.1f%% ink, %d colours", 100*share, len(colours))
	}
	t.Logf("screenshot %dx%d: %.1f%% ink, %d colours", w, h, 100*share, len(colours))
}
