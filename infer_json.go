package main

import (
	"math"

	"ratelab/infer"
)

// inferFamily is one family in infer's JSON.
type inferFamily struct {
	Family        string   `json:"family"`
	Variant       string   `json:"variant"`
	Consistent    bool     `json:"consistent"`
	Mismatches    int      `json:"mismatches"`
	Rate          *float64 `json:"rate_per_s,omitempty"`
	RateLow       *float64 `json:"rate_low,omitempty"`
	RateHigh      *float64 `json:"rate_high,omitempty"` // absent: unbounded
	Size          *int64   `json:"burst,omitempty"`
	SizeLow       *int64   `json:"burst_low,omitempty"`
	SizeHigh      *int64   `json:"burst_high,omitempty"` // absent: unbounded
	Window        *float64 `json:"window_s,omitempty"`
	WindowLow     *float64 `json:"window_low_s,omitempty"`
	WindowHigh    *float64 `json:"window_high_s,omitempty"`
	Align         string   `json:"align,omitempty"`
	RefusalsCount bool     `json:"refusals_count"`
	// Product is how a product writes the best fit, when one does.
	Product string `json:"product,omitempty"`
}

type inferOutput struct {
	Requests int           `json:"requests"`
	Refused  int           `json:"refused"`
	SpanS    float64       `json:"span_s"`
	Sent     *int          `json:"sent,omitempty"`
	Phases   []string      `json:"phases,omitempty"`
	Families []inferFamily `json:"families"`
	Next     *infer.Split  `json:"next,omitempty"`
	Claims   []infer.Claim `json:"claims,omitempty"`
}

func inferJSON(r *infer.Report, p *infer.Probed) inferOutput {
	out := inferOutput{Requests: r.Requests, Refused: r.Refused, SpanS: r.Span.Seconds(), Next: r.Next, Claims: r.Claims}
	if p != nil {
		out.Sent, out.Phases = &p.Sent, p.Phases
	}
	for _, f := range r.Families {
		j := inferFamily{Family: string(f.Family), Variant: f.Name(), Consistent: f.Consistent(), Mismatches: f.Mismatch, Align: f.Align, RefusalsCount: f.RefusalsCount}
		if f.Consistent() {
			g, size := f.Best()
			rlo, rhi := f.Rate()
			blo, bhi := f.Burst()
			rate := infer.RateOf(f)
			j.Rate, j.RateLow, j.Size, j.SizeLow = &rate, &rlo, &size, &blo
			j.Product = infer.ProductWords(f, g, size)
			if !math.IsInf(rhi, 0) {
				j.RateHigh = &rhi
			}
			if bhi != infer.Unbounded {
				j.SizeHigh = &bhi
			}
			if wlo, whi := f.Window(); whi > 0 {
				j.Window, j.WindowLow, j.WindowHigh = &g, &wlo, &whi
			}
		}
		if f.Mismatch == math.MaxInt {
			j.Mismatches = -1
		}
		out.Families = append(out.Families, j)
	}
	return out
}
