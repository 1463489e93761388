package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"ratelab/internal/format"
	"ratelab/internal/printable"
)

// Width and Lines are the text's page: every line fits Width columns, and
// the whole in Lines lines, findings first (the rest is in --format json).
const (
	Width = 80
	Lines = 24
)

// WriteText writes the audit in at most Lines lines of at most Width
// columns: what was replayed, the findings (most pressing first, each in up to
// five lines), each context's rules as a table, the checks (the first three);
// what does not fit is counted, and left to --format json.
func (r *Report) WriteText(w io.Writer) error {
	head := []string{
		cut(r.Title),
		cut(fmt.Sprintf("%s requests from %s clients, %s to %s", format.Grouped(r.Log.Requests), format.Grouped(int64(r.Log.Clients)), r.Log.From, r.Log.To)),
	}
	if utf8.RuneCountInString(head[1]) >= Width { // the times on a line of their own
		head = []string{head[0], cut(fmt.Sprintf("%s requests from %s clients", format.Grouped(r.Log.Requests), format.Grouped(int64(r.Log.Clients)))),
			cut(fmt.Sprintf("from %s to %s", r.Log.From, r.Log.To))}
	}
	var checks []string
	for i, c := range r.Checks {
		if i == 3 { // three checks at most
			checks = append(checks, cut(fmt.Sprintf("--fail-on: %d more bounds in --format json (%d of all %d failed)", len(r.Checks)-3, len(r.FailedChecks()), len(r.Checks))))
			break
		}
		verdict := "holds"
		if c.Failed {
			verdict = "FAILS (exit 1)"
		}
		line := fmt.Sprintf("--fail-on %s %s: %s refused (%s of %s) in %s", c.Check, verdict, format.Percent(c.Share), format.Grouped(c.Refused), format.Grouped(c.Requests), c.Lane)
		if c.Requests == 0 {
			line = fmt.Sprintf("--fail-on %s holds: the log has no request of that class, so nothing is judged", c.Check)
		}
		checks = append(checks, wrap(line, Width, "  ", 2)...)
	}
	if r.Log.Unparsed > 0 {
		head = append(head, cut(fmt.Sprintf("%s lines could not be read and were skipped (--strict makes that an error)", format.Grouped(r.Log.Unparsed))))
	}
	if r.Log.WholeSeconds != "" {
		head = append(head, cut(r.Log.WholeSeconds))
	}
	// what the lanes do not model, a line each, at most two
	for i, n := range r.Notes {
		if i == 2 {
			head = append(head, cut(fmt.Sprintf("  and %d more notes in --format json", len(r.Notes)-2)))
			break
		}
		head = append(head, cut("note: "+n))
	}
	var table []string
	for _, l := range r.Lanes {
		table = append(table, cut(fmt.Sprintf("refuses %s of %s (ordinary %s): %s", format.Grouped(l.Refused), format.Grouped(l.Requests), format.Percent(l.OrdinaryShare()), l.Lane)))
		table = append(table, fmt.Sprintf("  %-42s %11s %11s %10s", "rule", "fires", "decides", "ordinary"))
		for _, rr := range l.Rules {
			table = append(table, cut(fmt.Sprintf("  %-42s %11s %11s %10s", cutTo(shortRule(rr.Rule), 42), format.Grouped(rr.Fires), format.Grouped(rr.Decides), format.Grouped(rr.OrdinaryRefused))))
		}
	}
	room := Lines - len(head) - len(checks) - 2 // "findings:" and the last line
	var body []string
	shown := 0
	for _, f := range r.Findings {
		lines := wrap(f.Mark()+" "+strings.Replace(f.Says, f.Rule, shortRule(f.Rule), 1), Width, "  ", 5)
		if len(body)+len(lines) > room-min(len(table), room/2) {
			break
		}
		body = append(body, lines...)
		shown++
	}
	rest := room - len(body)
	tail := "--format json: every rule's clients, kinds and times"
	if left := len(r.Findings) - shown; left > 0 {
		tail = fmt.Sprintf("%s, and every rule's clients, in --format json", plural(int64(left), "more finding", "more findings"))
	}
	if len(table) > rest {
		table = table[:max(rest, 0)]
		tail = strings.Replace(tail, "every rule's", "every rule, its", 1)
	}
	out := append(append(head, "findings:"), body...)
	out = append(out, table...)
	out = append(out, checks...)
	out = append(out, cut(tail))
	_, err := io.WriteString(w, strings.Join(out, "\n")+"\n")
	return err
}

// WriteJSON writes the whole report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(printable.JSONWriter(w))
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// shortRule is a rule as the text names it: its file's place without the
// folders ("conf/nginx.conf:14 limit_req zone=login" is "nginx.conf:14
// limit_req zone=login"); the JSON has it whole.
func shortRule(rule string) string {
	place, rest, ok := strings.Cut(rule, " ")
	if !ok || !strings.Contains(place, ":") {
		return rule
	}
	return filepath.Base(place) + " " + rest
}

// cut makes s one line of at most Width columns, printable.
func cut(s string) string { return cutTo(s, Width) }

func cutTo(s string, n int) string {
	s = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", " ").Replace(printable.String(s)) // one line
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return format.Clip(s, n)
}

// wrap breaks s into lines of at most width columns (format.Wrap), the later
// ones indented, at most most lines (the last cut with …), escaped.
func wrap(s string, width int, indent string, most int) []string {
	lines := format.Wrap(printable.String(s), width-len(indent))
	for i := 1; i < len(lines); i++ {
		lines[i] = indent + lines[i]
	}
	if len(lines) > most {
		lines = lines[:most]
		lines[most-1] = format.Clip(lines[most-1]+" …", width)
	}
	for i := range lines {
		lines[i] = cutTo(lines[i], width)
	}
	return lines
}
