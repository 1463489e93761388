package present

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/printable"
	"ratelab/sim"
)

// Report is the comparison as JSON, for scripts: durations in milliseconds, ratios
// as fractions.
type Report struct {
	Scenario   string       `json:"scenario"`
	Title      string       `json:"title"`
	Seed       uint64       `json:"seed"`
	DurationMS float64      `json:"duration_ms"`
	Policy     string       `json:"policy"`
	Lanes      []LaneReport `json:"lanes"`
	Lesson     string       `json:"lesson,omitempty"`
	Claims     []ClaimJSON  `json:"claims,omitempty"`
	// Questions are the lesson's questions with the run's answers.
	Questions []QuestionJSON `json:"questions,omitempty"`
	// Traces say what each trace client replayed and what it skipped.
	Traces []sim.TraceReport `json:"traces,omitempty"`
	// HeavyKeys are a trace replay's heavy hitters, as ratelab tune classes
	// them (see sim.Classes)
	HeavyKeys []string `json:"heavy_keys,omitempty"`
}

// ClaimJSON is a claim and its result in Report.
type ClaimJSON struct {
	ID       string    `json:"id"`
	Says     string    `json:"says"`
	Holds    bool      `json:"holds"`
	Metric   string    `json:"metric"`
	Op       string    `json:"op"`
	Lanes    []string  `json:"lanes"`
	Got      []float64 `json:"got"`
	Want     []float64 `json:"want"`
	Adjusted bool      `json:"written_for_another_policy,omitempty"`
	// Undefined, only when a lane's value is a ratio over 0 (see sim.ClaimResult).
	Undefined []bool `json:"undefined,omitempty"`
}

// LaneReport is one lane's metrics in Report: every field of sim.Metrics under its
// json tag, durations in milliseconds (their tags say _ms), then the verdict.
type LaneReport struct {
	sim.Metrics
	Verdict string
}

// MarshalJSON writes the report's fields in sim.Metrics' order, from sim.Metrics' tags, so
// a metric added there is in the JSON without being copied here.
func (r LaneReport) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	v := reflect.ValueOf(r.Metrics)
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || opts == "omitempty" && v.Field(i).IsZero() || f.Tag.Get("ratelab") == "deployment" && !r.Metrics.Deployed() {
			continue
		}
		value := v.Field(i).Interface()
		if d, ok := value.(time.Duration); ok {
			value = format.Millis(d)
		}
		if err := writeMember(&b, name, value); err != nil {
			return nil, err
		}
		b.WriteByte(',')
	}
	if err := writeMember(&b, "verdict", r.Verdict); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeMember writes "name":value.
func writeMember(b *bytes.Buffer, name string, value any) error {
	k, _ := json.Marshal(name)
	v, err := json.Marshal(value)
	if err != nil {
		return err
	}
	b.Write(k)
	b.WriteByte(':')
	b.Write(v)
	return nil
}

// WriteJSON prints the comparison as an indented Report, with the lesson and its
// claims judged on the run, its questions and the run's answers, and what each
// trace client replayed.
func WriteJSON(w io.Writer, cfg *sim.Config, ms []sim.Metrics, claims []sim.ClaimResult, answers []sim.Answer) error {
	r := Report{Scenario: cfg.Name, Title: cfg.Title, Seed: cfg.Seed, DurationMS: format.Millis(cfg.Duration), Policy: Describe(cfg), Lesson: cfg.Lesson, Traces: sim.TraceReports(cfg), HeavyKeys: HeavyKeys(cfg)}
	for _, m := range ms {
		r.Lanes = append(r.Lanes, LaneReport{Metrics: m, Verdict: Verdict(cfg, m)})
	}
	for _, c := range claims {
		j := ClaimJSON{ID: c.ID, Says: c.Says, Holds: c.Holds, Metric: c.Metric, Op: c.Op, Got: c.Got, Want: c.Want, Adjusted: c.Adjusted}
		for _, l := range c.Lanes {
			j.Lanes = append(j.Lanes, cfg.Lanes[l].Name)
		}
		if slices.Contains(c.Undefined, true) {
			j.Undefined = c.Undefined
		}
		r.Claims = append(r.Claims, j)
	}
	r.Questions = questionsJSON(cfg, answers)
	enc := json.NewEncoder(printable.JSONWriter(w))
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
