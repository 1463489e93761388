package scenarios

import (
	"encoding"
	"fmt"
	"time"

	"github.com/pelletier/go-toml/v2"

	"ratelab/algorithms"
	"ratelab/traces"
)

// TraceReplay is a scenario that replays a request log through chosen lanes,
// what ratelab run --trace and tui --trace run: built from the schema's own
// types and written as a scenario file (Text), so it is read back, checked and
// compiled as any file is.
type TraceReplay struct {
	Title, Lesson string
	Seed          uint64
	WatchKey      string
	// HeavyKeys are the keys the sweep classed as heavy hitters, and
	// TypicalKey an ordinary key of median volume (see Scenario.HeavyKeys).
	HeavyKeys  []string
	TypicalKey string
	// Policy is the scenario's default policy (the first lane's).
	Policy TraceLimit
	Lanes  []TraceLane
	// Product and ConfigFile, when set, add the lanes of a product's
	// configuration (--config), read from the file.
	Product, ConfigFile string
	Log                 TraceLog
}

// TraceLane is a lane of a trace replay: one limit, or several each request is
// held to, all or nothing, each keeping its state under its own key.
type TraceLane struct {
	Name   string
	Limits []TraceLimit
}

// TraceLimit is one limit: an algorithm's policy, a name for it and a key
// template ("" for the request's own key), both for a limit of several.
type TraceLimit struct {
	Name      string
	Algorithm algorithms.Name
	Policy    algorithms.Policy
	Key       string
}

// TraceLog is the log replayed and how it is read (see traces.Options).
type TraceLog struct {
	File                       string
	Format                     traces.Format
	ReorderWindow              time.Duration
	Key, TimeField, TimeFormat string
	CostField                  string
	Spread                     bool // each request spread over its second
	// Exclude are the requests left out, as --exclude writes them
	Exclude []string
}

// Text is the replay as a scenario file of one scenario, named "trace".
func (t TraceReplay) Text() ([]byte, error) {
	s := Scenario{Name: "trace", Title: t.Title, Lesson: t.Lesson, Seed: &t.Seed, WatchKey: t.WatchKey,
		HeavyKeys: t.HeavyKeys, TypicalKey: t.TypicalKey,
		Policy: &PolicySpec{Limit: t.Policy.Policy.Limit, Period: Duration{t.Policy.Policy.Period}, Burst: t.Policy.Policy.Burst}}
	for _, l := range t.Lanes {
		lane := LaneSpec{Name: l.Name}
		if len(l.Limits) == 1 {
			p := l.Limits[0]
			lane.Algorithm = AlgorithmOf(p.Algorithm)
			lane.Limit, lane.Period, lane.Burst = &p.Policy.Limit, &Duration{p.Policy.Period}, &p.Policy.Burst
		} else {
			lane.Combine = wordOf[Combine](algorithms.AllOrNothing.String())
			for _, p := range l.Limits {
				lane.Limits = append(lane.Limits, LimitSpec{Name: p.Name, Algorithm: AlgorithmOf(p.Algorithm),
					Limit: &p.Policy.Limit, Period: &Duration{p.Policy.Period}, Burst: &p.Policy.Burst, Key: p.Key})
			}
		}
		s.Lanes = append(s.Lanes, lane)
	}
	if t.Product != "" {
		s.Lanes = append(s.Lanes, LaneSpec{Product: wordOf[Product](t.Product), ConfigFile: t.ConfigFile})
	}
	log := ClientSpec{Name: "log", Pattern: wordOf[Pattern]("trace"), File: t.Log.File, Format: wordOf[TraceFormat](t.Log.Format.String()),
		ReorderWindow: &Duration{t.Log.ReorderWindow}, Key: t.Log.Key, TimeField: t.Log.TimeField, CostField: t.Log.CostField, Exclude: t.Log.Exclude}
	if t.Log.TimeFormat != "" {
		log.TimeFormat = wordOf[TimeFormat](t.Log.TimeFormat)
	}
	if t.Log.Spread {
		log.Spread = Spread{Mode: "uniform"} // traces.SpreadUniform
	}
	s.Clients = []ClientSpec{log}
	return toml.Marshal(File{Scenarios: []Scenario{s}})
}

// wordOf is a schema word read from its text, as a file writes it: the words
// passed here are ratelab's own, so one it does not read is a bug.
func wordOf[T any, PT interface {
	*T
	encoding.TextUnmarshaler
}](text string) T {
	var v T
	if err := PT(&v).UnmarshalText([]byte(text)); err != nil {
		panic(fmt.Sprintf("scenarios: %q: %v", text, err))
	}
	return v
}
