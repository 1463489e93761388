package tune

import (
	"cmp"
	"context"
	"slices"
	"time"

	"ratelab/internal/format"
)

// KeyDenials are what one policy (or pair) denied each key of a trace: how
// many requests, the first denial's time (µs from the trace's origin, -1 for
// none), and how many at or after Cut (µs; the back-test's holdout).
type KeyDenials struct {
	Denied []int32
	First  []int64
	After  []int32
	Cut    int64
}

// DenialsOf replays the trace through p and counts each key's denials, those
// at or after cut (µs from the origin) apart.
func DenialsOf(t *Trace, p Limits, cut int64) (*KeyDenials, error) {
	return denialsOf(t, p, cut, false)
}

// denialsOf is DenialsOf, with one limit over every key together when
// global.
func denialsOf(t *Trace, p Limits, cut int64, global bool) (*KeyDenials, error) {
	c, err := t.Classify(nil)
	if err != nil {
		return nil, err
	}
	n := len(t.Keys)
	kd := &KeyDenials{Denied: make([]int32, n), First: make([]int64, n), After: make([]int32, n), Cut: cut}
	for i := range kd.First {
		kd.First[i] = -1
	}
	for _, part := range t.parts() {
		blocks, err := part()
		if err != nil {
			return nil, err
		}
		r, err := newReplay(t, p, newKinds(t, c))
		if err != nil {
			return nil, err
		}
		r.keys, r.global = kd, global
		r.run(context.Background(), blocks)
		r.finish()
	}
	return kd, nil
}

// A Refusal is one client a limit refuses: its key, the User-Agent it gave,
// its kind and why, what it sent and what was refused, and when first, in
// the log's own time.
type Refusal struct {
	Key     string `json:"key"`
	Agent   string `json:"agent,omitempty"`
	Kind    string `json:"kind"`
	Why     string `json:"why,omitempty"`
	Abusive bool   `json:"abusive"`
	Sent    int64  `json:"sent"`
	Refused int64  `json:"refused"`
	FirstAt string `json:"first_refused"`
	firstUS int64
}

// Refusals are the clients p refuses on the report's trace (see refusals),
// and the denials they come from.
func (r *Report) Refusals(p Limits) ([]Refusal, *KeyDenials, error) {
	kd, err := DenialsOf(r.Trace, p, r.holdoutCut())
	if err != nil {
		return nil, nil, err
	}
	return r.refusals(kd), kd, nil
}

// refusals are the clients kd denies, the most refused first (then the
// earliest).
func (r *Report) refusals(kd *KeyDenials) []Refusal {
	var out []Refusal
	for k, d := range kd.Denied {
		if d == 0 {
			continue
		}
		out = append(out, r.refusal(k, int64(d), kd.First[k]))
	}
	slices.SortFunc(out, func(a, b Refusal) int {
		return cmp.Or(cmp.Compare(b.Refused, a.Refused), cmp.Compare(a.firstUS, b.firstUS), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// refusal describes key k, refused n requests, the first at µs first.
func (r *Report) refusal(k int, n, first int64) Refusal {
	t := r.Trace
	out := Refusal{Key: t.Keys[k], Sent: t.Volume[k], Refused: n, firstUS: first, FirstAt: t.When(first)}
	out.Kind, out.Why, out.Abusive = r.kindOf(k)
	if t.Profiles != nil {
		out.Agent = t.Profiles[k].Agent
	}
	return out
}

// kindOf is key k's kind, why, and whether it is abusive; "" without
// profiles.
func (r *Report) kindOf(k int) (string, string, bool) { return r.Classes.KindOf(r.Trace, k) }

// When is µs at (from the trace's origin) in the log's own time: a Common
// Log's 10/Oct/2000:13:55:36 -0700 in its zone, RFC 3339 for other dated
// logs, and an offset from the start (1h0m7s) for a log of offsets.
func (t *Trace) When(at int64) string {
	if at < 0 {
		return "-"
	}
	if !t.Stats.Dated {
		return "+" + format.Period((time.Duration(at) * time.Microsecond).Round(time.Millisecond))
	}
	when := time.UnixMicro(int64(t.origin/time.Microsecond) + at).UTC()
	if t.Stats.ZoneKnown {
		when = when.In(time.FixedZone("", t.Stats.Zone))
		return when.Format("02/Jan/2006:15:04:05 -0700")
	}
	return when.Format(time.RFC3339)
}
