package infer

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"ratelab/internal/format"
)

// WriteText writes the report for a person: the best fit with its intervals and
// how its product would write it, the other consistent families, those ruled
// out, the headers' claims and the request that would tell the rest apart.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests over %s, %d refused (a hypothesis may get %d wrong)\n", r.Requests, format.Duration(r.Span), r.Refused, r.Tolerance)
	top, ok := r.Top()
	switch {
	case r.Refused == r.Requests && r.Requests > 0:
		b.WriteString("every request was refused: nothing tells what would be allowed (is the key or the URL refused whatever the rate?)\n")
	case r.Refused == 0:
		b.WriteString("nothing was refused: no limit was reached, so none can be told\n")
	case !ok:
		b.WriteString("no family fits every observation: the limiter is none of those ratelab knows, or several limits hold the requests")
		if len(r.Families) > 0 && r.Families[0].Mismatch < r.Requests/10 {
			// a log's clock, or a probe's send times, can be a little off
			fmt.Fprintf(&b, "; the nearest, %s, gets %d wrong: --tolerance %d allows that many", r.Families[0].Family, r.Families[0].Mismatch, r.Families[0].Mismatch)
		}
		b.WriteByte('\n')
	default:
		fmt.Fprintf(&b, "the limiter: %s\n", top.Name())
		b.WriteString(describe(top, "  "))
	}
	if c := r.Consistent(); len(c) > 1 {
		b.WriteString("also consistent, ranked:\n")
		for _, f := range c[1:] {
			fmt.Fprintf(&b, "  %s: %s\n", f.Name(), oneLine(f))
		}
	}
	var out []string
	for _, f := range r.Families {
		if !f.Consistent() {
			out = append(out, fmt.Sprintf("%s (%d wrong at best)", f.Family, f.Mismatch))
		}
	}
	if len(out) > 0 {
		fmt.Fprintf(&b, "ruled out: %s\n", strings.Join(out, ", "))
	}
	for _, c := range r.Claims {
		window := ""
		if c.Window > 0 {
			window = " per " + format.Duration(c.Window)
		}
		verdict := "consistent with what happened"
		if !c.Holds {
			verdict = "not what happened: " + c.Why
		}
		fmt.Fprintf(&b, "the server's %s says %d%s: %s\n", c.Header, c.Quota, window, verdict)
	}
	if s := r.Next; s != nil {
		var says []string
		for i, h := range s.Hypotheses {
			says = append(says, fmt.Sprintf("%s lets %d through", h, s.Allowed[i]))
		}
		fmt.Fprintf(&b, "to tell them apart: %d requests over %s, from %s after the last; %s\n",
			len(s.Offsets), format.Duration(s.Span()), format.Duration(s.After), strings.Join(says, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describe gives the fit's parameters, one a line, and its product's words.
func describe(f VariantFit, indent string) string {
	var b strings.Builder
	rlo, rhi := f.Rate()
	blo, bhi := f.Burst()
	g, size := f.Best()
	fmt.Fprintf(&b, "%srate   %s (consistent: %s)\n", indent, rate(RateOf(f)), rateRange(rlo, rhi))
	what := "burst"
	if f.windowed() {
		what = "limit"
	}
	fmt.Fprintf(&b, "%s%-6s %d (consistent: %s)\n", indent, what, size, sizeRange(blo, bhi))
	if f.windowed() {
		wlo, whi := f.Window()
		fmt.Fprintf(&b, "%swindow %s (consistent: %s to %s)", indent, seconds(g), seconds(wlo), seconds(whi))
		if f.Align != "" {
			fmt.Fprintf(&b, ", %s", f.AlignWords())
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%srefusals counted: %s\n", indent, refusalsCounted(f))
	if p := ProductWords(f, g, size); p != "" {
		fmt.Fprintf(&b, "%sas a product writes it: %s\n", indent, p)
	}
	return b.String()
}

// oneLine is a fit in a line.
func oneLine(f VariantFit) string {
	rlo, rhi := f.Rate()
	blo, bhi := f.Burst()
	s := fmt.Sprintf("rate %s, size %s", rateRange(rlo, rhi), sizeRange(blo, bhi))
	if f.windowed() {
		wlo, whi := f.Window()
		s += fmt.Sprintf(", window %s to %s", seconds(wlo), seconds(whi))
	}
	return s + fmt.Sprintf(" (%d wrong)", f.Mismatch)
}

// refusalsCounted says whether the fit counts refused requests, and how it knows.
func refusalsCounted(f VariantFit) string {
	switch {
	case f.RefusalsCount:
		return "yes"
	case f.Family == TokenBucket || f.Family == LeakyQueue:
		return "no (a bucket takes nothing for a refusal)"
	}
	return "no"
}

// ProductWords is how a product whose arithmetic the variant is would write
// the fit: nginx's limit_req for a bucket (its burst=N is a bucket of N+1;
// nodelay unless it queues), HAProxy's http_req_rate for its anchored sliding
// counter, Kong's rate-limiting for a window of a second, minute, hour or day
// aligned to the epoch.
func ProductWords(f VariantFit, g float64, size int64) string {
	switch {
	case f.Family == TokenBucket || f.Family == LeakyQueue:
		nodelay := " nodelay"
		if f.Family == LeakyQueue {
			nodelay = ""
		}
		// nginx writes a whole number a second or a minute: the one in the
		// interval nearest the best fit
		lo, hi := f.Rate()
		rate := ""
		for _, u := range []struct {
			per  float64
			unit string
		}{{1, "r/s"}, {60, "r/m"}} {
			n := math.Round(g * u.per)
			if n >= 1 && n >= lo*u.per*0.999 && n <= hi*u.per*1.001 {
				rate = fmt.Sprintf("%.0f%s", n, u.unit)
				break
			}
		}
		if rate == "" {
			return fmt.Sprintf("nginx writes a rate in whole requests a second or a minute, and none is within %s", rateRange(lo, hi))
		}
		return fmt.Sprintf("nginx limit_req_zone … rate=%s; limit_req … burst=%d%s", rate, size-1, nodelay)
	case f.Family == SlidingCounter && f.Align == "anchored" && f.Floor:
		if f.RefusalsCount {
			return fmt.Sprintf("HAProxy stick-table … store http_req_rate(%s); http-request track-sc0 …; http-request deny if { sc_http_req_rate(0) gt %d }", haproxyPeriod(g), size)
		}
		return fmt.Sprintf("HAProxy stick-table … store http_req_rate(%s); http-request deny if { …,table_http_req_rate(…) ge %d }; then track-sc0", haproxyPeriod(g), size)
	case f.Family == FixedWindow && f.Align == "epoch":
		for _, w := range []struct {
			s    float64
			name string
		}{{1, "second"}, {60, "minute"}, {3600, "hour"}, {86400, "day"}} {
			if math.Abs(g-w.s) < 1e-9 {
				return fmt.Sprintf("Kong rate-limiting config.%s=%d", w.name, size)
			}
		}
	}
	return ""
}

func haproxyPeriod(s float64) string {
	d := time.Duration(math.Round(s*1000)) * time.Millisecond
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprintf("%dms", d/time.Millisecond)
}

// rate writes a rate a second with three significant digits.
func rate(perSecond float64) string { return trimFloat(perSecond) + "/s" }

func trimFloat(x float64) string { return strings.TrimSuffix(fmt.Sprintf("%.3g", x), ".0") }

// rateRange says an interval of rates.
func rateRange(lo, hi float64) string {
	switch {
	case !finite(hi):
		return "at least " + rate(lo)
	case lo == hi:
		return rate(lo)
	}
	return rate(lo) + " to " + rate(hi)
}

// seconds writes a window in seconds.
func seconds(s float64) string {
	return format.Duration(time.Duration(math.Round(s*1e6)) * time.Microsecond)
}
