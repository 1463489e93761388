package ui

import (
	"fmt"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"ratelab/internal/format"
	"ratelab/scenarios"
	"ratelab/sim"
)

// controls are the live traffic controls: requests sent by hand (x, X, for the key
// k cycles to), a client's rate (c picks the client, < > change its rate), its retry
// policy (R), the clock-skew fix of every token-bucket lane (F), a backend glitch
// (G). Each is an input made at the current virtual time in every lane alike (see
// sim.Input) and recorded by the runner, so the session replays exactly and saves
// as a scenario file (S). What the controls hold is only which client and key the
// keys act on: the values shown are those in force at the time shown (settings),
// worked out from the inputs, so going back in time shows them as they were then.
type controls struct {
	client int // the client < > and R change
	key    int // the hand client's key x and X send for
}

// settings are the values of the live controls in force at a time: each
// client's rate and retry policy where an input changed them, the clock fix,
// the glitch.
type settings struct {
	rates  map[int]float64
	retry  map[int]sim.Retry
	fix    sim.ClockFix
	glitch bool
}

// settingsOf folds inputs, in the order made, into the settings they leave.
func settingsOf(inputs []sim.Input) settings {
	s := settings{rates: map[int]float64{}, retry: map[int]sim.Retry{}}
	for _, in := range inputs {
		switch in.Kind {
		case sim.InputRate:
			s.rates[in.Client] = in.Rate
		case sim.InputRetry:
			s.retry[in.Client] = in.Retry
		case sim.InputClockFix:
			s.fix = in.Fix
		case sim.InputGlitch:
			s.glitch = in.Glitch
		}
	}
	return s
}

// retryChoices are the retry policies R cycles through.
var retryChoices = []struct {
	name  string
	retry sim.Retry
}{
	{"none", sim.Retry{Policy: sim.RetryNone, MaxAttempts: 1}},
	{"immediate", sim.Retry{Policy: sim.RetryImmediate, Delay: 100 * time.Millisecond, Cap: 10 * time.Second, MaxAttempts: 8, OnDeny: true, OnError: true}},
	{"exponential, full jitter", sim.Retry{Policy: sim.RetryExponential, Delay: 100 * time.Millisecond, Cap: 5 * time.Second, Jitter: sim.JitterFull, MaxAttempts: 8, OnDeny: true, OnError: true}},
	{"honour Retry-After", sim.Retry{Policy: sim.RetryHonour, Delay: 100 * time.Millisecond, Cap: 10 * time.Second, MaxAttempts: 8, OnDeny: true, OnError: true}},
}

// reset sets the controls for cfg's clients: the first one whose rate can change
// (a hand client first), its first key.
func (c *controls) reset(cfg *sim.Config) {
	*c = controls{}
	if cfg == nil {
		return
	}
	if h := handClient(cfg); h >= 0 {
		c.client = h
		return
	}
	for i, cl := range cfg.Clients {
		if rateOf(cl) >= 0 {
			c.client = i
			return
		}
	}
}

// handClient is the first hand client of cfg, or -1.
func handClient(cfg *sim.Config) int {
	for i, cl := range cfg.Clients {
		if _, ok := cl.Pattern.(sim.Hand); ok {
			return i
		}
	}
	return -1
}

// rateOf is a client's configured rate in requests per second, -1 when its pattern
// has none to change.
func rateOf(cl sim.Client) float64 {
	switch p := cl.Pattern.(type) {
	case sim.Constant:
		return p.Rate
	case sim.Poisson:
		return p.Rate
	case sim.Ramp:
		return p.From
	case sim.Hand:
		return 0
	}
	return -1
}

// rate is client ci's rate under s.
func (s settings) rate(cfg *sim.Config, ci int) float64 {
	if r, ok := s.rates[ci]; ok && rateOf(cfg.Clients[ci]) >= 0 {
		return r
	}
	return rateOf(cfg.Clients[ci])
}

// retryOf is client ci's retry policy under s, and its name.
func (s settings) retryOf(cfg *sim.Config, ci int) (sim.Retry, string) {
	r, ok := s.retry[ci]
	if !ok {
		r = cfg.Clients[ci].Retry
	}
	for _, choice := range retryChoices {
		if choice.retry == r {
			return r, choice.name
		}
	}
	return r, retryName(r)
}

// nextRate is the rate one step up (×1.5, from 0 to 1 a second) or down (÷1.5,
// to 0 below 1 a second).
func nextRate(r float64, up bool) float64 {
	switch {
	case up && r <= 0:
		return 1
	case up:
		return roundRate(r * 1.5)
	case r/1.5 < 1:
		return 0
	}
	return roundRate(r / 1.5)
}

// roundRate keeps a rate readable: three significant digits.
func roundRate(r float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
	return v
}

// line is the controls' status: what each key changes, and its value in force
// under s; then how many inputs are recorded in all, and how many of those are
// later than the time shown (after going back: they replay as the run plays on).
// When that is wider than width, a short form keeps every value and the count
// (at 80 columns the long one would lose its end to the ellipsis).
func (c *controls) line(cfg *sim.Config, s settings, recorded, later, width int) string {
	if cfg == nil || len(cfg.Clients) == 0 {
		return ""
	}
	cl := cfg.Clients[c.client]
	rate := "no rate"
	if r := s.rate(cfg, c.client); r >= 0 {
		rate = fmt.Sprintf("%s/s (< >)", compactFloat(r))
	}
	_, retry := s.retryOf(cfg, c.client)
	glitch := ""
	if cfg.Backend != nil {
		glitch = "off"
		if s.glitch {
			glitch = "on"
		}
	}
	hand := ""
	if h := handClient(cfg); h >= 0 {
		hand = cfg.Keys[cfg.Clients[h].Keys[c.key]].Name
	}

	out := ""
	if hand != "" {
		out = fmt.Sprintf("x/X send 1/10 for %s (k: next key) · ", hand)
	}
	labelled := fmt.Sprintf("c: client %s %s · R retry %s · F clock fix %s", cl.Name, rate, retry, s.fix)
	if glitch != "" {
		labelled += " · G glitch " + glitch
	}
	if later > 0 {
		out += labelled + fmt.Sprintf(" · %d inputs recorded in all, %d later than now (S saves)", recorded, later)
	} else {
		out += labelled + fmt.Sprintf(" · %d inputs recorded (S saves)", recorded)
	}
	if width <= 0 || lipgloss.Width(out) <= width {
		return out
	}

	inputs := "inputs"
	if recorded == 1 {
		inputs = "input"
	}
	count := fmt.Sprintf(" · %d %s", recorded, inputs)
	if later > 0 {
		count += fmt.Sprintf(", %d after now", later)
	}
	short := ""
	if hand != "" {
		short = fmt.Sprintf("x/X %s (k) · ", hand)
	}
	if labels := short + labelled + count; lipgloss.Width(labels) <= width { // the labels, not the help's (S saves)
		return labels
	}
	short += fmt.Sprintf("c %s %s · R %s · F %s", cl.Name, rate, retry, s.fix)
	if glitch != "" {
		short += " · G " + glitch
	}
	return short + count
}

// retryName names a configured retry policy.
func retryName(r sim.Retry) string {
	switch r.Policy {
	case sim.RetryImmediate:
		return "immediate"
	case sim.RetryFixed:
		return "fixed"
	case sim.RetryExponential:
		return "exponential"
	case sim.RetryHonour:
		return "honour Retry-After"
	}
	return "none"
}

// control handles a live traffic control's key: it makes an input now (see
// controls), or saves the session.
func (m *Model) control(msg tea.KeyPressMsg) tea.Cmd {
	k, r, c := m.keys, &m.runner, &m.ctl
	cfg := r.cfg
	if cfg == nil {
		return nil
	}
	var in sim.Input
	set := r.settings()
	ended := r.done() && !r.seeking
	switch {
	case key.Matches(msg, k.Save):
		return m.save()
	case key.Matches(msg, k.Client):
		for n := 1; n <= len(cfg.Clients); n++ {
			if next := (c.client + n) % len(cfg.Clients); rateOf(cfg.Clients[next]) >= 0 || n == len(cfg.Clients) {
				c.client = next
				break
			}
		}
		if ended {
			m.status, m.statusBad = fmt.Sprintf("client %s picked, but %s", cfg.Clients[c.client].Name, m.endedHint()), false
		}
		return nil
	case key.Matches(msg, k.NextKey):
		if h := handClient(cfg); h >= 0 {
			c.key = (c.key + 1) % len(cfg.Clients[h].Keys)
		}
		return nil
	case ended:
		// an input at the run's end acts on nothing: it is not recorded
		m.status, m.statusBad = fmt.Sprintf("%s changes nothing now: %s", msg.String(), m.endedHint()), true
		return nil
	case key.Matches(msg, k.Send, k.Send10):
		h := handClient(cfg)
		if h < 0 {
			m.status, m.statusBad = "this scenario has no hand client to send for; open the sandbox (s, then sandbox)", true
			return nil
		}
		in = sim.Input{Kind: sim.InputSend, Client: h, Key: c.key, Count: 1, Cost: cfg.Clients[h].Cost.Fixed}
		if key.Matches(msg, k.Send10) {
			in.Count = 10
		}
	case key.Matches(msg, k.ClientFaster, k.ClientSlower):
		now := set.rate(cfg, c.client)
		if now < 0 {
			m.status, m.statusBad = fmt.Sprintf("client %s has pattern = %q, which has no rate to change; c picks another", cfg.Clients[c.client].Name, sim.PatternName(cfg.Clients[c.client].Pattern)), true
			return nil
		}
		in = sim.Input{Kind: sim.InputRate, Client: c.client, Rate: nextRate(now, key.Matches(msg, k.ClientFaster))}
		if n := scenarios.RateOffer(&cfg.Clients[c.client], m.runner.now(), in.Rate); !(n <= scenarios.MaxOffered) {
			m.status, m.statusBad = fmt.Sprintf("client %s at %g/s would send about %.3g requests by its stop; ratelab replays at most %d: < slows it", cfg.Clients[c.client].Name, in.Rate, n, scenarios.MaxOffered), true
			return nil
		}
	case key.Matches(msg, k.Retry):
		now, _ := set.retryOf(cfg, c.client)
		next := 0
		for i, choice := range retryChoices {
			if choice.retry.Policy == now.Policy {
				next = (i + 1) % len(retryChoices)
			}
		}
		in = sim.Input{Kind: sim.InputRetry, Client: c.client, Retry: retryChoices[next].retry}
	case key.Matches(msg, k.Fix):
		in = sim.Input{Kind: sim.InputClockFix, Fix: (set.fix + 1) % 3}
	case key.Matches(msg, k.Glitch):
		if cfg.Backend == nil {
			m.status, m.statusBad = "this scenario has no backend to glitch", true
			return nil
		}
		in = sim.Input{Kind: sim.InputGlitch, Glitch: !set.glitch}
	}
	at := r.now()
	discarded, cmd, err := r.addInput(in)
	switch {
	case err != nil:
		m.status, m.statusBad = err.Error(), true
	case discarded > 0:
		what := fmt.Sprintf("the %d inputs", discarded)
		if discarded == 1 {
			what = "the input"
		}
		m.status, m.statusBad = fmt.Sprintf("went back in time: discarded %s recorded after %s", what, format.Duration(at)), false
	}
	return cmd
}

// endedHint says what can be done once the run has ended, where an input
// would act on nothing: go back to an earlier time and make it there, or
// restart the run (r), which replays the inputs recorded at their times.
func (m *Model) endedHint() string {
	n := len(m.runner.recorded)
	replay := ""
	switch {
	case n == 1:
		replay = ", replaying the input recorded"
	case n > 1:
		replay = fmt.Sprintf(", replaying the %d inputs recorded", n)
	}
	return fmt.Sprintf("the run has ended; ← or g goes back to an earlier time to make a change there, r restarts the run%s", replay)
}

// save writes the session as a scenario file beside the exports.
func (m *Model) save() tea.Cmd {
	r := &m.runner
	if r.snap == nil {
		return nil
	}
	path, name, err := r.catalogue.WriteSession(r.name(), r.overrides(), r.cfgWithInputs().Inputs, m.export.dir)
	if err != nil {
		m.status, m.statusBad = "save failed: "+err.Error(), true
		return nil
	}
	m.status, m.statusBad = fmt.Sprintf("saved the session: ratelab run --file %s --scenario %s", path, name), false
	return nil
}
