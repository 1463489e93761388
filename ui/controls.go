package ui

import (
	"fmt"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ratelab/present/format"
	"ratelab/sim"
)

// controls are the live traffic controls: requests sent by hand (x, X, for the key
// k cycles to), a client's rate (c picks the client, < > change its rate), its retry
// policy (R), the clock-skew fix of every token-bucket lane (F), a backend glitch
// (G). Each is an input made at the current virtual time in every lane alike (see
// sim.Input) and recorded by the runner, so the session replays exactly and saves
// as a scenario file (S).
type controls struct {
	client int // the client < > and R change
	key    int // the hand client's key x and X send for
	rates  map[int]float64
	retry  map[int]int // index into retryChoices, per client changed
	fix    sim.ClockFix
	glitch bool
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
	*c = controls{rates: map[int]float64{}, retry: map[int]int{}}
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

// rate is client ci's rate now.
func (c *controls) rate(cfg *sim.Config, ci int) float64 {
	if r, ok := c.rates[ci]; ok {
		return r
	}
	return rateOf(cfg.Clients[ci])
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

// line is the controls' status: what each key changes, and its value now.
func (c *controls) line(cfg *sim.Config, recorded int) string {
	if cfg == nil || len(cfg.Clients) == 0 {
		return ""
	}
	cl := cfg.Clients[c.client]
	s := ""
	if h := handClient(cfg); h >= 0 {
		s = fmt.Sprintf("x/X send 1/10 for %s (k: next key) · ", cfg.Keys[cfg.Clients[h].Keys[c.key]].Name)
	}
	rate := "no rate"
	if r := c.rate(cfg, c.client); r >= 0 {
		rate = fmt.Sprintf("%s/s (< >)", compactFloat(r))
	}
	retry := retryName(cl.Retry)
	if i, ok := c.retry[c.client]; ok {
		retry = retryChoices[i].name
	}
	s += fmt.Sprintf("c: client %s %s · R retry %s · F clock fix %s", cl.Name, rate, retry, c.fix)
	if cfg.Backend != nil {
		glitch := "off"
		if c.glitch {
			glitch = "on"
		}
		s += " · G glitch " + glitch
	}
	return s + fmt.Sprintf(" · %d recorded (S saves)", recorded)
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
		return nil
	case key.Matches(msg, k.NextKey):
		if h := handClient(cfg); h >= 0 {
			c.key = (c.key + 1) % len(cfg.Clients[h].Keys)
		}
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
		now := c.rate(cfg, c.client)
		if now < 0 {
			m.status, m.statusBad = fmt.Sprintf("client %s sends by pattern %q, which has no rate to change; c picks another", cfg.Clients[c.client].Name, cfg.Clients[c.client].Pattern), true
			return nil
		}
		in = sim.Input{Kind: sim.InputRate, Client: c.client, Rate: nextRate(now, key.Matches(msg, k.ClientFaster))}
		c.rates[c.client] = in.Rate
	case key.Matches(msg, k.Retry):
		next := 0
		if i, ok := c.retry[c.client]; ok {
			next = (i + 1) % len(retryChoices)
		} else {
			for i, choice := range retryChoices {
				if choice.retry.Policy == cfg.Clients[c.client].Retry.Policy {
					next = (i + 1) % len(retryChoices)
				}
			}
		}
		c.retry[c.client] = next
		in = sim.Input{Kind: sim.InputRetry, Client: c.client, Retry: retryChoices[next].retry}
	case key.Matches(msg, k.Fix):
		c.fix = (c.fix + 1) % 3
		in = sim.Input{Kind: sim.InputClockFix, Fix: c.fix}
	case key.Matches(msg, k.Glitch):
		if cfg.Backend == nil {
			m.status, m.statusBad = "this scenario has no backend to glitch", true
			return nil
		}
		c.glitch = !c.glitch
		in = sim.Input{Kind: sim.InputGlitch, Glitch: c.glitch}
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
