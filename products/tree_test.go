package products

import (
	"fmt"
	"strings"
	"testing"
)

// The YAML, JSON and TOML parsers are bounded, before any recursion of
// ratelab's: yaml.v3 and go-toml refuse more than 10,000 levels, the
// conversion to ratelab's tree (tree.go, tomltree.go) more than maxDepth, and
// encoding/json's Token recurses into nothing. A million levels, 2 to 5 MB,
// are refused at a line, in milliseconds. (A haproxy.cfg does not nest: its
// reader goes line by line.)
func TestDeepDocumentsAreRefused(t *testing.T) {
	const n = 1_000_000
	for _, c := range []struct {
		parse func(name string, data []byte) (*Node, error)
		text  string
		says  string
	}{
		{ParseYAML, "stat_prefix: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n", "exceeded max depth"},
		{ParseYAML, "plugins: " + strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) + "\n", "exceeded max depth"},
		{ParseJSON, strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n), fmt.Sprintf("nested more than %d deep", maxDepth)},
		{ParseJSON, `{"throttle":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}", fmt.Sprintf("nested more than %d deep", maxDepth)},
		{ParseTOML, "[http.middlewares.m.rateLimit]\naverage = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n", "nested more than the maximum"},
		{ParseTOML, "[http.middlewares.m.rateLimit]\naverage = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n", "nested more than the maximum"},
	} {
		_, err := c.parse("deep", []byte(c.text))
		if err == nil || !strings.HasPrefix(err.Error(), "deep:") || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%.20s…, nested %d deep: %v; want an error at its line saying %q", c.text, n, err, c.says)
		}
	}
}

// A YAML document whose aliases name aliases many times over (a few hundred
// bytes that would expand to 9^10 nodes) is refused at once, not expanded
// until memory runs out.
func TestYAMLAliasBombRefused(t *testing.T) {
	doc := "a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 10; i++ {
		doc += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), ", "))
	}
	doc += "plugins:\n- name: rate-limiting\n  config: {minute: 6, policy: local}\n"
	_, err := ParseYAML("kong.yml", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), "aliases expand to more than") {
		t.Fatalf("ParseYAML(a billion laughs) = %v, want a refusal of the aliases' expansion", err)
	}
}
