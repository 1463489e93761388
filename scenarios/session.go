package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"ratelab/internal/atomicfile"
	"ratelab/sim"
)

// A recorded session is a scenario as it was played — the command line's and the
// UI's changes to it applied — plus what the person did: the requests sent by hand
// and the changes made live. WriteSession writes it as a scenario file that
// `ratelab run --file F --scenario NAME-session` replays exactly: the requests sent
// by hand as a hand client's file beside it (the trace format), the changes as
// [[scenario.change]] tables, and the files of its trace clients copied beside it
// (the scenario may come from the embedded catalogue).

// WriteSession writes scenario name, compiled with o, with the run's inputs, as
// <dir>/<name>-session.toml and the files it needs beside it, each written whole or
// not at all. It returns the scenario file's path and the name to run.
func (c *Catalogue) WriteSession(name string, o Overrides, inputs []sim.Input, dir string) (path, session string, err error) {
	i, err := c.Index(name)
	if err != nil {
		return "", "", err
	}
	cfg, err := c.Compile(name, o)
	if err != nil {
		return "", "", err
	}
	spec, err := copyScenario(c.Scenarios[i])
	if err != nil {
		return "", "", err
	}
	session = name + "-session"
	spec.Name, spec.Title = session, strings.TrimSpace(spec.Title+" (recorded session)")
	applyOverrides(&spec, cfg, o)
	files := map[string][]byte{} // name beside the scenario file → content
	for ci := range spec.Clients {
		cl := &spec.Clients[ci]
		if cl.Pattern.Value() == patternTrace {
			data, err := readAll(c.Source, cl.File)
			if err != nil {
				return "", "", fmt.Errorf("copying the trace of client %q: %w", cl.Name, err)
			}
			ext := filepath.Ext(cl.File)
			if strings.EqualFold(ext, ".gz") { // keep what the format is told by: access.log.gz
				ext = filepath.Ext(strings.TrimSuffix(cl.File, ext)) + ext
			}
			copied := fmt.Sprintf("%s-%s%s", session, safeName(cl.Name), ext)
			files[copied], cl.File = data, copied
		}
	}
	sends := map[int]*bytes.Buffer{}
	spec.Changes = nil
	for _, in := range inputs {
		switch in.Kind {
		case sim.InputSend:
			b := sends[in.Client]
			if b == nil {
				b = bytes.NewBufferString("time_ms,key,cost\n")
				sends[in.Client] = b
			}
			key := csvQuote(cfg.Keys[cfg.Clients[in.Client].Keys[in.Key]].Name)
			for n := 0; n < in.Count; n++ {
				fmt.Fprintf(b, "%s,%s,%d\n", millisText(in.At), key, in.Cost)
			}
		default:
			spec.Changes = append(spec.Changes, changeOf(in, cfg))
		}
	}
	for ci := range spec.Clients {
		cl := &spec.Clients[ci]
		if cl.Pattern.Value() != patternHand {
			continue
		}
		cl.File = ""
		if b := sends[ci]; b != nil {
			file := fmt.Sprintf("%s-%s-sent.csv", session, safeName(cl.Name))
			files[file], cl.File = b.Bytes(), file
		}
	}
	text, err := toml.Marshal(File{Scenarios: []Scenario{spec}})
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, session+".toml")
	files[session+".toml"] = append([]byte("# A session recorded in ratelab's UI; replay it with\n# ratelab run --file "+filepath.Base(path)+" --scenario "+session+"\n"), text...)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := writeWhole(filepath.Join(dir, n), files[n]); err != nil {
			return "", "", err
		}
	}
	return path, session, nil
}

// copyScenario is a deep copy of s (through its TOML form).
func copyScenario(s Scenario) (Scenario, error) {
	text, err := toml.Marshal(File{Scenarios: []Scenario{s}})
	if err != nil {
		return s, err
	}
	var f File
	if err := toml.Unmarshal(text, &f); err != nil {
		return s, err
	}
	return f.Scenarios[0], nil
}

// applyOverrides writes the command line's and the UI's overrides into spec, so
// it compiles without them to what cfg is.
func applyOverrides(spec *Scenario, cfg *sim.Config, o Overrides) {
	seed := cfg.Seed
	spec.Seed = &seed
	if o.Limit > 0 || o.Burst > 0 {
		written := *spec.Policy
		p := cfg.Tiers[0].Policy
		spec.Policy.Limit, spec.Policy.Burst = p.Limit, p.Burst
		for li := range spec.Lanes {
			l := &spec.Lanes[li]
			if l.Limit != nil && l.Burst == nil && written.Burst == 0 && o.Burst == 0 {
				burst := *l.Limit // what the lane's burst was by default
				l.Burst = &burst
			}
		}
	}
	if len(o.Lanes) > 0 {
		kept := []LaneSpec{}
		for _, lc := range cfg.Lanes {
			found := false
			for _, l := range spec.Lanes {
				name := l.Name
				if name == "" {
					name = l.Algorithm.String()
				}
				if name == lc.Name {
					kept, found = append(kept, l), true
					break
				}
			}
			if !found {
				kept = append(kept, LaneSpec{Name: lc.Name, Algorithm: AlgorithmOf(lc.Algorithm)})
			}
		}
		spec.Lanes = kept
	}
}

// changeOf is a non-send input as a [[scenario.change]] table.
func changeOf(in sim.Input, cfg *sim.Config) ChangeSpec {
	ch := ChangeSpec{At: Duration{in.At}}
	switch in.Kind {
	case sim.InputRate:
		rate := in.Rate
		ch.Client, ch.Rate = cfg.Clients[in.Client].Name, &rate
	case sim.InputRetry:
		ch.Client, ch.Retry = cfg.Clients[in.Client].Name, retrySpecOf(in.Retry)
	case sim.InputClockFix:
		ch.ClockFix = ClockFix{choiceOf(in.Fix, clockFixes)}
	case sim.InputGlitch:
		glitch := in.Glitch
		ch.Glitch = &glitch
	case sim.InputStore:
		ch.Store = StoreEvent{choiceOf(in.Store, storeEvents)}
	case sim.InputScale:
		n := in.Instances
		ch.Lane, ch.Instances = cfg.Lanes[in.Lane].Name, &n
	case sim.InputPartition:
		cut := make([]int, len(in.Slots))
		for j, i := range in.Slots {
			cut[j] = i + 1
		}
		ch.Lane, ch.Partition = cfg.Lanes[in.Lane].Name, &cut
	case sim.InputRestart:
		replaced := make([]int, len(in.Slots))
		for j, i := range in.Slots {
			replaced[j] = i + 1
		}
		ch.Lane, ch.Restart = cfg.Lanes[in.Lane].Name, &replaced
	}
	return ch
}

// retrySpecOf writes a retry policy as a scenario file says it.
func retrySpecOf(r sim.Retry) *RetrySpec {
	s := &RetrySpec{
		Policy: RetryPolicy{choiceOf(r.Policy, retryPolicies)},
		Delay:  Duration{r.Delay}, Cap: Duration{r.Cap}, MaxAttempts: r.MaxAttempts,
		Jitter: RetryJitter{choiceOf(r.Jitter, retryJitters)}, HonourRateLimit: r.HonourRateLimit,
	}
	deny, fails := RetryOn{choiceOf(retryOnDeny, retryOns)}, RetryOn{choiceOf(retryOnError, retryOns)}
	if r.OnDeny {
		s.On = append(s.On, deny)
	}
	if r.OnError {
		s.On = append(s.On, fails)
	}
	if len(s.On) == 0 {
		s.On = []RetryOn{deny} // none retries nothing whatever it says
	}
	if b := r.Budget; b != nil {
		percent, least := b.Percent, b.MinPerSecond
		s.Budget = &BudgetSpec{Percent: &percent, MinPerSecond: &least, TTL: &Duration{b.TTL}}
	}
	if t := r.Throttle; t != nil {
		s.Throttle = &ThrottleSpec{MaxTokens: t.MaxTokens, TokenRatio: t.TokenRatio}
	}
	if a := r.Adaptive; a != nil {
		k := a.K
		s.Adaptive = &AdaptiveSpec{K: &k, Window: &Duration{a.Window}}
	}
	if e := r.Envoy; e != nil {
		percent, least := e.BudgetPercent, e.MinRetryConcurrency
		s.EnvoyBudget = &EnvoyBudgetSpec{BudgetPercent: &percent, MinRetryConcurrency: &least}
	}
	return s
}

// millisText writes d in milliseconds, exactly (microseconds as decimals).
func millisText(d time.Duration) string {
	us := int64(d / time.Microsecond)
	return strconv.FormatInt(us/1000, 10) + "." + fmt.Sprintf("%03d", us%1000)
}

// csvQuote quotes a CSV field when it must be.
func csvQuote(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") || strings.TrimSpace(s) != s {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// safeName is name fit for a file name.
func safeName(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
}

// readAll reads a file named in a catalogue.
func readAll(src Source, name string) ([]byte, error) {
	rc, err := src.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// writeWhole writes data to path, whole or not at all.
func writeWhole(path string, data []byte) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}
