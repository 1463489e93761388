package products

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
)

// Target is what ratelab tune --target writes for a product: its lane
// (Info.Name) swept with the knobs the product writes beside the rate and the
// burst, over the periods it writes, one limit at a time (a layered pair would
// be two limit_req, two rules or two plugins, whose counting differs from a
// pair's), and the snippet that writes the recommendation in its syntax.
type Target struct {
	// Variants are the knobs swept with each policy; none: the lane's
	// defaults.
	Variants []Variant
	// Periods are those swept when --periods gives none; nil: tune's own
	// (1s, 1m, 1h, and 1d for a log of more than three days).
	Periods []time.Duration
	// Writable names the periods the product writes ("rate=Nr/s or
	// rate=Nr/m (1s, 1m)"), and Period says whether it writes d.
	Writable string
	Period   func(d time.Duration) bool
	// MaxLimit and MaxBurst are the largest rate and burst its fields hold;
	// MaxBurst 0: it has no burst (a window), and --burst is refused.
	MaxLimit, MaxBurst int64
	// Delays says the product can hold a request rather than refuse it: the
	// snippet then says when the recommendation delays none.
	Delays bool
	// Write writes the recommendation's lines, with what they are and where
	// they go, and notes the key when the product has none for the log's. The
	// lines are the product's own syntax, to paste into a configuration, which
	// List.Read reads back to the same parameters; a YAML or JSON product's
	// are a whole document, read back (by its content, or with the product
	// named) to one lane of one limit. Where the product has no way to key a
	// limit by the log's field, they hold a placeholder (KEY) to replace.
	Write func(b *strings.Builder, s Snippet)
}

// Variant is a way tune's grid sets each policy's knobs, from its burst and
// its period (tune.Variant, which the products cannot import: tune's tests
// read scenarios, which read the products): nginx's nodelay, delay=N at half
// its burst, where HAProxy's track-sc0 sits, Cloudflare's mitigation_timeout
// in periods. ratelab tune converts it (tune.Variant(v)): the compiler holds
// the two alike.
type Variant struct {
	Nodelay           bool
	DelayHalf         bool
	TrackSC           algorithms.HAProxyTrack
	MitigationPeriods int64
}

// Snippet is what a Target's Write is given: the sentence it opens with, the
// recommended policy (in words, as tune writes it: "nginx 3/min burst 270
// nodelay"; its limit, period and burst; the options its knobs set), the
// log's keys (how many, and what they are) and the product.
type Snippet struct {
	Lead     string
	Words    string
	Policy   algorithms.Policy
	Options  algorithms.Options
	Keys     int64
	TraceKey string
	Product  *Info
}

// Heading writes the snippet's opening: "The recommendation, POLICY, as
// PRODUCT writes it (why) WHERE:".
func (s Snippet) Heading(b *strings.Builder, why, where string) {
	fmt.Fprintf(b, "%s, %s, as %s writes it (%s). %s:\n\n", s.Lead, s.Words, s.Product, why, where)
}

// NoKey writes the note for a log's key the product has no way to key by.
func (s Snippet) NoKey(b *strings.Builder, ok bool, placeholder, what string) {
	if !ok {
		fmt.Fprintf(b, "\n(%s has no %s for the log's %s: write for %s the one that carries it.)\n", s.Product, what, s.TraceKey, placeholder)
	}
}

// Lines writes lines indented, one a line.
func Lines(b *strings.Builder, ls []string) {
	for _, l := range ls {
		fmt.Fprintf(b, "    %s\n", l)
	}
}

// EveryPeriod says every period is one the product writes.
func EveryPeriod(time.Duration) bool { return true }

// OneOf says d is one of ds.
func OneOf(ds ...time.Duration) func(time.Duration) bool {
	return func(d time.Duration) bool { return slices.Contains(ds, d) }
}
