package traces

import (
	"fmt"
	"strconv"
	"strings"
)

// Detail is what a log line says about a request besides its time, key and
// cost, read when Options.Details asks (or an exclusion needs it): the method,
// the path without its query string, the response status and the User-Agent,
// as the line writes them. A field the line does not have is empty (Status 0):
// the Common Log has no User-Agent; JSON Lines and CSV give them in fields or
// columns named method, path (or url), status and user_agent (or agent).
// Agent and Method are interned: a log has few distinct ones.
type Detail struct {
	Method, Path, Agent string
	Status              int
}

// detailFields are the JSON Lines fields and CSV columns a Detail is read
// from, first name first.
var detailFields = struct{ method, path, status, agent []string }{
	method: []string{"method"},
	path:   []string{"path", "url"},
	status: []string{"status"},
	agent:  []string{"user_agent", "agent", "ua"},
}

// An Exclusion drops the requests whose Field matches Pattern before anything
// counts them (Stats.Excluded says how many): static assets limited apart, or
// a monitor's User-Agent. Field is path, agent, method or status; Pattern is
// a glob in which * is any run of characters (slashes too) and ? any one, and
// an agent's and a method's are matched without regard to case. Field
// "assets" (no pattern) is every path IsAsset says is a page's asset.
type Exclusion struct {
	Field, Pattern string
}

// AssetPatterns are the paths ParseExclusions' "assets" stands for: the files
// a browser pulls with a page (style, script, images, fonts, icons).
var AssetPatterns = []string{"*.css", "*.js", "*.mjs", "*.map", "*.png", "*.jpg", "*.jpeg", "*.gif", "*.webp", "*.avif", "*.svg", "*.ico", "*.woff", "*.woff2", "*.ttf", "*.otf", "*.eot"}

// IsAsset says a path is one of AssetPatterns' (its query string removed).
func IsAsset(path string) bool {
	path = strings.ToLower(withoutQuery(path))
	for _, p := range AssetPatterns {
		if strings.HasSuffix(path, p[1:]) {
			return true
		}
	}
	return false
}

// withoutQuery is a path without its query string.
func withoutQuery(path string) string {
	if q := strings.IndexByte(path, '?'); q >= 0 {
		return path[:q]
	}
	return path
}

// ParseExclusions reads --exclude: comma-separated FIELD=GLOB (path=/static/*,
// agent=*UptimeRobot*, method=OPTIONS, status=304), or "assets" for the paths
// of AssetPatterns, whatever their case.
func ParseExclusions(s string) ([]Exclusion, error) {
	var out []Exclusion
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if part == "assets" {
			out = append(out, Exclusion{Field: "assets"})
			continue
		}
		field, pattern, ok := strings.Cut(part, "=")
		field, pattern = strings.TrimSpace(field), strings.TrimSpace(pattern)
		switch {
		case !ok || pattern == "":
			return nil, fmt.Errorf("%q is not FIELD=GLOB (path=/static/*, agent=*bot*) or assets", part)
		case field != "path" && field != "agent" && field != "method" && field != "status":
			return nil, fmt.Errorf("%q: the field is path, agent, method or status (got %q)", part, field)
		}
		out = append(out, Exclusion{Field: field, Pattern: pattern})
	}
	return out, nil
}

// String is the exclusion as --exclude writes it.
func (e Exclusion) String() string {
	if e.Field == "assets" {
		return "assets"
	}
	return e.Field + "=" + e.Pattern
}

// matches says the request's detail matches e.
func (e Exclusion) matches(d *Detail) bool {
	switch e.Field {
	case "assets":
		return IsAsset(d.Path)
	case "path":
		return glob(e.Pattern, d.Path, false)
	case "agent":
		return glob(e.Pattern, d.Agent, true)
	case "method":
		return glob(e.Pattern, d.Method, true)
	case "status":
		return glob(e.Pattern, strconv.Itoa(d.Status), false)
	}
	return false
}

// excluded says an exclusion drops d.
func excluded(es []Exclusion, d *Detail) bool {
	for _, e := range es {
		if e.matches(d) {
			return true
		}
	}
	return false
}

// glob matches s against pattern, * any run of bytes and ? any one, case
// folded (ASCII) when fold; iterative, with one backtracking point, so linear
// in practice and never exponential.
func glob(pattern, s string, fold bool) bool {
	eq := func(a, b byte) bool {
		if fold {
			if 'A' <= a && a <= 'Z' {
				a += 'a' - 'A'
			}
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
		}
		return a == b
	}
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && (pattern[p] == '?' || eq(pattern[p], s[i])):
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// internBytes interns a detail's method or agent in the reader's table.
func (r *Reader) internBytes(b []byte) string {
	if s, ok := r.details[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.details) < maxInterned {
		r.details[s] = s
	}
	return s
}

// maxInterned bounds the methods and agents interned: a log that writes a new
// User-Agent on every line does not grow the table past it.
const maxInterned = 1 << 16

// statusOf reads a status as a field gives it: 404, "404", 404.0; 0 for
// anything else (a word, a fraction, out of 100 to 999).
func statusOf(v string) int {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f != float64(int(f)) || f < 100 || f > 999 {
		return 0
	}
	return int(f)
}
