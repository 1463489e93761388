package tune

// The answer's layout: lines wrapped at AnswerWidth, tables whose columns are
// as wide as their widest cell, cells clipped only where a column must give way.

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"ratelab/internal/format"
	"ratelab/internal/printable"
)

// answerWriter gathers the answer's lines, wrapped to AnswerWidth.
type answerWriter struct{ strings.Builder }

func (b *answerWriter) line(s string) { b.WriteString(s + "\n") }

// para writes s wrapped, continued lines indented by two.
func (b *answerWriter) para(s string) { b.wrapped(s, "", "  ") }

// indent writes s wrapped, every line indented by two.
func (b *answerWriter) indent(s string) { b.wrapped(s, "  ", "  ") }

func (b *answerWriter) wrapped(s, first, rest string) {
	for i, l := range format.Wrap(s, AnswerWidth-max(len(first), len(rest))) {
		if i > 0 {
			first = rest
		}
		b.line(first + l)
	}
}

// refusedTable writes whom a limit refuses: a line, then a row per client.
func (b *answerWriter) refusedTable(what string, rs []Refusal, t *Trace) {
	if len(rs) == 0 {
		b.indent(what + " nobody in this log.")
		return
	}
	b.indent(fmt.Sprintf("%s %s:", what, refusedSummary(rs)))
	// the columns: the key, the kind, "refused of sent" and the time, each
	// as wide as its widest listed cell; the kind gives way first
	kw, rw, tw := keyWidth(rs), len("refused"), len("first refused")
	for i, f := range rs[:min(len(rs), maxListed)] {
		rw = max(rw, len(fmt.Sprintf("%d of %d", f.Refused, f.Sent)))
		tw = max(tw, utf8.RuneCountInString(rs[i].FirstAt))
	}
	kindW := max(8, min(18, AnswerWidth-2-kw-rw-tw-3))
	b.line(format.Clip("  "+cell("client", kw)+" "+cell("kind", kindW)+" "+cell("refused", rw)+" first refused", AnswerWidth))
	for i, f := range rs {
		if i == maxListed {
			b.line(fmt.Sprintf("  and %d more (--json - lists them all)", len(rs)-maxListed))
			break
		}
		kind := f.Kind
		if kind == "" {
			kind = "-"
		}
		b.line(format.Clip("  "+cell(printable.String(f.Key), kw)+" "+cell(kind, kindW)+" "+cell(fmt.Sprintf("%d of %d", f.Refused, f.Sent), rw)+" "+f.FirstAt, AnswerWidth))
	}
}

// keyWidth is the columns the keys of a list take: the longest listed (as
// printed), from 15 (an IPv4 address) to 24.
func keyWidth(rs []Refusal) int {
	w := 15
	for i, f := range rs {
		if i == maxListed {
			break
		}
		w = max(w, utf8.RuneCountInString(printable.String(f.Key)))
	}
	return min(w, 24)
}

// cell is s in exactly n columns: padded, or clipped with an ellipsis.
func cell(s string, n int) string {
	s = format.Clip(s, n)
	return s + strings.Repeat(" ", n-utf8.RuneCountInString(s))
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}
