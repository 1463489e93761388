package kong

import (
	"fmt"
	"strings"

	"ratelab/algorithms"
	"ratelab/products"
)

// pluginYAML writes l as a declarative configuration's rate-limiting plugin, on
// every service (at the top): its windows, its policy, its error_code when it
// is not 429, and limit_by ip for ip, consumer (Kong's default) for user;
// Kong's limit_by path is one path, not a count per path.
func pluginYAML(l Limit, key string) ([]string, bool) {
	lines := []string{`_format_version: "3.0"`, "plugins:", "  - name: rate-limiting", "    config:"}
	for w, n := range l.Windows {
		if n > 0 {
			lines = append(lines, fmt.Sprintf("      %s: %d", algorithms.KongWindowNames[w], n))
		}
	}
	lines = append(lines, "      policy: "+l.Policy)
	if l.Status != 0 && l.Status != 429 {
		lines = append(lines, fmt.Sprintf("      error_code: %d", l.Status))
	}
	switch strings.TrimSpace(key) {
	case "ip", "host":
		return append(lines, "      limit_by: ip"), true
	case "user":
		return append(lines, "      limit_by: consumer"), true
	}
	return append(lines, "      limit_by: header", "      header_name: KEY"), false
}

// write writes the recommendation: the plugin with one window.
func write(b *strings.Builder, s products.Snippet) {
	res := s.Policy
	l := Limit{Policy: "local", Status: 429}
	w, _ := algorithms.KongWindowOf(res.Period)
	l.Windows[w] = res.Limit
	ls, ok := pluginYAML(l, s.TraceKey)
	s.Heading(b, "one window; policy local counts on each node, not the refused requests", "In the declarative configuration (kong.yml)")
	products.Lines(b, ls)
	s.NoKey(b, ok, "KEY", "limit_by")
}
