package present

import (
	"io"
	"slices"

	"ratelab/algorithms"
	"ratelab/sim"
)

// The HTTP rate-limit headers a lane's responses send, in the lane's family
// (algorithms.HeaderFamily): in the UI for the focused lane's latest decision,
// and as columns of the request CSV when asked for (ratelab run --headers).

// ResponseHeaders are the headers of the response to the decision in row, as the
// row's lane sends them. Each policy the request was held to is a quota: the
// key's tier for a plain lane (its name the tier's); the shard that decided for a
// sharded lane (its policy the shard's share: that is what decided); every limit
// that was asked for a multi-limit lane, under its own name. A lane with no
// limit (algorithm none) sends none.
func ResponseHeaders(cfg *sim.Config, row sim.Row) []algorithms.Header {
	lane := cfg.Lanes[row.Lane]
	info, _ := algorithms.Lookup(lane.Algorithm)
	if info.Shape == algorithms.ShapeNone || !info.SendsHeaders(lane.Options) {
		return nil // no limiter, or a product that sends none: no rate-limit fields
	}
	tier := cfg.Keys[row.Key].Tier
	d := algorithms.Decision{Allowed: row.Allowed, Remaining: row.Remaining, Limit: row.Limit, RetryAfter: row.RetryAfter, ResetAfter: row.ResetAfter}
	var quotas []algorithms.Quota
	switch {
	case lane.MultiLimit():
		for i, ld := range row.Limits {
			if ld.Limit != 0 {
				quotas = append(quotas, algorithms.Quota{Name: lane.Limits[i].Name, Policy: lane.Limits[i].Policy, Decision: ld})
			}
		}
	case info.Windows != nil && len(row.Limits) > 0: // a product's windows, each answered (Kong's)
		for i, q := range info.Windows(lane.TierPolicy(cfg, tier), lane.Options) {
			if i < len(row.Limits) {
				q.Policy.Limit, q.Decision = row.Limits[i].Limit, row.Limits[i]
				quotas = append(quotas, q)
			}
		}
	case lane.Pieces() > 1 && row.Shard >= 0:
		p, _ := lane.PiecePolicy(cfg, tier, int(row.Shard))
		quotas = []algorithms.Quota{{Name: cfg.Tiers[tier].Name, Policy: p, Decision: d}}
	}
	if len(quotas) == 0 { // a plain lane, or no limit was asked (a WATCH that kept losing)
		quotas = []algorithms.Quota{{Name: cfg.Tiers[tier].Name, Policy: lane.TierPolicy(cfg, tier), Decision: d}}
	}
	return lane.Headers.Render(row.At, d, quotas)
}

// HeaderColumns are the columns the headers add to the request CSV: the fields of
// every family cfg's lanes send, in the order of algorithms.HeaderFamilies, each
// once, then Retry-After. A row fills its own lane's family's columns and leaves
// the others empty.
func HeaderColumns(cfg *sim.Config) []string {
	var names []string
	for f := range algorithms.HeaderFamilies {
		family := algorithms.HeaderFamily(f)
		if slices.ContainsFunc(cfg.Lanes, func(l sim.LaneConfig) bool { return l.Headers == family && sendsHeaders(l) }) {
			for _, name := range family.Names() {
				if name != "Retry-After" && !slices.Contains(names, name) {
					names = append(names, name) // X-RateLimit-Remaining is two families'
				}
			}
		}
	}
	return append(names, "Retry-After")
}

// sendsHeaders says lane l's family counts among the columns: all but a
// product's that sends no rate-limit headers (algorithms.Info.NoHeaders). The
// no-limit lane's family still counts, as it always has, though its cells are
// empty.
func sendsHeaders(l sim.LaneConfig) bool {
	info, _ := algorithms.Lookup(l.Algorithm)
	return info.SendsHeaders(l.Options)
}

// NewRequestWriterWithHeaders is NewRequestWriter with the response headers of
// every decision appended as columns after the others (HeaderColumns).
func NewRequestWriterWithHeaders(w io.Writer, cfg *sim.Config) (*RequestWriter, error) {
	return newRequestWriter(w, cfg, HeaderColumns(cfg))
}

// appendHeaders appends a row's header cells, one per column, each after a comma.
func (rw *RequestWriter) appendHeaders(b []byte, row *sim.Row) []byte {
	cells := rw.headerCells[:0]
	for range rw.headerCols {
		cells = append(cells, "")
	}
	for _, h := range ResponseHeaders(rw.cfg, *row) {
		if i := slices.Index(rw.headerCols, h.Name); i >= 0 {
			cells[i] = h.Value
		}
	}
	for _, c := range cells {
		b = append(b, ',')
		b = append(b, CSVField(c)...)
	}
	rw.headerCells = cells
	return b
}
