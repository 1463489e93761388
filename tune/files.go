package tune

// The sweep as files: the grid as CSV, a row per policy, and everything as JSON.

import (
	"encoding/json"
	"io"
	"strconv"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/printable"
)

// CSVColumns is the grid CSV's header.
const CSVColumns = "algorithm,limit,period_ms,burst,requests,denied,denied_share,median_key_denied,p99_key_denied,ordinary_denied,heavy_admitted,heaviest_offered_per_s,heaviest_admitted_per_s,peak_state_bytes,retry_after_p50_ms,retry_after_p99_ms,never,meets_goal,recommended,long_algorithm,long_limit,long_period_ms,long_burst,options,delayed,delayed_share,delay_p50_ms,delay_p99_ms"

// WriteCSV writes one row per policy, in grid order.
func (r *Report) WriteCSV(w io.Writer) error {
	var b []byte
	b = append(b, CSVColumns+"\n"...)
	f := func(v float64) { b = strconv.AppendFloat(b, v, 'g', 6, 64); b = append(b, ',') }
	for i, res := range r.Results {
		b = append(b, res.Algorithm...)
		b = append(b, ',')
		b = strconv.AppendInt(b, res.Limit, 10)
		b = append(b, ',')
		f(float64(res.Period) / float64(time.Millisecond))
		b = strconv.AppendInt(b, res.Burst, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, res.Requests, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, res.Denied, 10)
		b = append(b, ',')
		for _, v := range []float64{res.DeniedShare, res.MedianKeyDenied, res.P99KeyDenied, res.OrdinaryDenied, res.HeavyAdmitted, res.HeaviestOffered, res.HeaviestAdmitted} {
			f(v)
		}
		b = strconv.AppendInt(b, res.PeakStateBytes, 10)
		b = append(b, ',')
		f(float64(res.RetryAfterP50) / float64(time.Millisecond))
		f(float64(res.RetryAfterP99) / float64(time.Millisecond))
		b = strconv.AppendInt(b, res.Never, 10)
		b = append(b, ',')
		b = strconv.AppendBool(b, r.Goal.Meets(res))
		b = append(b, ',')
		b = strconv.AppendBool(b, i == r.Best)
		if res.Layered() {
			b = append(b, ',')
			b = append(b, res.Long.Algorithm...)
			b = append(b, ',')
			b = strconv.AppendInt(b, res.Long.Limit, 10)
			b = append(b, ',')
			f(float64(res.Long.Period) / float64(time.Millisecond))
			b = strconv.AppendInt(b, res.Long.Burst, 10)
		} else {
			b = append(b, ",,,,"...)
		}
		// a target's knobs and delays (columns appended after the others)
		b = append(b, ',')
		b = append(b, res.Knobs.String()...)
		b = append(b, ',')
		b = strconv.AppendInt(b, res.Delayed, 10)
		b = append(b, ',')
		f(res.DelayedShare)
		f(float64(res.DelayP50) / float64(time.Millisecond))
		b = strconv.AppendFloat(b, float64(res.DelayP99)/float64(time.Millisecond), 'g', 6, 64)
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

// jsonResult is a Result in JSON: durations in milliseconds.
type jsonResult struct {
	Algorithm        string  `json:"algorithm"`
	Limit            int64   `json:"limit"`
	PeriodMS         float64 `json:"period_ms"`
	Burst            int64   `json:"burst"`
	Requests         int64   `json:"requests"`
	Denied           int64   `json:"denied"`
	DeniedShare      float64 `json:"denied_share"`
	MedianKeyDenied  float64 `json:"median_key_denied"`
	P99KeyDenied     float64 `json:"p99_key_denied"`
	OrdinaryDenied   float64 `json:"ordinary_denied"`
	HeavyAdmitted    float64 `json:"heavy_admitted"`
	HeaviestOffered  float64 `json:"heaviest_offered_per_s"`
	HeaviestAdmitted float64 `json:"heaviest_admitted_per_s"`
	PeakStateBytes   int64   `json:"peak_state_bytes"`
	RetryAfterP50MS  float64 `json:"retry_after_p50_ms"`
	RetryAfterP99MS  float64 `json:"retry_after_p99_ms"`
	Never            int64   `json:"never"`
	MeetsGoal        bool    `json:"meets_goal"`
	// the second limit of a layered pair
	Long *jsonPolicy `json:"long,omitempty"`
	// per period classed over (trace.timescales' order): the share of the
	// requests of the keys standing out over it admitted
	OverAdmitted []float64 `json:"standouts_admitted"`
	// a target's knobs (nodelay, delay=N, after-deny), and the requests it
	// delayed (nginx without nodelay): how many, their shares, how long
	Options         string  `json:"options,omitempty"`
	Delayed         int64   `json:"delayed,omitempty"`
	DelayedShare    float64 `json:"delayed_share,omitempty"`
	OrdinaryDelayed float64 `json:"ordinary_delayed,omitempty"`
	HeavyDelayed    float64 `json:"heavy_delayed,omitempty"`
	DelayP50MS      float64 `json:"delay_p50_ms,omitempty"`
	DelayP99MS      float64 `json:"delay_p99_ms,omitempty"`
}

// jsonPolicy is a layered pair's second limit.
type jsonPolicy struct {
	Algorithm string  `json:"algorithm"`
	Limit     int64   `json:"limit"`
	PeriodMS  float64 `json:"period_ms"`
	Burst     int64   `json:"burst"`
}

// jsonTimescale is one period the keys were classed over.
type jsonTimescale struct {
	PeriodMS  float64  `json:"period_ms"`
	P99Peak   int64    `json:"p99_key_peak"`
	Standouts []string `json:"standout_keys"`
	Peaks     []int64  `json:"standout_peaks"`
}

// jsonFrontier is one period's frontier (or the layered pairs'): the least
// share of the heavy hitters' requests admitted by a policy denying ordinary
// keys at most each share of frontierAt.
type jsonFrontier struct {
	Period         string    `json:"period"`
	OrdinaryAtMost []float64 `json:"ordinary_denied_at_most"`
	HeavyAdmitted  []float64 `json:"heavy_admitted"`
}

// frontiers are the frontier table's rows.
func (r *Report) frontiers() []jsonFrontier {
	out := []jsonFrontier{}
	row := func(name string, keep func(Result) bool) {
		var of []Result
		for _, res := range r.Results {
			if keep(res) {
				of = append(of, res)
			}
		}
		if len(of) == 0 {
			return
		}
		f := jsonFrontier{Period: name, OrdinaryAtMost: frontierAt}
		for _, x := range frontierAt {
			f.HeavyAdmitted = append(f.HeavyAdmitted, minHeavy(of, x))
		}
		out = append(out, f)
	}
	for _, o := range r.Classes.Over {
		row(format.Period(o.Period), func(res Result) bool { return !res.Layered() && res.Period == o.Period })
	}
	row("layered", Result.Layered)
	return out
}

// WriteJSON writes the report as one JSON object: the trace, the goal, every
// policy's result in grid order, and the recommendation (its index, or -1).
func (r *Report) WriteJSON(w io.Writer) error {
	t, c := r.Trace, r.Classes
	out := struct {
		Trace struct {
			File      string  `json:"file"`
			Format    string  `json:"format,omitempty"`
			Layout    string  `json:"format_layout,omitempty"`
			FormatBy  string  `json:"format_by,omitempty"`
			Requests  int64   `json:"requests"`
			Keys      int     `json:"keys"`
			SpanMS    float64 `json:"span_ms"`
			Unparsed  int64   `json:"unparsed"`
			Heavy     int     `json:"heavy_keys"`
			Heaviest  string  `json:"heaviest_key"`
			MedianVol int64   `json:"median_key_requests"`
			P99Vol    int64   `json:"p99_key_requests"`
			ByVolume  bool    `json:"heavy_by_volume"`
			// Resolution is the coarsest timestamp, in ms (1000 for a log)
			ResolutionMS float64         `json:"resolution_ms"`
			Timescales   []jsonTimescale `json:"timescales"`
		} `json:"trace"`
		Goal        string       `json:"goal"`
		Policies    []jsonResult `json:"policies"`
		Recommended int          `json:"recommended"`
		Why         string       `json:"why"`
		Advice      string       `json:"advice"`
		// Answer is the answer tune prints first: the recommendation, whom
		// it refuses, the layered alternative, the back-test
		Answer   *Answer        `json:"answer,omitempty"`
		Frontier []jsonFrontier `json:"frontier"`
	}{Goal: r.Goal.String(), Recommended: r.Best, Why: r.Why, Advice: r.Advice()}
	if r.Trace.Replayable() { // not a report merged from partials
		a, err := r.Answer()
		if err != nil {
			return err
		}
		out.Answer = a
	}
	out.Frontier = r.frontiers()
	if t.Format.Layout != "" { // read from a file, not made in memory
		out.Trace.Format, out.Trace.Layout, out.Trace.FormatBy = t.Format.Format.String(), t.Format.Layout, t.Format.By.String()
	}
	out.Trace.File, out.Trace.Requests, out.Trace.Keys, out.Trace.SpanMS, out.Trace.Unparsed = t.Name, t.Count, t.KeyCount, float64(t.Span)/float64(time.Millisecond), t.Stats.Unparsed
	if t.KeyCount > 0 {
		out.Trace.Heavy, out.Trace.Heaviest, out.Trace.MedianVol, out.Trace.P99Vol = c.HeavyCount, t.Keys[c.Heaviest], t.Volume[c.Median], t.Volume[c.P99]
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	out.Trace.ByVolume, out.Trace.ResolutionMS = c.ByVolume, ms(t.Stats.Resolution)
	out.Trace.Timescales = []jsonTimescale{}
	for _, o := range c.Over {
		ts := jsonTimescale{PeriodMS: ms(o.Period), P99Peak: o.Typical, Standouts: []string{}, Peaks: []int64{}}
		for i, k := range o.Keys {
			ts.Standouts, ts.Peaks = append(ts.Standouts, t.Keys[k]), append(ts.Peaks, o.Peaks[i])
		}
		out.Trace.Timescales = append(out.Trace.Timescales, ts)
	}
	out.Policies = []jsonResult{}
	for _, res := range r.Results {
		j := jsonResult{string(res.Algorithm), res.Limit, ms(res.Period), res.Burst, res.Requests, res.Denied, res.DeniedShare,
			res.MedianKeyDenied, res.P99KeyDenied, res.OrdinaryDenied, res.HeavyAdmitted, res.HeaviestOffered, res.HeaviestAdmitted,
			res.PeakStateBytes, ms(res.RetryAfterP50), ms(res.RetryAfterP99), res.Never, r.Goal.Meets(res), nil, res.OverAdmitted[:len(c.Over)], "", 0, 0, 0, 0, 0, 0}
		if res.Layered() {
			j.Long = &jsonPolicy{string(res.Long.Algorithm), res.Long.Limit, ms(res.Long.Period), res.Long.Burst}
		}
		j.Options, j.Delayed, j.DelayedShare, j.OrdinaryDelayed, j.HeavyDelayed = res.Knobs.String(), res.Delayed, res.DelayedShare, res.OrdinaryDelayed, res.HeavyDelayed
		j.DelayP50MS, j.DelayP99MS = ms(res.DelayP50), ms(res.DelayP99)
		out.Policies = append(out.Policies, j)
	}
	enc := json.NewEncoder(printable.JSONWriter(w))
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
